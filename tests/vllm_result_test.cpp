// report/vllm_result: the file `vllm bench serve --save-result --save-detailed` writes — its
// keys, its units (ms statistics, second per-request arrays), vLLM's definitions (TTFT at the
// first event with choices, so the role chunk counts), failed requests kept in every array,
// and warm-up or cut requests left out.
#include "report/vllm_result.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>

#include "support/records.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::report {
namespace {

namespace fs = std::filesystem;
using record::ChunkKind;
using testing::stream_record;

TEST(VllmResult, KeysUnitsAndDefinitionsAreVllms) {
  const fs::path path = testing::test_dir() / "vllm.json";
  // Role chunk at 10 ms, text at 30, 40, 50 ms, usage at 55, [DONE] at 60: vLLM's TTFT is 10 ms.
  auto ok = stream_record(0,
                          {{10, ChunkKind::Role},
                           {30, ChunkKind::Content},
                           {40, ChunkKind::Content},
                           {50, ChunkKind::Content},
                           {55, ChunkKind::Usage}},
                          60, 3, 7);
  auto failed = ok;
  failed.outcome = record::Outcome::HttpStatus;
  failed.error = "HTTP 500";
  auto warm = ok;
  warm.warmup = true;
  auto cut = ok;
  cut.outcome = record::Outcome::Cut;
  const std::vector<record::RequestRecord> recs{ok, failed, warm, cut};
  const auto m = metrics::compute(recs, metrics::RunFacts{4, true}, metrics::Definitions::Vllm);
  {
    VllmResultWriter w(path, {"20261130-120000", "openai-chat", "m", "m", 0, 1, 4});
    for (const auto& r : recs) w.add(r);
    w.finish(m);
  }
  simdjson::dom::parser parser;
  auto doc = parser.load(path.string());
  ASSERT_FALSE(doc.error());
  auto d = doc.value();
  EXPECT_EQ(std::string_view(d["request_rate"]), "inf");
  EXPECT_EQ(int64_t(d["completed"]), 1);
  EXPECT_EQ(int64_t(d["failed"]), 1);
  EXPECT_NEAR(double(d["mean_ttft_ms"]), 10, 1e-9);  // the role chunk, as vLLM stamps it
  EXPECT_NEAR(double(d["mean_e2el_ms"]), 50, 1e-9);  // to the last event with choices
  EXPECT_NEAR(double(d["mean_tpot_ms"]), 20, 1e-9);  // (50 - 10) / (3 - 1)
  EXPECT_NEAR(double(d["std_ttft_ms"]), 0, 1e-12);
  for (const char* k :
       {"date", "backend", "model_id", "num_prompts", "burstiness", "max_concurrency", "duration",
        "total_input_tokens", "total_output_tokens", "request_throughput", "output_throughput",
        "total_token_throughput", "median_itl_ms", "p99_e2el_ms", "std_tpot_ms"}) {
    EXPECT_FALSE(d[k].error()) << k;
  }
  // Per-request arrays: the two measured requests (warm-up and cut left out), in seconds.
  auto ttfts = simdjson::dom::array(d["ttfts"]);
  ASSERT_EQ(ttfts.size(), 2u);
  EXPECT_NEAR(double(ttfts.at(0)), 0.010, 1e-12);
  EXPECT_EQ(double(ttfts.at(1)), 0.0);  // failed: 0, as vLLM writes it
  auto itls = simdjson::dom::array(simdjson::dom::array(d["itls"]).at(0));
  ASSERT_EQ(itls.size(), 3u);  // 10 -> 30 -> 40 -> 50 (the usage chunk has no choices)
  EXPECT_NEAR(double(itls.at(0)), 0.020, 1e-12);
  EXPECT_EQ(int64_t(simdjson::dom::array(d["output_lens"]).at(1)), 0);
  EXPECT_EQ(std::string_view(simdjson::dom::array(d["errors"]).at(1)), "http_status: HTTP 500");
  EXPECT_EQ(simdjson::dom::array(d["generated_texts"]).size(), 2u);
  EXPECT_FALSE(fs::exists(path.string() + ".ttfts.tmp"));  // the temporary arrays are gone
  EXPECT_TRUE(d["request_goodput"].is_null());             // no --goodput: null, as vLLM writes it
  fs::remove(path);
}

// vLLM's peak: every chunk's time (first token plus gaps) in one-second buckets from the earliest
// first token; the fullest bucket. Chunks are counted, not tokens, as vLLM does.
TEST(VllmResult, PeakOutputIsTheFullestSecondOfChunksFromTheFirstToken) {
  const fs::path path = testing::test_dir() / "vllm_peak.json";
  // First tokens at 500 and 900 ms: buckets start at 500 ms. Request a: chunks at 500, 1400
  // (bucket 0), 1600 (bucket 1). Request b: 900, 1000, 1200 (bucket 0), 1550 (bucket 1), with
  // 4 tokens in its last chunk (still one chunk). Bucket 0 holds 5 chunks, bucket 1 holds 2.
  auto a = stream_record(
      0, {{500, ChunkKind::Content}, {1400, ChunkKind::Content}, {1600, ChunkKind::Content}}, 1700,
      3, 5);
  auto b = stream_record(100,
                         {{900, ChunkKind::Content},
                          {1000, ChunkKind::Content},
                          {1200, ChunkKind::Content},
                          {1550, ChunkKind::Content, 7}},
                         1600, 7, 5);
  const std::vector<record::RequestRecord> recs{a, b};
  auto m = metrics::compute(recs, metrics::RunFacts{2, true}, metrics::Definitions::Vllm);
  {
    VllmResultFacts facts{"20261130-120000", "openai-chat", "m", "m", 0, 1, 2};
    facts.first_token_ns = 500'000'000;
    VllmResultWriter w(path, facts);
    for (const auto& r : recs) w.add(r);
    w.finish(m);
  }
  simdjson::dom::parser parser;
  auto d = parser.load(path.string()).value();
  EXPECT_EQ(double(d["max_output_tokens_per_s"]), 5.0);
  fs::remove(path);
}

}  // namespace
}  // namespace tokbench::report
