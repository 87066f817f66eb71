// record/run_parts: each part a run folder keeps (synthetic, trace, server process, profile,
// adaptive) writes and reads back through its one table, and reads what earlier versions wrote.
#include "record/run_parts.hpp"

#include <gtest/gtest.h>

namespace tokbench::record {
namespace {

template <class T>
T round_trip(const T& v) {
  simdjson::dom::parser parser;
  const std::string text = "{\"x\":" + to_json(v) + "}";
  auto back = read_optional<T>(parser.parse(text).value(), "x");
  EXPECT_TRUE(back.has_value()) << text;
  return back.value_or(T{});
}

TEST(RunParts, EveryPartRoundTrips) {
  const SyntheticFacts s{128, 64,        0.1, 0.2, 16, 18446744073709551615ull, "server /tokenize",
                         7,   "measured"};
  const SyntheticFacts s2 = round_trip(s);
  EXPECT_EQ(s2.input_len, 128);
  EXPECT_EQ(s2.output_len_range, 0.2);
  EXPECT_EQ(s2.seed, 18446744073709551615ull);  // a seed keeps all 64 bits
  EXPECT_EQ(s2.server_added_tokens_how, "measured");

  const TraceFacts t{512, 2, 40, 12.5, 0.25, "tokenizer.json", 3, "chat template"};
  const TraceFacts t2 = round_trip(t);
  EXPECT_EQ(t2.block_size, 512);
  EXPECT_EQ(t2.speed, 2);
  EXPECT_EQ(t2.implied_cache_hit, 0.25);
  EXPECT_EQ(t2.built_with, "tokenizer.json");

  ServerProcessFacts p{"vllm serve m --api-key ***", "stopped by SIGTERM", "logs/server.log", {}};
  p.log_summary.throughput_lines = 9;
  p.log_summary.mean_generation_throughput = 1234.5;
  p.log_summary.per_position_acceptance = {0.9, 0.7, 0.5};
  const ServerProcessFacts p2 = round_trip(p);
  EXPECT_EQ(p2.stopped, "stopped by SIGTERM");
  EXPECT_EQ(p2.log_summary.throughput_lines, 9);
  EXPECT_EQ(p2.log_summary.mean_generation_throughput, 1234.5);
  EXPECT_EQ(p2.log_summary.per_position_acceptance, (std::vector<double>{0.9, 0.7, 0.5}));

  const ProfileFacts f{"2:5", true, "", 200, 200, 2.01, 7.02, false};
  const ProfileFacts f2 = round_trip(f);
  EXPECT_TRUE(f2.started);
  EXPECT_EQ(f2.stop_status, 200);
  EXPECT_EQ(f2.stopped_at_s, 7.02);

  AdaptiveLog a;
  a.window_s = 2;
  a.slos = {"ttft.p99<=500ms", "tpot.p90<=50ms"};
  a.held = 8;
  a.summary = "held 8";
  a.windows.push_back({0, 0, 2, 4, 30, {120.0, 20.0}, true, "raise to 8"});
  a.windows.push_back({1,
                       2,
                       4,
                       8,
                       3,
                       {std::nullopt, std::nullopt},
                       false,
                       "too few requests (3) to judge: stay at 8"});
  const AdaptiveLog a2 = round_trip(a);
  EXPECT_EQ(a2.slos, a.slos);
  EXPECT_EQ(a2.held, 8);
  ASSERT_EQ(a2.windows.size(), 2u);
  EXPECT_EQ(a2.windows[0].values, (std::vector<std::optional<double>>{120.0, 20.0}));
  EXPECT_EQ(a2.windows[1].values, (std::vector<std::optional<double>>{std::nullopt, std::nullopt}));
  EXPECT_EQ(a2.windows[1].action, a.windows[1].action);
  EXPECT_FALSE(round_trip(AdaptiveLog{}).held);  // none held: null, read back as none
}

// The shapes earlier versions wrote (a hand-written profile that never started, the controller's
// values keyed by SLO) read into the same structs; absent parts are nullopt, not defaults.
TEST(RunParts, EarlierShapesAndAbsentPartsRead) {
  simdjson::dom::parser parser;
  const auto doc =
      parser
          .parse(std::string(
              R"({"profile":{"window":"30:5","started":false,"note":"the run ended before the window"},)"
              R"("adaptive":{"window_s":1,"slos":["e2el.p99<=900ms"],"summary":"s","held":null,"rule":"r",)"
              R"("windows":[{"index":0,"start_s":0,"end_s":1,"concurrency":1,"judged":9,"pass":true,"action":"raise to 2",)"
              R"("values":{"e2el.p99<=900ms":812.5}}]},"trace":null})"))
          .value();
  const auto profile = read_optional<ProfileFacts>(doc, "profile");
  ASSERT_TRUE(profile);
  EXPECT_FALSE(profile->started);
  EXPECT_EQ(profile->note, "the run ended before the window");
  const auto adaptive = read_optional<AdaptiveLog>(doc, "adaptive");
  ASSERT_TRUE(adaptive);
  EXPECT_FALSE(adaptive->held);
  ASSERT_EQ(adaptive->windows.size(), 1u);
  EXPECT_EQ(adaptive->windows[0].values.front(), 812.5);
  EXPECT_EQ(adaptive->windows[0].judged, 9);
  EXPECT_FALSE(read_optional<TraceFacts>(doc, "trace"));          // null
  EXPECT_FALSE(read_optional<SyntheticFacts>(doc, "synthetic"));  // absent
}

}  // namespace
}  // namespace tokbench::record
