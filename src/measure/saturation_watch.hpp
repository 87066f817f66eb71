#pragma once
// measure/saturation_watch: --stop-on-saturation, while the measured phase runs. A thread closes a
// window every --saturation-window-s from the run's counters (sent, ended, output tokens) and the
// records' TTFT, hands it to metrics/saturation, and when the rule holds stops the point: its own
// stop level goes to cancel-now, so the engine ends the point at once, while the series' stop
// (Ctrl-C) is left alone and the sweep or search goes on to its next point. It relays the series'
// stop into the point's every 10 ms, so Ctrl-C and a full disk still end the point.
#include <spdlog/logger.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "metrics/saturation.hpp"
#include "record/record.hpp"

namespace tokbench::runner {

struct SaturationCounters {
  std::function<int64_t()> started, ended, output_tokens;
};

class SaturationWatch {
 public:
  SaturationWatch(double window_s, SaturationCounters counters, std::atomic<int>& series_stop,
                  std::atomic<int>& point_stop, spdlog::logger& log, std::FILE* console);
  ~SaturationWatch();
  /// A measured record (any worker thread): its TTFT counts in the window it ended in.
  void add(const record::RequestRecord& r);
  /// Stops the thread; why the point was stopped, or nullopt when it was not.
  std::optional<std::string> finish();

 private:
  void loop();
  double window_s_;
  SaturationCounters c_;
  std::atomic<int>& series_stop_;
  std::atomic<int>& point_stop_;
  spdlog::logger& log_;
  std::FILE* console_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  double ttft_sum_ms_ = 0;
  int64_t ttft_n_ = 0;
  std::optional<std::string> why_;
  std::thread thread_;
};

}  // namespace tokbench::runner
