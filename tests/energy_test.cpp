// metrics/energy: joules over a phase from an energy counter or from power samples, against known
// constant and ramped power; a reset counter; samples that do not cover the phase say so.
#include "metrics/energy.hpp"

#include <gtest/gtest.h>

namespace tokbench::metrics {
namespace {

constexpr int64_t kS = 1'000'000'000;

// Samples every `every` s from t=0 to `until` s of a device at `watts`; the counter when asked.
std::vector<PowerSample> constant(double watts, double every, double until, bool counter,
                                  double counter_start = 5000) {
  std::vector<PowerSample> v;
  for (double t = 0; t <= until + 1e-9; t += every) {
    PowerSample s;
    s.t_ns = static_cast<int64_t>(t * kS);
    s.power_w = watts;
    if (counter) s.energy_j = counter_start + watts * t;
    v.push_back(s);
  }
  return v;
}

TEST(Energy, CounterAndPowerAgreeOnAConstantDevice) {
  // 400 W over a phase from 2.3 s to 7.8 s: 2200 J, whichever way it is measured.
  const auto by_counter = energy_over(constant(400, 1, 10, true), 2.3 * kS, 7.8 * kS, 2 * kS);
  ASSERT_TRUE(by_counter.known) << by_counter.why;
  EXPECT_EQ(by_counter.method, "energy counter");
  EXPECT_NEAR(by_counter.joules, 2200, 1e-6);
  const auto by_power = energy_over(constant(400, 1, 10, false), 2.3 * kS, 7.8 * kS, 2 * kS);
  ASSERT_TRUE(by_power.known) << by_power.why;
  EXPECT_EQ(by_power.method, "power integrated over the samples (trapezoids)");
  EXPECT_NEAR(by_power.joules, 2200, 1e-6);
  EXPECT_EQ(by_power.max_gap_s, 1);
}

// Issue 41: energy is never invented. A DCGM counter that does not move while the gauge reads
// 500 W gave "0 J, known"; one that decreased at every scrape read as resets gave 2e10 J; a
// negative power gave negative joules.
TEST(Energy, SamplesThatContradictEachOtherGiveNoEnergy) {
  auto stuck = constant(500, 1, 10, true);
  for (auto& s : stuck) s.energy_j = 123456.0;  // cached: never refreshed inside the phase
  auto e = energy_over(stuck, 2 * kS, 8 * kS, 2 * kS);
  EXPECT_FALSE(e.known) << e.joules;
  EXPECT_NE(e.why.find("the energy counter (0.0 J, mean 0.0 W) and the power gauge (3000.0 J, "
                       "mean 500.0 W) disagree by more than 25%"),
            std::string::npos)
      << e.why;
  auto backwards = constant(500, 1, 10, true);
  for (auto& s : backwards) s.energy_j = 1e9 - static_cast<double>(s.t_ns) / kS;
  for (auto& s : backwards) s.power_w.reset();  // no gauge to compare with: still refused
  e = energy_over(backwards, 2 * kS, 8 * kS, 2 * kS);
  EXPECT_FALSE(e.known) << e.joules;
  EXPECT_NE(e.why.find("went back at 6 of 8 samples: it is not a counter"), std::string::npos)
      << e.why;
  auto negative = constant(-40, 1, 10, false);
  e = energy_over(negative, 2 * kS, 8 * kS, 2 * kS);
  EXPECT_FALSE(e.known) << e.joules;
  EXPECT_NE(e.why.find("the power gauge read -40.0 W inside the phase"), std::string::npos)
      << e.why;
  // A counter within the tolerance of the gauge (refreshed a little late) is still the counter's.
  auto late = constant(500, 1, 10, true);
  for (auto& s : late) *s.energy_j -= 100;  // 0.2 s behind: the same difference at both edges
  e = energy_over(late, 2 * kS, 8 * kS, 2 * kS);
  ASSERT_TRUE(e.known) << e.why;
  EXPECT_NEAR(e.joules, 3000, 1e-6);
}

TEST(Energy, TrapezoidsAreExactOnALinearRamp) {
  std::vector<PowerSample> v;
  for (int i = 0; i <= 10; ++i)
    v.push_back({i * kS, 100.0 + 10 * i, std::nullopt});  // 100 W rising 10 W/s
  const auto e = energy_over(v, 0, 10 * kS, 2 * kS);
  ASSERT_TRUE(e.known);
  EXPECT_NEAR(e.joules, 100 * 10 + 10 * 10 * 10 / 2.0, 1e-6);  // ∫(100 + 10t) dt over 10 s = 1500 J
}

TEST(Energy, ACounterResetIsANewStart) {
  auto v = constant(300, 1, 10, true);
  for (auto& s : v)
    if (s.t_ns >= 6 * kS)
      *s.energy_j -= 5000 + 300 * 6;  // the exporter restarted at 6 s: the counter from 0
  const auto e = energy_over(v, 1 * kS, 9 * kS, 2 * kS);
  ASSERT_TRUE(e.known) << e.why;
  EXPECT_EQ(e.resets, 1);
  // The interval the restart fell in counts from zero to the new value: what was spent in it
  // before the restart (300 J here, the counter at 0 at 6 s) is not seen, and is not invented.
  EXPECT_NEAR(e.joules, 300 * 8 - 300, 1e-6);
}

TEST(Energy, SamplesThatDoNotCoverThePhaseSaySo) {
  const auto late = energy_over(constant(400, 1, 10, false), -2 * kS, 5 * kS, 2 * kS);
  EXPECT_FALSE(late.known);
  EXPECT_NE(late.why.find("after the phase began"), std::string::npos) << late.why;
  const auto early = energy_over(constant(400, 1, 10, false), 1 * kS, 12 * kS, 2 * kS);
  EXPECT_FALSE(early.known);
  EXPECT_NE(early.why.find("before the phase ended"), std::string::npos) << early.why;
  auto holed = constant(400, 1, 10, false);
  holed.erase(holed.begin() + 3,
              holed.begin() + 7);  // no sample from 3 s to 6 s: 5 s between the 2 s and 7 s ones
  const auto gap = energy_over(holed, 1 * kS, 9 * kS, 2 * kS);
  EXPECT_FALSE(gap.known);
  EXPECT_NE(gap.why.find("a gap of 5.000 s"), std::string::npos) << gap.why;
  EXPECT_FALSE(energy_over({}, 0, kS, kS).known);
}

}  // namespace
}  // namespace tokbench::metrics
