// metrics/slo: --goodput and --slo parsing (every bad part named), per-request judging as vLLM
// defines goodput (failed requests are never good; a 1-token answer meets a TPOT SLO), and the
// goodput rows a MetricsPass adds.
#include "metrics/slo.hpp"

#include <gtest/gtest.h>

namespace tokbench::metrics {
namespace {

using record::RequestRecord;

// A streaming request: sent at 0, first token at ttft ms, then `tokens - 1` gaps of tpot ms.
RequestRecord req(double ttft_ms, double tpot_ms, int64_t tokens, bool ok = true) {
  RequestRecord r;
  r.sent_ns = 0;
  r.first_token_ns = static_cast<int64_t>(ttft_ms * 1e6);
  r.last_token_ns = r.first_token_ns + static_cast<int64_t>(tpot_ms * 1e6) * (tokens - 1);
  r.done_ns = r.last_token_ns + 1'000'000;
  r.completion_tokens = tokens;
  r.prompt_tokens = 10;
  for (int64_t i = 0; i < tokens; ++i)
    r.chunks.push_back({r.first_token_ns + static_cast<int64_t>(tpot_ms * 1e6) * i, 10, -1,
                        record::ChunkKind::Content});
  if (!ok) r.outcome = record::Outcome::HttpStatus;
  return r;
}

TEST(Goodput, ParsesVllmsFormAndNamesBadParts) {
  const GoodputSpec s = parse_goodput("ttft:500 tpot:50,e2el:2s");
  EXPECT_EQ(*s.ttft_ms, 500);
  EXPECT_EQ(*s.tpot_ms, 50);
  EXPECT_EQ(*s.e2el_ms, 2000);
  EXPECT_EQ(s.to_string(), "ttft:500 tpot:50 e2el:2000");
  EXPECT_EQ(parse_goodput("TTFT:250ms").to_string(), "ttft:250");
  for (const char* bad : {"", "ttft", "ttft:-1", "itl:5", "ttft:abc", "ttft:5x"}) {
    try {
      parse_goodput(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--goodput"), std::string::npos) << e.what();
    }
  }
}

TEST(Goodput, JudgesEachRequestAgainstEverySloGiven) {
  const GoodputSpec s = parse_goodput("ttft:100 tpot:20");
  const SloResult good = judge_slo(req(50, 10, 5), s);
  EXPECT_TRUE(good.good);
  EXPECT_TRUE(*good.ttft);
  EXPECT_FALSE(good.e2el.has_value());  // not in the spec
  const SloResult slow = judge_slo(req(150, 10, 5), s);
  EXPECT_FALSE(slow.good);
  EXPECT_FALSE(*slow.ttft);
  EXPECT_TRUE(*slow.tpot);
  EXPECT_TRUE(judge_slo(req(50, 0, 1), s).good);           // one token: no TPOT, meets it (vLLM)
  EXPECT_FALSE(judge_slo(req(50, 10, 5, false), s).good);  // failed: never good
}

TEST(Goodput, MetricsPassAddsGoodputRowsOverEveryDefinitionSet) {
  RunFacts facts;
  facts.goodput = parse_goodput("ttft:100");
  MetricsPass pass(facts, {Definitions::Tokbench, Definitions::Vllm});
  for (int i = 0; i < 8; ++i) pass.add(req(i < 6 ? 50 : 150, 10, 5));
  pass.add(req(50, 10, 5, false));
  const auto sets = pass.finish();
  for (const auto& m : sets) {
    EXPECT_EQ(m.common_metric("good_requests")->value, 6);
    EXPECT_NEAR(m.common_metric("slo_attainment_percent")->value, 100.0 * 6 / 9,
                1e-9);  // the failure counts against
    const double dur_s = m.common_metric("benchmark_duration")->value / 1000;
    EXPECT_NEAR(m.common_metric("request_goodput")->value, 6 / dur_s, 1e-9);
  }
  RunFacts none;
  MetricsPass plain(none, {Definitions::Tokbench});
  plain.add(req(50, 10, 5));
  EXPECT_EQ(plain.finish().front().common_metric("request_goodput"), nullptr);
}

TEST(RunSlo, ParsesAndReadsTheStatistic) {
  const auto slos = parse_run_slos("ttft.p99<=500ms, tpot.p90<=0.05s");
  ASSERT_EQ(slos.size(), 2u);
  EXPECT_EQ(slos[0].metric, "TTFT");
  EXPECT_EQ(slos[0].stat, "p99");
  EXPECT_EQ(slos[1].bound_ms, 50);
  EXPECT_EQ(slos[1].text(), "tpot.p90<=50ms");
  MetricSet m;
  Row r;
  r.name = "TTFT";
  r.stats =
      Summary{.mean = 1, .min = 0, .max = 9, .median = 2, .p75 = 3, .p90 = 4, .p99 = 5, .n = 10};
  m.rows.push_back(r);
  EXPECT_EQ(*slos[0].value(m), 5);
  EXPECT_FALSE(slos[1].value(m).has_value());  // no TPOT row: n/a, never "met"
  for (const char* bad :
       {"ttft<=5", "ttft.p42<=5", "foo.p99<=5", "ttft.p99<=", "ttft.p99>=5", "ttft.p99<=5"}) {
    EXPECT_THROW(parse_run_slos(bad), std::invalid_argument) << bad;
  }
  try {  // a bound with no unit is not silently ms: the error writes both fixes
    parse_run_slos("ttft.p99<=500");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "--slo: 'ttft.p99<=500' gives no unit: write 500ms (or 500s for seconds)");
  }
  EXPECT_EQ(parse_run_slos("e2el.p90<=1.5s")[0].bound_ms, 1500);
}

}  // namespace
}  // namespace tokbench::metrics
