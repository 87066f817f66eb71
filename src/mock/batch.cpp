#include "mock/batch.hpp"

#include <algorithm>
#include <boost/asio/redirect_error.hpp>

namespace tokbench::mock {

namespace net = boost::asio;

bool Batch::before(const Ticket& a, const Ticket& b) const {
  switch (policy_) {
    case SchedulingPolicy::Priority:
      if (a.priority != b.priority) return a.priority < b.priority;
      break;
    case SchedulingPolicy::Fair: {
      const auto sa = served_.find(a.tenant), sb = served_.find(b.tenant);
      const double va = sa == served_.end() ? 0 : sa->second;
      const double vb = sb == served_.end() ? 0 : sb->second;
      if (va != vb) return va < vb;
      break;
    }
    case SchedulingPolicy::Fcfs:
      break;
  }
  return a.order < b.order;
}

void Batch::wait_in_line(const TicketPtr& t, const net::any_io_executor& ex) {
  t->wake = std::make_shared<net::steady_timer>(ex);
  t->wake->expires_at(std::chrono::steady_clock::time_point::max());
  // VTC: a tenant that had nothing waiting starts level with the least served one waiting, so
  // an idle spell banks no credit to crowd the others out with later.
  if (policy_ == SchedulingPolicy::Fair) {
    const bool queued = std::any_of(waiting_.begin(), waiting_.end(),
                                    [&](const TicketPtr& w) { return w->tenant == t->tenant; });
    if (!queued && !waiting_.empty()) {
      double least = served_[waiting_.front()->tenant];
      for (const auto& w : waiting_) least = std::min(least, served_[w->tenant]);
      served_[t->tenant] = std::max(served_[t->tenant], least);
    }
  }
  waiting_.push_back(t);
}

net::awaitable<void> Batch::admit(TicketPtr t) {
  const auto ex = co_await net::this_coro::executor;
  bool wait = false;
  {
    std::lock_guard lock(mu_);
    t->order = next_order_++;
    // Tenants come from a header: past kMaxTenants they share the default one (bounded memory).
    if (policy_ == SchedulingPolicy::Fair && !served_.contains(t->tenant) &&
        served_.size() >= kMaxTenants)
      t->tenant.clear();
    if (max_ == 0 || static_cast<int>(running_.size()) < max_) {
      t->running = true;
      running_.push_back(t);
      running_min_tokens_ += t->min_tokens;
    } else {
      wait_in_line(t, ex);
      wait = true;
      if (policy_ == SchedulingPolicy::Priority) {
        // The worst running request not yet asked to go (highest value, then the newest).
        TicketPtr worst;
        for (const auto& r : running_)
          if (!r->preempt && (!worst || before(*worst, *r))) worst = r;
        if (worst && t->priority < worst->priority) worst->preempt.store(true);
      }
    }
  }
  if (wait) {
    boost::system::error_code ec;
    co_await t->wake->async_wait(net::redirect_error(net::use_awaitable, ec));  // our turn
  }
}

bool Batch::hand_over() {
  if (waiting_.empty()) return false;
  auto best = waiting_.begin();
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it)
    if (before(**it, **best)) best = it;
  TicketPtr next = *best;
  waiting_.erase(best);
  next->running = true;
  running_.push_back(next);
  running_min_tokens_ += next->min_tokens;
  auto wake = next->wake;
  net::post(wake->get_executor(), [wake] { wake->cancel(); });
  return true;
}

net::awaitable<void> Batch::requeue(TicketPtr t) {
  const auto ex = co_await net::this_coro::executor;
  {
    std::lock_guard lock(mu_);
    std::erase(running_, t);
    running_min_tokens_ -= t->min_tokens;
    t->running = false;
    t->preempt.store(false);
    wait_in_line(t, ex);  // keeps its arrival order: it goes back at its place in line
    hand_over();          // the place goes to the best waiter (it may be this one again)
  }
  boost::system::error_code ec;
  co_await t->wake->async_wait(net::redirect_error(net::use_awaitable, ec));
}

void Batch::release(const TicketPtr& t) {
  std::lock_guard lock(mu_);
  if (!t->running) {  // still waiting (the server is going away): leave the line
    std::erase(waiting_, t);
    return;
  }
  std::erase(running_, t);
  running_min_tokens_ -= t->min_tokens;
  t->running = false;
  hand_over();
}

void Batch::served(const Ticket& t, int64_t tokens) {
  if (policy_ != SchedulingPolicy::Fair) return;
  std::lock_guard lock(mu_);
  served_[t.tenant] += static_cast<double>(tokens);
}

BatchState Batch::state() {
  std::lock_guard lock(mu_);
  return {static_cast<int>(running_.size()), running_min_tokens_};
}

void Batch::clear() {
  std::lock_guard lock(mu_);
  waiting_.clear();
}

}  // namespace tokbench::mock
