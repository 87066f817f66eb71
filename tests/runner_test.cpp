// runner/: the stages that need no network — the plan (flags to a validated plan) and the
// recorder (writes every record and keeps none).
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <thread>

#include "measure/recorder.hpp"
#include "plan/plan.hpp"
#include "report/outputs.hpp"
#include "runfolder/run_folder.hpp"
#include "support/in_process_run.hpp"
#include "support/records.hpp"
#include "workload/workload.hpp"

namespace tokbench::runner {
namespace {

namespace fs = std::filesystem;

TEST(Plan, ResolvesWhatNeedsNoNetwork) {
  RunConfig c;
  c.workload.dataset = {dataset::Source::Synthetic, ""};
  c.workload.input_len = 10;
  c.workload.output_len = 5;
  c.load.concurrency = 600;
  const RunPlan p = make_plan(c, "env-key");
  EXPECT_EQ(p.cfg.target.api_key, "env-key");
  EXPECT_EQ(p.cfg.load.num_prompts, 100);  // synthetic: 100 prompts unless told
  EXPECT_GE(p.cfg.load.workers, 1);
  EXPECT_TRUE(p.synthetic);
  EXPECT_EQ(p.requested.target.api_key, "");  // what was asked is kept apart from what is used
  c.target.api_key = "flag-key";
  EXPECT_EQ(make_plan(c, "env-key").cfg.target.api_key, "flag-key");
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
  c.load.concurrency = 4096;
  const int pinned = make_plan(c, nullptr).cfg.load.workers;
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(pinned, 1);
  EXPECT_EQ(make_plan(c, nullptr).cfg.load.workers, std::min(16, CPU_COUNT(&before)));
}

// The URL's path decides the endpoint: a completions URL gets a completions body, a bare
// host:port gets /v1/<endpoint>, and a conflict is a usage error, not 10 of 10 requests failing.
TEST(Plan, UrlPathDecidesTheEndpoint) {
  RunConfig c;
  c.target.url = "http://127.0.0.1:8000/v1/completions";
  RunPlan p = make_plan(c, nullptr);
  EXPECT_EQ(p.cfg.target.endpoint, "completions");
  EXPECT_EQ(p.cfg.target.url, "http://127.0.0.1:8000/v1/completions");
  c.target.url = "http://127.0.0.1:8000";
  p = make_plan(c, nullptr);
  EXPECT_EQ(p.cfg.target.endpoint, "chat");
  EXPECT_EQ(p.cfg.target.url, "http://127.0.0.1:8000/v1/chat/completions");
  c.target.url = "http://127.0.0.1:8000/";
  c.target.endpoint = "completions";
  EXPECT_EQ(make_plan(c, nullptr).cfg.target.url, "http://127.0.0.1:8000/v1/completions");
  // An OpenAI client's base URL (.../v1) names the server: chat by default, --endpoint picks.
  c.target.url = "http://127.0.0.1:8000/v1";
  c.target.endpoint = "";
  EXPECT_EQ(make_plan(c, nullptr).cfg.target.url, "http://127.0.0.1:8000/v1/chat/completions");
  c.target.url = "http://127.0.0.1:8000/v1/";
  c.target.endpoint = "generate";
  EXPECT_EQ(make_plan(c, nullptr).cfg.target.url, "http://127.0.0.1:8000/generate");
  c.target.url = "http://127.0.0.1:8000/v1/chat/completions";
  c.target.endpoint = "completions";
  try {
    make_plan(c, nullptr);
    FAIL() << "expected a usage error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--endpoint completions conflicts with --url"),
              std::string::npos)
        << e.what();
  }
  c.target.endpoint = "";
  c.target.host = "10.0.0.5";
  EXPECT_THROW(make_plan(c, nullptr), std::invalid_argument);  // --url and --host
  c.target.host = "";
  c.target.url =
      "http://127.0.0.1:8000/v1/embeddings";  // embeddings: the endpoint, and never streamed
  p = make_plan(c, nullptr);
  EXPECT_EQ(p.cfg.target.endpoint, "embeddings");
  EXPECT_FALSE(p.cfg.request.stream);
  c.target.url =
      "http://127.0.0.1:8000/v2/rerank";  // rerank (vLLM's Cohere-style path): never streamed
  p = make_plan(c, nullptr);
  EXPECT_EQ(p.cfg.target.endpoint, "rerank");
  EXPECT_FALSE(p.cfg.request.stream);
  c.target.url = "http://127.0.0.1:8000/v1/score";  // vLLM's score (its older path): one-shot
  p = make_plan(c, nullptr);
  EXPECT_EQ(p.cfg.target.endpoint, "score");
  EXPECT_FALSE(p.cfg.request.stream);
  c.target.url = "http://127.0.0.1:8000/v1/moderations";  // an API tokbench does not speak
  EXPECT_THROW(make_plan(c, nullptr), std::invalid_argument);
  c.target.url = "http://127.0.0.1:8000";
  c.target.endpoint = "embeddings";
  EXPECT_EQ(make_plan(c, nullptr).cfg.target.url, "http://127.0.0.1:8000/v1/embeddings");
  c.target.endpoint = "";
  RunConfig h;
  h.target.host = "10.0.0.5";
  h.target.endpoint = "completions";
  EXPECT_EQ(make_plan(h, nullptr).cfg.target_url(), "http://10.0.0.5:8000/v1/completions");
  // Anthropic's Messages API and SGLang's native /generate: named by their paths, and their
  // paths made from --endpoint (/generate is not under /v1).
  c.target.url = "http://127.0.0.1:8000/v1/messages";
  EXPECT_EQ(make_plan(c, nullptr).cfg.target.endpoint, "messages");
  c.target.url = "http://127.0.0.1:30000/generate";
  EXPECT_EQ(make_plan(c, nullptr).cfg.target.endpoint, "generate");
  c.target.url = "http://127.0.0.1:30000";
  c.target.endpoint = "generate";
  EXPECT_EQ(make_plan(c, nullptr).cfg.target.url, "http://127.0.0.1:30000/generate");
  h.target.endpoint = "messages";
  EXPECT_EQ(make_plan(h, nullptr).cfg.target_url(), "http://10.0.0.5:8000/v1/messages");
}

// What the non-OpenAI APIs cannot take is refused up front, naming the fix.
TEST(Plan, NativeApiMistakesAreNamed) {
  auto error = [](const std::string& url, auto edit) {
    RunConfig c;
    c.target.url = url;
    edit(c);
    try {
      make_plan(c, nullptr);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string messages = "http://127.0.0.1:8000/v1/messages",
                    generate = "http://127.0.0.1:8000/generate";
  EXPECT_NE(
      error(messages, [](RunConfig& c) { c.request.max_tokens = 0; }).find("requires max_tokens"),
      std::string::npos);
  EXPECT_NE(error(generate, [](RunConfig& c) { c.request.compat = metrics::Definitions::Vllm; })
                .find("--compat vllm"),
            std::string::npos);
  EXPECT_NE(error(messages, [](RunConfig& c) { c.request.compat = metrics::Definitions::Sglang; })
                .find("--compat sglang"),
            std::string::npos);
  EXPECT_EQ(error(generate, [](RunConfig& c) { c.request.compat = metrics::Definitions::Sglang; }),
            "");  // bench_serving's native payload
  EXPECT_NE(error(generate, [](RunConfig& c) { c.request.continuous_usage = true; })
                .find("--continuous-usage"),
            std::string::npos);
  EXPECT_NE(error(generate, [](RunConfig& c) { c.workload.image = "64x64"; }).find("--image"),
            std::string::npos);
  EXPECT_EQ(error(messages, [](RunConfig& c) { c.workload.image = "64x64"; }),
            "");  // Anthropic takes images
  EXPECT_EQ(error(messages, [](RunConfig& c) { c.workload.turns = 2; }), "");  // and conversations
  // TGI's /generate_stream only streams (its answers come whole at /generate) and it has
  // neither ignore_eos nor min_tokens: each asked is refused by name; its default body is fine.
  const std::string tgi = "http://127.0.0.1:8000/generate_stream";
  EXPECT_EQ(error(tgi, [](RunConfig&) {}), "");
  EXPECT_NE(error(tgi, [](RunConfig& c) { c.request.stream = false; })
                .find("--no-stream: Text Generation Inference streams at /generate_stream; its "
                      "answers come whole at /generate (--url …/generate --endpoint tgi"),
            std::string::npos);
  // /generate is SGLang's unless --endpoint tgi says it is TGI's, whose answers come whole there.
  auto tgi_whole = [](bool stream) {
    return [stream](RunConfig& c) {
      c.target.endpoint = "tgi";
      c.request.stream = stream;
    };
  };
  EXPECT_EQ(error(generate, tgi_whole(false)), "");
  EXPECT_NE(error(generate, tgi_whole(true))
                .find("--url http://127.0.0.1:8000/generate: Text Generation Inference answers "
                      "there with one body; add --no-stream"),
            std::string::npos);
  EXPECT_NE(error(generate, [](RunConfig& c) { c.target.endpoint = "ollama"; })
                .find("--endpoint ollama conflicts with --url"),
            std::string::npos)
      << "only the endpoint whose whole answers live at the path may claim it";
  {  // A base URL gets the path of the mode.
    RunConfig c;
    c.target.url = "http://127.0.0.1:8000";
    c.target.endpoint = "tgi";
    EXPECT_EQ(c.target_url(), "http://127.0.0.1:8000/generate_stream");
    c.request.stream = false;
    EXPECT_EQ(c.target_url(), "http://127.0.0.1:8000/generate");
  }
  EXPECT_NE(error(tgi, [](RunConfig& c) { c.request.ignore_eos = true; })
                .find("--ignore-eos / --min-tokens: Text Generation Inference"),
            std::string::npos);
  EXPECT_NE(error(tgi, [](RunConfig& c) { c.request.min_tokens = 4; }).find("--min-tokens"),
            std::string::npos);
  // Ollama's native /api/chat has no ignore_eos either; it answers streamed or in one body.
  const std::string ollama = "http://127.0.0.1:11434/api/chat";
  EXPECT_EQ(error(ollama, [](RunConfig& c) { c.request.stream = false; }), "");
  EXPECT_NE(error(ollama, [](RunConfig& c) { c.request.ignore_eos = true; })
                .find("--ignore-eos / --min-tokens: Ollama native /api/chat"),
            std::string::npos);
  // Rerank: --documents only where documents are ranked, and within its range; no sessions (a
  // ranking is no conversation), and synthetic prompts need no --output-len (nothing generated).
  const std::string rerank = "http://127.0.0.1:8000/v1/rerank";
  EXPECT_EQ(error(rerank, [](RunConfig& c) { c.workload.documents = 16; }), "");
  EXPECT_NE(error(messages, [](RunConfig& c) { c.workload.documents = 16; })
                .find("--documents: only with an API that ranks documents (/v1/rerank, /score)"),
            std::string::npos);
  EXPECT_NE(error(rerank, [](RunConfig& c) { c.workload.documents = 0; })
                .find("--documents: bad value 0"),
            std::string::npos);
  EXPECT_NE(error(rerank, [](RunConfig& c) { c.workload.turns = 2; }).find("--turns"),
            std::string::npos);
  EXPECT_EQ(error(rerank,
                  [](RunConfig& c) {
                    c.workload.dataset = {dataset::Source::Synthetic, ""};
                    c.workload.input_len = 32;
                  }),
            "");
  EXPECT_NE(error(generate,
                  [](RunConfig& c) {
                    c.workload.dataset = {dataset::Source::Synthetic, ""};
                    c.workload.input_len = 32;
                  })
                .find("needs --output-len"),
            std::string::npos);
}

TEST(Plan, EveryUsageErrorAtOnce) {
  RunConfig c;
  c.load.concurrency = -1;
  c.request.max_tokens = -1;
  c.request.extra_body = "[1]";
  try {
    make_plan(c, nullptr);
    FAIL() << "expected a usage error";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--concurrency"), std::string::npos) << what;
    EXPECT_NE(what.find("--max-tokens"), std::string::npos) << what;
  }
  RunConfig bad_body;
  bad_body.request.extra_body = "[1]";
  EXPECT_THROW(make_plan(bad_body, nullptr), std::invalid_argument);
}

// Each load-shape or sweep mistake is named with its fix; a valid combination passes.
TEST(Plan, LoadShapeAndSweepMistakesAreNamed) {
  auto errors = [](auto edit) {
    RunConfig c;
    edit(c);
    std::string all;
    for (const auto& e : validate(c)) all += e + "\n";
    return all;
  };
  EXPECT_NE(errors([](RunConfig& c) { c.load.burstiness = 0.5; }).find("--arrivals gamma"),
            std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) {
              c.load.arrivals = load::ArrivalShape::Kind::Gamma;
            }).find("needs --request-rate"),
            std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) {
              c.target.url = "https://api.example.test/v1/chat/completions";
              c.target.transport = client::TransportKind::Sockets;
            }).find("--transport sockets reads plain http:// only"),
            std::string::npos);
  EXPECT_EQ(errors([](RunConfig& c) {
              c.target.url = "https://api.example.test/v1/chat/completions";
              c.target.transport = client::TransportKind::Curl;
            }),
            "");
  EXPECT_NE(
      errors([](RunConfig& c) { c.load.pressure = true; }).find("--pressure needs --duration-s"),
      std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) {
              c.load.ramp_up_strategy = RampCurve::Exponential;
            }).find("only with --ramp-up-s"),
            std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) {
              c.load.ramp_up_s = 5;
              c.load.request_rate = std::numeric_limits<double>::infinity();
            }).find("no rate to ramp"),
            std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) {
              c.load.concurrency_sweep = {1, 2, 4};
              c.load.request_rate_sweep = {1, 2};
            }).find("zipped point by point"),
            std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) {
              c.load.num_prompts_sweep = {10, 20};
            }).find("pairs with a --concurrency"),
            std::string::npos);
  EXPECT_NE(
      errors([](RunConfig& c) { c.experiment.goodput = "ttft=5"; }).find("--goodput: bad part"),
      std::string::npos);
  EXPECT_NE(errors([](RunConfig& c) {
              c.experiment.goodput = "ttft:5";
              c.request.stream = false;
            }).find("need streaming"),
            std::string::npos);
  EXPECT_EQ(errors([](RunConfig& c) {
              c.load.request_rate = 10;
              c.load.arrivals = load::ArrivalShape::Kind::Gamma;
              c.load.burstiness = 0.5;
              c.load.ramp_up_s = 5;
              c.load.ramp_up_strategy = RampCurve::Exponential;
              c.load.duration_s = 30;
              c.experiment.goodput = "ttft:500 tpot:50";
              c.load.concurrency_sweep = {1, 4};
              c.load.num_prompts_sweep = {10, 40};
            }),
            "");
}

TEST(Plan, SweepPointsCarryTheirOwnValuesAndNames) {
  RunConfig c;
  c.load.concurrency_sweep = {1, 4};
  c.load.request_rate_sweep = {2.5, std::numeric_limits<double>::infinity()};
  c.load.num_prompts_sweep = {10, 40};
  ASSERT_EQ(c.sweep_points(), 2u);
  const RunConfig p = c.sweep_point(1);
  EXPECT_EQ(p.load.concurrency, 4);
  EXPECT_TRUE(std::isinf(p.load.request_rate));
  EXPECT_EQ(p.load.num_prompts, 40);
  EXPECT_EQ(p.sweep_points(), 1u);
  EXPECT_EQ(c.sweep_label(0), "c1-r2.5-n10");
  EXPECT_EQ(c.sweep_label(1), "c4-rinf-n40");
  // Issue 39, F6: a point without a list (a one-point --server-grid's) is named by its load.
  RunConfig single;
  single.load.concurrency = 8;
  EXPECT_EQ(single.sweep_label(0), "c8");
  single.load.request_rate = 4;
  EXPECT_EQ(single.sweep_label(0), "r4");
  // The synthetic prompts are built for the largest point.
  c.workload.dataset = {dataset::Source::Synthetic, ""};
  c.workload.input_len = 8;
  c.workload.output_len = 4;
  EXPECT_EQ(make_plan(c, nullptr).cfg.load.num_prompts, 40);
}

// By design, not by timing: once drain() returns, every record is a line on disk and the
// recorder holds none of them.
// The workload seam: every --dataset source has exactly one workload; each checks its own flags
// (given without it, they are named), and only the file datasets are read before the target.
TEST(Workload, EverySourceHasOneThatChecksItsOwnFlags) {
  std::set<const Workload*> seen;
  for (const auto& c : dataset::kSources.items) {
    const Workload& w = workload_of(c.value);
    EXPECT_EQ(w.source(), c.value) << c.name;
    EXPECT_TRUE(seen.insert(&w).second) << c.name;
    const bool file = c.value != dataset::Source::Synthetic &&
                      c.value != dataset::Source::Sharegpt && c.value != dataset::Source::Trace;
    EXPECT_EQ(w.needs_target(), !file) << c.name;
  }
  EXPECT_EQ(all_workloads().size(), dataset::kSources.items.size());
  // A workload's checks read its own part and, of the others, only its context.
  auto errors_of = [](const Workload& w, auto edit, WorkloadContext with = {}) {
    WorkloadSettings c;  // builtin
    edit(c);
    std::vector<std::string> e;
    w.validate(c, with, e);
    std::string all;
    for (const auto& x : e) all += x + "\n";
    return all;
  };
  using dataset::Source;
  EXPECT_NE(errors_of(workload_of(Source::Synthetic), [](auto& c) { c.input_len = 8; })
                .find("only with --dataset synthetic"),
            std::string::npos);
  EXPECT_NE(errors_of(workload_of(Source::Sharegpt), [](auto& c) { c.multi_turn = true; })
                .find("--multi-turn: only with"),
            std::string::npos);
  EXPECT_NE(errors_of(workload_of(Source::Trace), [](auto& c) { c.trace_speed = 2; })
                .find("only with --dataset trace:PATH"),
            std::string::npos);
  auto synthetic = [](auto& c) {
    c.dataset = {Source::Synthetic, ""};
    c.input_len = 8;
    c.output_len = 4;
  };
  EXPECT_EQ(errors_of(workload_of(Source::Synthetic), synthetic), "");
  EXPECT_NE(errors_of(workload_of(Source::Synthetic), synthetic, {.num_prompts = 2'000'000})
                .find("would all be built before the run"),
            std::string::npos);
  EXPECT_EQ(errors_of(workload_of(Source::Synthetic),
                      [](auto& c) {
                        c.dataset = {Source::Synthetic, ""};
                        c.input_len = 8;  // no --output-len: an API that generates nothing
                      },
                      {.generates = false}),
            "");
  EXPECT_EQ(errors_of(workload_of(Source::Qa), [](auto& c) { c.input_len = 8; }),
            "");  // not its flag to judge
  // What spans parts is the settings' own check: a trace paces itself.
  RunConfig trace;
  trace.workload.dataset = {Source::Trace, "t.jsonl"};
  trace.load.request_rate = 5;
  std::string all;
  for (const auto& x : validate(trace)) all += x + "\n";
  EXPECT_NE(all.find("sends each request at its timestamp"), std::string::npos) << all;
}

TEST(Recorder, WritesEveryRecordAndHoldsNone) {
  const fs::path dir = testing::fresh_test_dir("tokbench_runner_recorder");
  {
    Recorder rec(dir, "ds", nullptr);
    for (int i = 0; i < 2000; ++i) {
      auto r = testing::stream_record(
          0, {{10, record::ChunkKind::Content}, {20, record::ChunkKind::Content}}, 21, 2, 4);
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

// --check-answers cannot grow memory or hold the run's end: with checks far slower than the load
// (a regex that spends its whole budget on each 1 MiB output), no more than the backlog bound of
// text waits, the rest is let go unread and says so, and drain() gives up at its deadline.
TEST(Recorder, SlowChecksAreBoundedAndTheUnreadSaySo) {
  const fs::path dir = testing::fresh_test_dir("tokbench_runner_recorder_backlog");
  const int n = 96;  // 96 MiB of output offered; the bound is 64 MiB
  {
    Recorder rec(dir, "ds", nullptr, {}, OutputChecks{true, 0});
    for (int i = 0; i < n; ++i) {
      auto r = testing::stream_record(0, {{10, record::ChunkKind::Content}}, 21, 2, 4);
      r.index = i;
      r.answer_key = core::AnswerKey{core::AnswerKey::Kind::Regex, "a*a*b\\d", 0};
      r.output_text = std::string(size_t{1} << 20, 'a') + "b";  // quadratic: runs to the budget
      rec.add(std::move(r));
      EXPECT_LE(rec.text_waiting(), kMaxCheckBacklogBytes);
    }
    const auto t0 = std::chrono::steady_clock::now();
    rec.drain(nullptr, std::chrono::milliseconds(300));
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(waited, 20.0);  // one budget past the deadline, not 96 of them
    EXPECT_EQ(rec.written(), n);
    EXPECT_GE(rec.unchecked(), n - 64);  // past the bound at least, and the deadline's rest
    EXPECT_LT(rec.unchecked(), n);       // the first ones were read
  }
  std::ifstream in(dir / "ds_details.jsonl");
  int64_t unread = 0, limited = 0;
  for (std::string l; std::getline(in, l);) {
    unread += l.find(R"("not_checked":"backlog")") != std::string::npos;
    limited += l.find(R"("not_checked":"regex limit")") != std::string::npos;
    EXPECT_NE(l.find(R"("right":null)"), std::string::npos) << l;  // unscored, never "wrong"
  }
  EXPECT_GE(unread, n - 64);
  EXPECT_EQ(unread + limited, n);
  fs::remove_all(dir);
}

TEST(Recorder, AStopSignalLetsTheWaitingChecksGo) {
  const fs::path dir = testing::fresh_test_dir("tokbench_runner_recorder_stop");
  Recorder rec(dir, "ds", nullptr, {}, OutputChecks{true, 0});
  for (int i = 0; i < 40; ++i) {
    auto r = testing::stream_record(0, {{10, record::ChunkKind::Content}}, 21, 2, 4);
    r.index = i;
    r.answer_key = core::AnswerKey{core::AnswerKey::Kind::Regex, "a*a*b\\d", 0};
    r.output_text = std::string(size_t{1} << 19, 'a') + "b";
    rec.add(std::move(r));
  }
  const std::atomic<int> stop{1};  // Ctrl-C: client::kDrain
  const auto t0 = std::chrono::steady_clock::now();
  rec.drain(&stop);  // the 30 s deadline is not what ends it
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  EXPECT_EQ(rec.held(), 0);
  EXPECT_GT(rec.unchecked(), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tokbench::runner
