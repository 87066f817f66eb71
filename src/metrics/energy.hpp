#pragma once
// metrics/energy: the joules a device spent over a phase, from telemetry samples on the run's
// clock. From the energy counter where the device has one (DCGM's total energy, in J here): its
// value at the phase's start and end, each interpolated linearly between the samples around it, a
// counter reset (the device or exporter restarted) counted as a new start. Else by integrating
// power over the sample times (trapezoids, the power interpolated linearly at the phase's edges).
// Never an estimate that the samples do not cover: the phase must lie between two samples, and no
// gap between samples inside it may exceed max_gap_ns; otherwise `known` is false and `why` says
// so. Never one the samples contradict either: a negative power, a counter that goes back at most
// samples (not a counter), or a counter whose energy differs from the power gauge's integral by
// more than kCounterPowerTolerance (a stuck counter, or one refreshed slower than the scrapes, as
// dcgm-exporter caches its samples) leave `known` false with the reason. Streaming (EnergyMeter):
// samples go in one at a time, so a day of samples costs no memory.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tokbench::metrics {

struct PowerSample {
  int64_t t_ns = 0;                ///< the scrape's time on the run's clock
  std::optional<double> power_w;   ///< instantaneous power
  std::optional<double> energy_j;  ///< a monotonic energy counter (since the device booted)
};

inline constexpr const char* kEnergyFromCounter = "energy counter";
inline constexpr const char* kEnergyFromPower = "power integrated over the samples (trapezoids)";
/// How far the counter's joules may be from the power gauge's integral over the same phase.
inline constexpr double kCounterPowerTolerance = 0.25;

struct Energy {
  bool known = false;
  double joules = 0;
  std::string method;    ///< kEnergyFromCounter or kEnergyFromPower ("" when neither was sampled)
  std::string why;       ///< why it is not known ("" when known)
  int64_t samples = 0;   ///< samples inside the phase (its edges included)
  double max_gap_s = 0;  ///< the longest time between two samples across the phase
  int64_t resets = 0;    ///< counter resets seen inside the phase
};

/// The energy over [start_ns, end_ns] from samples added in time order. The counter is used
/// when any sample had one, else the power.
class EnergyMeter {
 public:
  EnergyMeter(int64_t start_ns, int64_t end_ns, int64_t max_gap_ns);
  void add(const PowerSample& s);
  Energy finish() const;

 private:
  struct Track {  // one quantity (the counter, or the power) over the phase
    bool any = false;
    int64_t first_t = 0, prev_t = 0, max_gap = 0, samples = 0, resets = 0;
    double prev_v = 0, total = 0;
    double min_v = 0;  ///< the lowest value inside the phase (a negative power cannot be true)
  };
  void step(Track& k, int64_t t, double v, bool counter) const;
  Energy result(const Track& k, const char* method) const;
  int64_t start_, end_, max_gap_;
  Track counter_, power_;
};

/// The energy over [start_ns, end_ns] from `series` (ordered by time).
Energy energy_over(const std::vector<PowerSample>& series, int64_t start_ns, int64_t end_ns,
                   int64_t max_gap_ns);

}  // namespace tokbench::metrics
