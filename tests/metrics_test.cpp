// metrics/: tokbench's definitions and AISBench's, on hand-built records whose every number is
// computed by hand in the comments.
#include "metrics/metrics.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include "support/records.hpp"

namespace tokbench::metrics {
namespace {

using record::ChunkKind;
using testing::stream_record;
constexpr auto R = ChunkKind::Role;
constexpr auto C = ChunkKind::Content;
constexpr auto U = ChunkKind::Usage;

// sent 0; role chunk 90 ms; content 100, 120, 140, 160 (last with finish); usage 160; [DONE] 161.
record::RequestRecord vllm_like() {
  return stream_record(0, {{90, R}, {100, C}, {120, C}, {140, C}, {160, C}, {160, U, 4}}, 161, 4,
                       10);
}

const Summary& stats(const MetricSet& m, const char* row) {
  const Row* r = m.row(row);
  EXPECT_NE(r, nullptr) << row;
  EXPECT_TRUE(r->stats.has_value()) << row << ": " << r->na_reason;
  return *r->stats;
}

// HTTP phases: set-up is counted only where a connection was opened; TTFT from the request's start
// on the wire excludes it (the whole TTFT keeps its definition).
TEST(TokbenchDefinitions, HttpPhasesAndTtftFromRequestStart) {
  auto fresh =
      vllm_like();  // sent 0: connected at 3 ms, request on the wire at 4 ms, first byte 6 ms
  fresh.connects = 1;
  fresh.dns_done_ns = testing::ms(1);
  fresh.connect_done_ns = testing::ms(3);
  fresh.request_start_ns = testing::ms(4);
  fresh.first_byte_ns = testing::ms(6);
  auto reused = vllm_like();  // on a kept-alive connection: on the wire at once
  reused.connects = 0;
  reused.dns_done_ns = reused.connect_done_ns = 0;
  reused.request_start_ns = testing::ms(0.5);
  reused.first_byte_ns = testing::ms(2.5);
  const auto m = compute({fresh, reused}, {2, true}, Definitions::Tokbench);
  EXPECT_EQ(stats(m, "HttpConnecting").n, 1);  // only the new connection
  EXPECT_DOUBLE_EQ(stats(m, "HttpConnecting").mean, 3);
  EXPECT_DOUBLE_EQ(stats(m, "HttpWaiting").mean, 2);  // (2 + 2) / 2
  EXPECT_DOUBLE_EQ(stats(m, "TTFT_FromRequestStart").mean, (96 + 99.5) / 2);
  EXPECT_DOUBLE_EQ(stats(m, "TTFT").mean, 100);                  // unchanged
  EXPECT_FALSE(m.row("HttpTlsHandshaking")->stats.has_value());  // http: no TLS
  // Records without phases (older folders): the rows are n/a, never zero.
  const auto old = compute({vllm_like()}, {1, true}, Definitions::Tokbench);
  EXPECT_FALSE(old.row("TTFT_FromRequestStart")->stats.has_value());
}

// The client's own part of TTFT: writing the request (request_start -> request_sent) and the
// first token's bytes waiting in the host's kernel (first_token_host -> first_token). Measured
// only by the socket transport: a record without the stamps leaves the row out of its mean.
TEST(TokbenchDefinitions, ClientDelayIsWritingPlusTheFirstTokensWait) {
  auto a = vllm_like();  // first token read at 100 ms
  a.request_start_ns = testing::ms(1);
  a.request_sent_ns = testing::ms(1.25);    // 0.25 ms to hand the request to the kernel
  a.first_token_host_ns = testing::ms(99);  // 1 ms in the kernel before it was read
  auto b = vllm_like();
  b.request_start_ns = 0;
  b.request_sent_ns = testing::ms(0.5);
  b.first_token_host_ns = testing::ms(100);  // read the moment it came: 0.5 ms in all
  auto libcurl = vllm_like();                // no receive times: not in the row
  libcurl.request_start_ns = 0;
  const auto m = compute({a, b, libcurl}, {3, true}, Definitions::Tokbench);
  EXPECT_EQ(stats(m, "ClientDelay").n, 2);
  EXPECT_DOUBLE_EQ(stats(m, "ClientDelay").mean, (1.25 + 0.5) / 2);
  EXPECT_EQ(stats(m, "TTFT").n, 3);
  const auto none = compute({libcurl}, {1, true}, Definitions::Tokbench);
  EXPECT_FALSE(none.row("ClientDelay")->stats.has_value());
}

// Open loop: latency from the intended send time beside latency from the send (wrk2's corrected
// latency). A request held back 30 ms (no free slot) is 30 ms later from its schedule.
TEST(TokbenchDefinitions, LatencyFromIntendedSendTime) {
  auto on_time = vllm_like();  // scheduled 0, sent 0: TTFT 100, E2EL 161 either way
  on_time.scheduled_ns = 0;
  auto held = vllm_like();  // the same request, sent 30 ms after the schedule said
  held.scheduled_ns = -testing::ms(30);
  RunFacts open{2, true};
  open.open_loop = true;
  const auto m = compute({on_time, held}, open, Definitions::Tokbench);
  EXPECT_DOUBLE_EQ(stats(m, "E2EL").mean, 161);
  EXPECT_DOUBLE_EQ(stats(m, "E2EL_FromIntended").mean, (161 + 191) / 2.0);
  EXPECT_DOUBLE_EQ(stats(m, "E2EL_FromIntended").max, 191);
  EXPECT_DOUBLE_EQ(stats(m, "TTFT_FromIntended").mean, (100 + 130) / 2.0);
  EXPECT_DOUBLE_EQ(stats(m, "SendLag").mean, 15);
  bool noted = false;
  for (const auto& n : m.detail_notes)
    noted |= n.find("15.000 ms later than from the send") != std::string::npos;
  EXPECT_TRUE(noted);
  // A closed loop has no intended times: n/a with the reason, never a copy of E2EL.
  const auto closed = compute({on_time, held}, {2, true}, Definitions::Tokbench);
  EXPECT_FALSE(closed.row("E2EL_FromIntended")->stats.has_value());
  EXPECT_NE(closed.row("TTFT_FromIntended")->na_reason.find("closed loop"), std::string::npos);
}

TEST(TokbenchDefinitions, TtftIgnoresRoleChunkAndTpotIgnoresUsageAndDone) {
  const auto m = compute({vllm_like()}, {1, true}, Definitions::Tokbench);
  EXPECT_DOUBLE_EQ(stats(m, "TTFT").mean, 100);            // first content, not the role chunk
  EXPECT_DOUBLE_EQ(stats(m, "TTFT_FirstEvent").mean, 90);  // kept beside it
  EXPECT_DOUBLE_EQ(stats(m, "E2EL").mean, 161);            // to [DONE]
  EXPECT_DOUBLE_EQ(stats(m, "TPOT").mean, 20);             // (160 - 100) / 3
  EXPECT_DOUBLE_EQ(stats(m, "ITL").mean, 20);
  EXPECT_EQ(stats(m, "ITL").n, 3);  // out - 1 gaps
  EXPECT_DOUBLE_EQ(stats(m, "OutputTokenThroughput").mean, 4 / 0.161);
  EXPECT_DOUBLE_EQ(stats(m, "PrefillTokenThroughput").mean, 10 / 0.1);
}

TEST(AisbenchDefinitions, FirstEventPerChunkItlAndFourDecimals) {
  const auto m = compute({vllm_like()}, {1, true}, Definitions::Aisbench);
  EXPECT_DOUBLE_EQ(stats(m, "TTFT").mean, 90);   // any first event
  EXPECT_DOUBLE_EQ(stats(m, "E2EL").mean, 160);  // last data event (usage), [DONE] not timed
  // (160 - 90) / 3 = 23.333.. ms = 0.023333 s -> round 4 -> 0.0233 s -> 23.3 ms
  EXPECT_DOUBLE_EQ(stats(m, "TPOT").mean, 23.3);
  // diff(tp[1:]) = 10, 20, 20, 20, 0 -> mean 14 ms; N = requests with a non-zero gap
  EXPECT_DOUBLE_EQ(stats(m, "ITL").mean, 14);
  EXPECT_EQ(stats(m, "ITL").n, 1);
  EXPECT_DOUBLE_EQ(stats(m, "ITL").min, 0);
}

TEST(TokbenchDefinitions, MultiTokenChunksFromCumulativeUsage) {
  // Tokens 1 | 3 | 1 at 100, 130, 150 ms: per-token gaps 10, 10, 10, 20.
  auto r = stream_record(0, {{100, C, 1}, {130, C, 4}, {150, C, 5}, {150, U, 5}}, 151, 5, 10);
  bool estimated = true;
  const auto gaps = per_token_gaps_ns(r, &estimated);
  EXPECT_FALSE(estimated);
  ASSERT_EQ(gaps.size(), 4u);
  EXPECT_DOUBLE_EQ(gaps[0], 10e6);
  EXPECT_DOUBLE_EQ(gaps[2], 10e6);
  EXPECT_DOUBLE_EQ(gaps[3], 20e6);
  const auto m = compute({r}, {1, true}, Definitions::Tokbench);
  EXPECT_DOUBLE_EQ(stats(m, "TPOT").mean, 12.5);         // 50 / 4
  EXPECT_DOUBLE_EQ(stats(m, "TokensPerChunk").mean, 2);  // (5 - 1) / (3 - 1)
  EXPECT_EQ(m.itl_estimated_requests, 0);
}

TEST(TokbenchDefinitions, UnknownChunkTokensAreSpreadAndFlagged) {
  // 5 tokens in 3 chunks without per-chunk usage: first chunk 1 token, then 2 and 2.
  auto r = stream_record(0, {{100, C}, {130, C}, {150, C}, {150, U, 5}}, 151, 5, 10);
  bool estimated = false;
  const auto gaps = per_token_gaps_ns(r, &estimated);
  EXPECT_TRUE(estimated);
  ASSERT_EQ(gaps.size(), 4u);
  EXPECT_DOUBLE_EQ(gaps[0], 15e6);
  EXPECT_DOUBLE_EQ(gaps[3], 10e6);
  const auto m = compute({r}, {1, true}, Definitions::Tokbench);
  EXPECT_EQ(m.itl_estimated_requests, 1);
  EXPECT_NE(m.row("ITL")->note.find("unknown"), std::string::npos);
  EXPECT_NE(m.row("ITL")->note.find("ask the server for"), std::string::npos);
  // --continuous-usage asked and not answered is said (issue 39, F6).
  RunFacts asked{1, true};
  asked.continuous_usage = true;
  const auto ignored = compute({r}, asked, Definitions::Tokbench);
  EXPECT_NE(ignored.row("ITL")->note.find("--continuous-usage asked for "
                                          "stream_options.continuous_usage_stats, and the server "
                                          "did not send per-chunk usage"),
            std::string::npos)
      << ignored.row("ITL")->note;
}

// n = 2, interleaved as vLLM streams them: choice 0 at 100, 120, 140; choice 1 at 110, 130, 150,
// 170; usage 7 = one token per chunk. Per choice: TTFT 100 and 110, TPOT 40/2 = 20 and 60/3 = 20.
// Merged, TPOT read (170 - 100) / 6 = 11.7.
record::RequestRecord two_choices(int usage) {
  return stream_record(0,
                       {{100, C, -1, 0},
                        {110, C, -1, 1},
                        {120, C, -1, 0},
                        {130, C, -1, 1},
                        {140, C, -1, 0},
                        {150, C, -1, 1},
                        {170, C, -1, 1},
                        {170, U, usage}},
                       171, usage, 10);
}

TEST(TokbenchDefinitions, SeveralChoicesAreTimedPerChoice) {
  const auto r = two_choices(7);
  ASSERT_EQ(r.choices, 2);
  std::vector<std::pair<int64_t, bool>> seen;  // tokens per choice, split estimated
  for_each_choice(r, [&](const record::RequestRecord& c, bool split) {
    seen.emplace_back(output_tokens(c), split);
  });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], std::make_pair(int64_t{3}, false));
  EXPECT_EQ(seen[1], std::make_pair(int64_t{4}, false));
  const auto m = compute({r}, {1, true}, Definitions::Tokbench);
  EXPECT_EQ(stats(m, "TTFT").n, 2);
  EXPECT_DOUBLE_EQ(stats(m, "TTFT").mean, 105);
  EXPECT_DOUBLE_EQ(stats(m, "TPOT").mean, 20);
  EXPECT_DOUBLE_EQ(stats(m, "ITL").mean, 20);  // 2 + 3 gaps, each 20
  EXPECT_EQ(stats(m, "ITL").n, 5);
  EXPECT_DOUBLE_EQ(stats(m, "OutputTokens").mean, 7);  // per request: both choices
  EXPECT_EQ(m.itl_estimated_requests, 0);
  EXPECT_DOUBLE_EQ(*request_value(r, "TTFT"), 105);  // one value per request: the choices' mean
  EXPECT_DOUBLE_EQ(*request_value(r, "TPOT"), 20);
  bool noted = false;
  for (const auto& n : m.notes)
    noted |= n.find("1 request(s) were answered with more than one choice") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(TokbenchDefinitions, ChoiceSharesOfUsageAreEstimatesWhenChunksAreNotTokens) {
  // Usage 14 over 3 + 4 chunks: choice 0 gets 14 * 3 / 7 = 6, choice 1 the other 8 (estimated).
  const auto r = two_choices(14);
  std::vector<std::pair<int64_t, bool>> seen;
  for_each_choice(r, [&](const record::RequestRecord& c, bool split) {
    seen.emplace_back(output_tokens(c), split);
  });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], std::make_pair(int64_t{6}, true));
  EXPECT_EQ(seen[1], std::make_pair(int64_t{8}, true));
  const auto m = compute({r}, {1, true}, Definitions::Tokbench);
  EXPECT_DOUBLE_EQ(stats(m, "TPOT").mean, (40.0 / 5 + 60.0 / 7) / 2);
  EXPECT_EQ(m.itl_estimated_requests, 1);  // counted per request, not per choice
  // A usage bomb split over choices neither overflows nor allocates.
  const auto bomb = compute({two_choices(2'000'000'000)}, {1, true}, Definitions::Tokbench);
  EXPECT_TRUE(bomb.row("TPOT")->stats.has_value());
}

TEST(TokbenchDefinitions, ExtraTokensOfFirstChunkGiveZeroGaps) {
  auto r = stream_record(0, {{100, C, 3}, {120, C, 4}}, 121, 4, 1);
  bool estimated = false;
  const auto gaps = per_token_gaps_ns(r, &estimated);
  ASSERT_EQ(gaps.size(), 3u);  // out - 1
  EXPECT_DOUBLE_EQ(gaps[0], 0);
  EXPECT_DOUBLE_EQ(gaps[1], 0);
  EXPECT_DOUBLE_EQ(gaps[2], 20e6);
}

TEST(Definitions, OneTokenOutputsExcludedByTokbenchZeroByAisbench) {
  auto one = stream_record(0, {{50, C}, {50, U, 1}}, 51, 1, 10);
  const auto tb = compute({vllm_like(), one}, {2, true}, Definitions::Tokbench);
  EXPECT_EQ(stats(tb, "TPOT").n, 1);
  EXPECT_DOUBLE_EQ(stats(tb, "TPOT").mean, 20);
  const auto ais = compute({vllm_like(), one}, {2, true}, Definitions::Aisbench);
  // values 0.0233 s and 0: mean 0.01165 -> round 4 -> 0.0117 s -> 11.7 ms; N counts the
  // requests with a non-zero ITL gap (only the first).
  EXPECT_DOUBLE_EQ(stats(ais, "TPOT").mean, 11.7);
  EXPECT_EQ(stats(ais, "TPOT").n, 1);
}

TEST(Definitions, NonStreamingNeverShowsE2elAsTtft) {
  record::RequestRecord r;
  r.stream = false;
  r.sent_ns = 0;
  r.done_ns = testing::ms(500);
  r.completion_tokens = 50;
  r.prompt_tokens = 20;
  for (auto d : {Definitions::Tokbench, Definitions::Aisbench}) {
    const auto m = compute({r}, {1, false}, d);
    for (const char* row : {"TTFT", "TPOT", "ITL", "PrefillTokenThroughput"}) {
      ASSERT_NE(m.row(row), nullptr);
      EXPECT_FALSE(m.row(row)->stats.has_value()) << row;
      EXPECT_EQ(m.row(row)->na_reason, "non-streaming") << row;
    }
    EXPECT_DOUBLE_EQ(stats(m, "E2EL").mean, 500);
    EXPECT_DOUBLE_EQ(stats(m, "OutputTokenThroughput").mean, 100);
  }
  // The console says why TTFT is n/a, and no note about TTFT's connection set-up appears.
  r.request_start_ns = testing::ms(2);
  r.connects = 1;
  r.connect_done_ns = testing::ms(1);
  const auto m = compute({r}, {1, false}, Definitions::Tokbench);
  std::string notes;
  for (const auto& n : m.notes) notes += n + "\n";
  for (const auto& n : m.detail_notes) notes += n + "\n";
  EXPECT_NE(notes.find("not streamed (--no-stream): the answer arrives whole"), std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("TTFT_FromRequestStart"), std::string::npos) << notes;
}

// A streaming run's set-up note names both phases: the TCP connect and, over https, the TLS
// handshake.
TEST(Definitions, ConnectionNoteNamesTheTlsHandshake) {
  auto r = vllm_like();
  r.request_start_ns = testing::ms(3);
  r.connects = 1;
  r.connect_done_ns = testing::ms(1);
  r.tls_done_ns = testing::ms(2.5);
  const auto m = compute({r}, {1, true}, Definitions::Tokbench);
  std::string notes;
  for (const auto& n : m.detail_notes) notes += n + "\n";  // about an extra row: not the summary's
  EXPECT_NE(notes.find("1 of 1 request(s) opened a new connection (TCP connect mean 1.000 ms, then "
                       "the TLS handshake "
                       "1.500 ms); TTFT_FromRequestStart is TTFT with connection set-up (TCP "
                       "connect and TLS handshake) "
                       "excluded"),
            std::string::npos)
      << notes;
}

TEST(CommonMetrics, DurationConcurrencyAndThroughputs) {
  // Two overlapping requests: [0, 161] and [50, 211] ms; 4 + 4 output tokens, 10 + 10 input.
  auto a = vllm_like();
  auto b = stream_record(50, {{140, R}, {150, C}, {170, C}, {190, C}, {210, C}, {210, U, 4}}, 211,
                         4, 10);
  record::RequestRecord failed;
  failed.outcome = record::Outcome::HttpStatus;
  failed.sent_ns = 0;
  failed.done_ns = testing::ms(5);
  const auto m = compute({a, b, failed}, {2, true}, Definitions::Tokbench);
  auto c = [&](const char* k) { return m.common_metric(k)->value; };
  EXPECT_DOUBLE_EQ(c("benchmark_duration"), 211);
  EXPECT_EQ(c("total_requests"), 3);
  EXPECT_EQ(c("success_requests"), 2);
  EXPECT_EQ(c("failed_requests"), 1);
  EXPECT_DOUBLE_EQ(c("concurrency"), (161.0 + 161.0) / 211.0);
  EXPECT_EQ(c("max_concurrency"), 2);
  EXPECT_DOUBLE_EQ(c("request_throughput"), 2 / 0.211);
  EXPECT_DOUBLE_EQ(c("output_token_throughput"), 8 / 0.211);
  EXPECT_DOUBLE_EQ(c("total_token_throughput"), 28 / 0.211);
  EXPECT_EQ(m.observed_max_concurrency, 2);
  EXPECT_EQ(c("peak_concurrency"), 2);
}

// No request told its input tokens (no usage, no --tokenizer): n/a, never "0 tokens, 0.0 token/s".
TEST(CommonMetrics, UnknownInputTokensAreNotZero) {
  auto r = vllm_like();
  r.prompt_tokens = record::kNone;
  const auto m = compute({r}, {1, true}, Definitions::Tokbench);
  EXPECT_FALSE(m.common_metric("total_input_tokens")->known);
  EXPECT_FALSE(m.common_metric("input_token_throughput")->known);
  EXPECT_FALSE(m.common_metric("total_token_throughput")->known);
  EXPECT_TRUE(m.common_metric("output_token_throughput")->known);
  EXPECT_TRUE(compute({vllm_like()}, {1, true}, Definitions::Tokbench)
                  .common_metric("total_input_tokens")
                  ->known);
}

TEST(CommonMetrics, AisbenchExampleRequestThroughput) {
  // The seed's example: 8 requests over 19897.8505 ms -> "0.4021 req/s", 12100 input tokens,
  // 2299 generated. (Its token-throughput lines are not consistent with its own duration, so
  // only the request throughput and the totals are checked.)
  const int64_t out[] = {200, 220, 241, 270, 290, 310, 361, 407};
  const int64_t in[] = {1481, 1490, 1497, 1505, 1518, 1519, 1524, 1566};
  std::vector<record::RequestRecord> rs;
  const double step = 19897.8505 / 8;
  for (int i = 0; i < 8; ++i) {
    const double s = i * step;
    rs.push_back(stream_record(s, {{s + 50, R}, {s + 50, C}, {s + step - 1, C}, {s + step, U, 0}},
                               s + step, out[i], in[i]));
  }
  const auto m = compute(rs, {1, true}, Definitions::Aisbench);
  EXPECT_DOUBLE_EQ(m.common_metric("request_throughput")->value, 0.4021);
  EXPECT_DOUBLE_EQ(m.common_metric("benchmark_duration")->value, 19897.8505);
  EXPECT_EQ(m.common_metric("total_input_tokens")->value, 12100);
  EXPECT_EQ(m.common_metric("total_generated_tokens")->value, 2299);
  EXPECT_DOUBLE_EQ(stats(m, "OutputTokens").p99, 403.78);
}

TEST(PeerDefinitions, EachToolsTimestampsOnOneRecord) {
  // sent 0; role 90; content 100, 120, 140, 160; usage 165; [DONE] 170; 4 tokens.
  const auto r =
      stream_record(0, {{90, R}, {100, C}, {120, C}, {140, C}, {160, C}, {165, U, 4}}, 170, 4, 10);
  const auto ev = compute({r}, {1, true}, Definitions::Evalscope);
  EXPECT_DOUBLE_EQ(stats(ev, "TTFT").mean, 90);   // role chunk has choices
  EXPECT_DOUBLE_EQ(stats(ev, "E2EL").mean, 165);  // usage chunk included
  EXPECT_DOUBLE_EQ(stats(ev, "TPOT").mean, (165.0 - 90) / 3);
  EXPECT_DOUBLE_EQ(stats(ev, "ITL").mean, 70.0 / 4);  // 10, 20, 20, 20 between events with choices
  const auto vl = compute({r}, {1, true}, Definitions::Vllm);
  EXPECT_DOUBLE_EQ(stats(vl, "TTFT").mean, 90);
  EXPECT_DOUBLE_EQ(stats(vl, "E2EL").mean, 160);  // last event with choices
  EXPECT_DOUBLE_EQ(stats(vl, "TPOT").mean, 70.0 / 3);
  const auto sg = compute({r}, {1, true}, Definitions::Sglang);
  EXPECT_DOUBLE_EQ(stats(sg, "TTFT").mean, 100);  // first text
  EXPECT_DOUBLE_EQ(stats(sg, "E2EL").mean, 170);  // [DONE]
  EXPECT_DOUBLE_EQ(stats(sg, "TPOT").mean, 70.0 / 3);
  EXPECT_DOUBLE_EQ(stats(sg, "ITL").mean, 20);  // text chunks only
}

TEST(PeerDefinitions, ShortOutputsAndPercentiles) {
  auto one = stream_record(0, {{50, C}, {50, U, 1}}, 51, 1, 10);
  const auto ev = compute({vllm_like(), one}, {2, true}, Definitions::Evalscope);
  EXPECT_EQ(stats(ev, "TPOT").n, 2);  // EvalScope keeps the 0 of a 1-token output
  const auto vl = compute({vllm_like(), one}, {2, true}, Definitions::Vllm);
  EXPECT_EQ(stats(vl, "TPOT").n, 1);
  // EvalScope's percentile is sorted[int(n*p/100)]: for 1..10, P90 = 10 and P50 = 6
  // (numpy: 9.1, 5.5).
  std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(summarize(v, PercentileMethod::NearestLower).p90, 10);
  EXPECT_DOUBLE_EQ(summarize(v, PercentileMethod::NearestLower).median, 6);
  EXPECT_DOUBLE_EQ(summarize(v).p90, 9.1);
}

TEST(PeerDefinitions, SideBySideHasEveryTool) {
  const auto cols = definitions_side_by_side({vllm_like()}, {1, true});
  ASSERT_EQ(cols.size(), 5u);
  EXPECT_DOUBLE_EQ(cols[0].ttft->mean, 100);  // tokbench
  EXPECT_DOUBLE_EQ(cols[1].ttft->mean, 90);   // aisbench
  EXPECT_DOUBLE_EQ(cols[4].ttft->mean, 100);  // sglang
  EXPECT_EQ(definitions_from_name("sglang"), Definitions::Sglang);
  EXPECT_FALSE(definitions_from_name("lmperf").has_value());
}

TEST(Metrics, WarmupRecordsAreExcluded) {
  auto w = vllm_like();
  w.warmup = true;
  w.completion_tokens = 999;
  const auto m = compute({w, vllm_like()}, {1, true}, Definitions::Tokbench);
  EXPECT_EQ(m.common_metric("total_requests")->value, 1);
  EXPECT_DOUBLE_EQ(stats(m, "OutputTokens").max, 4);
}

TEST(Metrics, LocalTokenizerCountsAndMismatchNotes) {
  auto local = vllm_like();
  local.completion_tokens = record::kNone;
  local.prompt_tokens = record::kNone;
  local.completion_tokens_local = 6;
  local.prompt_tokens_local = 9;
  auto disagree = vllm_like();
  disagree.completion_tokens_local = 5;  // usage says 4
  disagree.expected_prompt_tokens = 11;  // usage says 10
  const auto m = compute({local, disagree}, {1, true}, Definitions::Tokbench);
  EXPECT_DOUBLE_EQ(stats(m, "OutputTokens").max, 6);  // local count used when usage is absent
  EXPECT_DOUBLE_EQ(stats(m, "InputTokens").min, 9);
  EXPECT_EQ(m.token_mismatches, 1);
  std::string notes;
  for (const auto& n : m.notes) notes += n + "\n";
  EXPECT_NE(notes.find("counted with --tokenizer"), std::string::npos) << notes;
  EXPECT_NE(notes.find("usage.completion_tokens differs"), std::string::npos) << notes;
  EXPECT_NE(notes.find("usage.prompt_tokens differs from the input length"), std::string::npos)
      << notes;
}

TEST(Metrics, NoUsageFallsBackToTextChunksWithANote) {
  auto r = vllm_like();
  r.completion_tokens = record::kNone;
  r.prompt_tokens = record::kNone;
  const auto m = compute({r}, {1, true}, Definitions::Tokbench);
  EXPECT_DOUBLE_EQ(stats(m, "OutputTokens").mean, 4);
  EXPECT_FALSE(m.row("InputTokens")->stats.has_value());
  EXPECT_FALSE(m.notes.empty());
}

// A usage bomb (500 million tokens claimed for 3 chunks): every statistic is computed, and
// memory is not sized by the claim (gaps of one chunk are one weighted entry).
TEST(Metrics, UsageBombNeitherAllocatesNorBreaksStatistics) {
  auto r =
      stream_record(0, {{100, C}, {120, C}, {140, C}, {140, U, 500'000'000}}, 141, 500'000'000, 5);
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const MetricSet m = compute({r}, {1, true}, Definitions::Tokbench);
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024)
      << "KiB";  // gaps expanded would take 4 GB
  const auto& itl = stats(m, "ITL");
  EXPECT_EQ(itl.n, 500'000'000 - 1);
  EXPECT_GT(itl.max, 0);
  EXPECT_EQ(stats(m, "OutputTokens").max, 500'000'000);
  // A claim near INT64_MAX neither overflows (UBSan) nor allocates.
  r.completion_tokens = INT64_MAX / 2;
  EXPECT_EQ(compute({r}, {1, true}, Definitions::Tokbench).row("ITL")->stats->n, INT64_MAX / 2 - 1);
  const MetricSet two = compute({r, r, r}, {1, true}, Definitions::Tokbench);  // the sum saturates
  EXPECT_EQ(two.common_metric("total_generated_tokens")->value, static_cast<double>(INT64_MAX));
}

}  // namespace
}  // namespace tokbench::metrics
