// report/run_folder as a contract: its files written and read back through the field tables (a
// folder per run even at the same instant; old folders still read); and, with the real binaries
// over loopback, a run killed at any instant leaves a folder that `report` reads and judges right
// (incomplete, every finished request counted); a torn last line is skipped with a warning;
// `report` reproduces the run's own verdict and facts; a run that never reached its target still
// leaves a readable folder; and a run of a billion requests stopped by Ctrl-C has a small
// footprint, since nothing is built ahead or kept.
#include "runfolder/run_folder.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "runfolder/files.hpp"
#include "support/busy_machine.hpp"
#include "support/in_process_run.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/sim_process.hpp"

namespace tokbench::testing {
namespace {

namespace fs = std::filesystem;

class RunFolderTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::fresh_test_dir("tokbench_rf"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::vector<std::string> run_args(std::vector<std::string> extra) {
    std::vector<std::string> a{"run", "--output-dir", (dir_ / "outputs").string(), "--quiet"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  static std::vector<std::string> with_binary(std::vector<std::string> args) {
    args.insert(args.begin(), TOKBENCH_BINARY);
    return args;
  }
  // A run of 2,000 requests of 20 tokens at concurrency 4 (long enough to be killed mid-way).
  std::vector<std::string> long_run(const Sim& sim) {
    return run_args({"--url", sim.url(), "--num-prompts", "2000", "--concurrency", "4",
                     "--max-tokens", "20", "--ignore-eos"});
  }
  // The run folder once it exists (bounded: "" after 10 s).
  fs::path wait_for_run() {
    for (int i = 0; i < 200; ++i) {
      std::this_thread::sleep_for(50ms);
      if (fs::exists(dir_ / "outputs") && !fs::is_empty(dir_ / "outputs")) return only_run();
    }
    return {};
  }
  // The one run folder under outputs/.
  fs::path only_run() {
    std::vector<fs::path> runs;
    for (const auto& e : fs::directory_iterator(dir_ / "outputs")) runs.push_back(e.path());
    EXPECT_EQ(runs.size(), 1u);
    return runs.empty() ? fs::path() : runs.front();
  }
  simdjson::dom::element json(const fs::path& p) {
    auto doc = parser_.load(p.string());
    EXPECT_FALSE(doc.error()) << p;
    return doc.value();
  }
  static std::string reasons(simdjson::dom::element result) {
    std::string all;
    for (auto r : simdjson::dom::array(result["verdict"]["reasons"]))
      all += std::string(std::string_view(r)) + "\n";
    return all;
  }
  static std::string warnings(simdjson::dom::element result) {
    std::string all;
    for (auto r : simdjson::dom::array(result["verdict"]["warnings"]))
      all += std::string(std::string_view(r)) + "\n";
    return all;
  }
  // Waits until the details file has at least `n` lines (bounded).
  static void wait_for_lines(const fs::path& details, size_t n) {
    for (int i = 0; i < 600 && (!fs::exists(details) || count_lines(details) < n); ++i)
      std::this_thread::sleep_for(50ms);
  }

  fs::path dir_;
  simdjson::dom::parser parser_;
};

TEST_F(RunFolderTest, KillNineMidRunThenReportSaysIncompleteAndCountsEveryFinishedRequest) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "2"});
  Child run(with_binary(long_run(sim)));
  const fs::path rd = wait_for_run();
  ASSERT_FALSE(rd.empty());
  const fs::path details = rd / "performances/tokbench-mock/builtin_details.jsonl";
  wait_for_lines(details, 40);
  run.signal(SIGKILL);
  run.wait();
  EXPECT_FALSE(fs::exists(rd / "end.json"));
  const size_t recorded = count_lines(details);
  ASSERT_GE(recorded, 40u);
  ASSERT_LT(recorded, 2000u);

  const auto rep = run_tokbench({"report", rd.string()});
  EXPECT_EQ(rep.code, 4) << rep.output;  // INVALID, as a run exits for that verdict
  auto r = json(rd / "result.json");
  EXPECT_EQ(std::string_view(r["verdict"]["status"]), "INVALID");
  const std::string why = reasons(r);
  const std::string want = "incomplete: " + std::to_string(recorded) +
                           " of 2000 requests recorded; the run did not finish";
  EXPECT_NE(why.find(want), std::string::npos) << why;
  EXPECT_EQ(r["common"]["total_requests"].get_double().value(), static_cast<double>(recorded));
  EXPECT_EQ(r["common"]["success_requests"].get_double().value(), static_cast<double>(recorded));
  EXPECT_TRUE(r["interrupted"].get_bool().value());
}

// A multi-host run's rank 0 killed right after it marked a lost rank (the launcher ends every
// rank a moment after one dies): `report` judges the folder INVALID for the lost rank first,
// named with when and how, and says the other ranks' records never reached it.
TEST_F(RunFolderTest, AFolderMarkedWithALostRankIsJudgedForItAfterAKill) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "2"});
  Child run(with_binary(long_run(sim)));
  const fs::path rd = wait_for_run();
  ASSERT_FALSE(rd.empty());
  wait_for_lines(rd / "performances/tokbench-mock/builtin_details.jsonl", 10);
  runfolder::RankLost lost;
  lost.rank = 2;
  lost.ranks = 4;
  lost.how = "its connection to rank 0 closed: its process ended, or its host went away";
  lost.seen_at = "2026-12-07 23:38:31.479 UTC";
  lost.after_s = 2.5;
  runfolder::write_rank_lost(rd, lost);
  run.signal(SIGKILL);
  run.wait();
  const auto rep = run_tokbench({"report", rd.string()});
  EXPECT_EQ(rep.code, 4) << rep.output;
  auto r = json(rd / "result.json");
  EXPECT_EQ(std::string_view(r["verdict"]["status"]), "INVALID");
  const std::string first(std::string_view(r["verdict"]["reasons"].at(0)));
  EXPECT_TRUE(
      first.starts_with("rank 2 of 4 was lost 2.5 s into the run (2026-12-07 "
                        "23:38:31.479 UTC): its connection to rank 0 closed"))
      << first;
  EXPECT_NE(first.find("the surviving ranks' records were never sent"), std::string::npos) << first;
}

TEST_F(RunFolderTest, TornLastLineIsSkippedWithAWarning) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  const auto res = run_tokbench(run_args(
      {"--url", sim.url(), "--num-prompts", "12", "--concurrency", "3", "--max-tokens", "8"}));
  ASSERT_TRUE(RanValidUnlessBusy(res, dir_));
  const fs::path rd = only_run();
  const fs::path details = rd / "performances/tokbench-mock/builtin_details.jsonl";
  const std::string line =
      slurp(details).substr(0, 200);  // half of a line, no newline: a torn write
  std::ofstream(details, std::ios::app) << line;
  const auto rep = run_tokbench({"report", rd.string()});
  EXPECT_TRUE(RanValidUnlessBusy(rep, dir_));
  auto r = json(rd / "result.json");
  EXPECT_EQ(r["common"]["total_requests"].get_double().value(), 12);
  const std::string warned = warnings(r);
  EXPECT_NE(warned.find("builtin_details.jsonl:13: the last line"), std::string::npos) << warned;
  EXPECT_NE(rep.output.find("skipped"), std::string::npos) << rep.output;
}

TEST_F(RunFolderTest, ReportReproducesTheRunsVerdictAndFacts) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  // An audited body (min_tokens together with ignore_eos), a rate-driven run with a warm-up.
  const auto res = run_tokbench(run_args(
      {"--url", sim.url(), "--num-prompts", "30", "--concurrency", "4", "--max-tokens", "8",
       "--ignore-eos", "--min-tokens", "8", "--request-rate", "200", "--warmup", "2"}));
  ASSERT_TRUE(RanValidUnlessBusy(res, dir_));
  const fs::path rd = only_run();
  const std::string run_result = slurp(rd / "result.json");
  auto before = json(rd / "result.json");
  const std::string verdict = simdjson::minify(before["verdict"]);
  const std::string audit = simdjson::minify(before["audit"]);
  const std::string run_facts = simdjson::minify(before["run"]);
  ASSERT_NE(audit.find("min_tokens"), std::string::npos) << audit;
  ASSERT_NE(run_result.find("\"client_cpu_s\":0."), std::string::npos);
  fs::remove(rd / "result.json");
  auto rep = run_tokbench({"report", rd.string()});
  EXPECT_TRUE(RanValidUnlessBusy(rep, dir_));
  auto after = json(rd / "result.json");
  EXPECT_EQ(simdjson::minify(after["verdict"]), verdict);
  EXPECT_EQ(simdjson::minify(after["audit"]), audit);
  EXPECT_EQ(simdjson::minify(after["run"]), run_facts);  // body, CPU, events, origin: all kept

  // What a CPU-saturated run writes in its end marker, `report` judges the same way the run did:
  // by the client's own delay in TTFT, which the socket transport measured (ClientDelay: within
  // 2% of mean TTFT a warning, past it INVALID; either way it is named).
  const std::string end = slurp(rd / "end.json");
  const std::string saturated = std::regex_replace(
      end, std::regex("\"client_cpu_share\":[0-9.e-]+"), "\"client_cpu_share\":0.97");
  ASSERT_NE(saturated, end);
  std::ofstream(rd / "end.json", std::ios::trunc) << saturated;
  rep = run_tokbench({"report", rd.string()});
  auto sat = json(rd / "result.json");
  const std::string said = reasons(sat) + warnings(sat);
  EXPECT_NE(said.find("busy 97%"), std::string::npos) << said;
  EXPECT_NE(said.find("ClientDelay"), std::string::npos) << said;
  // Without that measure (libcurl's records, an older folder) the CPU share alone decides.
  const fs::path details = rd / "performances/tokbench-mock/builtin_details.jsonl";
  const std::string stamped = slurp(details);
  const std::string unmeasured = std::regex_replace(
      stamped, std::regex("\"first_token_host\":[0-9]+"), "\"first_token_host\":null");
  ASSERT_NE(unmeasured, stamped);
  std::ofstream(details, std::ios::trunc) << unmeasured;
  rep = run_tokbench({"report", rd.string()});
  EXPECT_EQ(rep.code, 4) << rep.output;  // now INVALID: the exit code says so, as `run` would
  sat = json(rd / "result.json");
  EXPECT_EQ(std::string_view(sat["verdict"]["status"]), "INVALID");
  EXPECT_NE(reasons(sat).find("busy 97% of the time: its own delays"), std::string::npos)
      << reasons(sat);
}

TEST_F(RunFolderTest, RunThatNeverReachedItsTargetLeavesAReadableFolder) {
  const std::string url =
      "http://127.0.0.1:" + std::to_string(unused_loopback_port()) + "/v1/chat/completions";
  const auto res = run_tokbench(run_args({"--url", url, "--num-prompts", "5"}));
  EXPECT_EQ(res.code, 1) << res.output;
  const fs::path rd = only_run();
  EXPECT_NE(slurp(rd / "logs/run.log").find("cannot reach the server"), std::string::npos);
  const auto rep = run_tokbench({"report", rd.string()});
  EXPECT_EQ(rep.code, 1) << rep.output;  // nothing succeeded, as the run said
  EXPECT_NE(reasons(json(rd / "result.json")).find("before its target was ready"),
            std::string::npos);
}

// Every warm-up request failed: the run stops, and its folder says why (not "killed?").
TEST_F(RunFolderTest, RunThatStoppedSaysWhyInItsFolder) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1", "--fail-every", "1"});
  const auto res =
      run_tokbench(run_args({"--url", sim.url(), "--num-prompts", "5", "--warmup", "2"}));
  EXPECT_EQ(res.code, 1) << res.output;
  const fs::path rd = only_run();
  ASSERT_TRUE(fs::exists(rd / "end.json"));
  ASSERT_EQ(run_tokbench({"report", rd.string()}).code, 1);  // nothing succeeded
  EXPECT_NE(reasons(json(rd / "result.json"))
                .find("incomplete: the run stopped: all 2 warm-up request(s) failed"),
            std::string::npos)
      << reasons(json(rd / "result.json"));
}

TEST_F(RunFolderTest, CtrlCOnABillionRequestsExits130WithASmallFootprint) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  Child run(with_binary(run_args({"--url", sim.url(), "--num-prompts", "1000000000",
                                  "--concurrency", "16", "--max-tokens", "4"})));
  fs::path rd;
  for (int i = 0; i < 200 && rd.empty(); ++i) {
    std::this_thread::sleep_for(50ms);
    if (fs::exists(dir_ / "outputs") && !fs::is_empty(dir_ / "outputs")) rd = only_run();
  }
  ASSERT_FALSE(rd.empty());
  wait_for_lines(rd / "performances/tokbench-mock/builtin_details.jsonl", 200);
  std::this_thread::sleep_for(2s);
  // Peak resident memory so far: building a billion bodies ahead, as wave 1 did, dies here.
  std::ifstream status("/proc/" + std::to_string(run.pid()) + "/status");
  int64_t hwm_kib = -1;
  for (std::string l; std::getline(status, l);)
    if (l.rfind("VmHWM:", 0) == 0) hwm_kib = std::stoll(l.substr(6));
  run.signal(SIGINT);
  EXPECT_EQ(run.wait(60s), 130) << run.output();
  EXPECT_GT(hwm_kib, 0);
  // Under AddressSanitizer (the sanitizer pass of the test command) shadow memory and the
  // quarantine add a constant; building a billion bodies would still take gigabytes.
#if defined(__SANITIZE_ADDRESS__)
  constexpr int64_t kMaxKib = 600 * 1024;
#else
  constexpr int64_t kMaxKib = 150 * 1024;
#endif
  EXPECT_LT(hwm_kib, kMaxKib) << "peak RSS in KiB";
  auto r = json(rd / "result.json");
  EXPECT_TRUE(r["interrupted"].get_bool().value());
  EXPECT_EQ(std::string_view(r["verdict"]["status"]), "INVALID");
  const std::string verdict = simdjson::minify(r["verdict"]);
  const auto rep = run_tokbench({"report", rd.string()});
  EXPECT_EQ(rep.code, 4)
      << rep.output;  // the interrupted run's folder is INVALID: 4, as `run` exits for that verdict
  EXPECT_EQ(simdjson::minify(json(rd / "result.json")["verdict"]), verdict);
}

// Secrets never reach the run folder: URL userinfo, credential headers, --api-key, and a token in
// the --server-cmd line (its environment prefix here).
TEST_F(RunFolderTest, SecretsAreNeverWrittenInClear) {
  const std::string port = std::to_string(unused_loopback_port());
  const auto res = run_tokbench(
      run_args({"--url", "http://someone:pw-s3cret-1@127.0.0.1:" + port + "/v1/chat/completions",
                "--api-key", "sk-s3cret-2", "--header", "Cookie: session=s3cret-3", "--header",
                "X-Auth-Token: s3cret-4", "--server-cmd",
                "HF_TOKEN=s3cret-5 " + std::string(TOKBENCH_BINARY) +
                    " serve-mock --ttft-ms 1 --tpot-ms 20 --port " +
                    port,  // 20 ms: sub-ms timing noise is not this test's subject
                "--num-prompts", "10", "--max-tokens", "2"}));
  ASSERT_TRUE(RanValidUnlessBusy(res, dir_));
  EXPECT_EQ(res.output.find("s3cret"), std::string::npos) << res.output;
  const fs::path rd = only_run();
  ASSERT_TRUE(RanValidUnlessBusy(run_tokbench({"report", rd.string()}), dir_));
  for (const auto& e : fs::recursive_directory_iterator(rd)) {
    if (!e.is_regular_file() || e.path().filename() == "server.log")
      continue;  // the server's own output
    EXPECT_EQ(slurp(e.path()).find("s3cret"), std::string::npos) << e.path();
  }
}

}  // namespace
}  // namespace tokbench::testing

namespace tokbench::runfolder {
namespace {

namespace fs = std::filesystem;

TEST(RunFolder, TwoRunsInTheSameSecondGetTwoFolders) {
  const fs::path dir = testing::fresh_test_dir("tokbench_run_folder_same_second");
  const std::time_t t = 1'800'000'000;
  const fs::path a = make_run_dir(dir.string(), t);
  const fs::path b = make_run_dir(dir.string(), t);
  EXPECT_NE(a, b);
  EXPECT_TRUE(fs::is_directory(a / "configs"));
  EXPECT_TRUE(fs::is_directory(b / "configs"));
  // The owner's alone (issue 41): a run folder holds prompts, outputs and server logs.
  EXPECT_EQ(fs::status(a).permissions() & (fs::perms::group_all | fs::perms::others_all),
            fs::perms::none);
  // At the same instant too: a check-then-create would hand two racing runs one folder.
  constexpr int kRuns = 16;
  std::vector<fs::path> got(kRuns);
  std::atomic<int> ready{0};
  std::vector<std::thread> runs;
  for (int i = 0; i < kRuns; ++i) {
    runs.emplace_back([&, i] {
      ++ready;
      while (ready.load() < kRuns) std::this_thread::yield();
      got[static_cast<size_t>(i)] = make_run_dir(dir.string(), t + 1);
    });
  }
  for (auto& r : runs) r.join();
  std::sort(got.begin(), got.end());
  EXPECT_EQ(std::unique(got.begin(), got.end()), got.end());
  fs::remove_all(dir);
}

TEST(RunFolder, ManifestAndEndMarkerRoundTrip) {
  const fs::path dir = testing::fresh_test_dir("tokbench_run_folder_manifest");
  RunManifest m;
  m.requested_json = "{\"concurrency\":4}";
  m.info.config_json = "{\"concurrency\":4}";
  m.info.model = "m";
  m.info.model_abbr = "m";
  m.info.dataset_abbr = "ds";
  m.info.body_example = "{\"model\":\"m\"}";
  m.info.audit = {{"warning", "min_tokens with ignore_eos"}};
  m.facts = {4, true};
  m.definitions = "aisbench";
  m.request_rate = 2.5;
  m.planned_requests = 2000;
  m.target_ready = true;
  m.info.transport = "sockets (a plain http:// URL with no proxy)";
  write_manifest(dir, m);
  EXPECT_THROW(load_run_folder(dir / "nowhere"), std::runtime_error);
  RunFolder f = load_run_folder(dir);
  EXPECT_FALSE(f.end.has_value());  // no end marker yet: an unfinished run
  EXPECT_EQ(f.manifest.planned_requests, 2000);
  EXPECT_EQ(f.manifest.definitions, "aisbench");
  EXPECT_EQ(f.manifest.info.transport, m.info.transport);
  EXPECT_EQ(f.manifest.request_rate, 2.5);
  EXPECT_EQ(f.manifest.info.audit, m.info.audit);
  EXPECT_EQ(f.details, dir / "performances/m/ds_details.jsonl");
  RunEnd e;
  e.interrupted = true;
  e.client.cpu_share = 0.95;
  e.client.peak_busy = 0.99;
  e.client.peak_busy_at_s = 12.5;
  e.client.busy_share = 0.75;
  e.records_written = 256;
  write_end(dir, e);
  f = load_run_folder(dir);
  ASSERT_TRUE(f.end.has_value());
  EXPECT_TRUE(f.end->interrupted);
  EXPECT_EQ(f.end->client.cpu_share, 0.95);
  EXPECT_EQ(f.end->client.peak_busy, 0.99);
  EXPECT_EQ(f.end->client.peak_busy_at_s, 12.5);
  EXPECT_EQ(f.end->client.busy_share, 0.75);
  EXPECT_EQ(f.end->records_written, 256);
  fs::remove_all(dir);
}

// rank_lost.json: every field back as written, the records kept per rank included.
TEST(RunFolder, ALostRankMarkerRoundTrips) {
  const fs::path dir = testing::fresh_test_dir("tokbench_run_folder_lost");
  RunManifest m;
  m.info.model_abbr = "m";
  m.info.dataset_abbr = "ds";
  write_manifest(dir, m);
  EXPECT_FALSE(load_run_folder(dir).rank_lost.has_value());
  RankLost lost;
  lost.rank = 1;
  lost.ranks = 3;
  lost.how = "no word from it in 10 s";
  lost.seen_at = "2026-12-07 23:38:52.761 UTC";
  lost.after_s = 12.5;
  lost.collected = true;
  lost.kept = {{0, 26}, {2, 25}};
  write_rank_lost(dir, lost);
  const RunFolder f = load_run_folder(dir);
  ASSERT_TRUE(f.rank_lost.has_value());
  EXPECT_EQ(f.rank_lost->rank, 1);
  EXPECT_EQ(f.rank_lost->ranks, 3);
  EXPECT_EQ(f.rank_lost->how, lost.how);
  EXPECT_EQ(f.rank_lost->seen_at, lost.seen_at);
  EXPECT_EQ(f.rank_lost->after_s, 12.5);
  EXPECT_TRUE(f.rank_lost->collected);
  EXPECT_EQ(f.rank_lost->kept, lost.kept);
  runfolder::write_file(dir / kRankLostFile, "{\"rank\": 1, \"kept\": {\"x\": 3}}");
  EXPECT_THROW(load_run_folder(dir), std::runtime_error);  // named, not a crash
  fs::remove_all(dir);
}

// Every field of every table comes back as written, ranks included; a folder written by an
// earlier tokbench (format /1 before the field tables: no ranks, no implied_cache_hit, no
// transport, a rank without busy shares) still reads, each missing field at its default.
TEST(RunFolder, FieldTablesRoundTripAndOldFoldersStillRead) {
  const fs::path dir = testing::fresh_test_dir("tokbench_run_folder_tables");
  RunManifest m;
  m.info.model_abbr = "m";
  m.info.dataset_abbr = "ds";
  m.info.origin_steady_ns = 123456789;
  m.info.embedded_simulator = true;
  m.facts.max_concurrency = 48;
  m.facts.implied_cache_hit = 0.25;
  m.load.arrivals = "gamma";
  m.load.burstiness = 0.5;
  m.load.ramp_up_strategy = "exponential";
  m.load.warm_connections = true;
  m.ranks = 3;
  m.warmup_requests = 7;
  m.insecure_tls = true;
  write_manifest(dir, m);
  RunEnd e;
  e.client = {.measured_wall_s = 9.5,
              .cpu_s = 2.5,
              .process_cpu_s = 3,
              .cpu_share = 0.4,
              .busy_share = 0.5,
              .peak_busy = 0.6,
              .peak_busy_at_s = 1.5,
              .events = 12345};
  record::RankHealth h;
  h.rank = 2;
  h.client = {.measured_wall_s = 9, .cpu_s = 1, .cpu_share = 0.3, .busy_share = 0.35, .events = 99};
  h.clock_offset_ns = -40;
  h.clock_residual_ns = 7;
  e.ranks = {h};
  write_end(dir, e);
  const RunFolder f = load_run_folder(dir);
  EXPECT_EQ(f.manifest.info.origin_steady_ns, 123456789);
  EXPECT_TRUE(f.manifest.info.embedded_simulator);
  EXPECT_EQ(f.manifest.facts.max_concurrency, 48);
  EXPECT_EQ(f.manifest.facts.implied_cache_hit, 0.25);
  EXPECT_EQ(f.manifest.load.arrivals, "gamma");
  EXPECT_EQ(f.manifest.load.burstiness, 0.5);
  EXPECT_EQ(f.manifest.load.ramp_up_strategy, "exponential");
  EXPECT_TRUE(f.manifest.load.warm_connections);
  EXPECT_EQ(f.manifest.ranks, 3);
  EXPECT_EQ(f.manifest.warmup_requests, 7);
  EXPECT_TRUE(f.manifest.insecure_tls);
  ASSERT_TRUE(f.end);
  EXPECT_EQ(f.end->client.process_cpu_s, 3);
  EXPECT_EQ(f.end->client.events, 12345);
  EXPECT_EQ(f.end->client.measured_wall_s, 9.5);
  ASSERT_EQ(f.end->ranks.size(), 1u);
  EXPECT_EQ(f.end->ranks[0].rank, 2);
  EXPECT_EQ(f.end->ranks[0].client.busy_share, 0.35);
  EXPECT_EQ(f.end->ranks[0].client.events, 99);
  EXPECT_EQ(f.end->ranks[0].clock_offset_ns, -40);

  const fs::path old = testing::fresh_test_dir("tokbench_run_folder_old_format");
  std::ofstream(old / "manifest.json")
      << R"({"format":"tokbench-run-manifest/1","target_ready":true,"requested":{"concurrency":2},"effective":null,)"
         R"("plan":{"requests":10,"warmup":0,"concurrency":2,"request_rate":"inf","arrivals":"all-at-once","burstiness":1,)"
         R"("duration_s":0,"grace_s":0,"ramp_up_s":0,"ramp_up_strategy":"linear","ramp_up_measured":false,"slice_s":0,)"
         R"("goodput":"ttft:500","stream":true,"embeddings":true,"definitions":"vllm"},)"
         R"("started_at":"2026-11-01T10:00:00+0000","target_url":"http://127.0.0.1:8000/v1/chat/completions",)"
         R"("embedded_simulator":false,"model":"m","model_abbr":"m","dataset":"builtin","dataset_abbr":"builtin",)"
         R"("request_body_example":"{}","tokenizer":"","synthetic":null,"origin_steady_ns":5,"audit":[]})";
  std::ofstream(old / "end.json")
      << R"({"format":"tokbench-run-end/1","interrupted":false,"stop_reason":"","records_written":10,"measured_wall_s":1.5,)"
         R"("client_cpu_s":0.2,"client_cpu_share":0.1,"client_sse_events":80,"server_process":null,"profile":null,)"
         R"("server_summary":null,"ranks":[{"rank":0,"client_cpu_s":0.1,"client_cpu_share":0.1,"measured_wall_s":1.5,)"
         R"("client_peak_busy":0.2,"client_sse_events":40,"clock_offset_ns":0,"clock_residual_ns":0}]})";
  const RunFolder o = load_run_folder(old);
  EXPECT_TRUE(std::isinf(o.manifest.request_rate));
  EXPECT_TRUE(o.manifest.facts.open_loop);
  EXPECT_EQ(o.manifest.facts.goodput.ttft_ms, 500);
  EXPECT_EQ(o.manifest.definitions, "vllm");
  EXPECT_EQ(o.manifest.ranks, 1);                     // absent: one host
  EXPECT_EQ(o.manifest.facts.implied_cache_hit, -1);  // absent: no trace
  EXPECT_FALSE(o.manifest.facts.per_token_counts);
  EXPECT_TRUE(o.manifest.facts.one_shot);  // the old name of the fact: "embeddings"
  EXPECT_EQ(o.manifest.info.transport, "");
  ASSERT_TRUE(o.end);
  EXPECT_EQ(o.end->client.events, 80);
  EXPECT_EQ(o.end->client.busy_share, -1);  // absent: unknown
  ASSERT_EQ(o.end->ranks.size(), 1u);
  EXPECT_EQ(o.end->ranks[0].client.events, 40);
  EXPECT_EQ(o.end->ranks[0].client.process_cpu_s, -1);
  fs::remove_all(dir);
  fs::remove_all(old);
}

}  // namespace
}  // namespace tokbench::runfolder
