// The client's timing against the simulator's own trace (when it received each request, when it
// wrote each chunk: CLOCK_MONOTONIC, shared with the client's records) at the bounds
// docs/PERFORMANCE.md claims. SERIAL, and in the plain build only (scripts/test.sh leaves
// "Accuracy" out of the sanitizer pass): these are timing assertions.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "support/cli_fixture.hpp"
#include "support/machine_noise.hpp"
#include "support/sim_process.hpp"
#include "support/sim_trace.hpp"

namespace tokbench::testing {
namespace {

class AccuracyTest : public CliFixture {};

// TPOT within 1 % of what the simulator did and TTFT within 1 % (plain sockets; 3 % through
// libcurl, PERFORMANCE.md's worst figure +2.9 %), as means over the measured requests.
TEST_F(AccuracyTest, AgainstTheSimulatorsTraceAtConcurrency1And32) {
  const fs::path trace = dir_ / "trace.jsonl";
  Sim sim({"--ttft-ms", "50", "--tpot-ms", "10", "--trace", trace.string()});
  struct Point {
    int conc, prompts;
    const char* transport;
    double ttft_bound;
  };
  for (auto [conc, prompts, transport, ttft_bound] :
       {Point{1, 10, "auto", 0.01}, Point{32, 64, "auto", 0.01}, Point{32, 64, "libcurl", 0.03}}) {
    SCOPED_TRACE("concurrency " + std::to_string(conc) + ", transport " + transport);
    // A warm-up wave opens the keep-alive connections first: TTFT includes connection set-up by
    // design (as in AISBench and vLLM bench), and this test is about timing, not TCP handshakes.
    // A point past its bound (CI ran this beside another test: 32 streams on 2 busy cores read
    // TTFT 1.2% late) is run again, twice at most; the last is held to what the machine keeps
    // then (support/machine_noise.hpp). A regression is late in every run.
    for (int attempt = 0; attempt < 3; ++attempt) {
      const auto rd =
          run({"--url", sim.url(), "--concurrency", std::to_string(conc), "--num-prompts",
               std::to_string(prompts), "--max-tokens", "48", "--ignore-eos", "--warmup",
               std::to_string(conc), "--transport", transport});
      ASSERT_FALSE(rd.empty());
      auto r = result(rd);
      EXPECT_EQ(common(r, "success_requests"), prompts);
      EXPECT_EQ(metric(r, "OutputTokens", "mean"), 48);
      EXPECT_EQ(common(r, "max_concurrency"), conc);
      EXPECT_TRUE(FolderValidUnlessBusy(rd));
      const auto truth = read_sim_trace(trace);  // every run so far: matched by id
      double ttft = 0, tpot = 0;
      int n = 0;
      simdjson::dom::parser p;
      std::ifstream in(rd / "performances/tokbench-mock/builtin_details.jsonl");
      for (std::string line; std::getline(in, line);) {
        auto doc = p.parse(line);
        if (doc["warmup"].get_bool().value()) continue;
        const std::string id(doc["request_id"].get_string().value());
        ASSERT_TRUE(truth.contains(id)) << id;
        ttft += truth.at(id).ttft_ms;
        tpot += truth.at(id).tpot_ms;
        ++n;
      }
      ASSERT_EQ(n, prompts);
      ttft /= n;
      tpot /= n;
      const double late = metric(r, "TTFT", "mean") - ttft;
      const bool quiet = std::abs(metric(r, "TPOT", "mean") - tpot) < 0.01 * tpot &&
                         std::abs(metric(r, "ITL", "mean") - tpot) < 0.01 * tpot &&
                         std::abs(late) < ttft_bound * ttft;
      if (!quiet && attempt < 2) {
        std::printf("note: past the bound (TTFT %.3f ms late); the point is run again\n", late);
        continue;
      }
      EXPECT_NEAR(metric(r, "TPOT", "mean"), tpot, 0.01 * tpot);
      EXPECT_NEAR(metric(r, "ITL", "mean"), tpot, 0.01 * tpot);
      EXPECT_TRUE(WithinTimingBoundHere(late, ttft_bound * ttft)) << "truth " << ttft << " ms";
      EXPECT_GE(metric(r, "TTFT", "mean"),
                ttft * 0.999);  // the client's clock starts before the server's
      break;
    }
  }
}

// A one-shot API (/v1/rerank): E2EL within 1 % of what the simulator did (its body write - its
// kernel's receive time of the request), as means over the measured requests, and never under it;
// Document Throughput is the request rate times the documents each request ranked.
TEST_F(AccuracyTest, RerankE2elAgainstTheSimulatorsTrace) {
  const fs::path trace = dir_ / "trace.jsonl";
  Sim sim({"--ttft-ms", "50", "--trace", trace.string()});
  const auto rd = run({"--url", sim.url("/v1/rerank"), "--concurrency", "4", "--num-prompts", "32",
                       "--documents", "6", "--warmup", "4"});
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  EXPECT_TRUE(FolderValidUnlessBusy(rd));
  EXPECT_EQ(common(r, "success_requests"), 32);
  EXPECT_NEAR(common(r, "document_throughput"), 6 * common(r, "request_throughput"),
              1e-6 * common(r, "document_throughput"));
  const auto truth = read_sim_body_ms(trace);
  double sum = 0;
  int n = 0;
  simdjson::dom::parser p;
  std::ifstream in(rd / "performances/tokbench-mock/builtin_details.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto doc = p.parse(line);
    if (doc["warmup"].get_bool().value()) continue;
    const std::string id(doc["request_id"].get_string().value());
    ASSERT_TRUE(truth.contains(id)) << id;
    EXPECT_EQ(doc["documents"].get_int64().value(), 6);
    sum += truth.at(id);
    ++n;
  }
  ASSERT_EQ(n, 32);
  const double e2el = sum / n;
  EXPECT_NEAR(metric(r, "E2EL", "mean"), e2el, 0.01 * e2el) << "truth " << e2el << " ms";
  EXPECT_GE(metric(r, "E2EL", "mean"), e2el * 0.999);  // the client's clock starts first
}

// TGI's /generate (--endpoint tgi --no-stream) says its queue and inference times in headers, in
// whole ms: with two places in the batch and six in flight, requests queue, and each answer's
// ServerQueueTime is the simulator's own wait (admission - arrival) truncated to the ms, as TGI's
// Duration::as_millis writes it; the counts come from x-prompt-tokens and x-generated-tokens.
TEST_F(AccuracyTest, TgiGenerateHeadersAreTheSimulatorsQueueAndInference) {
  const fs::path trace = dir_ / "trace.jsonl";
  Sim sim({"--ttft-ms", "30", "--tpot-ms", "5", "--max-num-seqs", "2", "--trace", trace.string()});
  const auto rd = run({"--url", sim.url("/generate"), "--endpoint", "tgi", "--no-stream",
                       "--concurrency", "6", "--num-prompts", "18", "--max-tokens", "16"});
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  EXPECT_EQ(common(r, "success_requests"), 18);
  std::vector<int64_t> said_queue, true_queue, said_inference, true_inference;
  simdjson::dom::parser p;
  std::ifstream details(rd / "performances/tokbench-mock/builtin_details.jsonl");
  for (std::string line; std::getline(details, line);) {
    auto doc = p.parse(line);
    EXPECT_EQ(doc["output_tokens"].get_int64().value(), 16) << "x-generated-tokens";
    EXPECT_GT(doc["input_tokens"].get_int64().value(), 0) << "x-prompt-tokens";
    said_queue.push_back(doc["server_timings"]["queue_us"].get_int64().value());
    said_inference.push_back(doc["server_timings"]["predicted_us"].get_int64().value());
    EXPECT_EQ(doc["server_timings"]["predicted_n"].get_int64().value(), 16);
  }
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) {
    auto doc = p.parse(line);
    const int64_t admitted = doc["admitted_ns"].get_int64().value();
    true_queue.push_back((admitted - doc["arrival_ns"].get_int64().value()) / 1'000'000 * 1000);
    simdjson::dom::array t = doc["t_ns"].get_array();  // named: value() of a temporary dangles
    true_inference.push_back((t.at(t.size() - 1).get_int64().value() - admitted) / 1000);
  }
  ASSERT_EQ(said_queue.size(), 18u);
  ASSERT_EQ(true_queue.size(), 18u);
  std::sort(said_queue.begin(), said_queue.end());
  std::sort(true_queue.begin(), true_queue.end());
  EXPECT_EQ(said_queue, true_queue) << "each answer's wait, as the simulator kept it";
  EXPECT_GT(said_queue.back(), 100'000) << "two places for six in flight: requests waited";
  // Inference: whole ms, taken just before the body's write: under the trace's admission-to-write
  // time, by less than its ms and the moment between (5 ms: a busy machine's preemption).
  std::sort(said_inference.begin(), said_inference.end());
  std::sort(true_inference.begin(), true_inference.end());
  for (size_t i = 0; i < said_inference.size(); ++i) {
    EXPECT_LE(said_inference[i], true_inference[i]) << i;
    EXPECT_GT(said_inference[i], true_inference[i] - 5000) << i;
  }
  const auto queue_row = r["extra_metrics"]["ServerQueueTime"];
  EXPECT_EQ(queue_row["n"].get_int64().value(), 18);
  double mean = 0;
  for (int64_t us : said_queue) mean += static_cast<double>(us) / 1e3 / 18;
  EXPECT_NEAR(queue_row["mean"].get_double().value(), mean, 1e-9);
}

TEST_F(AccuracyTest, ClientChunkTimesTrailTheSimulatorsWriteTimes) {
  // The simulator's trace and the client's records share CLOCK_MONOTONIC: every content chunk
  // must be seen by the client after the server wrote it, and soon after.
  const auto trace = dir_ / "trace.jsonl";
  Sim sim({"--ttft-ms", "20", "--tpot-ms", "5", "--trace", trace.string()});
  const auto rd = run({"--url", sim.url(), "--concurrency", "4", "--num-prompts", "8",
                       "--max-tokens", "16", "--ignore-eos"},
                      0);
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  const int64_t origin = r["run"]["origin_steady_ns"].get_int64().value();
  std::map<std::string, std::vector<int64_t>> server;  // id -> write time of each content chunk
  std::map<std::string, int64_t> received;             // id -> when the request reached the host
  {
    simdjson::dom::parser p;
    std::ifstream in(trace);
    for (std::string line; std::getline(in, line);) {
      auto doc = p.parse(line);
      std::string_view kinds = doc["kinds"].get_string().value();
      size_t i = 0;
      received[std::string(doc["id"].get_string().value())] =
          doc["received_ns"].get_int64().value();
      auto& v = server[std::string(doc["id"].get_string().value())];
      simdjson::dom::array times =
          doc["t_ns"].get_array();  // a named array: value() of a temporary dangles
      for (auto t : times) {
        if (kinds[i++] == 'C') v.push_back(t.get_int64().value());
      }
    }
  }
  // Order is exact (a chunk is never seen before it was written); "soon" is a timing figure, so
  // each lag gets a generous bound (a preempted thread, ASan) and the median the tight one.
  constexpr int64_t kMedianLag = 5'000'000;
  constexpr int64_t kAnyLag = 200'000'000;
  std::vector<int64_t> lags, sends;
  simdjson::dom::parser p;
  std::ifstream in(rd / "performances/tokbench-mock/builtin_details.jsonl");
  size_t checked = 0;
  for (std::string line; std::getline(in, line);) {
    auto doc = p.parse(line);
    const std::string id(doc["request_id"].get_string().value());
    const auto& sv = server.at(id);
    // Sent, then on the wire at once: the simulator's kernel got it after the send stamp, and soon.
    const int64_t to_server =
        received.at(id) - (origin + doc["timing_ns"]["sent"].get_int64().value());
    EXPECT_GE(to_server, 0);
    EXPECT_LT(to_server, kAnyLag);
    sends.push_back(to_server);
    std::string_view kinds = doc["chunks"]["kinds"].get_string().value();
    size_t i = 0, c = 0;
    simdjson::dom::array times = doc["chunks"]["t_ns"].get_array();
    for (auto t : times) {
      if (kinds[i++] != 'C') continue;
      const int64_t lag = origin + t.get_int64().value() - sv.at(c++);
      EXPECT_GE(lag, 0);
      EXPECT_LT(lag, kAnyLag);
      lags.push_back(lag);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 8u * 16u);
  auto median = [](std::vector<int64_t> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  ASSERT_FALSE(lags.empty());
  EXPECT_LT(median(lags), kMedianLag);
  EXPECT_LT(median(sends), kMedianLag);
}

}  // namespace
}  // namespace tokbench::testing
