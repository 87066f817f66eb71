#include "otlp/exporter.hpp"

#include <fmt/format.h>
// clang-format off: boost 1.74 awaitable.hpp uses std::exchange without including <utility>
#include <utility>
// clang-format on

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "otlp/metric.hpp"
#include "otlp/protobuf.hpp"

namespace tokbench::otlp {

namespace {
// An export's connect, and its write and answer, each get this long (an SDK's default is 10 s;
// shorter, so a dead collector delays a point's end by seconds, not minutes).
constexpr std::chrono::seconds kTimeout{5};
}  // namespace

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

struct Exporter::Impl {
  std::string host, port, path, scope;
  std::chrono::milliseconds interval;
  size_t batch;
  mutable std::mutex mu;
  std::condition_variable cv;
  std::deque<Span> queue;
  bool stopping = false;
  ExporterStats stats;
  std::thread thread;
  // Metrics (start_metrics): collected and sent from this thread every metrics_interval.
  std::function<std::vector<Metric>()> collect;
  std::string metrics_path, service;
  std::chrono::milliseconds metrics_interval{0};
  std::chrono::steady_clock::time_point metrics_due;
  // One kept-alive connection, reopened after a failure.
  net::io_context ioc;
  std::optional<beast::tcp_stream> stream;

  // Runs one async operation on this thread's io_context until it completes or the stream's
  // timer (expires_after) cuts it: a collector that accepts and never answers cannot hold the
  // exporter (a blocking read would ignore the timer).
  template <class Start>
  beast::error_code run_op(Start&& start) {
    beast::error_code result;
    start([&](beast::error_code ec, auto&&...) { result = ec; });
    ioc.restart();
    ioc.run();
    return result;
  }

  // Sends `body` to `target`; true when the endpoint took it (HTTP 2xx), else why in *error.
  bool post(const std::string& target, const std::string& body, std::string* error) {
    beast::error_code ec;
    for (int attempt = 0; attempt < 2; ++attempt) {  // once more when a kept-alive one had closed
      const bool fresh = !stream;
      if (fresh) {
        stream.emplace(ioc);
        tcp::resolver resolver(ioc);
        const auto found = resolver.resolve(host, port, ec);
        stream->expires_after(kTimeout);
        if (!ec) ec = run_op([&](auto h) { stream->async_connect(found, h); });
        if (ec) {
          stream.reset();
          break;
        }
      }
      http::request<http::string_body> req{http::verb::post, target, 11};
      req.set(http::field::host, host);
      req.set(http::field::content_type, "application/x-protobuf");
      req.keep_alive(true);
      req.body() = body;
      req.prepare_payload();
      beast::flat_buffer buf;
      http::response<http::string_body> res;
      stream->expires_after(kTimeout);
      ec = run_op([&](auto h) { http::async_write(*stream, req, h); });
      if (!ec) ec = run_op([&](auto h) { http::async_read(*stream, buf, res, h); });
      if (ec) {
        stream.reset();
        if (fresh || ec == beast::error::timeout) break;  // a new connection failed: no retry
        continue;
      }
      if (!res.keep_alive()) stream.reset();
      if (res.result_int() / 100 == 2) return true;
      *error = fmt::format("HTTP {}: {}", res.result_int(), res.body().substr(0, 200));
      return false;
    }
    *error = ec == beast::error::timeout ? fmt::format("no answer in {} s", kTimeout.count())
                                         : (ec ? ec.message() : "cannot connect");
    return false;
  }

  bool post_spans(const std::vector<Span>& spans) {
    std::string error;
    const bool ok = post(path, encode_traces(spans, scope), &error);
    std::lock_guard lock(mu);
    (ok ? stats.exported : stats.failed) += static_cast<int64_t>(spans.size());
    if (!ok) stats.last_error = error;
    return ok;
  }

  void post_metrics() {
    std::string error;
    const bool ok = post(metrics_path, encode_metrics(collect(), scope, service), &error);
    std::lock_guard lock(mu);
    ++(ok ? stats.metric_exports : stats.metric_failures);
    if (!ok) stats.last_error = error;
  }

  // Stopping, and the endpoint just failed: what is left is counted as failed, not tried batch by
  // batch (each try could take kTimeout), so stop() ends in one timeout at most.
  void give_up_on_rest() {
    stats.failed += static_cast<int64_t>(queue.size());
    queue.clear();
    if (collect) ++stats.metric_failures;
    collect = nullptr;
  }

  bool metrics_due_now() const {
    return collect && std::chrono::steady_clock::now() >= metrics_due;
  }

  void run() {
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait_for(lock, interval, [&] { return stopping || queue.size() >= batch; });
      if (metrics_due_now() || (queue.empty() && stopping && collect)) {
        metrics_due = std::chrono::steady_clock::now() + metrics_interval;
        const bool last = queue.empty() && stopping;
        lock.unlock();
        post_metrics();  // the last one after every span: the run's final counts
        lock.lock();
        if (last) return;
      }
      if (queue.empty()) {
        if (stopping) return;
        continue;
      }
      std::vector<Span> out;
      while (!queue.empty() && out.size() < batch) {
        out.push_back(std::move(queue.front()));
        queue.pop_front();
      }
      lock.unlock();
      const bool ok = post_spans(out);
      lock.lock();
      if (!ok && stopping) give_up_on_rest();
    }
  }
};

Exporter::Exporter(const std::string& url, std::string scope, int interval_ms, size_t batch)
    : impl_(std::make_unique<Impl>()) {
  auto& m = *impl_;
  constexpr std::string_view scheme = "http://";
  if (!std::string_view(url).starts_with(scheme))
    throw std::invalid_argument(
        fmt::format("'{}' is not an http:// URL (e.g. http://127.0.0.1:4318/v1/traces)", url));
  const std::string rest = url.substr(scheme.size());
  const size_t slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  m.path = slash == std::string::npos ? "/v1/traces" : rest.substr(slash);
  const size_t colon = authority.rfind(':');
  const bool bracketed = !authority.empty() && authority.front() == '[';
  if (colon == std::string::npos || (bracketed && authority[colon - 1] != ']')) {
    m.host = authority, m.port = "80";
  } else {
    m.host = authority.substr(0, colon), m.port = authority.substr(colon + 1);
  }
  if (bracketed && m.host.size() > 2) m.host = m.host.substr(1, m.host.size() - 2);
  if (m.host.empty() || m.port.empty())
    throw std::invalid_argument(fmt::format("'{}' names no host and port", url));
  m.scope = std::move(scope);
  m.interval = std::chrono::milliseconds(interval_ms);
  m.batch = batch;
  m.thread = std::thread([&m] { m.run(); });
}

Exporter::~Exporter() { stop(); }

void Exporter::start_metrics(std::string path, std::function<std::vector<Metric>()> collect,
                             int interval_ms, std::string service) {
  auto& m = *impl_;
  std::lock_guard lock(m.mu);
  m.metrics_path = std::move(path);
  m.service = std::move(service);
  m.metrics_interval = std::chrono::milliseconds(interval_ms);
  m.metrics_due = std::chrono::steady_clock::now() + m.metrics_interval;
  m.collect = std::move(collect);
}

void Exporter::add(Span span) {
  auto& m = *impl_;
  std::lock_guard lock(m.mu);
  if (m.stopping) return;
  if (m.queue.size() >= kMaxQueued) {
    ++m.stats.dropped;
    return;
  }
  m.queue.push_back(std::move(span));
  if (m.queue.size() >= m.batch) m.cv.notify_one();
}

void Exporter::stop() {
  auto& m = *impl_;
  {
    std::lock_guard lock(m.mu);
    if (m.stopping) return;
    m.stopping = true;
  }
  m.cv.notify_one();
  if (m.thread.joinable()) m.thread.join();
}

ExporterStats Exporter::stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->stats;
}

}  // namespace tokbench::otlp
