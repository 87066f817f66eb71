// metrics/live_tally: a point's counts and bucket histograms so far, per class. A value on a
// bucket's edge counts in that bucket (OTLP's and Prometheus' `le`), one past every edge in the
// last; each outcome has its category; warm-up records are not counted; only successful
// requests feed the histograms, each with tokbench's own definition (TTFT from sent to the first
// text, TPOT over the output tokens after the first, chunk gaps between text chunks).
#include "metrics/live_tally.hpp"

#include <gtest/gtest.h>

#include <array>

namespace tokbench::metrics {
namespace {

using record::ChunkKind;
using record::Outcome;
using record::RequestRecord;

RequestRecord streamed(std::string cls, int64_t sent, std::vector<int64_t> chunk_at, int64_t done,
                       int64_t out_tokens) {
  RequestRecord r;
  r.traffic_class = std::move(cls);
  r.sent_ns = sent;
  r.first_byte_ns = sent + 1;
  r.first_event_ns = chunk_at.front() - 500;  // a role-only chunk first
  r.chunks.push_back({r.first_event_ns, 10, -1, ChunkKind::Role, 0});
  for (int64_t t : chunk_at) r.chunks.push_back({t, 10, -1, ChunkKind::Content, 0});
  r.first_token_ns = chunk_at.front();
  r.last_token_ns = chunk_at.back();
  r.done_ns = done;
  r.completion_tokens = out_tokens;
  r.prompt_tokens = 64;
  return r;
}

TEST(LiveTally, BucketEdgesAreInclusiveAndTheLastHoldsTheRest) {
  const std::array<double, 3> edges = {1, 2, 4};
  BucketHistogram h(edges);
  for (double v : {0.5, 1.0, 1.5, 2.0, 4.0, 4.0001, 100.0}) h.add(v);
  EXPECT_EQ(h.counts, (std::vector<uint64_t>{2, 2, 1, 2}));
  EXPECT_EQ(h.count, 7u);
  EXPECT_DOUBLE_EQ(h.sum, 0.5 + 1 + 1.5 + 2 + 4 + 4.0001 + 100);
}

TEST(LiveTally, CountsOutcomesPerClassAndTimesOnlySuccesses) {
  LiveTally t;
  // 1 s = 1e9 ns. TTFT 0.1 s; 3 text chunks 0.02 s apart; 5 output tokens: TPOT 0.04/4 = 0.01 s.
  t.add(streamed("chat", 0, {100'000'000, 120'000'000, 140'000'000}, 150'000'000, 5));
  RequestRecord warm = streamed("chat", 0, {1, 2}, 3, 2);
  warm.warmup = true;
  t.add(warm);  // not counted
  for (Outcome o : {Outcome::HttpStatus, Outcome::Timeout, Outcome::ClientCancelled,
                    Outcome::Cancelled, Outcome::Cut}) {
    RequestRecord r = streamed("batch", 0, {5}, 10, 1);
    r.outcome = o;
    t.add(r);
  }
  const auto snap = t.snapshot();
  ASSERT_EQ(snap.size(), 2u);
  const ClassTally& chat = snap.at("chat");
  EXPECT_EQ(chat.ok, 1);
  EXPECT_EQ(chat.finished(), 1);
  EXPECT_EQ(chat.e2el_s.count, 1u);
  EXPECT_DOUBLE_EQ(chat.e2el_s.sum, 0.15);
  EXPECT_DOUBLE_EQ(chat.ttft_s.sum, 0.1);
  EXPECT_DOUBLE_EQ(chat.first_chunk_s.sum, 0.1 - 500e-9);
  EXPECT_NEAR(chat.tpot_s.sum, 0.01, 1e-12);
  EXPECT_EQ(chat.chunk_gap_s.count, 2u);  // between the 3 text chunks, the role chunk aside
  EXPECT_NEAR(chat.chunk_gap_s.sum, 0.04, 1e-12);
  EXPECT_EQ(chat.output_tokens.sum, 5);
  EXPECT_EQ(chat.input_tokens.sum, 64);
  const ClassTally& batch = snap.at("batch");
  EXPECT_EQ(batch.ok, 0);
  EXPECT_EQ(batch.failed, 2);
  EXPECT_EQ(batch.cancelled, 2);
  EXPECT_EQ(batch.cut, 1);
  EXPECT_EQ(batch.e2el_s.count, 0u);  // no success, no times
  EXPECT_EQ(batch.ttft_s.count, 0u);
  EXPECT_EQ(outcome_category(Outcome::TooLarge), "failed");
}

TEST(LiveTally, ANonStreamedAnswerHasNoStreamTimes) {
  LiveTally t;
  RequestRecord r;
  r.stream = false;
  r.sent_ns = 0;
  r.first_token_ns = 2'000'000'000;  // non-streamed: the body's end
  r.done_ns = 2'000'000'000;
  r.completion_tokens = 9;
  t.add(r);
  const auto snap = t.snapshot();  // a copy: hold it while its entries are read
  const ClassTally& c = snap.at("");
  EXPECT_EQ(c.e2el_s.count, 1u);
  EXPECT_EQ(c.ttft_s.count, 0u);
  EXPECT_EQ(c.tpot_s.count, 0u);
  EXPECT_EQ(c.output_tokens.count, 1u);
}

}  // namespace
}  // namespace tokbench::metrics
