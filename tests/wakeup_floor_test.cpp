// common/wakeup_floor: the deadlines are all measured, their lateness ordered and never negative,
// the time spent is the deadlines' span, and the thread's timer slack is given back.
#include "common/wakeup_floor.hpp"

#include <gtest/gtest.h>
#include <sys/prctl.h>

#include "common/clock.hpp"

namespace tokbench {
namespace {

TEST(WakeupFloor, MeasuresEveryDeadlineAndGivesTheTimerSlackBack) {
  ::prctl(PR_SET_TIMERSLACK, 50'000UL, 0UL, 0UL, 0UL);
  const int64_t start = steady_now_ns();
  const WakeupFloor f = measure_wakeup_floor(40, 2'000'000, 100'000);
  const int64_t took = steady_now_ns() - start;
  EXPECT_EQ(f.deadlines, 40);
  EXPECT_GE(took, 80'000'000);  // 40 deadlines 2 ms apart: it waited for the last
  EXPECT_GE(f.p50_ms, 0.0);
  EXPECT_LE(f.p50_ms, f.p90_ms);
  EXPECT_LE(f.p90_ms, f.p99_ms);
  EXPECT_LE(f.p99_ms, f.max_ms);
  EXPECT_EQ(::prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL), 50'000);
}

TEST(WakeupFloor, NothingAskedNothingMeasured) {
  const WakeupFloor f = measure_wakeup_floor(0);
  EXPECT_EQ(f.deadlines, 0);
  EXPECT_EQ(f.p99_ms, -1.0);
}

}  // namespace
}  // namespace tokbench
