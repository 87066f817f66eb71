#include "probe/profile_window.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "common/clock.hpp"
#include "net/http_get.hpp"

namespace tokbench::probe {

ProfileWindow::ProfileWindow(WindowSpec window, std::string root_url,
                             std::vector<std::string> headers, std::string api_key)
    : window_(window),
      root_(std::move(root_url)),
      headers_(std::move(headers)),
      api_key_(std::move(api_key)) {
  thread_ = std::thread([this] { run(); });
}

ProfileWindow::~ProfileWindow() {
  done_ = true;
  if (thread_.joinable()) thread_.join();
}

record::ProfileFacts ProfileWindow::finish() {
  done_ = true;
  if (thread_.joinable()) thread_.join();
  return facts_;
}

void ProfileWindow::run() {
  const double start_s = window_.start_s, duration_s = window_.duration_s;
  const int64_t t0 = steady_now_ns();
  auto sleep_until = [&](double s) {
    while (!done_ && steady_now_ns() - t0 < static_cast<int64_t>(s * 1e9))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  };
  sleep_until(start_s);
  facts_.window = window_.text();
  if (done_) {
    facts_.note = "the run ended before the window";
    return;
  }
  const auto started = net::http_post(root_ + "/start_profile", "{}", headers_, api_key_, 30'000);
  const double started_at = static_cast<double>(steady_now_ns() - t0) / 1e9;
  sleep_until(start_s + duration_s);
  const auto stopped = net::http_post(root_ + "/stop_profile", "{}", headers_, api_key_, 60'000);
  const double stopped_at = static_cast<double>(steady_now_ns() - t0) / 1e9;
  facts_.started = true;
  facts_.start_status = started.status;
  facts_.started_at_s = started_at;
  facts_.stop_status = stopped.status;
  facts_.stopped_at_s = stopped_at;
  facts_.cut_short = stopped_at < start_s + duration_s - 0.05;
}

}  // namespace tokbench::probe
