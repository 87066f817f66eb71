#pragma once
// mock/batch: the simulator's running batch, as vLLM's scheduler keeps it: at most --max-num-seqs
// requests generate at once (0 = no cap); the others wait, and a released place is handed
// straight to the waiter the --scheduling-policy picks: the oldest (fcfs, vLLM's default), the
// lowest `priority` value then the oldest (priority, vLLM's --scheduling-policy priority, which
// also preempts the worst running request when a better one waits on a full batch), or the
// tenant that has been served the fewest tokens (fair: a virtual token counter per
// x-gateway-inference-fairness-id, VTC's rule). It also counts the running requests that carry
// min_tokens, which slow every decode step of the batch (the seeds' speculative-decoding case).
// clang-format off: boost 1.74 awaitable.hpp uses std::exchange without including <utility>
#include <utility>
// clang-format on
#include <atomic>
#include <boost/asio.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mockapi/mock_response.hpp"

namespace tokbench::mock {

/// One request's place in the scheduler: what orders it, and where it stands.
struct Ticket {
  int64_t priority = 0;  ///< the body's `priority` (lower first); 0 when not sent
  std::string tenant;    ///< the fairness id (fair policy); "" = the default tenant
  bool min_tokens = false;
  // The batch's own state, under its lock.
  uint64_t order = 0;  ///< arrival order
  bool running = false;
  /// Asked to give its place up at its next step (priority policy); read lock-free each step.
  std::atomic<bool> preempt{false};
  std::shared_ptr<boost::asio::steady_timer> wake;  ///< set while it waits
};
using TicketPtr = std::shared_ptr<Ticket>;

class Batch {
 public:
  static constexpr size_t kMaxTenants = 1024;  ///< fair: tenants counted apart, at most

  Batch(int max_num_seqs, SchedulingPolicy policy) : max_(max_num_seqs), policy_(policy) {}

  /// Waits for a place in the batch (at once when there is one). Under the priority policy a
  /// waiter better than the worst running request marks that one to be preempted.
  boost::asio::awaitable<void> admit(TicketPtr t);
  /// Whether `t` was asked to give its place up (checked by the request at each step).
  static bool preempted(const Ticket& t) { return t.preempt.load(std::memory_order_relaxed); }
  /// Gives the place up to the best waiter and waits for one again (vLLM's recompute preemption:
  /// the caller prefills again once readmitted).
  boost::asio::awaitable<void> requeue(TicketPtr t);
  /// Gives the place back for good: to the best waiter, or free.
  void release(const TicketPtr& t);
  /// Tokens served to `t`'s tenant (fair policy: who waits longest for its turn).
  void served(const Ticket& t, int64_t tokens);
  /// What every running request shares now.
  BatchState state();
  /// Drops the waiters' timers (the server is going away).
  void clear();

 private:
  // Under mu_: the place of a running request goes to the best waiter (true), or is freed.
  bool hand_over();
  void wait_in_line(const TicketPtr& t, const boost::asio::any_io_executor& ex);
  bool before(const Ticket& a, const Ticket& b) const;  // a is served first

  int max_;
  SchedulingPolicy policy_;
  std::mutex mu_;
  uint64_t next_order_ = 0;
  int running_min_tokens_ = 0;
  std::vector<TicketPtr> running_, waiting_;
  std::map<std::string, double> served_;  ///< fair: tokens served per tenant (VTC's counter)
};

}  // namespace tokbench::mock
