// --otlp-receive (issue 46, item 3): tokbench receives the server's OTLP spans during the run and
// joins them to its requests by trace id. Against the simulator exporting vLLM-shaped spans with
// its true times (--otlp-traces-endpoint), every request is joined and its queue, prefill and
// decode equal the simulator's own instants (its --trace) within 1%; the phases add up to the
// client's E2EL; `report` rebuilds the same waterfall from the folder; a budget names the requests
// over it; a server that sends nothing leaves every request unjoined, said, never a guess.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "runner/runner.hpp"
#include "settings/run_config.hpp"
#include "support/ports.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench {
namespace {

// <ds>_waterfall.csv's rows by request id: the column values by name.
std::map<std::string, std::map<std::string, double>> waterfall_rows(
    const std::filesystem::path& csv) {
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  std::vector<std::string> names;
  std::stringstream h(header);
  for (std::string c; std::getline(h, c, ',');) names.push_back(c);
  std::map<std::string, std::map<std::string, double>> out;
  for (std::string line; std::getline(in, line);) {
    std::stringstream l(line);
    std::string id;
    std::map<std::string, double> row;
    size_t k = 0;
    for (std::string c; std::getline(l, c, ','); ++k) {
      if (names[k] == "request_id")
        id = c.substr(1, c.size() - 2);  // quoted
      else if (names[k] != "class")
        row[names[k]] = std::stod(c);
    }
    out[id] = row;
  }
  return out;
}

class WaterfallTest : public testing::RunTest {
 protected:
  runner::RunOutcome run_with_spans(const testing::Sim& sim, int port, double budget = 10,
                                    double wait_s = 6) {
    return run(testing::RunSettings()
                   .url(sim.url())
                   .concurrency(4)
                   .prompts(24)
                   .max_tokens(10)
                   .with([&](runner::RunConfig& r) {
                     r.observe.otlp_receive = fmt::format("127.0.0.1:{}", port);
                     r.observe.client_share_budget = budget;
                     r.observe.otlp_wait_s = wait_s;
                   })
                   .build());
  }
};

TEST_F(WaterfallTest, EveryRequestIsJoinedWithTheSimulatorsTrueTimes) {
  const int port = testing::unused_loopback_port();
  const auto trace = dir_ / "sim_trace.jsonl";
  testing::Sim sim({"--ttft-ms", "15", "--tpot-ms", "2", "--max-num-seqs", "2", "--trace",
                    trace.string(), "--otlp-traces-endpoint",
                    fmt::format("http://127.0.0.1:{}/v1/traces", port)});
  const runner::RunOutcome out = run_with_spans(sim, port);
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  const auto wf = result(out)["waterfall"];
  ASSERT_FALSE(wf.error()) << "no waterfall in result.json";
  EXPECT_EQ(wf["measured"].get_int64().value(), 24);
  EXPECT_EQ(wf["joined"].get_int64().value(), 24);
  EXPECT_EQ(wf["unjoined"].get_int64().value(), 0);
  int64_t in_buckets = 0;
  for (auto b : wf["buckets"].get_array()) in_buckets += b["n"].get_int64().value();
  EXPECT_EQ(in_buckets, 24);
  // The truth: the simulator's instants of each request.
  std::map<std::string, std::array<double, 3>> truth;  // queue, prefill, decode (ms)
  simdjson::dom::parser p;
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) {
    auto d = p.parse(line);
    const double arrival = static_cast<double>(d["arrival_ns"].get_int64().value());
    const double admitted = static_cast<double>(d["admitted_ns"].get_int64().value());
    const double first = static_cast<double>(d["first_token_ns"].get_int64().value());
    const double last = static_cast<double>(d["last_token_ns"].get_int64().value());
    truth[std::string(d["id"].get_string().value())] = {
        (admitted - arrival) / 1e6, (first - admitted) / 1e6, (last - first) / 1e6};
  }
  const auto rows =
      waterfall_rows(out.run_dir / "performances" / "tokbench-mock" / "builtin_waterfall.csv");
  ASSERT_EQ(rows.size(), 24u);
  std::map<std::string, double> e2el_of;
  for (const auto& r : records(out))
    if (!r.warmup) e2el_of[r.request_id] = static_cast<double>(r.done_ns - r.sent_ns) / 1e6;
  double queued = 0;
  for (const auto& [id, row] : rows) {
    ASSERT_TRUE(truth.count(id)) << id;
    const auto& t = truth[id];
    auto within = [](double got, double want) {
      return std::abs(got - want) <= 0.01 * want + 1e-3;
    };
    EXPECT_TRUE(within(row.at("queue_ms"), t[0]))
        << id << " " << row.at("queue_ms") << " vs " << t[0];
    EXPECT_TRUE(within(row.at("prefill_ms"), t[1])) << id;
    EXPECT_TRUE(within(row.at("decode_ms"), t[2])) << id;
    queued += row.at("queue_ms");
    // The phases add up to the client's E2EL; on one host the wall-clock crossings are not
    // negative beyond the clocks' read-out (a few µs).
    const double sum = row.at("to_server_ms") + row.at("queue_ms") + row.at("prefill_ms") +
                       row.at("decode_ms") + row.at("server_other_ms") + row.at("delivery_ms");
    EXPECT_NEAR(sum, e2el_of.at(id), 0.01) << id;
    EXPECT_NEAR(row.at("e2el_ms"), e2el_of.at(id), 0.01) << id;
    EXPECT_GT(row.at("to_server_ms"), -0.5) << id;
    EXPECT_GT(row.at("delivery_ms"), -0.5) << id;
  }
  // The page shows the table beside the others.
  std::ifstream page_in(out.run_dir / "performances" / "tokbench-mock" / "builtin_plot.html");
  const std::string page((std::istreambuf_iterator<char>(page_in)), {});
  EXPECT_NE(page.find("24 of 24 requests joined by trace id"), std::string::npos);
  EXPECT_NE(page.find("Server other"), std::string::npos);
  EXPECT_GT(queued, 24 * 5.0);  // 4 at once on 2 places: half of them wait a whole request
  // `report` rebuilds the same waterfall from the folder.
  const std::string first = simdjson::minify(wf["buckets"].value());
  std::FILE* devnull = std::fopen("/dev/null", "w");
  runner::recompute(out.run_dir, std::nullopt, devnull);
  std::fclose(devnull);
  EXPECT_EQ(simdjson::minify(result(out)["waterfall"]["buckets"].value()), first);
}

TEST_F(WaterfallTest, ABudgetNamesTheRequestsOverItAndNoSpansAreSaid) {
  const int port = testing::unused_loopback_port();
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "1", "--otlp-traces-endpoint",
                    fmt::format("http://127.0.0.1:{}/v1/traces", port)});
  // Budget 0: every request spent some time outside the server, so each is named.
  const runner::RunOutcome all = run_with_spans(sim, port, 0);
  const auto wf = result(all)["waterfall"];
  ASSERT_FALSE(wf.error());
  EXPECT_EQ(wf["over_budget"].get_int64().value(), 24);
  EXPECT_EQ(wf["over_budget_requests"].get_array().size(), 24u);
  // A server that exports nowhere near us: after --otlp-wait-s, every request unjoined.
  testing::Sim silent({"--ttft-ms", "5", "--tpot-ms", "1"});
  const runner::RunOutcome none = run_with_spans(silent, testing::unused_loopback_port(), 10, 0.3);
  const auto nothing = result(none)["waterfall"];
  ASSERT_FALSE(nothing.error());
  EXPECT_EQ(nothing["joined"].get_int64().value(), 0);
  EXPECT_EQ(nothing["unjoined"].get_int64().value(), 24);
  EXPECT_EQ(nothing["spans_received"].get_int64().value(), 0);
}

TEST(WaterfallSettings, BadValuesAreRefusedByName) {
  auto errors = [](const std::function<void(runner::RunConfig&)>& edit) {
    runner::RunConfig c;
    edit(c);
    std::vector<std::string> e;
    c.validate_observe(e);
    std::string all;
    for (const auto& x : e) all += x + "\n";
    return all;
  };
  EXPECT_NE(errors([](auto& c) {
              c.observe.otlp_receive = "70000";
            }).find("--otlp-receive: bad value '70000'"),
            std::string::npos);
  EXPECT_NE(errors([](auto& c) { c.observe.otlp_receive = "host:"; }).find("--otlp-receive"),
            std::string::npos);
  EXPECT_EQ(errors([](auto& c) { c.observe.otlp_receive = "[::1]:4318"; }), "");
  EXPECT_EQ(errors([](auto& c) { c.observe.otlp_receive = "4318"; }), "");
  EXPECT_NE(errors([](auto& c) { c.observe.otlp_wait_s = 1; }).find("need --otlp-receive"),
            std::string::npos);
}

}  // namespace
}  // namespace tokbench
