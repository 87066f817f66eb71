#include "load/source.hpp"

namespace tokbench::load {

namespace {

class ClosedLoop final : public Arrivals {
 public:
  int64_t next_offset_ns() override { return core::kNotSet; }
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

}  // namespace

std::unique_ptr<Arrivals> closed_loop() { return std::make_unique<ClosedLoop>(); }
std::unique_ptr<Arrivals> poisson(double rate_rps, uint64_t seed) { return std::make_unique<Poisson>(rate_rps, seed); }

CountedSource::CountedSource(int64_t count, bool warmup, std::unique_ptr<Arrivals> arrivals, core::RequestMaker make)
    : count_(count), warmup_(warmup), arrivals_(std::move(arrivals)), make_(std::move(make)) {}

void CountedSource::start(int64_t phase_start_ns) {
  std::lock_guard lock(mu_);
  phase_start_ns_ = phase_start_ns;
}

Pull CountedSource::next(int64_t) {
  int64_t index = 0, offset = core::kNotSet, phase = 0;
  {
    // Index and intended time are drawn together, so the schedule is the same sequence however
    // the workers interleave; the body is made outside the lock.
    std::lock_guard lock(mu_);
    if (next_ >= count_) return Pull::done();
    index = next_++;
    offset = arrivals_->next_offset_ns();
    phase = phase_start_ns_;
  }
  core::PlannedRequest p = make_(index);
  p.index = index;
  p.warmup = warmup_;
  p.scheduled_ns = offset == core::kNotSet ? core::kNotSet : phase + offset;
  return Pull::of(std::move(p));
}

void CountedSource::completed(const record::RequestRecord&) {}  // a fixed count needs no feedback

}  // namespace tokbench::load
