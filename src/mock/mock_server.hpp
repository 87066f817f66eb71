#pragma once
// mock/mock_server: `tokbench serve-mock`, an OpenAI-compatible simulator on Boost.Beast. Each
// stream is a coroutine sleeping on an absolute steady_clock deadline per chunk, so thousands of
// streams share a few threads and lateness never accumulates. It is the embedded default target
// and the ground truth of accuracy tests (optional --trace: per request, when it reached the host,
// was read, admitted and got its first token, and when each write went out).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mockapi/mock_response.hpp"

namespace tokbench::mock {

class MockServer {
 public:
  explicit MockServer(MockSettings settings);
  ~MockServer();  ///< stops and joins
  MockServer(const MockServer&) = delete;
  MockServer& operator=(const MockServer&) = delete;

  /// Binds, starts the threads, returns the bound port. Throws naming host:port on failure.
  uint16_t start();
  /// Stops accepting, ends every stream, joins the threads. Idempotent.
  void stop();
  /// Requests served so far (completion endpoints only).
  uint64_t completions_served() const;
  /// POST /start_profile and /stop_profile calls so far: ("start"|"stop", steady_clock ns).
  std::vector<std::pair<std::string, int64_t>> profile_events() const;
  /// --devices: the joules its power model has spent since it started (every device), the truth
  /// the telemetry tests hold tokbench's energy to.
  double device_joules() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tokbench::mock
