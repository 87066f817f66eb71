#pragma once
// probe/profile_window: --profile-window START_S:DURATION_S — POST /start_profile that far into
// the measured phase and /stop_profile after the duration (vLLM's torch profiler endpoints), on
// a thread of its own; what happened is kept as JSON for the run folder.
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace tokbench::probe {

class ProfileWindow {
 public:
  /// Starts timing now. `window` is "START_S:DURATION_S" (validated by RunConfig).
  ProfileWindow(std::string window, std::string root_url, std::vector<std::string> headers, std::string api_key);
  ~ProfileWindow();
  /// The measured phase ended: stops waiting, joins, and returns what happened as JSON.
  std::string finish();

 private:
  void run(double start_s, double duration_s);
  std::string window_, root_;
  std::vector<std::string> headers_;
  std::string api_key_;
  std::atomic<bool> done_{false};
  std::string json_;
  std::thread thread_;
};

}  // namespace tokbench::probe
