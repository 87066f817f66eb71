#include "metrics/energy.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tokbench::metrics {

namespace {

double lerp(int64_t t0, double v0, int64_t t1, double v1, int64_t t) {
  if (t1 == t0) return v1;
  return v0 + (v1 - v0) * static_cast<double>(t - t0) / static_cast<double>(t1 - t0);
}

}  // namespace

EnergyMeter::EnergyMeter(int64_t start_ns, int64_t end_ns, int64_t max_gap_ns)
    : start_(start_ns), end_(end_ns), max_gap_(max_gap_ns) {}

void EnergyMeter::add(const PowerSample& s) {
  if (s.energy_j) step(counter_, s.t_ns, *s.energy_j, true);
  if (s.power_w) step(power_, s.t_ns, *s.power_w, false);
}

// One interval (prev, t] of a track: its gap if it lies across the phase, and its part of the
// energy inside the phase. A counter grows linearly inside an interval from its earlier value (0
// after a drop: a reset is a restart from zero) to its later one; power is interpolated linearly
// at the phase's edges and integrated by trapezoids.
void EnergyMeter::step(Track& k, int64_t t, double v, bool counter) const {
  if (!k.any) {
    k = Track{true, t, t, 0, 0, 0, v, 0, 0};
    return;
  }
  const int64_t t0 = k.prev_t;
  const double v0 = k.prev_v;
  if (t >= start_ && t0 <= end_) k.min_v = std::min({k.min_v, v, v0});  // an interval in the phase
  if (!(t < start_ || t0 > end_)) {  // the gaps across the phase only
    k.max_gap = std::max(k.max_gap, t - t0);
    k.samples += t <= end_;
  }
  if (t > start_ && t0 < end_ && t > t0) {
    const int64_t a = std::max(t0, start_), b = std::min(t, end_);
    if (counter) {
      const bool reset = v < v0;
      k.resets += reset;
      const double from = reset ? 0 : v0;
      k.total += lerp(t0, from, t, v, b) - lerp(t0, from, t, v, a);
    } else {
      const double wa = lerp(t0, v0, t, v, a), wb = lerp(t0, v0, t, v, b);
      k.total += (wa + wb) / 2 * static_cast<double>(b - a) / 1e9;
    }
  }
  k.prev_t = t;
  k.prev_v = v;
}

Energy EnergyMeter::result(const Track& k, const char* method) const {
  Energy e;
  e.method = method;
  if (!k.any) {
    e.why = "no sample";
    return e;
  }
  if (k.first_t > start_) {
    e.why = fmt::format("the first sample came {:.3f} s after the phase began",
                        static_cast<double>(k.first_t - start_) / 1e9);
    return e;
  }
  if (k.prev_t < end_) {
    e.why = fmt::format("the last sample came {:.3f} s before the phase ended",
                        static_cast<double>(end_ - k.prev_t) / 1e9);
    return e;
  }
  e.samples = k.samples + 1;  // the sample at or before the start
  e.max_gap_s = static_cast<double>(k.max_gap) / 1e9;
  e.resets = k.resets;
  if (k.max_gap > max_gap_) {
    e.why = fmt::format("a gap of {:.3f} s between samples (longer than {:.3f} s)", e.max_gap_s,
                        static_cast<double>(max_gap_) / 1e9);
    return e;
  }
  e.joules = k.total;
  e.known = true;
  return e;
}

Energy EnergyMeter::finish() const {
  if (end_ <= start_) {
    Energy e;
    e.why = "the phase has no length";
    return e;
  }
  std::optional<Energy> from_power;
  if (power_.any) {
    from_power = result(power_, kEnergyFromPower);
    if (from_power->known && power_.min_v < 0) {
      from_power->known = false;
      from_power->why = fmt::format(
          "the power gauge read {:.1f} W inside the phase: a negative power cannot be true",
          power_.min_v);
    }
  }
  if (counter_.any) {
    Energy e = result(counter_, kEnergyFromCounter);
    if (!e.known) return e;
    if (e.resets * 2 > e.samples) {  // a restart now and then is a reset; at most samples, not
      e.known = false;
      e.why = fmt::format(
          "the energy counter went back at {} of {} samples: it is not a counter (a decreasing "
          "or wrapping value)",
          e.resets, e.samples);
      return e;
    }
    if (from_power && from_power->known) {
      const double seconds = static_cast<double>(end_ - start_) / 1e9;
      const double gap = std::abs(e.joules - from_power->joules);
      if (gap > kCounterPowerTolerance * std::max(std::abs(from_power->joules), 1.0)) {
        e.known = false;
        e.why = fmt::format(
            "the energy counter ({:.1f} J, mean {:.1f} W) and the power gauge ({:.1f} J, mean "
            "{:.1f} W) disagree by more than {:.0f}%: a stuck counter, or one refreshed slower "
            "than "
            "the scrapes (dcgm-exporter caches its samples); neither is taken",
            e.joules, e.joules / seconds, from_power->joules, from_power->joules / seconds,
            100 * kCounterPowerTolerance);
      }
    }
    return e;
  }
  if (from_power) return *from_power;
  Energy e;
  e.why = "no power or energy sample";
  return e;
}

Energy energy_over(const std::vector<PowerSample>& series, int64_t start_ns, int64_t end_ns,
                   int64_t max_gap_ns) {
  EnergyMeter m(start_ns, end_ns, max_gap_ns);
  for (const auto& s : series) m.add(s);
  return m.finish();
}

}  // namespace tokbench::metrics
