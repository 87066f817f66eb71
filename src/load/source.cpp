#include "load/source.hpp"

#include <algorithm>
#include <cmath>

namespace tokbench::load {

namespace {

class ClosedLoop final : public Arrivals {
 public:
  int64_t next_offset_ns() override { return core::kNotSet; }
};

class AllAtOnce final : public Arrivals {
 public:
  int64_t next_offset_ns() override { return 0; }
};

// A trace's own times, in order; past its end every request is due at the last one.
class Fixed final : public Arrivals {
 public:
  explicit Fixed(std::vector<int64_t> offsets) : offsets_(std::move(offsets)) {}
  int64_t next_offset_ns() override {
    if (offsets_.empty()) return 0;
    return offsets_[std::min(next_++, offsets_.size() - 1)];
  }

 private:
  std::vector<int64_t> offsets_;
  size_t next_ = 0;
};

class Poisson final : public Arrivals {
 public:
  Poisson(double rate_rps, uint64_t seed) : rng_(seed), gap_s_(rate_rps) {}
  int64_t next_offset_ns() override {
    const auto out = static_cast<int64_t>(t_ * 1e9);
    t_ += gap_s_(rng_);  // the first request starts at once
    return out;
  }

 private:
  std::mt19937_64 rng_;
  std::exponential_distribution<double> gap_s_;
  double t_ = 0;
};

// The cumulative expected arrivals Λ(t) of a (possibly ramped) rate, inverted: t(Λ) in seconds.
class RateCurve {
 public:
  explicit RateCurve(const ArrivalShape& s) : s_(s) {
    if (s_.ramp_s <= 0) return;
    if (s_.exponential_ramp) {
      log_k_ = std::log(s_.rate_rps / s_.ramp_start_rps);
      lambda_ramp_ = log_k_ > 0 ? (s_.rate_rps - s_.ramp_start_rps) * s_.ramp_s / log_k_
                                : s_.rate_rps * s_.ramp_s;
    } else {
      lambda_ramp_ = (s_.ramp_start_rps + s_.rate_rps) * s_.ramp_s / 2;
    }
  }

  double time_of(double lambda) const {
    if (s_.ramp_s <= 0) return lambda / s_.rate_rps;
    if (lambda >= lambda_ramp_) return s_.ramp_s + (lambda - lambda_ramp_) / s_.rate_rps;
    const double r0 = s_.ramp_start_rps, S = s_.ramp_s;
    if (s_.exponential_ramp) {
      if (log_k_ <= 0) return lambda / r0;
      return S * std::log1p(lambda * log_k_ / (r0 * S)) / log_k_;
    }
    // Λ(t) = r0·t + a·t², a = (R − r0)/(2S): the positive root.
    const double a = (s_.rate_rps - r0) / (2 * S);
    if (a <= 0) return lambda / r0;
    return (-r0 + std::sqrt(r0 * r0 + 4 * a * lambda)) / (2 * a);
  }

 private:
  ArrivalShape s_;
  double log_k_ = 0, lambda_ramp_ = 0;
};

// Unit-mean gaps in expected arrivals, mapped to time through the rate curve.
class Shaped final : public Arrivals {
 public:
  Shaped(const ArrivalShape& s, uint64_t seed)
      : s_(s),
        curve_(s),
        rng_(seed),
        gamma_(std::max(s.burstiness, 1e-9), 1 / std::max(s.burstiness, 1e-9)) {}
  int64_t next_offset_ns() override {
    const auto out = static_cast<int64_t>(curve_.time_of(lambda_) * 1e9);
    switch (s_.kind) {
      case ArrivalShape::Kind::Poisson:
        lambda_ += exp_(rng_);
        break;
      case ArrivalShape::Kind::Gamma:
        lambda_ += gamma_(rng_);
        break;
      case ArrivalShape::Kind::Constant:
        lambda_ += 1;
        break;
    }
    return out;
  }

 private:
  ArrivalShape s_;
  RateCurve curve_;
  std::mt19937_64 rng_;
  std::exponential_distribution<double> exp_{1.0};
  std::gamma_distribution<double> gamma_;
  double lambda_ = 0;
};

// On/off bursts over another schedule: its offsets count "on time" only; each is moved past the
// off windows that come before it.
class Bursts final : public Arrivals {
 public:
  Bursts(std::unique_ptr<Arrivals> on_time, double on_s, double off_s)
      : inner_(std::move(on_time)),
        on_ns_(static_cast<int64_t>(on_s * 1e9)),
        off_ns_(static_cast<int64_t>(off_s * 1e9)) {}
  int64_t next_offset_ns() override {
    const int64_t t = inner_->next_offset_ns();
    if (t == core::kNotSet || on_ns_ <= 0) return t;
    return t / on_ns_ * (on_ns_ + off_ns_) + t % on_ns_;
  }

 private:
  std::unique_ptr<Arrivals> inner_;
  int64_t on_ns_, off_ns_;
};

}  // namespace

std::unique_ptr<Arrivals> closed_loop() { return std::make_unique<ClosedLoop>(); }
std::unique_ptr<Arrivals> fixed(std::vector<int64_t> offsets_ns) {
  return std::make_unique<Fixed>(std::move(offsets_ns));
}
std::unique_ptr<Arrivals> poisson(double rate_rps, uint64_t seed) {
  return std::make_unique<Poisson>(rate_rps, seed);
}

std::unique_ptr<Arrivals> open_loop(const ArrivalShape& shape, uint64_t seed) {
  if (std::isinf(shape.rate_rps)) return std::make_unique<AllAtOnce>();
  std::unique_ptr<Arrivals> on_time;
  if (shape.kind == ArrivalShape::Kind::Poisson && shape.ramp_s <= 0)
    on_time = poisson(shape.rate_rps, seed);
  else
    on_time = std::make_unique<Shaped>(shape, seed);
  if (shape.burst_on_s <= 0) return on_time;
  return std::make_unique<Bursts>(std::move(on_time), shape.burst_on_s, shape.burst_off_s);
}

PhaseLimits linear_concurrency_ramp(PhaseLimits base, int concurrency, int64_t ramp_ns) {
  if (concurrency <= 1 || ramp_ns <= 0) return base;
  base.max_in_flight = concurrency;
  base.step_ns = std::max<int64_t>(1, ramp_ns / (concurrency - 1));  // 1 at 0, C at ramp_ns
  return base;
}

PhaseLimits pressure_ramp(PhaseLimits base, int concurrency, double clients_per_s) {
  if (concurrency <= 1 || clients_per_s <= 0 || std::isinf(clients_per_s)) return base;
  base.max_in_flight = concurrency;
  base.step_ns = std::max<int64_t>(1, static_cast<int64_t>(1e9 / clients_per_s));
  return base;
}

CountedSource::CountedSource(PhaseLimits limits, bool warmup, std::unique_ptr<Arrivals> arrivals,
                             core::RequestMaker make)
    : limits_(limits), warmup_(warmup), arrivals_(std::move(arrivals)), make_(std::move(make)) {}

void CountedSource::start(int64_t phase_start_ns) {
  std::lock_guard lock(mu_);
  phase_start_ns_ = phase_start_ns;
}

Pull CountedSource::next(int64_t now_ns) {
  int64_t index = 0, offset = core::kNotSet, phase = 0;
  bool measured = true;
  {
    // Index and intended time are drawn together, so the schedule is the same sequence however
    // the workers interleave; the body is made outside the lock.
    std::lock_guard lock(mu_);
    if (limits_.count >= 0 && next_ >= limits_.count) return Pull::done();
    while (!pending_offset_ &&
           next_ % limits_.shard_size != limits_.shard_rank) {  // another rank's request
      (void)arrivals_->next_offset_ns();
      ++next_;
      if (limits_.count >= 0 && next_ >= limits_.count) return Pull::done();
    }
    offset = pending_offset_ ? *pending_offset_ : arrivals_->next_offset_ns();
    pending_offset_.reset();
    const int64_t since_start = now_ns - phase_start_ns_;
    const int64_t due = offset == core::kNotSet ? since_start : offset;
    if (limits_.duration_ns != core::kNotSet && due >= limits_.duration_ns) return Pull::done();
    if (limits_.step_ns > 0) {
      const int64_t allowed = std::min<int64_t>(
          limits_.max_in_flight, 1 + std::max<int64_t>(0, since_start) / limits_.step_ns);
      if (in_flight_ >= allowed) {
        pending_offset_ = offset;  // the same draw goes out when the ramp allows
        return Pull::later(allowed < limits_.max_in_flight
                               ? phase_start_ns_ + allowed * limits_.step_ns
                               : core::kNotSet);
      }
    }
    index = next_++;
    ++in_flight_;
    phase = phase_start_ns_;
    measured = due >= limits_.measured_from_ns;
  }
  core::PlannedRequest p = make_(index);
  p.index = index;
  p.warmup = warmup_ || !measured;
  p.scheduled_ns = offset == core::kNotSet ? core::kNotSet : phase + offset;
  return Pull::of(std::move(p));
}

void CountedSource::completed(record::RequestRecord&) {
  std::lock_guard lock(mu_);
  --in_flight_;
}

}  // namespace tokbench::load
