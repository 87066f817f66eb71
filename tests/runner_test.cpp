// runner/: the stages that need no network — the plan (flags to a validated plan), the recorder
// (writes every record and keeps none) and the run folder's files.
#include <gtest/gtest.h>
#include <sched.h>

#include <cmath>
#include <limits>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>
#include <fstream>

#include "support/records.hpp"
#include "report/outputs.hpp"
#include "runner/plan.hpp"
#include "runner/recorder.hpp"
#include "runner/run_folder.hpp"

namespace tokbench::runner {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("tokbench_runner_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(Plan, ResolvesWhatNeedsNoNetwork) {
  RunConfig c;
  c.dataset = {dataset::Source::Synthetic, ""};
  c.input_len = 10;
  c.output_len = 5;
  c.concurrency = 600;
  const RunPlan p = make_plan(c, "env-key");
  EXPECT_EQ(p.cfg.api_key, "env-key");
  EXPECT_EQ(p.cfg.num_prompts, 100);  // synthetic: 100 prompts unless told
  EXPECT_GE(p.cfg.workers, 1);
  EXPECT_TRUE(p.synthetic);
  EXPECT_EQ(p.requested.api_key, "");  // what was asked is kept apart from what is used
  c.api_key = "flag-key";
  EXPECT_EQ(make_plan(c, "env-key").cfg.api_key, "flag-key");
}

// Automatic --workers counts the CPUs this process may use (taskset), not the machine's: pinned
// to one core, 4096 streams get one worker (two would share the core and each look idle).
TEST(Plan, AutomaticWorkersFollowTheAffinityMask) {
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &before)) {
      CPU_SET(cpu, &one);
      break;
    }
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  RunConfig c;
  c.concurrency = 4096;
  const int pinned = make_plan(c, nullptr).cfg.workers;
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(pinned, 1);
  EXPECT_EQ(make_plan(c, nullptr).cfg.workers, std::min(16, CPU_COUNT(&before)));
}

// The URL's path decides the endpoint: a completions URL gets a completions body, a bare
// host:port gets /v1/<endpoint>, and a conflict is a usage error, not 10 of 10 requests failing.
TEST(Plan, UrlPathDecidesTheEndpoint) {
  RunConfig c;
  c.url = "http://127.0.0.1:8000/v1/completions";
  RunPlan p = make_plan(c, nullptr);
  EXPECT_EQ(p.cfg.endpoint, "completions");
  EXPECT_EQ(p.cfg.url, "http://127.0.0.1:8000/v1/completions");
  c.url = "http://127.0.0.1:8000";
  p = make_plan(c, nullptr);
  EXPECT_EQ(p.cfg.endpoint, "chat");
  EXPECT_EQ(p.cfg.url, "http://127.0.0.1:8000/v1/chat/completions");
  c.url = "http://127.0.0.1:8000/";
  c.endpoint = "completions";
  EXPECT_EQ(make_plan(c, nullptr).cfg.url, "http://127.0.0.1:8000/v1/completions");
  c.url = "http://127.0.0.1:8000/v1/chat/completions";
  c.endpoint = "completions";
  try {
    make_plan(c, nullptr);
    FAIL() << "expected a usage error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--endpoint completions conflicts with --url"), std::string::npos) << e.what();
  }
  c.endpoint = "";
  c.host = "10.0.0.5";
  EXPECT_THROW(make_plan(c, nullptr), std::invalid_argument);  // --url and --host
  c.host = "";
  c.url = "http://127.0.0.1:8000/v1/embeddings";  // embeddings: the endpoint, and never streamed
  p = make_plan(c, nullptr);
  EXPECT_EQ(p.cfg.endpoint, "embeddings");
  EXPECT_FALSE(p.cfg.stream);
  c.url = "http://127.0.0.1:8000/v1/rerank";
  EXPECT_THROW(make_plan(c, nullptr), std::invalid_argument);
  c.url = "http://127.0.0.1:8000";
  c.endpoint = "embeddings";
  EXPECT_EQ(make_plan(c, nullptr).cfg.url, "http://127.0.0.1:8000/v1/embeddings");
  c.endpoint = "";
  RunConfig h;
  h.host = "10.0.0.5";
  h.endpoint = "completions";
  EXPECT_EQ(make_plan(h, nullptr).cfg.target_url(), "http://10.0.0.5:8000/v1/completions");
  // Anthropic's Messages API and SGLang's native /generate: named by their paths, and their
  // paths made from --endpoint (/generate is not under /v1).
  c.url = "http://127.0.0.1:8000/v1/messages";
  EXPECT_EQ(make_plan(c, nullptr).cfg.endpoint, "messages");
  c.url = "http://127.0.0.1:30000/generate";
  EXPECT_EQ(make_plan(c, nullptr).cfg.endpoint, "generate");
  c.url = "http://127.0.0.1:30000";
  c.endpoint = "generate";
  EXPECT_EQ(make_plan(c, nullptr).cfg.url, "http://127.0.0.1:30000/generate");
  h.endpoint = "messages";
  EXPECT_EQ(make_plan(h, nullptr).cfg.target_url(), "http://10.0.0.5:8000/v1/messages");
}

// What the non-OpenAI APIs cannot take is refused up front, naming the fix.
TEST(Plan, NativeApiMistakesAreNamed) {
  auto error = [](const std::string& url, auto edit) {
    RunConfig c;
    c.url = url;
    edit(c);
    try {
      make_plan(c, nullptr);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string messages = "http://127.0.0.1:8000/v1/messages", generate = "http://127.0.0.1:8000/generate";
  EXPECT_NE(error(messages, [](RunConfig& c) { c.max_tokens = 0; }).find("requires max_tokens"), std::string::npos);
  EXPECT_NE(error(generate, [](RunConfig& c) { c.compat = metrics::Definitions::Vllm; }).find("--compat vllm"), std::string::npos);
  EXPECT_NE(error(messages, [](RunConfig& c) { c.compat = metrics::Definitions::Sglang; }).find("--compat sglang"), std::string::npos);
  EXPECT_EQ(error(generate, [](RunConfig& c) { c.compat = metrics::Definitions::Sglang; }), "");  // bench_serving's native payload
  EXPECT_NE(error(generate, [](RunConfig& c) { c.continuous_usage = true; }).find("--continuous-usage"), std::string::npos);
  EXPECT_NE(error(generate, [](RunConfig& c) { c.image = "64x64"; }).find("--image"), std::string::npos);
  EXPECT_EQ(error(messages, [](RunConfig& c) { c.image = "64x64"; }), "");  // Anthropic takes images
  EXPECT_EQ(error(messages, [](RunConfig& c) { c.turns = 2; }), "");        // and conversations
}

TEST(Plan, EveryUsageErrorAtOnce) {
  RunConfig c;
  c.concurrency = 0;
  c.max_tokens = -1;
  c.extra_body = "[1]";
  try {
    make_plan(c, nullptr);
    FAIL() << "expected a usage error";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--concurrency"), std::string::npos) << what;
    EXPECT_NE(what.find("--max-tokens"), std::string::npos) << what;
  }
  RunConfig bad_body;
  bad_body.extra_body = "[1]";
  EXPECT_THROW(make_plan(bad_body, nullptr), std::invalid_argument);
}

// Each load-shape or sweep mistake is named with its fix; a valid combination passes.
TEST(Plan, LoadShapeAndSweepMistakesAreNamed) {
  auto errors = [](auto edit) {
    RunConfig c;
    edit(c);
    std::string all;
    for (const auto& e : c.validate()) all += e + "\n";
    return all;
  };
  EXPECT_NE(errors([](RunConfig& c) { c.burstiness = 0.5; }).find("--arrivals gamma"), std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) { c.arrivals = load::ArrivalShape::Kind::Gamma; }).find("needs --request-rate"), std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) {
              c.url = "https://api.example.test/v1/chat/completions";
              c.transport = client::TransportKind::Sockets;
            }).find("--transport sockets reads plain http:// only"),
            std::string::npos);
  EXPECT_EQ(errors([](RunConfig& c) {
              c.url = "https://api.example.test/v1/chat/completions";
              c.transport = client::TransportKind::Curl;
            }),
            "");
  EXPECT_NE(errors([](RunConfig& c) { c.pressure = true; }).find("--pressure needs --duration-s"), std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) { c.ramp_up_strategy = RampCurve::Exponential; }).find("only with --ramp-up-s"), std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) {
              c.ramp_up_s = 5;
              c.request_rate = std::numeric_limits<double>::infinity();
            }).find("no rate to ramp"),
            std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) {
              c.concurrency_sweep = {1, 2, 4};
              c.request_rate_sweep = {1, 2};
            }).find("zipped point by point"),
            std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) { c.num_prompts_sweep = {10, 20}; }).find("pairs with a --concurrency"),
            std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) { c.goodput = "ttft=5"; }).find("--goodput: bad part"), std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) {
              c.goodput = "ttft:5";
              c.stream = false;
            }).find("need streaming"),
            std::string::npos);
  EXPECT_EQ(errors([](RunConfig& c) {
              c.request_rate = 10;
              c.arrivals = load::ArrivalShape::Kind::Gamma;
              c.burstiness = 0.5;
              c.ramp_up_s = 5;
              c.ramp_up_strategy = RampCurve::Exponential;
              c.duration_s = 30;
              c.goodput = "ttft:500 tpot:50";
              c.concurrency_sweep = {1, 4};
              c.num_prompts_sweep = {10, 40};
            }),
            "");
}

TEST(Plan, SweepPointsCarryTheirOwnValuesAndNames) {
  RunConfig c;
  c.concurrency_sweep = {1, 4};
  c.request_rate_sweep = {2.5, std::numeric_limits<double>::infinity()};
  c.num_prompts_sweep = {10, 40};
  ASSERT_EQ(c.sweep_points(), 2u);
  const RunConfig p = c.sweep_point(1);
  EXPECT_EQ(p.concurrency, 4);
  EXPECT_TRUE(std::isinf(p.request_rate));
  EXPECT_EQ(p.num_prompts, 40);
  EXPECT_EQ(p.sweep_points(), 1u);
  EXPECT_EQ(c.sweep_label(0), "c1-r2.5-n10");
  EXPECT_EQ(c.sweep_label(1), "c4-rinf-n40");
  // The synthetic prompts are built for the largest point.
  c.dataset = {dataset::Source::Synthetic, ""};
  c.input_len = 8;
  c.output_len = 4;
  EXPECT_EQ(make_plan(c, nullptr).cfg.num_prompts, 40);
}

// By design, not by timing: once drain() returns, every record is a line on disk and the
// recorder holds none of them.
TEST(Recorder, WritesEveryRecordAndHoldsNone) {
  const fs::path dir = fresh_dir("recorder");
  {
    Recorder rec(dir, "ds", nullptr);
    for (int i = 0; i < 2000; ++i) {
      auto r = testing::stream_record(0, {{10, record::ChunkKind::Content}, {20, record::ChunkKind::Content}}, 21, 2, 4);
      r.index = i;
      r.warmup = i < 5;
      if (i % 100 == 0) r.outcome = record::Outcome::Timeout;
      rec.add(std::move(r));
    }
    rec.drain();
    EXPECT_EQ(rec.held(), 0);
    EXPECT_EQ(rec.written(), 2000);
    EXPECT_EQ(rec.measured_done(), 1995);
    EXPECT_EQ(rec.warmup().total, 5);
    EXPECT_EQ(rec.warmup().ok, 4);  // index 0 timed out
  }
  std::ifstream in(dir / "ds_details.jsonl");
  int64_t lines = 0;
  for (std::string l; std::getline(in, l);) ++lines;
  EXPECT_EQ(lines, 2000);
  std::ifstream failed(dir / "ds_failed.jsonl");
  int64_t failures = 0;
  for (std::string l; std::getline(failed, l);) ++failures;
  EXPECT_EQ(failures, 20);
  fs::remove_all(dir);
}

TEST(RunFolder, TwoRunsInTheSameSecondGetTwoFolders) {
  const fs::path dir = fresh_dir("same_second");
  const std::time_t t = 1'800'000'000;
  const fs::path a = report::make_run_dir(dir.string(), t);
  const fs::path b = report::make_run_dir(dir.string(), t);
  EXPECT_NE(a, b);
  EXPECT_TRUE(fs::is_directory(a / "configs"));
  EXPECT_TRUE(fs::is_directory(b / "configs"));
  // At the same instant too: a check-then-create would hand two racing runs one folder.
  constexpr int kRuns = 16;
  std::vector<fs::path> got(kRuns);
  std::atomic<int> ready{0};
  std::vector<std::thread> runs;
  for (int i = 0; i < kRuns; ++i) {
    runs.emplace_back([&, i] {
      ++ready;
      while (ready.load() < kRuns) std::this_thread::yield();
      got[static_cast<size_t>(i)] = report::make_run_dir(dir.string(), t + 1);
    });
  }
  for (auto& r : runs) r.join();
  std::sort(got.begin(), got.end());
  EXPECT_EQ(std::unique(got.begin(), got.end()), got.end());
  fs::remove_all(dir);
}

TEST(RunFolder, ManifestAndEndMarkerRoundTrip) {
  const fs::path dir = fresh_dir("manifest");
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

// Every field of every table comes back as written, ranks included; a folder written by an
// earlier tokbench (format /1 before the field tables: no ranks, no implied_cache_hit, no
// transport, a rank without busy shares) still reads, each missing field at its default.
TEST(RunFolder, FieldTablesRoundTripAndOldFoldersStillRead) {
  const fs::path dir = fresh_dir("tables");
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
  e.client = {.measured_wall_s = 9.5, .cpu_s = 2.5, .process_cpu_s = 3, .cpu_share = 0.4, .busy_share = 0.5,
              .peak_busy = 0.6, .peak_busy_at_s = 1.5, .events = 12345};
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

  const fs::path old = fresh_dir("old_format");
  std::ofstream(old / "manifest.json")
      << R"({"format":"tokbench-run-manifest/1","target_ready":true,"requested":{"concurrency":2},"effective":null,)"
         R"("plan":{"requests":10,"warmup":0,"concurrency":2,"request_rate":"inf","arrivals":"all-at-once","burstiness":1,)"
         R"("duration_s":0,"grace_s":0,"ramp_up_s":0,"ramp_up_strategy":"linear","ramp_up_measured":false,"slice_s":0,)"
         R"("goodput":"ttft:500","stream":true,"embeddings":false,"definitions":"vllm"},)"
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
  EXPECT_FALSE(o.manifest.facts.native_generate);
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
}  // namespace tokbench::runner
