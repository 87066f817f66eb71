#pragma once
// mock/batch: the simulator's running batch, as vLLM's scheduler keeps it: at most --max-num-seqs
// requests generate at once (0 = no cap), the others wait in arrival order, and a released place
// is handed straight to the oldest waiter. It also counts the running requests that carry
// min_tokens, which slow every decode step of the batch (the seeds' speculative-decoding case).
// clang-format off: boost 1.74 awaitable.hpp uses std::exchange without including <utility>
#include <utility>
// clang-format on
#include <boost/asio.hpp>
#include <deque>
#include <memory>
#include <mutex>

#include "mock/mock_response.hpp"

namespace tokbench::mock {

class Batch {
 public:
  explicit Batch(int max_num_seqs) : max_(max_num_seqs) {}

  /// Waits for a place in the batch (at once when there is one).
  boost::asio::awaitable<void> admit(bool min_tokens);
  /// Gives the place back: to the oldest waiter, or free.
  void release(bool min_tokens);
  /// What every running request shares now.
  BatchState state();
  /// Drops the waiters' timers (the server is going away).
  void clear();

 private:
  int max_;
  std::mutex mu_;
  int running_ = 0;
  int running_min_tokens_ = 0;
  std::deque<std::shared_ptr<boost::asio::steady_timer>> waiters_;
};

}  // namespace tokbench::mock
