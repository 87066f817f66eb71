// measure/execute: one load point's shapes end to end against the simulator in its own process —
// a --duration-s run ends within its grace and records what it cut as cut_at_end (neither a
// success nor a failure); nothing is sent after the duration; a concurrency ramp is excluded
// from the statistics; --request-rate inf makes every request due at the phase start; --goodput
// judges every request in the details and in result.json; --pressure adds clients at its rate;
// --bursts schedules every request inside an on window.
#include "measure/execute.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "client/engine.hpp"
#include "record/record_io.hpp"
#include "runfolder/run_folder.hpp"
#include "runner/runner.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench::runner {
namespace {

namespace fs = std::filesystem;
using testing::Sim;

using testing::IsValidUnlessBusy;
using ExecuteTest = testing::RunTest;

TEST_F(ExecuteTest, DurationRunEndsWithinItsGraceAndCutsWhatIsStillInFlight) {
  Sim sim(
      {"--ttft-ms", "5", "--tpot-ms", "20"});  // 300 tokens: 6 s per request, far past the duration
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(4)
               .duration_s(1)
               .max_tokens(300)
               .ignore_eos()
               .with([&](auto& x) { x.load.grace_s = 0.3; })
               .build();
  const auto t0 = std::chrono::steady_clock::now();
  const RunOutcome out = run(c);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(wall, 1 + 0.3 + 3.0);  // the target's set-up and the outputs, but no 6 s request
  const auto recs = records(out);
  ASSERT_EQ(recs.size(), 4u);  // nothing finished, so nothing new was sent
  for (const auto& r : recs) {
    EXPECT_EQ(r.outcome, record::Outcome::Cut);
    EXPECT_NE(r.error.find("--duration-s"), std::string::npos) << r.error;
    EXPECT_GT(r.chunks.size(), 10u);  // what arrived before the cut is kept
  }
  EXPECT_EQ(out.metrics.common_metric("failed_requests")->value, 0);  // cut is not failed
  EXPECT_FALSE(fs::exists(out.perf_dir / "builtin_failed.jsonl"));
  std::string warnings;
  for (auto w : simdjson::dom::array(result(out)["verdict"]["warnings"]))
    warnings += std::string_view(w);
  EXPECT_NE(warnings.find("4 request(s) still in flight"), std::string::npos) << warnings;
}

TEST_F(ExecuteTest, DurationRunSendsNothingAfterItsEndAndCyclesTheDataset) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(2)
               .duration_s(1)
               .max_tokens(5)
               .with([&](auto& x) { x.observe.slice_s = 0.25; })
               .build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(testing::ExitedValidUnlessBusy(out));
  // --slice-s: four slices of the second (a fifth holds the last completions), in the CSV and
  // result.json.
  const size_t slice_rows = testing::count_lines(out.perf_dir / "builtin_slices.csv") - 1;
  EXPECT_GE(slice_rows, 4u);
  EXPECT_LE(slice_rows, 5u);
  EXPECT_EQ(simdjson::dom::array(result(out)["slices"]["slices"]).size(), slice_rows);
  const auto recs = records(out);
  EXPECT_GT(recs.size(), 50u);  // the builtin set has 10 prompts: it cycled
  int64_t first = INT64_MAX, last = 0;
  for (const auto& r : recs) {
    first = std::min(first, r.sent_ns);
    last = std::max(last, r.sent_ns);
    EXPECT_TRUE(r.ok()) << r.error;
  }
  EXPECT_LT(last - first, 1'000'000'000);
  EXPECT_EQ(runfolder::load_run_folder(out.run_dir).manifest.planned_requests, -1);
}

TEST_F(ExecuteTest, ConcurrencyRampIsExcludedUnlessMeasured) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "2"});
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(8)
               .duration_s(0.8)
               .max_tokens(10)
               .with([&](auto& x) { x.load.ramp_up_s = 0.8; })
               .build();
  const RunOutcome out = run(c);
  const auto recs = records(out);
  int64_t origin_first = INT64_MAX;
  for (const auto& r : recs) origin_first = std::min(origin_first, r.sent_ns);
  int64_t ramp = 0, measured = 0, early_in_flight_max = 0;
  for (const auto& r : recs) {
    const int64_t at = r.sent_ns - origin_first;
    if (r.warmup) {
      ++ramp;
      EXPECT_LT(at, 850'000'000);
    } else {
      ++measured;
      EXPECT_GE(at, 780'000'000);  // the measured window starts when the ramp ends
    }
    if (at < 90'000'000) {  // in the first ~tenth of the ramp: 1 in flight (step = 0.8/7 s)
      int64_t inflight = 0;
      for (const auto& o : recs) inflight += o.sent_ns <= r.sent_ns && o.done_ns > r.sent_ns;
      early_in_flight_max = std::max(early_in_flight_max, inflight);
    }
  }
  EXPECT_GT(ramp, 10);
  EXPECT_GT(measured, 10);
  EXPECT_LE(early_in_flight_max, 1);
  EXPECT_EQ(out.metrics.common_metric("total_requests")->value, static_cast<double>(measured));
  // The server counted the ramp's tokens too: the cross-check does, instead of calling the run
  // INVALID.
  EXPECT_TRUE(IsValidUnlessBusy(out));
  std::ifstream in(out.run_dir / "server.json");
  const std::string server((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(server.find("tokens of warm-up requests sent inside the server's window"),
            std::string::npos)
      << server;
}

// A count that the ramp uses up: said as such, not as a details file "cut short or edited".
TEST_F(ExecuteTest, RampThatTakesEveryRequestIsNamed) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(4)
               .prompts(6)
               .max_tokens(5)
               .with([&](auto& x) { x.load.ramp_up_s = 2; })
               .build();
  const RunOutcome out = run(c);
  EXPECT_FALSE(out.verdict.valid);
  ASSERT_FALSE(out.verdict.reasons.empty());
  std::string all;
  for (const auto& r : out.verdict.reasons) all += r + "\n";
  EXPECT_NE(all.find("all 6 recorded requests were warm-up"), std::string::npos) << all;
  EXPECT_EQ(all.find("cut short or edited"), std::string::npos) << all;
}

TEST_F(ExecuteTest, InfiniteRateMakesEveryRequestDueAtThePhaseStart) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(3)
               .rate(std::numeric_limits<double>::infinity())
               .prompts(12)
               .max_tokens(5)
               .build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(testing::ExitedValidUnlessBusy(out));
  const auto recs = records(out);
  ASSERT_EQ(recs.size(), 12u);
  for (const auto& r : recs) EXPECT_EQ(r.scheduled_ns, recs.front().scheduled_ns);
  EXPECT_TRUE(std::isinf(runfolder::load_run_folder(out.run_dir).manifest.request_rate));
  EXPECT_EQ(runfolder::load_run_folder(out.run_dir).manifest.load.arrivals, "all-at-once");
  // Latency from the intended send time: all were due at once, 9 of 12 waited for a slot (each
  // wait at least one whole request of >= 6 ms), and that wait is in the *_FromIntended rows only.
  const auto* lag = out.metrics.row("SendLag");
  const auto* intended = out.metrics.row("E2EL_FromIntended");
  ASSERT_TRUE(lag && lag->stats && intended && intended->stats);
  EXPECT_GE(lag->stats->mean, 5.0);
  EXPECT_NEAR(intended->stats->mean - out.metrics.row("E2EL")->stats->mean, lag->stats->mean, 1e-6);
  EXPECT_TRUE(out.metrics.row("TTFT_FromIntended")->stats.has_value());
}

// --bursts against the simulator: every request is scheduled inside an on window, the off
// windows hold none, and the run is VALID (its rates are what was asked, in bursts).
TEST_F(ExecuteTest, BurstsScheduleEveryRequestInAnOnWindow) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(8)
               .rate(40)
               .prompts(24)
               .max_tokens(4)
               .with([](RunConfig& x) {
                 x.load.arrivals = core::ArrivalKind::Constant;
                 x.load.burst_on_s = 0.25;
                 x.load.burst_off_s = 0.25;
               })
               .build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(out));
  const auto recs = records(out);
  ASSERT_EQ(recs.size(), 24u);
  int64_t first = recs.front().scheduled_ns, last = first;
  for (const auto& r : recs) first = std::min(first, r.scheduled_ns);
  for (const auto& r : recs) {
    const int64_t at = r.scheduled_ns - first;
    last = std::max(last, at);
    EXPECT_LT(at % 500'000'000, 250'000'000) << at;  // 10 a window, 25 ms apart, none while off
  }
  EXPECT_EQ(last, 2 * 500'000'000 + 3 * 25'000'000);  // the 24th: third window, fourth slot
  EXPECT_NE(runfolder::load_run_folder(out.run_dir)
                .manifest.info.config_json.find("\"bursts\":\"0.25:0.25\""),
            std::string::npos);
}

TEST_F(ExecuteTest, GoodputJudgesEveryRequestInTheDetailsAndTheResult) {
  Sim sim({"--ttft-ms", "30", "--tpot-ms", "1"});
  auto c = testing::RunSettings().url(sim.url()).concurrency(2).prompts(10).max_tokens(5).build();
  c.experiment.goodput = "ttft:5 e2el:10000";  // TTFT is ~30 ms: nobody meets it
  RunOutcome out = run(c);
  const std::string details = testing::slurp(runfolder::load_run_folder(out.run_dir).details);
  EXPECT_NE(details.find("\"slo\":{\"ttft\":false,\"e2el\":true,\"good\":false}"),
            std::string::npos)
      << details.substr(0, 400);
  EXPECT_EQ(double(result(out)["common"]["good_requests"]), 0);
  c.experiment.goodput = "ttft:1000";
  out = run(c);
  auto common = result(out)["common"];
  EXPECT_EQ(double(common["good_requests"]), 10);
  EXPECT_NEAR(double(common["request_goodput"]), double(common["request_throughput"]), 1e-9);
  EXPECT_EQ(double(common["slo_attainment_percent"]), 100);
}

TEST_F(ExecuteTest, PressureModeAddsClientsAtItsRate) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "2"});
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(4)
               .with([&](auto& x) { x.load.pressure = true; })
               .build();
  c.load.request_rate = 5;  // a client every 200 ms
  c.load.duration_s = 1.2;
  c.request.max_tokens = 10;
  const RunOutcome out = run(c);
  const auto recs = records(out);
  int64_t first = INT64_MAX;
  for (const auto& r : recs) first = std::min(first, r.sent_ns);
  // Before 200 ms one client sends back to back: never two requests in flight.
  for (const auto& r : recs) {
    if (r.sent_ns - first >= 180'000'000) continue;
    int64_t inflight = 0;
    for (const auto& o : recs) inflight += o.sent_ns <= r.sent_ns && o.done_ns > r.sent_ns;
    EXPECT_LE(inflight, 1);
  }
  EXPECT_EQ(runfolder::load_run_folder(out.run_dir).manifest.load.arrivals, "pressure");
  EXPECT_EQ(out.metrics.common_metric("peak_concurrency")->value, 4);
  for (const auto& r : recs)
    EXPECT_FALSE(r.warmup);  // pressure mode measures its ramp, as AISBench does
  // The client's busiest second is in end.json: the share of it never waiting, and when it began.
  // This light load leaves the thread waiting most of the time.
  const auto end = runfolder::load_run_folder(out.run_dir).end;
  ASSERT_TRUE(end.has_value());
  EXPECT_GE(end->client.peak_busy, 0.0);
  EXPECT_LT(end->client.peak_busy, 0.9);
  EXPECT_GE(end->client.peak_busy_at_s, 0.0);
  EXPECT_LT(end->client.peak_busy_at_s, 1.3);
}

// The in-run controller on a server with 4 seats: doubles while TTFT holds, breaks above 4,
// bisects, and holds at 4; every window reported. Above 4 in flight a request waits for a seat: at
// least a quarter of a request's time (~24 ms, when the requests are spread out) and up to a whole
// one
// (~97 ms, in lockstep waves), against a 20 ms SLO that an unqueued TTFT (~10 ms) meets.
TEST_F(ExecuteTest, AdaptiveControllerFindsTheEdgeAndHoldsThere) {
  Sim sim({"--max-num-seqs", "4", "--ttft-ms", "10", "--tpot-ms", "3"});  // ~97 ms a request
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(2)
               .slo("ttft.p90<=20ms")
               .duration_s(5.6)
               .max_tokens(30)
               .ignore_eos()
               .with([&](auto& x) {
                 x.experiment.adaptive_window_s = 0.8;
                 x.experiment.adaptive_max = 16;
                 x.load.grace_s = 1;
               })
               .build();
  const RunOutcome out = run(c);
  auto a = result(out)["adaptive"];
  ASSERT_FALSE(a.error());
  EXPECT_EQ(int64_t(a["held"]), 4);
  auto windows = simdjson::dom::array(a["windows"]);
  ASSERT_GE(windows.size(), 6u);
  std::vector<int64_t> levels;
  for (auto w : windows) {
    levels.push_back(int64_t(w["concurrency"]));
    EXPECT_EQ(bool(w["pass"]), int64_t(w["concurrency"]) <= 4) << int64_t(w["concurrency"]);
  }
  EXPECT_EQ((std::vector<int64_t>(levels.begin(), levels.begin() + 3)),
            (std::vector<int64_t>{2, 4, 8}));  // 8: the first break
  EXPECT_EQ(levels.back(), 4);                 // held at the edge
  EXPECT_EQ(runfolder::load_run_folder(out.run_dir).manifest.load.arrivals, "adaptive");
  EXPECT_TRUE(result(out)["stable"].error());  // the level moves: no stable stage to report
}

TEST_F(ExecuteTest, ClosedLoopRunsReportAStableStageOpenLoopsDoNot) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "2"});
  auto c = testing::RunSettings().url(sim.url()).concurrency(4).prompts(60).max_tokens(10).build();
  RunOutcome out = run(c);
  auto stable = result(out)["stable"];
  ASSERT_FALSE(stable.error());
  EXPECT_TRUE(bool(stable["found"]));
  const double total = double(result(out)["common"]["output_token_throughput"]);
  EXPECT_NEAR(double(stable["common"]["output_token_throughput"]), total,
              0.15 * total);  // steady: about the same
  EXPECT_NEAR(double(stable["common"]["concurrency"]), 4, 0.2);
  EXPECT_NE(testing::slurp(out.perf_dir / "builtin.csv").find("TTFT,stable,"), std::string::npos);
  c.load.num_prompts = 3;  // 3 requests can never put 4 in flight
  out = run(c);
  stable = result(out)["stable"];
  EXPECT_FALSE(bool(stable["found"]));
  EXPECT_NE(std::string(std::string_view(stable["text"])).find("no stable stage"),
            std::string::npos);
  c.load.request_rate = 50;
  c.load.num_prompts = 10;
  out = run(c);
  EXPECT_TRUE(result(out)["stable"].error());  // an open loop has no concurrency level to hold
}

}  // namespace
}  // namespace tokbench::runner
