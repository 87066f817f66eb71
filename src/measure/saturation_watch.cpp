#include "measure/saturation_watch.hpp"

#include <fmt/format.h>

#include <chrono>

#include "client/engine.hpp"
#include "common/clock.hpp"

namespace tokbench::runner {

SaturationWatch::SaturationWatch(double window_s, SaturationCounters counters,
                                 std::atomic<int>& series_stop, std::atomic<int>& point_stop,
                                 spdlog::logger& log, std::FILE* console)
    : window_s_(window_s),
      c_(std::move(counters)),
      series_stop_(series_stop),
      point_stop_(point_stop),
      log_(log),
      console_(console) {
  thread_ = std::thread([this] { loop(); });
}

SaturationWatch::~SaturationWatch() { finish(); }

void SaturationWatch::add(const record::RequestRecord& r) {
  if (r.warmup || r.first_token_ns == record::kNone || r.sent_ns == record::kNone) return;
  std::lock_guard lock(mu_);
  ttft_sum_ms_ += static_cast<double>(r.first_token_ns - r.sent_ns) / 1e6;
  ++ttft_n_;
}

std::optional<std::string> SaturationWatch::finish() {
  {
    std::lock_guard lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  return why_;
}

void SaturationWatch::loop() {
  metrics::SaturationDetector detector;
  const int64_t start = steady_now_ns();
  const auto window_ns = static_cast<int64_t>(window_s_ * 1e9);
  int64_t next = start + window_ns;
  int64_t tokens_before = c_.output_tokens();
  std::unique_lock lock(mu_);
  while (!done_) {
    cv_.wait_for(lock, std::chrono::milliseconds(10));
    // The series' stop (Ctrl-C, a full disk) ends this point too.
    if (const int s = series_stop_.load(); s > point_stop_.load()) point_stop_.store(s);
    const int64_t now = steady_now_ns();
    if (done_ || now < next || why_) continue;
    metrics::SaturationWindow w;
    w.end_s = static_cast<double>(now - start) / 1e9;
    w.in_flight = c_.started() - c_.ended();
    const int64_t tokens = c_.output_tokens();
    w.output_tokens_per_s =
        static_cast<double>(tokens - tokens_before) / (static_cast<double>(window_ns) / 1e9);
    tokens_before = tokens;
    if (ttft_n_ > 0) w.ttft_ms = ttft_sum_ms_ / static_cast<double>(ttft_n_);
    ttft_sum_ms_ = 0;
    ttft_n_ = 0;
    next += window_ns;
    if (auto why = detector.add(w)) {
      why_ = *why;
      point_stop_.store(client::kCancelNow);
      log_.warn("--stop-on-saturation: {}; the point stops here", *why_);
      fmt::print(console_, "--stop-on-saturation: {}; the point stops here (SATURATED)\n", *why_);
      std::fflush(console_);
    }
  }
}

}  // namespace tokbench::runner
