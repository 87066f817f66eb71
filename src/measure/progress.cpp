#include "measure/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "common/clock.hpp"

namespace tokbench::runner {

Progress::Progress(ProgressCounters c, int64_t planned, double request_rate, double interval_s)
    : c_(std::move(c)), planned_(planned), rate_(request_rate) {
  const bool tty = isatty(fileno(stderr));
  const double every_s = interval_s > 0 ? interval_s : tty ? 1.0 : 10.0;
  thread_ = std::thread([this, tty, every_s] { loop(tty, every_s); });
}

Progress::~Progress() {
  stop_ = true;
  thread_.join();
}

void Progress::loop(bool tty, double every_s) {
  const int64_t t0 = steady_now_ns();
  int64_t next = t0 + static_cast<int64_t>(every_s * 1e9);
  while (!stop_.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (steady_now_ns() < next) continue;
    next += static_cast<int64_t>(every_s * 1e9);
    const double el = static_cast<double>(steady_now_ns() - t0) / 1e9;
    const int64_t done = c_.done();
    const double rps = el > 0 ? static_cast<double>(done) / el : 0;
    std::string eta = "?";
    if (rate_ > 0 && planned_ >= 0) {
      eta = fmt::format("{:.0f}s", std::max(0.0, static_cast<double>(planned_) / rate_ - el));
    } else if (rps > 0 && planned_ >= 0) {
      eta = fmt::format("{:.0f}s", static_cast<double>(planned_ - done) / rps);
    }
    const std::string line = fmt::format(
        "{}/{} done, {} in flight, {:.1f} req/s, {:.0f} output tok/s, {} failed, ETA {}", done,
        planned_ >= 0 ? std::to_string(planned_) : "?", c_.started() - done, rps,
        el > 0 ? static_cast<double>(c_.output_tokens()) / el : 0.0, c_.failed(), eta);
    if (tty) {
      fmt::print(stderr, "\r\033[K{}", line);
    } else {
      fmt::print(stderr, "progress: {}\n", line);
    }
    std::fflush(stderr);
  }
  if (tty) fmt::print(stderr, "\r\033[K");
}

}  // namespace tokbench::runner
