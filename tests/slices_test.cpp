// metrics/slices: requests land in the slice they were sent in, output tokens in the slice their
// chunk arrived in, completions where they ended; an empty slice stays (a stall is a finding); a
// run longer than 1000 slices widens them and says so.
#include "metrics/slices.hpp"

#include <gtest/gtest.h>

#include "support/records.hpp"

namespace tokbench::metrics {
namespace {

using record::ChunkKind;
using testing::ms;
using testing::stream_record;

TEST(Slices, RequestsBySendTokensByArrivalCompletionsByEnd) {
  // Sent at 100 ms (slice 0 of 1 s), tokens at 900 and 1100 ms (slices 0 and 1), ends at 1200 ms.
  auto a = stream_record(100, {{900, ChunkKind::Content, 1}, {1100, ChunkKind::Content, 5}}, 1200,
                         5, 10);
  // Sent at 3500 ms: slice 3; slice 2 is empty.
  auto b =
      stream_record(3500, {{3600, ChunkKind::Content}, {3700, ChunkKind::Content}}, 3700, 2, 10);
  auto failed = b;
  failed.outcome = record::Outcome::Timeout;
  SliceAccumulator s(1.0, ms(100), ms(3700) - ms(100));
  for (const auto& r : {a, b, failed}) s.add(r);
  const auto out = s.finish();
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].sent, 1);
  EXPECT_EQ(out[0].output_tokens, 1);  // usage deltas: 1 token at 900 ms ...
  EXPECT_EQ(out[1].output_tokens, 4);  // ... and 4 at 1100 ms
  EXPECT_EQ(out[1].completed, 1);
  EXPECT_NEAR(out[0].ttft.mean, 800, 1e-9);
  EXPECT_EQ(out[2].sent, 0);  // the empty slice is kept
  EXPECT_EQ(out[3].sent, 2);
  EXPECT_EQ(out[3].failed, 1);
  EXPECT_EQ(out[3].output_tokens, 2);  // no per-chunk counts: 2 tokens over 2 chunks
  EXPECT_DOUBLE_EQ(out[3].request_throughput(), 1.0);
  EXPECT_TRUE(s.note().empty());
}

TEST(Slices, AVeryLongRunWidensItsSlices) {
  SliceAccumulator s(1.0, 0, ms(5'000'000));  // 5000 s at 1 s: 5001 slices wanted
  EXPECT_EQ(s.width_s(), 6.0);
  EXPECT_NE(s.note().find("widened 6x"), std::string::npos) << s.note();
}

}  // namespace
}  // namespace tokbench::metrics
