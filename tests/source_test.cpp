// load/source: the arrival processes and phase limits, driven without a network — gamma gaps
// have the coefficient of variation the burstiness implies, constant gaps are exact, "inf"
// makes everything due at once, ramped rates follow their curve, in-flight ramps gate pulls,
// duration-bound phases end, and a ramp's requests are recorded as warm-up unless measured.
#include "load/source.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace tokbench::load {
namespace {

std::vector<int64_t> offsets(const ArrivalShape& s, int n, uint64_t seed = 1) {
  auto a = open_loop(s, seed);
  std::vector<int64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(a->next_offset_ns());
  return out;
}

double gap_cv(const std::vector<int64_t>& t) {
  double sum = 0, sq = 0;
  const double n = static_cast<double>(t.size() - 1);
  for (size_t i = 1; i < t.size(); ++i) {
    const double g = static_cast<double>(t[i] - t[i - 1]);
    sum += g;
    sq += g * g;
  }
  const double mean = sum / n;
  return std::sqrt(sq / n - mean * mean) / mean;
}

core::RequestMaker maker() {
  return [](int64_t i) {
    core::PlannedRequest p;
    p.body = std::to_string(i);
    return p;
  };
}

TEST(Arrivals, GammaGapsHaveTheCoefficientOfVariationTheBurstinessImplies) {
  // Gamma(k, θ) gaps: CV = 1/sqrt(k). vLLM's --burstiness is k.
  for (const double b : {0.25, 1.0, 4.0}) {
    ArrivalShape s{.rate_rps = 20, .kind = ArrivalShape::Kind::Gamma, .burstiness = b};
    const auto t = offsets(s, 40000, 3);
    EXPECT_NEAR(gap_cv(t), 1 / std::sqrt(b), 0.04 / std::sqrt(b)) << "burstiness " << b;
    const double rate = static_cast<double>(t.size() - 1) / (static_cast<double>(t.back()) / 1e9);
    EXPECT_NEAR(rate, 20, 20 * 0.03) << "burstiness " << b;
  }
}

TEST(Arrivals, PoissonWithoutARampIsTheOldScheduleExactly) {
  ArrivalShape s{.rate_rps = 50};
  auto a = open_loop(s, 7), b = poisson(50, 7);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a->next_offset_ns(), b->next_offset_ns());
}

// --bursts ON:OFF: the on-time schedule with every off window inserted; nothing falls in an off
// window, and the rate while on is the shape's.
TEST(Arrivals, BurstsInsertTheOffWindowsAndKeepTheRateWhileOn) {
  // Constant, 4 req/s, 1 s on and 2 s off: 0, .25, .5, .75, then 3, 3.25, ... exactly.
  const auto t = offsets(
      {.rate_rps = 4, .kind = ArrivalShape::Kind::Constant, .burst_on_s = 1, .burst_off_s = 2}, 9);
  const std::vector<int64_t> want{0,
                                  250'000'000,
                                  500'000'000,
                                  750'000'000,
                                  3'000'000'000,
                                  3'250'000'000,
                                  3'500'000'000,
                                  3'750'000'000,
                                  6'000'000'000};
  EXPECT_EQ(t, want);
  // Poisson: the same draws as without bursts, moved; the mean over whole cycles is R·on/(on+off).
  const ArrivalShape plain{.rate_rps = 100};
  ArrivalShape bursty = plain;
  bursty.burst_on_s = 0.5;
  bursty.burst_off_s = 1.5;
  const auto a = offsets(plain, 20'000, 9), b = offsets(bursty, 20'000, 9);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(b[i] % 2'000'000'000, a[i] % 500'000'000) << i;  // in an on window, in order
    ASSERT_EQ(b[i] / 2'000'000'000, a[i] / 500'000'000) << i;  // of the same cycle
  }
  const double mean_rps = 20'000 / (static_cast<double>(b.back()) / 1e9);
  EXPECT_NEAR(mean_rps, 100 * 0.5 / 2.0, 2.0);
}

TEST(Arrivals, ConstantGapsAreExactAndInfIsAllAtOnce) {
  const auto t = offsets({.rate_rps = 4, .kind = ArrivalShape::Kind::Constant}, 9);
  for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(t[i], static_cast<int64_t>(i) * 250'000'000);
  for (int64_t x : offsets({.rate_rps = std::numeric_limits<double>::infinity()}, 50))
    EXPECT_EQ(x, 0);
}

TEST(Arrivals, LinearRampFollowsItsRateCurve) {
  // Rate rises linearly 0 -> 100 req/s over 10 s, then holds: Λ(t) = 5 t² before 10 s.
  ArrivalShape s{.rate_rps = 100, .kind = ArrivalShape::Kind::Constant, .ramp_s = 10};
  const auto t = offsets(s, 1500);
  auto count_before = [&](double sec) {
    return std::count_if(t.begin(), t.end(),
                         [&](int64_t x) { return x < static_cast<int64_t>(sec * 1e9); });
  };
  EXPECT_NEAR(count_before(2), 5 * 4, 1);       // Λ(2) = 20
  EXPECT_NEAR(count_before(6), 5 * 36, 1);      // Λ(6) = 180
  EXPECT_NEAR(count_before(10), 500, 1);        // Λ(10) = 500
  EXPECT_NEAR(count_before(12), 500 + 200, 1);  // then 100 req/s
  // Poisson on the same ramp: the same curve on average.
  ArrivalShape p{.rate_rps = 100, .ramp_s = 10};
  const auto q = offsets(p, 3000, 5);
  const auto before10 =
      std::count_if(q.begin(), q.end(), [](int64_t x) { return x < 10'000'000'000; });
  EXPECT_NEAR(static_cast<double>(before10), 500, 4 * std::sqrt(500.0));
}

TEST(Arrivals, ExponentialRampMultipliesTheRate) {
  // r(t) = 1·64^(t/6): 1 req/s at 0, 64 req/s at 6 s; Λ(t) = 6/ln64·(64^(t/6) − 1).
  ArrivalShape s{.rate_rps = 64,
                 .kind = ArrivalShape::Kind::Constant,
                 .ramp_s = 6,
                 .exponential_ramp = true,
                 .ramp_start_rps = 1};
  const auto t = offsets(s, 2000);
  auto count_before = [&](double sec) {
    return static_cast<double>(std::count_if(
        t.begin(), t.end(), [&](int64_t x) { return x < static_cast<int64_t>(sec * 1e9); }));
  };
  auto lambda = [](double sec) { return 6 / std::log(64.0) * (std::pow(64.0, sec / 6) - 1); };
  for (double sec : {2.0, 4.0, 6.0})
    EXPECT_NEAR(count_before(sec), std::ceil(lambda(sec)), 1) << sec;
  EXPECT_NEAR(count_before(7) - count_before(6), 64, 1);
}

// A trace's schedule: request i is due at its own offset, whatever the gaps (bursts included);
// past the end every request is due at the last offset.
TEST(Arrivals, FixedScheduleIsReplayedAsGiven) {
  auto a = fixed({0, 0, 5'000'000, 1'000'000'000});
  EXPECT_EQ(a->next_offset_ns(), 0);
  EXPECT_EQ(a->next_offset_ns(), 0);
  EXPECT_EQ(a->next_offset_ns(), 5'000'000);
  EXPECT_EQ(a->next_offset_ns(), 1'000'000'000);
  EXPECT_EQ(a->next_offset_ns(), 1'000'000'000);
  CountedSource src(3, false, fixed({0, 2'000, 7'000}), [](int64_t i) {
    core::PlannedRequest r;
    r.index = i;
    return r;
  });
  src.start(100);
  for (int64_t want : {100, 2'100, 7'100}) {
    const Pull p = src.next(0);
    ASSERT_EQ(p.kind, Pull::Kind::Request);
    EXPECT_EQ(p.request.scheduled_ns, want);  // absolute: phase start + the trace's offset
  }
  EXPECT_EQ(src.next(0).kind, Pull::Kind::Done);
}

TEST(CountedSource, InFlightRampGatesPullsUntilItsStep) {
  // 1 in flight at 0, one more every 100 ms, up to 3.
  CountedSource src(linear_concurrency_ramp(PhaseLimits{10}, 3, 200'000'000), false, closed_loop(),
                    maker());
  src.start(1'000);
  Pull a = src.next(1'000);
  ASSERT_EQ(a.kind, Pull::Kind::Request);
  Pull b = src.next(1'000 + 50'000'000);
  ASSERT_EQ(b.kind, Pull::Kind::Later);
  EXPECT_EQ(b.retry_at_ns, 1'000 + 100'000'000);
  ASSERT_EQ(src.next(1'000 + 100'000'000).kind, Pull::Kind::Request);
  EXPECT_EQ(src.next(1'000 + 150'000'000).kind, Pull::Kind::Later);
  record::RequestRecord done;
  src.completed(done);  // one finished: room again under the same step
  EXPECT_EQ(src.next(1'000 + 150'000'000).kind, Pull::Kind::Request);
  ASSERT_EQ(src.next(1'000 + 250'000'000).kind, Pull::Kind::Request);  // step 3 reached
  EXPECT_EQ(src.next(1'000 + 900'000'000).kind, Pull::Kind::Later);    // capped at 3 in flight
}

TEST(CountedSource, PressureAddsClientsAtItsRate) {
  CountedSource src(pressure_ramp(PhaseLimits{-1}, 4, 2.0), false, closed_loop(),
                    maker());  // a client every 0.5 s
  src.start(0);
  int granted = 0;
  for (int64_t t : {0LL, 100'000'000LL, 499'000'000LL, 500'000'000LL, 999'000'000LL,
                    1'000'000'000LL, 1'500'000'000LL, 9'000'000'000LL})
    granted += src.next(t).kind == Pull::Kind::Request;
  EXPECT_EQ(granted, 4);  // at 0, 0.5, 1.0 and 1.5 s, none beyond 4 clients
}

TEST(CountedSource, DurationEndsThePhaseAndARampIsRecordedAsWarmUp) {
  PhaseLimits l{-1};
  l.duration_ns = 1'000'000'000;
  l.measured_from_ns = 300'000'000;
  CountedSource src(l, false, open_loop({.rate_rps = 10, .kind = ArrivalShape::Kind::Constant}, 1),
                    maker());
  src.start(5);
  int warm = 0, measured = 0;
  while (true) {
    Pull p = src.next(0);
    if (p.kind == Pull::Kind::Done) break;
    ASSERT_EQ(p.kind, Pull::Kind::Request);
    (p.request.warmup ? warm : measured)++;
    EXPECT_EQ(p.request.warmup, p.request.scheduled_ns - 5 < 300'000'000);
    ASSERT_LT(warm + measured, 100);
  }
  EXPECT_EQ(warm, 3);      // due at 0, 0.1, 0.2 s
  EXPECT_EQ(measured, 7);  // 0.3 .. 0.9 s; 1.0 s is past the duration
  // Closed loop: the clock decides.
  CountedSource closed(l, false, closed_loop(), maker());
  closed.start(0);
  EXPECT_EQ(closed.next(999'999'999).kind, Pull::Kind::Request);
  EXPECT_EQ(closed.next(1'000'000'000).kind, Pull::Kind::Done);
}

}  // namespace
}  // namespace tokbench::load

namespace tokbench::load {
namespace {

// A rank's shard of a multi-host run: every size-th request of the one global sequence, each at
// the global schedule's time, and the count bound is the global one.
TEST(CountedSourceShard, EveryNthRequestAtTheGlobalTimes) {
  ArrivalShape shape;
  shape.rate_rps = 50;
  auto global = open_loop(shape, 3);
  std::vector<int64_t> offsets;
  for (int i = 0; i < 10; ++i) offsets.push_back(global->next_offset_ns());
  PhaseLimits limits{10};
  limits.shard_rank = 1;
  limits.shard_size = 3;
  CountedSource src(limits, false, open_loop(shape, 3),
                    [](int64_t) { return core::PlannedRequest{}; });
  src.start(1000);
  std::vector<int64_t> got;
  while (true) {
    Pull p = src.next(0);
    if (p.kind == Pull::Kind::Done) break;
    ASSERT_EQ(p.kind, Pull::Kind::Request);
    got.push_back(p.request.index);
    EXPECT_EQ(p.request.scheduled_ns, 1000 + offsets[static_cast<size_t>(p.request.index)]);
  }
  EXPECT_EQ(got, (std::vector<int64_t>{1, 4, 7}));
  // A closed loop: the same indices, due at once.
  CountedSource closed(limits, false, closed_loop(),
                       [](int64_t) { return core::PlannedRequest{}; });
  closed.start(0);
  EXPECT_EQ(closed.next(0).request.index, 1);
  EXPECT_EQ(closed.next(0).request.index, 4);
}

}  // namespace
}  // namespace tokbench::load
