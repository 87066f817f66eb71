// A multi-host run under a real Slurm: the test starts a single-node cluster from Debian's
// packages (munged on a socket of its own, slurmctld and slurmd on loopback ports it picked, a
// slurm.conf it writes) and runs two-rank concurrency sweeps the ways a cluster user does:
// `srun --mpi=pmix` (PMIx direct launch), `salloc` then `mpirun` inside the allocation, and
// `sbatch` of the script `tokbench render slurm` writes. Each: one merged run folder, every point's
// records exact in count and index, both ranks in them. And a rank killed under srun: the folder
// names it and `report` judges it INVALID. Nothing reaches past 127.0.0.1.
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "cluster/cluster.hpp"
#include "common/exit_codes.hpp"
#include "record/record_io.hpp"
#include "support/busy_machine.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/rank_process.hpp"
#include "support/sim_process.hpp"
#include "support/temp_dir.hpp"

namespace tokbench {
namespace {

namespace fs = std::filesystem;
using testing::RanValidUnlessBusy;

// Where Debian's packages put each program (scripts/setup.sh --test installs them).
std::string program(const std::string& name) {
  for (const char* dir : {"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"})
    if (fs::exists(fs::path(dir) / name)) return (fs::path(dir) / name).string();
  return "";
}

std::string short_hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  std::string s = name;
  return s.substr(0, s.find('.'));
}

// munged, slurmctld and slurmd in the foreground (each a child the suite ends), their logs and
// state under one folder of the suite's own.
class SlurmCluster {
 public:
  explicit SlurmCluster(const fs::path& dir) : dir_(dir) {
    fs::create_directories(dir_ / "state");
    fs::create_directories(dir_ / "spool");
    fs::create_directories(dir_ / "log");
    write_key();
    const std::string sock = (dir_ / "munge.sock").string();
    munged_ = daemon({program("munged"), "--foreground", "--force", "--socket=" + sock,
                      "--key-file=" + (dir_ / "munge.key").string(),
                      "--log-file=" + (dir_ / "log" / "munged.log").string(),
                      "--pid-file=" + (dir_ / "munged.pid").string(),
                      "--seed-file=" + (dir_ / "munged.seed").string()},
                     "munged");
    wait_for_file(sock);
    conf_ = dir_ / "slurm.conf";
    write_conf(sock);
    setenv("SLURM_CONF", conf_.c_str(), 1);
    slurmctld_ = daemon({program("slurmctld"), "-D", "-i", "-f", conf_.string()}, "slurmctld");
    slurmd_ = daemon({program("slurmd"), "-D", "-f", conf_.string(), "-N", "tbnode"}, "slurmd");
  }
  ~SlurmCluster() {
    // slurmd first (it ends its job steps), then the controller, then munge.
    for (auto* c : {&slurmd_, &slurmctld_, &munged_}) {
      if (!*c) continue;
      (*c)->signal(SIGTERM);
      (*c)->wait(std::chrono::seconds(15));
    }
    unsetenv("SLURM_CONF");
  }

  /// Waits until the node is idle (registered and schedulable); the logs when it never is.
  ::testing::AssertionResult ready(std::chrono::seconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    std::string state;
    while (std::chrono::steady_clock::now() < end) {
      const auto r = testing::run_cmd({program("sinfo"), "-h", "-n", "tbnode", "-o", "%t"},
                                      std::chrono::seconds(20));
      state = r.output;
      if (r.code == 0 && state.starts_with("idle")) return ::testing::AssertionSuccess();
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    return ::testing::AssertionFailure()
           << "the node never went idle (sinfo: " << state << ")\nslurmctld.log:\n"
           << testing::slurp(dir_ / "log" / "slurmctld.log") << "\nslurmd.log:\n"
           << testing::slurp(dir_ / "log" / "slurmd.log") << "\nmunged.log:\n"
           << testing::slurp(dir_ / "log" / "munged.log");
  }

 private:
  // Output to a file, not a pipe no one reads (a full pipe would stop the daemon); killed with
  // the test if it dies first (setpriv's parent-death signal), so no daemon outlives a crash.
  std::unique_ptr<testing::Child> daemon(const std::vector<std::string>& argv,
                                         const std::string& name) {
    std::string cmd = "exec setpriv --pdeathsig KILL --";
    for (const auto& a : argv) cmd += " '" + a + "'";
    cmd += " > '" + (dir_ / "log" / (name + ".out")).string() + "' 2>&1";
    return std::make_unique<testing::Child>(std::vector<std::string>{"/bin/sh", "-c", cmd});
  }
  void write_key() {
    std::ofstream key(dir_ / "munge.key", std::ios::binary);
    std::ifstream random("/dev/urandom", std::ios::binary);
    std::string bytes(1024, '\0');
    random.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    key << bytes;
    key.close();
    fs::permissions(dir_ / "munge.key", fs::perms::owner_read | fs::perms::owner_write);
  }
  static void wait_for_file(const fs::path& p) {
    for (int i = 0; i < 100 && !fs::exists(p); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // One node of 4 CPUs (config_overrides: whatever this machine has), a partition that shares
  // them, no cgroups (a container has none to give), root as the job's user.
  void write_conf(const std::string& munge_socket) {
    const std::string host = short_hostname();
    const fs::path& d = dir_;
    std::ofstream c(conf_);
    c << "ClusterName=tokbench\n"
      << "SlurmctldHost=" << host << "(127.0.0.1)\n"
      << "SlurmctldPort=" << testing::unused_loopback_port() << "\n"
      << "SlurmdPort=" << testing::unused_loopback_port() << "\n"
      << "AuthType=auth/munge\nCredType=cred/munge\n"
      << "AuthInfo=socket=" << munge_socket << "\n"
      << "SlurmUser=root\nSlurmdUser=root\n"
      << "StateSaveLocation=" << (d / "state").string() << "\n"
      << "SlurmdSpoolDir=" << (d / "spool").string() << "\n"
      << "SlurmctldPidFile=" << (d / "slurmctld.pid").string() << "\n"
      << "SlurmdPidFile=" << (d / "slurmd.pid").string() << "\n"
      << "SlurmctldLogFile=" << (d / "log" / "slurmctld.log").string() << "\n"
      << "SlurmdLogFile=" << (d / "log" / "slurmd.log").string() << "\n"
      << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
      << "SchedulerType=sched/builtin\nSelectType=select/cons_tres\n"
      << "SelectTypeParameters=CR_CPU\nMpiDefault=none\nReturnToService=2\n"
      << "SlurmdParameters=config_overrides\nMailProg=/bin/true\n"
      << "JobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\n"
      << "JobAcctGatherType=jobacct_gather/none\n"
      << "NodeName=tbnode NodeHostname=" << host << " NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN\n"
      << "PartitionName=tb Nodes=tbnode Default=YES MaxTime=INFINITE State=UP "
         "OverSubscribe=YES\n";
  }

  fs::path dir_, conf_;
  std::unique_ptr<testing::Child> munged_, slurmctld_, slurmd_;
};

class Slurm : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const char* p :
         {"munged", "slurmctld", "slurmd", "srun", "salloc", "sbatch", "sinfo", "setpriv"})
      if (program(p).empty()) {
        missing_ = std::string(p) +
                   " is not installed: run `bash scripts/setup.sh --test` (it installs Debian's "
                   "munge, slurmctld, slurmd and slurm-client)";
        return;
      }
#ifdef TOKBENCH_SANITIZED
    // Open MPI never frees what MPI_Init allocates (tests/lsan.supp); srun and mpirun pass the
    // environment on to the ranks.
    setenv("ASAN_OPTIONS", "fast_unwind_on_malloc=0", 1);
    setenv("LSAN_OPTIONS", "suppressions=" TOKBENCH_SOURCE_DIR "/tests/lsan.supp", 1);
#endif
    // mpirun as root (the job's user here) refuses without these.
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
    if (!root_.empty()) fs::remove_all(root_);
  }
  void SetUp() override {
    ASSERT_TRUE(missing_.empty()) << missing_;
    if (geteuid() != 0) GTEST_SKIP() << "slurmd runs job steps as their user: run as root";
    if (!cluster::available())
      GTEST_SKIP() << "built without Open MPI (scripts/setup.sh installs libopenmpi-dev)";
    if (!cluster_) {  // started once, by the suite's first test (its folder holds the cluster's)
      // Short paths: munge's socket must fit a socket address (108 bytes).
      root_ = testing::fresh_test_dir("tokbench_slurm");
      cluster_ = new SlurmCluster(root_);
    }
    ASSERT_TRUE(cluster_->ready(std::chrono::seconds(60)));
    out_ = testing::test_dir() / "out";
  }
  void TearDown() override {
    if (!HasFailure() && !out_.empty()) fs::remove_all(out_.parent_path());  // kept to debug
  }

  static testing::Result slurm(const std::string& prog, std::vector<std::string> args) {
    args.insert(args.begin(), program(prog));
    return testing::run_cmd(args, std::chrono::seconds(180));
  }
  // `tokbench run`'s flags for a two-point sweep into out_ (the command name not included).
  std::vector<std::string> run_flags(const std::string& url) const {
    return {"--url",        url, "--concurrency", "2,4",          "--num-prompts", "40",
            "--max-tokens", "4", "--ignore-eos",  "--output-dir", out_.string()};
  }
  // `launcher... tokbench run FLAGS --quiet`.
  std::vector<std::string> ranks_run(std::vector<std::string> launcher, const std::string& url) {
    launcher.insert(launcher.end(), {TOKBENCH_BINARY, "run"});
    const auto flags = run_flags(url);
    launcher.insert(launcher.end(), flags.begin(), flags.end());
    launcher.push_back("--quiet");
    return launcher;
  }

  // One sweep folder under out_: two points, each with 40 records from both ranks, 20 each, one
  // index sequence; the sweep's summary has both.
  void expect_one_merged_sweep() {
    std::vector<fs::path> runs;
    for (const auto& e : fs::directory_iterator(out_))
      if (e.is_directory()) runs.push_back(e.path());
    ASSERT_EQ(runs.size(), 1u) << "one run folder for both ranks";
    simdjson::dom::parser p;
    simdjson::dom::element summary = p.load((runs[0] / "sweep" / "summary.json").string());
    EXPECT_EQ(simdjson::dom::array(summary["sweep"]["points"]).size(), 2u);
    for (const char* point : {"c2", "c4"}) {
      SCOPED_TRACE(point);
      const auto recs = record::read_details(
          (runs[0] / point / "performances" / "tokbench-mock" / "builtin_details.jsonl").string());
      EXPECT_EQ(recs.size(), 40u);
      std::map<int64_t, int> per_rank;
      std::set<int64_t> ids;
      for (const auto& r : recs) {
        ++per_rank[r.rank];
        ids.insert(r.index);
        EXPECT_TRUE(r.ok()) << r.error;
      }
      EXPECT_EQ(per_rank, (std::map<int64_t, int>{{0, 20}, {1, 20}}));
      EXPECT_EQ(ids.size(), 40u);
      simdjson::dom::element end = p.load((runs[0] / point / "end.json").string());
      EXPECT_EQ(end["ranks"].get_array().size(), 2u);
      EXPECT_EQ(end["records_written"].get_int64().value(), 40);
    }
  }

  static inline std::string missing_;
  static inline fs::path root_;
  static inline SlurmCluster* cluster_ = nullptr;
  fs::path out_;
};

// srun --mpi=pmix: Slurm starts both ranks and PMIx wires them (no mpirun anywhere).
TEST_F(Slurm, SrunPmixSweepsOverTwoRanks) {
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "2"});
  const auto r =
      slurm("srun", ranks_run({"--mpi=pmix", "-n", "2", "-J", "tokbench-srun"}, sim.url()));
  ASSERT_TRUE(RanValidUnlessBusy(r, out_));
  expect_one_merged_sweep();
}

// salloc, then mpirun inside the allocation: Open MPI reads Slurm's allocation and starts its
// daemons with srun.
TEST_F(Slurm, MpirunInsideAnAllocation) {
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "2"});
  const auto r =
      slurm("salloc", ranks_run({"-n", "2", "-J", "tokbench-salloc", TOKBENCH_MPIEXEC}, sim.url()));
  ASSERT_TRUE(RanValidUnlessBusy(r, out_));
  expect_one_merged_sweep();
}

// The script `tokbench render slurm` writes, submitted with sbatch --wait: the job ends with
// tokbench's own exit code and leaves the same merged folder; its output file holds the table.
TEST_F(Slurm, TheRenderedSbatchScriptRuns) {
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "2"});
  std::vector<std::string> render{"render", "slurm",  "--nodes",  "1",        "--tasks-per-node",
                                  "2",      "--time", "00:05:00", "--binary", TOKBENCH_BINARY,
                                  "--"};
  const auto flags = run_flags(sim.url());
  render.insert(render.end(), flags.begin(), flags.end());
  const auto script = testing::run_tokbench(render);
  ASSERT_EQ(script.code, 0) << script.output;
  const fs::path job = testing::test_dir() / "bench.sbatch";
  std::ofstream(job) << script.output;
  const fs::path log = testing::test_dir() / "job.out";
  const auto r = slurm("sbatch", {"--wait", "--output=" + log.string(), job.string()});
  const std::string printed = testing::slurp(log);
  EXPECT_NE(r.output.find("Submitted batch job"), std::string::npos) << r.output;
  ASSERT_TRUE(RanValidUnlessBusy({r.code, r.output + printed}, out_));
  EXPECT_NE(printed.find("sweep over concurrency (2 point(s))"), std::string::npos) << printed;
  expect_one_merged_sweep();
}

// A rank killed under srun: Slurm ends the step's other tasks a moment later, and the folder rank
// 0 wrote first names the lost rank (`report` judges it INVALID for that); no task is left.
TEST_F(Slurm, AKilledRankIsNamedInTheFolder) {
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "20"});
  testing::Child run({program("srun"),
                      "--mpi=pmix",
                      "-n",
                      "3",
                      "-J",
                      "tokbench-lost",
                      TOKBENCH_BINARY,
                      "run",
                      "--url",
                      sim.url(),
                      "--concurrency",
                      "6",
                      "--num-prompts",
                      "3000",
                      "--max-tokens",
                      "20",
                      "--ignore-eos",
                      "--quiet",
                      "--output-dir",
                      out_.string()});
  fs::path folder;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (folder.empty() && fs::exists(out_))
      for (const auto& e : fs::directory_iterator(out_))
        if (e.is_directory()) folder = e.path();
    if (!folder.empty() && testing::count_lines(folder / "performances" / "tokbench-mock" /
                                                "builtin_details.jsonl") >= 4)
      break;
  }
  const pid_t victim = testing::rank_pid("SLURM_PROCID", 1, out_);
  ASSERT_GT(victim, 0) << run.output();
  kill(victim, SIGKILL);
  const auto t0 = std::chrono::steady_clock::now();
  run.wait(std::chrono::seconds(60));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30)) << run.output();
  EXPECT_EQ(testing::rank_pid("SLURM_PROCID", 0, out_), -1) << "a task was left";
  EXPECT_EQ(testing::rank_pid("SLURM_PROCID", 2, out_), -1) << "a task was left";
  simdjson::dom::parser p;
  simdjson::dom::element lost = p.load((folder / "rank_lost.json").string());
  EXPECT_EQ(lost["rank"].get_int64().value(), 1);
  EXPECT_EQ(lost["ranks"].get_int64().value(), 3);
  const auto rep = testing::run_tokbench({"report", folder.string()});
  EXPECT_EQ(rep.code, kExitInvalid) << rep.output;
  EXPECT_NE(rep.output.find("rank 1 of 3 was lost"), std::string::npos) << rep.output;
}

}  // namespace
}  // namespace tokbench
