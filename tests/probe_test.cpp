// probe/: the Prometheus text parser, histogram-delta quantiles, and the client/server cross-check.
#include <gtest/gtest.h>

#include <cmath>

#include "metrics/cross_check.hpp"
#include "probe/prometheus.hpp"
#include "probe/server_metrics.hpp"
#include "probe/server_process.hpp"
#include "support/canned_server.hpp"

namespace tokbench::probe {
namespace {

const char* kBody = R"(# HELP vllm:num_requests_running Number of requests.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} 3
vllm:generation_tokens_total{model_name="m"} 1.5e3
process_start_time_seconds 1.7e9 1700000000000
weird{path="a \"q\" b\\c\nd",x="1"} -Inf
vllm:lat_bucket{model_name="m",le="0.1"} 2
vllm:lat_bucket{model_name="m",le="0.5"} 6
vllm:lat_bucket{model_name="m",le="+Inf"} 8
vllm:lat_sum{model_name="m"} 3.2
vllm:lat_count{model_name="m"} 8
)";

TEST(Prometheus, ParsesCountersGaugesHistogramsLabelsAndEscapes) {
  const auto s = parse_text(kBody);
  ASSERT_EQ(s.size(), 9u);
  EXPECT_EQ(s[0].name, "vllm:num_requests_running");
  EXPECT_EQ(s[0].labels.at("model_name"), "m");
  EXPECT_DOUBLE_EQ(s[0].value, 3);
  EXPECT_DOUBLE_EQ(s[1].value, 1500);
  EXPECT_DOUBLE_EQ(s[2].value, 1.7e9);  // a trailing timestamp is ignored
  EXPECT_EQ(s[3].labels.at("path"), "a \"q\" b\\c\nd");
  EXPECT_TRUE(std::isinf(s[3].value));
  EXPECT_EQ(s[6].labels.at("le"), "+Inf");
  Snapshot snap{0, s};
  EXPECT_EQ(snap.sum("vllm:lat_count"), 8);
  EXPECT_FALSE(snap.sum("absent").has_value());
}

TEST(Prometheus, MalformedLinesNameTheLine) {
  for (const char* bad : {"ok 1\n{x=\"1\"} 2\n", "ok 1\nm{x=1} 2\n", "ok 1\nm{x=\"1} 2\n",
                          "ok 1\nm 12abc\n", "ok 1\nm\n"}) {
    try {
      parse_text(bad);
      FAIL() << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("line 2:", 0), 0u) << e.what();
    }
  }
}

TEST(Prometheus, HistogramDeltaQuantilesLikeHistogramQuantile) {
  Snapshot before{0, parse_text("h_bucket{le=\"0.1\"} 1\nh_bucket{le=\"0.5\"} "
                                "1\nh_bucket{le=\"+Inf\"} 1\nh_sum 0.05\nh_count 1\n")};
  Snapshot after{1, parse_text(kBody)};
  for (auto& x : after.samples)
    if (x.name.starts_with("vllm:lat")) x.name = "h" + x.name.substr(8);
  const auto d = histogram_delta(before, after, "h");
  ASSERT_TRUE(d.has_value());
  // Delta: le=0.1 -> 1, le=0.5 -> 5, +Inf -> 7; sum 3.15, count 7.
  EXPECT_DOUBLE_EQ(d->count, 7);
  EXPECT_DOUBLE_EQ(d->mean(), 3.15 / 7);
  // Median: rank 3.5 falls in (0.1, 0.5] holding 4 (cumulative 1..5): 0.1 + 0.4 * (3.5 - 1) / 4 =
  // 0.35.
  EXPECT_NEAR(*d->quantile(0.5), 0.35, 1e-12);
  // Rank 0.7 in the first bucket [0, 0.1]: 0.1 * 0.7 / 1 = 0.07.
  EXPECT_NEAR(*d->quantile(0.1), 0.07, 1e-12);
  // Rank 6.93 lies in +Inf: the highest finite bound answers.
  EXPECT_DOUBLE_EQ(*d->quantile(0.99), 0.5);
  EXPECT_FALSE(histogram_delta(before, after, "absent").has_value());
}

// Found by fuzz/prometheus: a bucket bound that is not a number is skipped, not thrown from.
TEST(Prometheus, BucketBoundThatIsNotANumberIsSkipped) {
  Snapshot s{0, parse_text("h_bucket{le=\"abc\"} 1\nh_bucket{le=\"0.5\"} 2\nh_bucket{le=\"+Inf\"} "
                           "3\nh_sum 1\nh_count 3\n")};
  const auto d = histogram_delta(Snapshot{0, {}}, s, "h");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->buckets.size(), 2u);
}

// A quantile of a coarse histogram is known only to its bucket: the range, which reports print.
TEST(Prometheus, QuantileBucketIsTheRangeTheQuantileLiesIn) {
  HistogramDelta h;
  h.buckets = {{0.1, 0}, {0.3, 10}, {1.0, 10}, {INFINITY, 12}};
  h.count = 12;
  h.sum = 2;
  EXPECT_EQ(h.quantile_bucket(0.5), (std::pair{0.1, 0.3}));
  EXPECT_EQ(h.quantile_bucket(0.99), (std::pair{1.0, static_cast<double>(INFINITY)}));
  EXPECT_GT(*h.quantile(0.5), 0.1);
  EXPECT_LE(*h.quantile(0.5), 0.3);
}

TEST(ServerSummary, RatesAcceptanceAndCrossCheck) {
  Snapshot a{0,
             parse_text("vllm:generation_tokens_total 100\nvllm:spec_decode_num_drafts_total 10\n"
                        "vllm:spec_decode_num_draft_tokens_total "
                        "30\nvllm:spec_decode_num_accepted_tokens_total 15\n"
                        "vllm:num_requests_running 0\n")};
  Snapshot b{2'000'000'000,
             parse_text("vllm:generation_tokens_total 600\nvllm:spec_decode_num_drafts_total 110\n"
                        "vllm:spec_decode_num_draft_tokens_total "
                        "330\nvllm:spec_decode_num_accepted_tokens_total 165\n"
                        "vllm:num_requests_running 4\n"
                        "vllm:inter_token_latency_seconds_bucket{le=\"0.1\"} 100\n"
                        "vllm:inter_token_latency_seconds_bucket{le=\"+Inf\"} 100\n"
                        "vllm:inter_token_latency_seconds_sum "
                        "2.5\nvllm:inter_token_latency_seconds_count 100\n")};
  const auto s = summarize({a, b}, "u");
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->duration_s, 2);
  EXPECT_DOUBLE_EQ(*s->generation_tokens, 500);
  EXPECT_DOUBLE_EQ(*s->spec_acceptance_rate, 150.0 / 300);
  EXPECT_DOUBLE_EQ(*s->spec_mean_acceptance_length, 2.5);
  EXPECT_EQ(std::get<1>(s->running_waiting.back()), 4);
  // Server per-token TPOT = 25 ms per step / 2.5 tokens per step = 10 ms.
  auto checks = metrics::cross_check(*s, 500, 10.5, std::nullopt);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_TRUE(checks[0].agree);
  EXPECT_TRUE(checks[1].agree);
  EXPECT_DOUBLE_EQ(checks[1].server, 10);
  checks = metrics::cross_check(*s, 450, 14.0, std::nullopt);
  EXPECT_FALSE(checks[0].agree);
  EXPECT_FALSE(checks[1].agree);
  // Failed or cut requests: the server counted tokens the client never got; shown, not judged.
  checks = metrics::cross_check(*s, 450, 10.5, std::nullopt, 3);
  EXPECT_TRUE(checks[0].agree);
  EXPECT_NE(checks[0].note.find("not judged: 3 request(s) failed"), std::string::npos);
  EXPECT_FALSE(summarize({a}, "u").has_value());
  // The run folder keeps the summary; `report` rebuilds exactly the same one from it.
  const ServerSummary back = summary_from_json(summary_to_json(*s));
  EXPECT_EQ(summary_to_json(back), summary_to_json(*s));
  ASSERT_TRUE(back.itl.has_value());
  EXPECT_EQ(back.itl->quantile(0.5), s->itl->quantile(0.5));
  EXPECT_EQ(back.running_waiting, s->running_waiting);
}

// SGLang's exposition is read with SGLang's names; a counter it does not expose is not compared.
TEST(ServerSummary, SglangDialectAndOnlyWhatIsExposedIsCompared) {
  Snapshot a{0, parse_text("sglang:num_running_reqs{model_name=\"m\"} 0\nsglang:num_queue_reqs 0\n"
                           "sglang:time_to_first_token_seconds_bucket{le=\"0.1\"} 0\n"
                           "sglang:time_to_first_token_seconds_bucket{le=\"+Inf\"} 0\n"
                           "sglang:time_to_first_token_seconds_sum "
                           "0\nsglang:time_to_first_token_seconds_count 0\n")};
  Snapshot b{1'000'000'000,
             parse_text("sglang:num_running_reqs{model_name=\"m\"} 3\nsglang:num_queue_reqs 1\n"
                        "sglang:time_to_first_token_seconds_bucket{le=\"0.1\"} 4\n"
                        "sglang:time_to_first_token_seconds_bucket{le=\"+Inf\"} 4\n"
                        "sglang:time_to_first_token_seconds_sum "
                        "0.2\nsglang:time_to_first_token_seconds_count 4\n")};
  ASSERT_NE(dialect_of(b), nullptr);
  EXPECT_STREQ(dialect_of(b)->name, "sglang");
  const auto s = summarize({a, b}, "u");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->dialect, "sglang");
  EXPECT_FALSE(s->generation_tokens.has_value());  // not exposed: not zero
  EXPECT_EQ(std::get<1>(s->running_waiting.back()), 3);
  EXPECT_EQ(std::get<2>(s->running_waiting.back()), 1);
  const auto checks = metrics::cross_check(*s, 960, std::nullopt, 52.0);
  ASSERT_EQ(checks.size(), 1u);  // TTFT only; no "output tokens client 960 vs server 0"
  EXPECT_EQ(checks[0].what, "TTFT (ms)");
  EXPECT_TRUE(checks[0].agree);
  EXPECT_NE(checks[0].note.find("includes the connection set-up"), std::string::npos)
      << checks[0].note;
  // The client's TTFT from the request's start on the wire: the note says it is like with like.
  const auto wire = metrics::cross_check(*s, 960, std::nullopt, 51.0, 0, true);
  EXPECT_NE(wire[0].note.find("like with like"), std::string::npos) << wire[0].note;
  // Neither vLLM's nor SGLang's names: nothing to summarize ("not scraped").
  Snapshot other{0, parse_text("gateway_requests_total 5\n")};
  EXPECT_EQ(dialect_of(other), nullptr);
  EXPECT_FALSE(summarize({other, other}, "u").has_value());
}

// What a newer vLLM (and a P/D deployment with NIXL) exposes beyond latency and tokens, as its
// own exposition spells it: read per draft position, per phase, from the prefix cache and the
// KV cache, and carried through the run folder.
TEST(ServerSummary, DeeperVllmMetricsPerPositionPhasesCachesAndKvTransfer) {
  const char* before = R"(vllm:num_requests_running{model_name="m"} 0
vllm:kv_cache_usage_perc{model_name="m"} 0.0
vllm:spec_decode_num_drafts_total{model_name="m"} 100
vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="m",position="0"} 70
vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="m",position="1"} 40
vllm:prefix_cache_queries_total{model_name="m"} 1000
vllm:prefix_cache_hits_total{model_name="m"} 100
vllm:num_preemptions_total{model_name="m"} 1
vllm:request_prefill_time_seconds_bucket{model_name="m",le="0.5"} 0
vllm:request_prefill_time_seconds_bucket{model_name="m",le="+Inf"} 0
vllm:request_prefill_time_seconds_sum{model_name="m"} 0
vllm:request_prefill_time_seconds_count{model_name="m"} 0
vllm:nixl_xfer_time_seconds_sum{engine="0"} 1.0
vllm:nixl_xfer_time_seconds_count{engine="0"} 10
vllm:nixl_num_failed_transfers_total{engine="0"} 0
)";
  const char* after = R"(vllm:num_requests_running{model_name="m"} 8
vllm:kv_cache_usage_perc{model_name="m"} 0.25
vllm:spec_decode_num_drafts_total{model_name="m"} 300
vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="m",position="0"} 230
vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="m",position="1"} 140
vllm:prefix_cache_queries_total{model_name="m"} 3000
vllm:prefix_cache_hits_total{model_name="m"} 1100
vllm:num_preemptions_total{model_name="m"} 4
vllm:request_prefill_time_seconds_bucket{model_name="m",le="0.5"} 4
vllm:request_prefill_time_seconds_bucket{model_name="m",le="+Inf"} 4
vllm:request_prefill_time_seconds_sum{model_name="m"} 0.8
vllm:request_prefill_time_seconds_count{model_name="m"} 4
vllm:nixl_xfer_time_seconds_sum{engine="0"} 3.0
vllm:nixl_xfer_time_seconds_count{engine="0"} 20
vllm:nixl_num_failed_transfers_total{engine="0"} 2
)";
  const auto s =
      summarize({Snapshot{0, parse_text(before)}, Snapshot{1'000'000'000, parse_text(after)}}, "u");
  ASSERT_TRUE(s.has_value());
  ASSERT_EQ(s->spec_acceptance_per_position.size(), 2u);
  EXPECT_DOUBLE_EQ(s->spec_acceptance_per_position[0], 160.0 / 200);
  EXPECT_DOUBLE_EQ(s->spec_acceptance_per_position[1], 100.0 / 200);
  EXPECT_DOUBLE_EQ(*s->prefix_cache_hit_rate, 1000.0 / 2000);
  EXPECT_DOUBLE_EQ(*s->preemptions, 3);
  ASSERT_TRUE(s->prefill.has_value());
  EXPECT_DOUBLE_EQ(s->prefill->mean(), 0.2);
  EXPECT_FALSE(s->decode.has_value());  // not exposed: absent, not zero
  ASSERT_EQ(s->kv_usage.size(), 2u);
  EXPECT_DOUBLE_EQ(s->kv_usage[1].second, 0.25);
  ASSERT_EQ(s->kv_transfer.size(), 2u);
  EXPECT_EQ(s->kv_transfer[0].first, "vllm:nixl_num_failed_transfers_total");
  EXPECT_DOUBLE_EQ(s->kv_transfer[0].second, 2);
  EXPECT_EQ(s->kv_transfer[1].first, "vllm:nixl_xfer_time_seconds (mean)");
  EXPECT_DOUBLE_EQ(s->kv_transfer[1].second, 0.2);
  const ServerSummary back = summary_from_json(summary_to_json(*s));
  EXPECT_EQ(summary_to_json(back), summary_to_json(*s));
  EXPECT_EQ(back.spec_acceptance_per_position, s->spec_acceptance_per_position);
  EXPECT_EQ(back.kv_usage, s->kv_usage);
  // A folder written before these existed reads as it did.
  ServerSummary old = summary_from_json(
      R"({"url":"u","dialect":"vllm","duration_s":1,"scrapes":2,"ttft":null,"itl":null,)"
      R"("e2e":null,"queue":null,"generation_tokens":null,"prompt_tokens":null,)"
      R"("spec_acceptance_rate":null,"spec_mean_acceptance_length":null,"running_waiting":[]})");
  EXPECT_TRUE(old.spec_acceptance_per_position.empty());
  EXPECT_FALSE(old.prefix_cache_hit_rate.has_value());
}

// A /metrics answer larger than the cap is refused without being held; the scrape says why.
TEST(Scraper, OversizedMetricsBodyIsRefused) {
  const std::string big = "vllm:num_requests_running 1\n" + std::string(3 << 20, '#') + "\n";
  testing::CannedServer srv(
      [&](const std::string&) { return testing::CannedServer::http(200, "text/plain", big); });
  Scraper scraper(srv.url("/metrics"), {}, "", 1000, 0, size_t{1} << 20);
  EXPECT_FALSE(scraper.scrape_once());
  EXPECT_NE(scraper.last_error().find("--max-body-bytes"), std::string::npos)
      << scraper.last_error();
  EXPECT_FALSE(scraper.summary().has_value());
}

TEST(VllmLog, ThroughputAndSpecDecodingLines) {
  const std::string log =
      "INFO 11-29 10:00:00 [loggers.py:123] Engine 000: Avg prompt throughput: 100.0 tokens/s, Avg "
      "generation "
      "throughput: 300.0 tokens/s, Running: 4 reqs, Waiting: 2 reqs, GPU KV cache usage: 1.0%\n"
      "INFO 11-29 10:00:10 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg "
      "generation "
      "throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs\n"
      "INFO [metrics.py] SpecDecoding metrics: Mean acceptance length: 2.53, Accepted throughput: "
      "10.00 tokens/s, "
      "Drafted throughput: 20.00 tokens/s, Accepted: 150 tokens, Drafted: 300 tokens, Per-position "
      "acceptance rate: "
      "0.700, 0.490, 0.343, Avg Draft acceptance rate: 51.1%\n"
      "some other line\n";
  const auto s = parse_vllm_log(log);
  EXPECT_EQ(s.throughput_lines, 2);
  EXPECT_DOUBLE_EQ(s.mean_generation_throughput, 300);  // idle lines do not dilute it
  EXPECT_EQ(s.max_running, 4);
  EXPECT_EQ(s.max_waiting, 2);
  EXPECT_EQ(s.spec_lines, 1);
  EXPECT_DOUBLE_EQ(s.last_mean_acceptance_length, 2.53);
  EXPECT_EQ(s.accepted_tokens, 150);
  EXPECT_EQ(s.drafted_tokens, 300);
  EXPECT_EQ(s.per_position_acceptance, (std::vector<double>{0.7, 0.49, 0.343}));
}

}  // namespace
}  // namespace tokbench::probe
