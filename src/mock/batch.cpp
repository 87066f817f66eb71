#include "mock/batch.hpp"

#include <boost/asio/redirect_error.hpp>

namespace tokbench::mock {

namespace net = boost::asio;

net::awaitable<void> Batch::admit(bool min_tokens) {
  std::shared_ptr<net::steady_timer> wait;
  {
    std::lock_guard lock(mu_);
    if (max_ == 0 || running_ < max_) {
      ++running_;
      running_min_tokens_ += min_tokens;
    } else {
      wait = std::make_shared<net::steady_timer>(co_await net::this_coro::executor);
      wait->expires_at(std::chrono::steady_clock::time_point::max());
      waiters_.push_back(wait);
    }
  }
  if (wait) {
    boost::system::error_code ec;
    co_await wait->async_wait(net::redirect_error(net::use_awaitable, ec));  // cancelled = our turn
    std::lock_guard lock(mu_);
    running_min_tokens_ += min_tokens;  // the place itself was handed over by release()
  }
}

void Batch::release(bool min_tokens) {
  std::lock_guard lock(mu_);
  running_min_tokens_ -= min_tokens;
  if (waiters_.empty()) {
    --running_;
    return;
  }
  auto next = waiters_.front();
  waiters_.pop_front();
  net::post(next->get_executor(), [next] { next->cancel(); });
}

BatchState Batch::state() {
  std::lock_guard lock(mu_);
  return {running_, running_min_tokens_};
}

void Batch::clear() {
  std::lock_guard lock(mu_);
  waiters_.clear();
}

}  // namespace tokbench::mock
