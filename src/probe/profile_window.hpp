#pragma once
// probe/profile_window: --profile-window START_S:DURATION_S — POST /start_profile that far into
// the measured phase and /stop_profile after the duration (vLLM's torch profiler endpoints), on
// a thread of its own; what happened is kept as JSON for the run folder.
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "record/run_parts.hpp"

namespace tokbench::probe {

using record::parse_profile_window;  // the flag's value, parsed by the plan (record/run_parts)
using record::WindowSpec;

class ProfileWindow {
 public:
  /// Starts timing now.
  ProfileWindow(WindowSpec window, std::string root_url, std::vector<std::string> headers,
                std::string api_key);
  ~ProfileWindow();
  /// The measured phase ended: stops waiting, joins, and returns what happened.
  record::ProfileFacts finish();

 private:
  void run();
  WindowSpec window_;
  std::string root_;
  std::vector<std::string> headers_;
  std::string api_key_;
  std::atomic<bool> done_{false};
  record::ProfileFacts facts_;
  std::thread thread_;
};

}  // namespace tokbench::probe
