#include "render/render.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "common/json_writer.hpp"

namespace tokbench::render {

namespace {

// A YAML scalar that reads back as exactly `s`: a JSON string (YAML 1.2 reads it as one).
std::string yq(std::string_view s) {
  JsonWriter w;
  w.value(s);
  return w.take();
}

// A YAML flow sequence of strings: ["a", "b"].
std::string yseq(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + yq(items[i]);
  return out + "]";
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + shell_quote(a);
  return out;
}

// What was rendered from, as one comment line: a line break inside a flag's value (a JSON
// --extra-body) is written \n there, or the rest of the value would be read as a command.
std::string provenance(const LaunchSpec& s) {
  std::string flags;
  for (const char c : command_line(s.run_args))
    flags += c == '\n' ? std::string("\\n") : c == '\r' ? std::string("\\r") : std::string(1, c);
  return fmt::format("# Rendered by `tokbench render` from: tokbench run {}\n", flags);
}

// The worker: sshd in the foreground, for the launcher's mpirun to start its ranks through.
std::string worker_container(const KubeSpec& s, const std::string& indent) {
  std::string out;
  out += fmt::format("{}- name: worker\n", indent);
  out += fmt::format("{}  image: {}\n", indent, yq(s.image));
  out += fmt::format("{}  command: {}\n", indent, yseq({"/usr/sbin/sshd", "-De"}));
  out += fmt::format("{}  resources:\n", indent);
  for (const char* kind : {"requests", "limits"})
    out +=
        fmt::format("{}    {}: {{cpu: {}, memory: {}}}\n", indent, kind, yq(s.cpu), yq(s.memory));
  out += fmt::format("{}  volumeMounts:\n{}  - {{name: results, mountPath: {}}}\n", indent, indent,
                     yq(s.mount));
  return out;
}

std::string results_volume(const KubeSpec& s, const std::string& indent) {
  return fmt::format(
      "{}volumes:\n{}- name: results\n{}  persistentVolumeClaim: {{claimName: {}}}\n", indent,
      indent, indent, yq(s.claim));
}

std::string mpijob(const KubeSpec& s) {
  std::string out = provenance(s);
  out += "apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\n";
  out += fmt::format("metadata:\n  name: {}\n", yq(s.name));
  out += fmt::format("spec:\n  slotsPerWorker: {}\n", s.ranks_per_host);
  out += "  runPolicy:\n    cleanPodPolicy: Running\n    backoffLimit: 0\n";
  out += fmt::format("  sshAuthMountPath: {}\n  mpiImplementation: OpenMPI\n", yq(s.ssh_path));
  out += "  mpiReplicaSpecs:\n";
  out +=
      "    Launcher:\n      replicas: 1\n      template:\n        spec:\n          containers:\n";
  out += fmt::format("          - name: launcher\n            image: {}\n", yq(s.image));
  out += fmt::format("            command: {}\n", yseq(mpirun_argv(s)));
  out += fmt::format("    Worker:\n      replicas: {}\n      template:\n        spec:\n", s.hosts);
  out += "          containers:\n" + worker_container(s, "          ");
  out += results_volume(s, "          ");
  return out;
}

// The JobSet form: a launcher Job and a workers Job whose pods have stable names
// (<jobset>-worker-<i>-0.<jobset>), which the launcher's mpirun lists as its hosts. The set
// succeeds when the launcher does.
std::string jobset(const KubeSpec& s) {
  std::vector<std::string> argv = mpirun_argv(s);
  std::string hosts;
  for (int i = 0; i < s.hosts; ++i)
    hosts +=
        fmt::format("{}{}-worker-{}-0.{}:{}", i ? "," : "", s.name, i, s.name, s.ranks_per_host);
  argv.insert(argv.begin() + 1, {"--host", hosts});
  std::string out = provenance(s);
  out += "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n";
  out += fmt::format("metadata:\n  name: {}\n", yq(s.name));
  out += "spec:\n  network:\n    enableDNSHostnames: true\n";
  out += "  successPolicy:\n    operator: All\n    targetReplicatedJobs: [\"launcher\"]\n";
  out += "  replicatedJobs:\n";
  out += "  - name: launcher\n    replicas: 1\n    template:\n      spec:\n";
  out += "        parallelism: 1\n        completions: 1\n        backoffLimit: 0\n";
  out += "        template:\n          spec:\n            restartPolicy: Never\n";
  out += "            containers:\n";
  out += fmt::format("            - name: launcher\n              image: {}\n", yq(s.image));
  out += fmt::format("              command: {}\n", yseq(argv));
  out += fmt::format("  - name: worker\n    replicas: {}\n    template:\n      spec:\n", s.hosts);
  out += "        parallelism: 1\n        completions: 1\n        backoffLimit: 0\n";
  out += "        template:\n          spec:\n            restartPolicy: Never\n";
  out += "            containers:\n" + worker_container(s, "            ");
  out += results_volume(s, "            ");
  return out;
}

}  // namespace

std::string shell_quote(std::string_view s) {
  const bool plain =
      !s.empty() && s.find_first_not_of(
                        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
                        "OPQRSTUVWXYZ0123456789-_./:=,@%+") == std::string_view::npos;
  if (plain) return std::string(s);
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> with_output_under(std::vector<std::string> args, const std::string& dir) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string value;
    if (args[i] == "--output-dir" && i + 1 < args.size())
      value = args[i + 1];
    else if (args[i].starts_with("--output-dir="))
      value = args[i].substr(13);
    else
      continue;
    if (value != dir && !value.starts_with(dir + "/"))
      throw std::invalid_argument(fmt::format(
          "--output-dir {} is outside the volume mounted at {}: the run folder would be written "
          "inside a pod and lost; leave --output-dir out (the run folder then goes to {}/outputs) "
          "or give one under {}",
          value, dir, dir, dir));
    return args;
  }
  args.insert(args.end(), {"--output-dir", dir + "/outputs"});
  return args;
}

std::vector<std::string> mpirun_argv(const LaunchSpec& s) {
  std::vector<std::string> argv{
      "mpirun", "--allow-run-as-root", "-np", std::to_string(s.ranks()), s.binary, "run"};
  argv.insert(argv.end(), s.run_args.begin(), s.run_args.end());
  return argv;
}

std::string render_slurm(const SlurmSpec& s) {
  std::string out = "#!/bin/bash\n";
  out += fmt::format("#SBATCH --job-name={}\n", s.name);
  out +=
      fmt::format("#SBATCH --nodes={}\n#SBATCH --ntasks-per-node={}\n", s.hosts, s.ranks_per_host);
  out += fmt::format("#SBATCH --time={}\n#SBATCH --output={}-%j.out\n", s.time, s.name);
  if (!s.partition.empty()) out += fmt::format("#SBATCH --partition={}\n", s.partition);
  if (!s.account.empty()) out += fmt::format("#SBATCH --account={}\n", s.account);
  out += provenance(s);
  out +=
      "# Rank 0 writes the run folder on its node (--output-dir there); the other ranks' records\n"
      "# reach it over MPI. Submit with: sbatch THIS_FILE\n";
  out += "set -euo pipefail\n";
  std::vector<std::string> argv;
  if (s.use_mpirun) {
    argv = {"mpirun", s.binary, "run"};  // mpirun reads the allocation's nodes and tasks
  } else {
    argv = {"srun", "--mpi=pmix", s.binary, "run"};
  }
  argv.insert(argv.end(), s.run_args.begin(), s.run_args.end());
  out += command_line(argv) + "\n";
  return out;
}

std::string render_kube(const KubeSpec& s) { return s.jobset ? jobset(s) : mpijob(s); }

}  // namespace tokbench::render
