// render/ and `tokbench render slurm|kube`: the sbatch script and the Kubernetes manifests a
// multi-host run is submitted with, parsed back (the manifests as YAML, with the fields the MPI
// Operator and JobSet require), the run's flags checked at render time, and the MPIJob's
// launcher command run here under mpirun against a loopback simulator: a VALID run folder on the
// volume the manifest names.
#include "render/render.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cluster/cluster.hpp"
#include "support/process.hpp"
#include "support/sim_process.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::render {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kRun{"--url",         "http://10.0.0.5:8000/v1/chat/completions",
                                    "--concurrency", "64",
                                    "--num-prompts", "640",
                                    "--max-tokens",  "256",
                                    "--ignore-eos"};

std::vector<std::string> with(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

std::vector<std::string> strings(const YAML::Node& seq) {
  std::vector<std::string> out;
  for (const auto& n : seq) out.push_back(n.as<std::string>());
  return out;
}

TEST(Render, ShellQuotingKeepsEveryArgumentOneWord) {
  EXPECT_EQ(shell_quote("--concurrency"), "--concurrency");
  EXPECT_EQ(shell_quote("http://h:8000/v1/chat/completions"), "http://h:8000/v1/chat/completions");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("$HOME;rm"), "'$HOME;rm'");
  // The shell reads each back as it was.
  const auto r = testing::run_cmd(
      {"/bin/sh", "-c", "printf '%s\\n' " + shell_quote("it's a $x") + " " + shell_quote("\"q\"")});
  EXPECT_EQ(r.output, "it's a $x\n\"q\"\n");
}

TEST(Render, TheRunFolderGoesOnTheVolume) {
  EXPECT_EQ(with_output_under({"--url", "u"}, "/results"),
            (std::vector<std::string>{"--url", "u", "--output-dir", "/results/outputs"}));
  const std::vector<std::string> under{"--output-dir", "/results/bench"};
  EXPECT_EQ(with_output_under(under, "/results"), under);
  EXPECT_EQ(with_output_under({"--output-dir=/results"}, "/results"),
            std::vector<std::string>{"--output-dir=/results"});
  try {
    with_output_under({"--output-dir", "/srv/out"}, "/results");
    FAIL() << "an output folder outside the volume was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("inside a pod and lost"), std::string::npos) << e.what();
  }
}

TEST(Render, SlurmScriptFromTheRunsFlags) {
  const auto r = testing::run_tokbench(with({"render", "slurm", "--nodes", "2", "--tasks-per-node",
                                             "4", "--partition", "gpu", "--time", "00:30:00", "--"},
                                            kRun));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(r.output.starts_with("#!/bin/bash\n")) << r.output;
  for (const char* line :
       {"#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=4\n", "#SBATCH --partition=gpu\n",
        "#SBATCH --time=00:30:00\n", "#SBATCH --job-name=tokbench\n", "set -euo pipefail\n",
        "\nsrun --mpi=pmix /usr/bin/tokbench run --url http://10.0.0.5:8000/v1/chat/completions "
        "--concurrency 64 --num-prompts 640 --max-tokens 256 --ignore-eos\n"})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  const auto m = testing::run_tokbench(with({"render", "slurm", "--mpirun", "--"}, kRun));
  ASSERT_EQ(m.code, 0) << m.output;
  EXPECT_NE(m.output.find("\nmpirun /usr/bin/tokbench run --url"), std::string::npos) << m.output;
  // The script is one bash reads.
  const fs::path script = testing::test_dir() / "job.sbatch";
  std::ofstream(script) << r.output;
  EXPECT_EQ(testing::run_cmd({"/bin/bash", "-n", script.string()}).code, 0);
  // A line break inside a flag's value stays inside its quotes, and out of the comment: the
  // script's one command is srun, its argument whole.
  const auto nl = testing::run_tokbench(
      with({"render", "slurm", "--"}, with(kRun, {"--extra-body", "{\"a\":\n1}; rm -rf x"})));
  ASSERT_EQ(nl.code, 0) << nl.output;
  EXPECT_NE(nl.output.find("--extra-body '{\"a\":\\n1}; rm -rf x'\n"), std::string::npos)
      << nl.output;  // the comment: one line
  EXPECT_NE(nl.output.find(" --extra-body '{\"a\":\n1}; rm -rf x'\n"), std::string::npos)
      << nl.output;  // the command: quoted
  const fs::path echo = testing::test_dir() / "echo.sh";
  std::string body = nl.output;
  body.replace(body.find("\nsrun --mpi=pmix "), 18, "\nprintf '%s|' ");  // what srun would get
  std::ofstream(echo) << body;
  const auto args = testing::run_cmd({"/bin/bash", echo.string()});
  EXPECT_NE(args.output.find("|--extra-body|{\"a\":\n1}; rm -rf x|"), std::string::npos)
      << args.output;
}

TEST(Render, TheRunsFlagsAreCheckedAtRenderTimeNotOnTheCluster) {
  const auto typo = testing::run_tokbench(
      {"render", "slurm", "--", "--url", "http://h:8000/v1/chat/completions", "--concurrenc", "8"});
  EXPECT_EQ(typo.code, 2) << typo.output;
  EXPECT_NE(typo.output.find("render: the run's flags (after --)"), std::string::npos)
      << typo.output;
  EXPECT_NE(typo.output.find("unknown option --concurrenc: did you mean --concurrency?"),
            std::string::npos)
      << typo.output;
  const auto local = testing::run_tokbench({"render", "slurm", "--", "--concurrency", "8"});
  EXPECT_EQ(local.code, 2) << local.output;
  EXPECT_NE(local.output.find("every rank needs the server's address"), std::string::npos)
      << local.output;
  const auto few = testing::run_tokbench(
      {"render", "kube", "--image", "i", "--workers", "4", "--slots-per-worker", "4", "--", "--url",
       "http://h:8000/v1/chat/completions", "--concurrency", "8"});
  EXPECT_EQ(few.code, 2) << few.output;  // 8 streams over 16 ranks
  EXPECT_NE(few.output.find("give at least one per rank (16)"), std::string::npos) << few.output;
  const auto name = testing::run_tokbench(
      with({"render", "kube", "--image", "i", "--name", "My_Job", "--"}, kRun));
  EXPECT_EQ(name.code, 2) << name.output;
  EXPECT_NE(name.output.find("'My_Job' is not a Kubernetes name"), std::string::npos)
      << name.output;
  const auto lost = testing::run_tokbench(
      with({"render", "kube", "--image", "i", "--"}, with(kRun, {"--output-dir", "/srv/x"})));
  EXPECT_EQ(lost.code, 2) << lost.output;
  EXPECT_NE(lost.output.find("outside the volume mounted at /results"), std::string::npos)
      << lost.output;
}

TEST(Render, KubeMpiJobHasWhatTheOperatorRequires) {
  const auto r = testing::run_tokbench(
      with({"render", "kube", "--name", "bench-1", "--image", "registry.local/tokbench:1",
            "--workers", "2", "--slots-per-worker", "4", "--cpu", "8", "--memory", "16Gi",
            "--volume-claim", "results-rwx", "--"},
           kRun));
  ASSERT_EQ(r.code, 0) << r.output;
  const YAML::Node job = YAML::Load(r.output);
  EXPECT_EQ(job["apiVersion"].as<std::string>(), "kubeflow.org/v2beta1");
  EXPECT_EQ(job["kind"].as<std::string>(), "MPIJob");
  EXPECT_EQ(job["metadata"]["name"].as<std::string>(), "bench-1");
  const YAML::Node spec = job["spec"];
  EXPECT_EQ(spec["slotsPerWorker"].as<int>(), 4);
  EXPECT_EQ(spec["mpiImplementation"].as<std::string>(), "OpenMPI");
  EXPECT_EQ(spec["runPolicy"]["cleanPodPolicy"].as<std::string>(), "Running");
  EXPECT_EQ(spec["sshAuthMountPath"].as<std::string>(), "/root/.ssh");
  const YAML::Node launcher = spec["mpiReplicaSpecs"]["Launcher"];
  EXPECT_EQ(launcher["replicas"].as<int>(), 1);  // the operator allows exactly one
  const YAML::Node lc = launcher["template"]["spec"]["containers"][0];
  EXPECT_EQ(lc["image"].as<std::string>(), "registry.local/tokbench:1");
  EXPECT_EQ(strings(lc["command"]),
            with({"mpirun", "--allow-run-as-root", "-np", "8", "/usr/bin/tokbench", "run"},
                 with(kRun, {"--output-dir", "/results/outputs"})));
  const YAML::Node worker = spec["mpiReplicaSpecs"]["Worker"];
  EXPECT_EQ(worker["replicas"].as<int>(), 2);
  const YAML::Node pod = worker["template"]["spec"];
  const YAML::Node wc = pod["containers"][0];
  EXPECT_EQ(strings(wc["command"]), (std::vector<std::string>{"/usr/sbin/sshd", "-De"}));
  EXPECT_EQ(wc["resources"]["limits"]["cpu"].as<std::string>(), "8");
  EXPECT_EQ(wc["resources"]["requests"]["memory"].as<std::string>(), "16Gi");
  EXPECT_EQ(wc["volumeMounts"][0]["name"].as<std::string>(), "results");
  EXPECT_EQ(wc["volumeMounts"][0]["mountPath"].as<std::string>(), "/results");
  EXPECT_EQ(pod["volumes"][0]["name"].as<std::string>(), "results");
  EXPECT_EQ(pod["volumes"][0]["persistentVolumeClaim"]["claimName"].as<std::string>(),
            "results-rwx");
}

TEST(Render, KubeJobSetNamesItsWorkersAsTheLaunchersHosts) {
  const auto r =
      testing::run_tokbench(with({"render", "kube", "--jobset", "--name", "tb", "--image", "img",
                                  "--workers", "3", "--slots-per-worker", "2", "--"},
                                 kRun));
  ASSERT_EQ(r.code, 0) << r.output;
  const YAML::Node set = YAML::Load(r.output);
  EXPECT_EQ(set["apiVersion"].as<std::string>(), "jobset.x-k8s.io/v1alpha2");
  EXPECT_EQ(set["kind"].as<std::string>(), "JobSet");
  EXPECT_TRUE(set["spec"]["network"]["enableDNSHostnames"].as<bool>());
  EXPECT_EQ(strings(set["spec"]["successPolicy"]["targetReplicatedJobs"]),
            std::vector<std::string>{"launcher"});
  const YAML::Node jobs = set["spec"]["replicatedJobs"];
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0]["name"].as<std::string>(), "launcher");
  EXPECT_EQ(jobs[0]["replicas"].as<int>(), 1);
  const auto command =
      strings(jobs[0]["template"]["spec"]["template"]["spec"]["containers"][0]["command"]);
  ASSERT_GE(command.size(), 3u);
  EXPECT_EQ(command[1], "--host");
  EXPECT_EQ(command[2], "tb-worker-0-0.tb:2,tb-worker-1-0.tb:2,tb-worker-2-0.tb:2");
  EXPECT_EQ(jobs[1]["name"].as<std::string>(), "worker");
  EXPECT_EQ(jobs[1]["replicas"].as<int>(), 3);
  const YAML::Node pod = jobs[1]["template"]["spec"]["template"]["spec"];
  EXPECT_EQ(pod["restartPolicy"].as<std::string>(), "Never");
  EXPECT_EQ(pod["volumes"][0]["persistentVolumeClaim"]["claimName"].as<std::string>(),
            "tokbench-results");
}

// The MPIJob's launcher command, as rendered, run here: mpirun on this machine instead of the
// operator's hostfile, this build instead of /usr/bin/tokbench, a loopback simulator as the
// server, the volume a test folder.
TEST(Render, TheLaunchersCommandRunsVALIDUnderMpirunHere) {
  if (!cluster::available())
    GTEST_SKIP() << "built without Open MPI (scripts/setup.sh installs libopenmpi-dev)";
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "5"});
  const fs::path volume = testing::test_dir() / "volume";
  fs::create_directories(volume);
  const auto r = testing::run_tokbench({"render",
                                        "kube",
                                        "--image",
                                        "img",
                                        "--workers",
                                        "1",
                                        "--slots-per-worker",
                                        "2",
                                        "--mount",
                                        volume.string(),
                                        "--binary",
                                        TOKBENCH_BINARY,
                                        "--",
                                        "--url",
                                        sim.url(),
                                        "--concurrency",
                                        "4",
                                        "--num-prompts",
                                        "40",
                                        "--max-tokens",
                                        "16",
                                        "--ignore-eos",
                                        "--quiet"});
  ASSERT_EQ(r.code, 0) << r.output;
  std::vector<std::string> argv =
      strings(YAML::Load(r.output)["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]
                                  ["containers"][0]["command"]);
  ASSERT_EQ(argv.front(), "mpirun");
  argv.front() = TOKBENCH_MPIEXEC;
  argv.insert(argv.begin() + 1, "--oversubscribe");
#ifdef TOKBENCH_SANITIZED
  for (const char* v : {"ASAN_OPTIONS=fast_unwind_on_malloc=0",
                        "LSAN_OPTIONS=suppressions=" TOKBENCH_SOURCE_DIR "/tests/lsan.supp"})
    argv.insert(argv.begin() + 1, {"-x", v});
#endif
  const auto run = testing::run_cmd(argv, std::chrono::seconds(120));
  ASSERT_EQ(run.code, 0) << run.output;
  fs::path folder;
  for (const auto& e : fs::directory_iterator(volume / "outputs"))
    if (e.is_directory()) folder = e.path();
  ASSERT_FALSE(folder.empty()) << "no run folder on the volume";
  simdjson::dom::parser parser;
  const simdjson::dom::element result = parser.load((folder / "result.json").string());
  EXPECT_EQ(std::string(result["verdict"]["status"].get_string().value()), "VALID");
  EXPECT_EQ(result["common"]["total_requests"].get_double().value(), 40.0);
}

}  // namespace
}  // namespace tokbench::render
