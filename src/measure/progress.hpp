#pragma once
// measure/progress: the progress line of the measured phase on stderr — one rewritten line on a
// terminal, plain periodic lines otherwise (logs, CI). Reads counters; never touches records.
#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>

namespace tokbench::runner {

struct ProgressCounters {
  std::function<int64_t()> done, failed, output_tokens, started;
};

class Progress {
 public:
  /// `planned` < 0: unknown total (no ETA from it). `interval_s` 0: 1 s on a terminal, else 10 s.
  Progress(ProgressCounters c, int64_t planned, double request_rate, double interval_s);
  ~Progress();  ///< stops and clears the line

 private:
  void loop(bool tty, double every_s);
  ProgressCounters c_;
  int64_t planned_;
  double rate_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace tokbench::runner
