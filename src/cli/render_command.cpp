// cli/render_command: `tokbench render slurm|kube -- RUN FLAGS` — a cluster's job for a multi-host
// run (render/), after the flags are parsed as `run` parses them (a typo fails here, not on the
// cluster) and checked against what a run of that many ranks cannot do.
#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "cli/commands.hpp"
#include "render/render.hpp"
#include "settings/run_config.hpp"

namespace tokbench::cli {

namespace {

// The run's flags as `tokbench run` reads them, for `ranks` ranks; throws std::invalid_argument
// naming each problem.
void check_run_flags(const std::vector<std::string>& args, int ranks) {
  CLI::App scratch;
  std::function<int()> unused;
  const auto cfg = add_run(scratch, unused);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 reads from the back
  reversed.push_back("run");
  try {
    scratch.parse(reversed);
  } catch (const CLI::ParseError& e) {
    std::string why = e.what();
    const CLI::App* run = scratch.get_subcommand("run");
    for (const std::string& a : args) {  // a typo: the flag it is near, as `run` itself says
      if (!a.starts_with("--") || a.size() < 3) continue;
      const std::string name =
          a.substr(2, a.find('=') == std::string::npos ? a.npos : a.find('=') - 2);
      if (run->get_option_no_throw("--" + name)) continue;
      const std::string near = closest_option(*run, name);
      why = near.empty() ? fmt::format("unknown option --{}", name)
                         : fmt::format("unknown option --{}: did you mean --{}?", name, near);
      break;
    }
    throw std::invalid_argument(
        fmt::format("render: the run's flags (after --): {} (`tokbench run --help`)", why));
  }
  const auto problems = cfg->multi_host_problems(ranks);
  if (!problems.empty()) {
    std::string text;
    for (const std::string& p : problems) text += "\n  " + p;
    throw std::invalid_argument(
        fmt::format("render: a run of {} ranks cannot run so:{}", ranks, text));
  }
}

void add_common(CLI::App* cmd, render::LaunchSpec& s, const char* hosts_flag,
                const char* hosts_help, const char* ranks_flag, const char* ranks_help) {
  cmd->add_option("--name", s.name, "the job's name")->capture_default_str();
  cmd->add_option("--binary", s.binary, "where tokbench is on the load hosts")
      ->capture_default_str();
  cmd->add_option(hosts_flag, s.hosts, hosts_help)
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option(ranks_flag, s.ranks_per_host, ranks_help)
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("run-flags", s.run_args,
                  "after --: the flags of `tokbench run` (its --url first)");
}

}  // namespace

void add_render(CLI::App& app, std::function<int()>& action) {
  auto* render = app.add_subcommand(
      "render",
      "write a cluster's job for a multi-host run: an sbatch script or a Kubernetes MPIJob");
  render->require_subcommand(1);

  auto slurm = std::make_shared<render::SlurmSpec>();
  auto* s = render->add_subcommand(
      "slurm",
      "an sbatch script that runs `tokbench run FLAGS` on --nodes × --tasks-per-node ranks");
  add_common(s, *slurm, "--nodes", "nodes of the allocation", "--tasks-per-node",
             "ranks on each node (one per 1–4 cores)");
  s->add_option("--time", slurm->time, "the job's time limit")->capture_default_str();
  s->add_option("--partition", slurm->partition, "the partition (default: the cluster's)");
  s->add_option("--account", slurm->account, "the account to charge");
  s->add_flag("--mpirun", slurm->use_mpirun,
              "start the ranks with mpirun inside the allocation (default: srun --mpi=pmix)");
  s->callback([&action, slurm] {
    action = [slurm] {
      check_run_flags(slurm->run_args, slurm->ranks());
      fmt::print("{}", render::render_slurm(*slurm));
      return 0;
    };
  });

  auto kube = std::make_shared<render::KubeSpec>();
  auto* k = render->add_subcommand(
      "kube",
      "a Kubeflow MPI Operator MPIJob (v2beta1), or a JobSet, that runs `tokbench run FLAGS`");
  add_common(k, *kube, "--workers", "worker pods", "--slots-per-worker",
             "ranks in each worker pod");
  // The job's name becomes its pods' host names (a JobSet's: NAME-worker-I-0.NAME).
  k->get_option("--name")->check(CLI::Validator(
      [](std::string& name) {
        const bool ok =
            !name.empty() && name.size() <= 40 &&
            name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos &&
            name.front() != '-' && name.back() != '-';
        return ok ? std::string()
                  : fmt::format(
                        "'{}' is not a Kubernetes name: use up to 40 lowercase letters, "
                        "digits and '-', starting and ending with a letter or digit",
                        name);
      },
      "NAME"));
  k->add_option("--image", kube->image, "the image with tokbench, Open MPI and sshd")->required();
  k->add_option("--cpu", kube->cpu, "each worker's CPUs (request and limit)")
      ->capture_default_str();
  k->add_option("--memory", kube->memory, "each worker's memory (request and limit)")
      ->capture_default_str();
  k->add_option("--volume-claim", kube->claim,
                "the PersistentVolumeClaim (ReadWriteMany) the run folder is written to")
      ->capture_default_str();
  k->add_option("--mount", kube->mount, "where the workers mount it")->capture_default_str();
  k->add_option("--ssh-path", kube->ssh_path, "the MPIJob's sshAuthMountPath")
      ->capture_default_str();
  k->add_flag("--jobset", kube->jobset, "a JobSet (jobset.x-k8s.io/v1alpha2) instead of an MPIJob");
  k->callback([&action, kube] {
    action = [kube] {
      kube->run_args = render::with_output_under(kube->run_args, kube->mount);
      check_run_flags(kube->run_args, kube->ranks());
      fmt::print("{}", render::render_kube(*kube));
      return 0;
    };
  });
}

}  // namespace tokbench::cli
