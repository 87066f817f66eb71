// --live (issue 46, item 4; probe/live_server, probe/live_text): the load point as it runs. Its
// /metrics is Prometheus' text format (cumulative buckets, +Inf the count, labels escaped); during
// a run a poller sees the counts grow and, because it scrapes, gets one more scrape of the final
// state, which equals the run's records; /live.json ends final with a timeline; / is the page. A
// real Prometheus (Debian's `prometheus`, installed by scripts/setup.sh --test) scrapes a run and
// its query for requests done equals the run's count. Bad values and mpirun are refused by name.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "metrics/live_tally.hpp"
#include "net/http_get.hpp"
#include "probe/live_server.hpp"
#include "probe/live_text.hpp"
#include "runner/runner.hpp"
#include "settings/run_config.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench {
namespace {

using namespace std::chrono_literals;

// The value of the sample `series` (its name and labels exactly as written), or -1.
double sample(const std::string& text, const std::string& series) {
  const size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

record::RequestRecord ok_record(std::string cls, double ttft_s, double e2el_s) {
  record::RequestRecord r;
  r.traffic_class = std::move(cls);
  r.sent_ns = 0;
  r.first_event_ns = r.first_token_ns = static_cast<int64_t>(ttft_s * 1e9);
  r.last_token_ns = r.done_ns = static_cast<int64_t>(e2el_s * 1e9);
  r.chunks.push_back({r.first_token_ns, 5, -1, record::ChunkKind::Content, 0});
  r.completion_tokens = 3;
  r.prompt_tokens = 10;
  return r;
}

TEST(LiveText, IsPrometheusTextWithCumulativeBucketsAndEscapedLabels) {
  metrics::LiveTally t;
  t.add(ok_record("", 0.03, 0.5));
  t.add(ok_record("", 0.2, 2.0));
  record::RequestRecord failed = ok_record("", 0.1, 0.1);
  failed.outcome = record::Outcome::Timeout;
  t.add(failed);
  const std::string text = "\n" + probe::prometheus_text(t.snapshot(), 4, {"r1", "c\"4\"", "m"});
  const std::string l = R"(run_id="r1",point="c\"4\"",model="m")";
  EXPECT_EQ(sample(text, "tokbench_requests_sent_total{" + l + "}"), 4);
  EXPECT_EQ(sample(text, "tokbench_requests_in_flight{" + l + "}"), 1);
  EXPECT_EQ(sample(text, "tokbench_requests_total{" + l + R"(,outcome="ok"})"), 2);
  EXPECT_EQ(sample(text, "tokbench_requests_total{" + l + R"(,outcome="failed"})"), 1);
  EXPECT_EQ(sample(text, "tokbench_generation_tokens_total{" + l + "}"), 6);
  const std::string h = "tokbench_time_to_first_token_seconds";
  EXPECT_EQ(sample(text, h + "_bucket{" + l + R"(,le="0.02"})"), 0);
  EXPECT_EQ(sample(text, h + "_bucket{" + l + R"(,le="0.04"})"), 1);
  EXPECT_EQ(sample(text, h + "_bucket{" + l + R"(,le="0.25"})"), 2);  // cumulative
  EXPECT_EQ(sample(text, h + "_bucket{" + l + R"(,le="+Inf"})"), 2);
  EXPECT_EQ(sample(text, h + "_count{" + l + "}"), 2);
  EXPECT_NEAR(sample(text, h + "_sum{" + l + "}"), 0.23, 1e-12);
  EXPECT_EQ(sample(text, "tokbench_e2e_request_latency_seconds_count{" + l + "}"), 2);
  EXPECT_NE(text.find("# TYPE tokbench_requests_total counter"), std::string::npos);
  EXPECT_NE(text.find("# TYPE " + h + " histogram"), std::string::npos);
  // Per class: each its own series.
  metrics::LiveTally c;
  c.add(ok_record("chat", 0.01, 0.1));
  c.add(ok_record("batch", 0.01, 0.1));
  const std::string per = "\n" + probe::prometheus_text(c.snapshot(), 2, {"r", "p", "m"});
  EXPECT_EQ(
      sample(
          per,
          R"(tokbench_requests_total{run_id="r",point="p",model="m",class="chat",outcome="ok"})"),
      1);
  EXPECT_EQ(probe::escape_label("a\\b\n\"c\""), R"(a\\b\n\"c\")");
}

class LiveRun : public testing::RunTest {
 protected:
  runner::RunConfig config(const testing::Sim& sim, const std::string& live) {
    return testing::RunSettings()
        .url(sim.url())
        .rate(8)
        .prompts(20)
        .max_tokens(8)
        .with([&](runner::RunConfig& r) { r.observe.live = live; })
        .build();
  }
};

// The server alone: /live.json says final once the point is over, and finish() waits for a
// scraper that came (here up to 15 s: it has scraped once) until its next scrape, which gets the
// final counts; then the port is closed. Without a scraper it does not wait.
TEST(LiveServer, FinishWaitsForTheScrapersNextScrapeOfTheFinalState) {
  auto tally = std::make_shared<metrics::LiveTally>();
  tally->add(ok_record("", 0.01, 0.1));
  const int port = testing::unused_loopback_port();
  probe::LiveServer s(fmt::format("127.0.0.1:{}", port), tally, [] { return int64_t{2}; },
                      {"r", "p", "m"});
  const std::string url = fmt::format("http://127.0.0.1:{}/", port);
  EXPECT_EQ(s.url(), url);
  auto json = [&] {
    const auto r = net::http_get(url + "live.json", {}, "", 2000);
    EXPECT_TRUE(r.reached) << r.error;
    return std::string(r.body);
  };
  EXPECT_NE(json().find("\"final\":false"), std::string::npos);
  auto first = net::http_get(url + "metrics", {}, "", 2000);
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(
      sample("\n" + first.body, R"(tokbench_requests_in_flight{run_id="r",point="p",model="m"})"),
      1);
  tally->add(ok_record("", 0.01, 0.1));  // the second finishes
  std::atomic<bool> finished{false};
  std::thread t([&] {
    s.finish(false);
    finished = true;
  });
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(finished) << "finish() did not wait for the scraper";
  const std::string final_json = json();
  EXPECT_NE(final_json.find("\"final\":true"), std::string::npos) << final_json;
  const auto last = net::http_get(url + "metrics", {}, "", 2000);
  t.join();
  EXPECT_EQ(sample("\n" + last.body,
                   R"(tokbench_requests_total{run_id="r",point="p",model="m",outcome="ok"})"),
            2);
  EXPECT_FALSE(net::http_get(url + "metrics", {}, "", 2000).reached);  // closed
  // No scraper: no wait.
  const int port2 = testing::unused_loopback_port();
  probe::LiveServer quiet(fmt::format("127.0.0.1:{}", port2), tally, [] { return int64_t{2}; },
                          {"r", "p", "m"});
  // A port already taken: refused, naming the flag.
  try {
    probe::LiveServer taken(fmt::format("127.0.0.1:{}", port2), tally, nullptr, {"r", "p", "m"});
    ADD_FAILURE() << "a second listener on the same port";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--live: cannot listen"), std::string::npos) << e.what();
  }
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(quiet.finish(false), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
}

// A poller every 100 ms during a run: the counts grow, the last scrape is the final state (the
// server waited for it), / is the page, others are 404.
TEST_F(LiveRun, APollerSeesTheCountsGrowAndGetsTheFinalState) {
  testing::Sim sim({"--ttft-ms", "10", "--tpot-ms", "2"});
  const int port = testing::unused_loopback_port();
  const std::string base = fmt::format("http://127.0.0.1:{}", port);
  std::atomic<bool> done{false};
  std::string last_metrics, last_json, page, missing;
  int scrapes = 0, growing = 0;
  double previous = -1;
  std::thread poller([&] {
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (!done && std::chrono::steady_clock::now() < give_up) {
      const auto m = net::http_get(base + "/metrics", {}, "", 2000);
      if (m.reached && m.status == 200) {
        ++scrapes;
        last_metrics = "\n" + m.body;
        const auto j = net::http_get(base + "/live.json", {}, "", 2000);
        if (j.reached) last_json = j.body;
        if (page.empty()) {
          page = net::http_get(base + "/", {}, "", 2000).body;
          missing = std::to_string(net::http_get(base + "/nope", {}, "", 2000).status);
        }
        const size_t at = last_metrics.find("outcome=\"ok\"} ");
        const double now = at == std::string::npos ? 0 : std::stod(last_metrics.substr(at + 14));
        if (now > previous && previous >= 0) ++growing;
        previous = now;
      }
      std::this_thread::sleep_for(100ms);
    }
  });
  const runner::RunOutcome out = run(config(sim, fmt::format("127.0.0.1:{}", port)));
  done = true;
  poller.join();
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  int64_t ok = 0, measured = 0;
  for (const auto& r : records(out))
    if (!r.warmup) ++measured, ok += r.ok() ? 1 : 0;
  ASSERT_EQ(measured, 20);
  ASSERT_GE(scrapes, 3) << "the poller never reached --live";
  EXPECT_GE(growing, 1) << "the counts never grew between scrapes";
  const size_t at = last_metrics.find("outcome=\"ok\"} ");
  ASSERT_NE(at, std::string::npos) << last_metrics;
  EXPECT_EQ(std::stod(last_metrics.substr(at + 14)), ok) << last_metrics;
  EXPECT_NE(last_metrics.find("tokbench_requests_in_flight{"), std::string::npos);
  EXPECT_NE(last_metrics.find("} 0\n# HELP tokbench_requests_total"), std::string::npos)
      << "in flight is not 0 at the end:" << last_metrics;
  // The last /live.json read (its final state is LiveServer's own test: the poller's last read
  // may race the server's close).
  simdjson::dom::parser p;
  auto j = p.parse(last_json);
  ASSERT_FALSE(j.error()) << last_json;
  EXPECT_GE(j["timeline"].get_array().size(), 2u);
  EXPECT_LE(j["classes"][""]["ok"].get_int64().value(), ok);
  EXPECT_GT(j["sent"].get_int64().value(), 0);
  EXPECT_NE(page.find("tokbenchLive"), std::string::npos);  // web/live.js, inline
  EXPECT_NE(page.find("echarts"), std::string::npos);
  EXPECT_EQ(missing, "404");
}

// Debian's Prometheus scrapes --live every second during a run; after it, its query for the
// requests done equals the run's count (the server waited for the scrape of the final state).
TEST_F(LiveRun, ARealPrometheusScrapesTheRunsCount) {
  const std::string prometheus = "/usr/bin/prometheus";
  ASSERT_TRUE(std::filesystem::exists(prometheus))
      << "Debian's prometheus is not installed: run scripts/setup.sh --test";
  const int live_port = testing::unused_loopback_port();
  int prom_port = testing::unused_loopback_port();
  while (prom_port == live_port) prom_port = testing::unused_loopback_port();
  const auto cfg = dir_ / "prometheus.yml";
  std::ofstream(cfg) << fmt::format(
      "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n"
      "  - job_name: tokbench\n    static_configs:\n      - targets: ['127.0.0.1:{}']\n",
      live_port);
  testing::Child prom({prometheus, "--config.file=" + cfg.string(),
                       "--storage.tsdb.path=" + (dir_ / "tsdb").string(),
                       fmt::format("--web.listen-address=127.0.0.1:{}", prom_port)});
  const std::string api = fmt::format("http://127.0.0.1:{}", prom_port);
  bool ready = false;
  for (int i = 0; i < 300 && !ready; ++i) {
    prom.read_until("\n", 10ms);  // keep its log pipe drained
    const auto r = net::http_get(api + "/-/ready", {}, "", 1000);
    ready = r.reached && r.status == 200;
    if (!ready) std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(ready) << "prometheus did not get ready: " << prom.output();
  // Its discovery hands targets to the scrapers at most every 5 s: wait until ours is active.
  bool active = false;
  for (int i = 0; i < 300 && !active; ++i) {
    prom.read_until("\n", 10ms);
    const auto r = net::http_get(api + "/api/v1/targets", {}, "", 1000);
    active = r.reached && r.body.find("\"scrapeUrl\"") != std::string::npos;
    if (!active) std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(active) << "prometheus never took its scrape target: " << prom.output();
  testing::Sim sim({"--ttft-ms", "10", "--tpot-ms", "2"});
  runner::RunConfig c = config(sim, fmt::format("127.0.0.1:{}", live_port));
  c.load.request_rate = 5;  // 20 requests over ~4 s: several scrapes during the run
  const runner::RunOutcome out = run(c);
  int64_t ok = 0;
  for (const auto& r : records(out))
    if (!r.warmup && r.ok()) ++ok;
  ASSERT_GT(ok, 0);
  auto query = [&](const std::string& q) {
    std::string url = api + "/api/v1/query?query=";
    for (unsigned char ch : q)
      url += std::isalnum(ch) ? std::string(1, ch) : fmt::format("%{:02X}", ch);
    const auto r = net::http_get(url, {}, "", 5000);
    EXPECT_TRUE(r.reached && r.status == 200) << r.error << r.body;
    simdjson::dom::parser p;
    auto d = p.parse(r.body);
    if (d.error() || d["data"]["result"].get_array().size() == 0) {
      ADD_FAILURE() << q << ": " << r.body << "\n" << url;
      return -1.0;
    }
    return std::stod(std::string(d["data"]["result"].at(0)["value"].at(1).get_string().value()));
  };
  prom.read_until("\n", 10ms);
  EXPECT_EQ(query(R"(max_over_time(tokbench_requests_total{outcome="ok"}[10m]))"), ok)
      << prom.output();
  EXPECT_EQ(query("max_over_time(tokbench_e2e_request_latency_seconds_count[10m])"), ok);
  EXPECT_GE(query("count_over_time(tokbench_requests_sent_total[10m])"), 2);  // scraped mid-run
  prom.signal(SIGTERM);
  prom.wait(20s);
}

TEST(LiveSettings, BadValuesAndMpirunAreRefusedByName) {
  auto errors = [](const std::string& live) {
    runner::RunConfig c;
    c.observe.live = live;
    std::vector<std::string> e;
    c.validate_observe(e);
    std::string all;
    for (const auto& x : e) all += x + "\n";
    return all;
  };
  EXPECT_NE(errors("70000").find("--live: bad value '70000'"), std::string::npos);
  EXPECT_NE(errors("host:").find("--live"), std::string::npos);
  EXPECT_EQ(errors("9464"), "");
  EXPECT_EQ(errors("127.0.0.1:9464"), "");
  runner::RunConfig c;
  c.observe.live = "9464";
  c.observe.otlp_receive = "9464";
  std::vector<std::string> e;
  c.validate_observe(e);
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e.back().find("same address"), std::string::npos);
  c.observe.otlp_receive.clear();
  c.target.url = "http://127.0.0.1:8000/v1/chat/completions";
  c.load.concurrency = 4;
  bool named = false;
  for (const auto& p : c.multi_host_problems(2))
    named |= p.find("--live is single-host") != std::string::npos;
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace tokbench
