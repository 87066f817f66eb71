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
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "otlp/protobuf.hpp"

namespace tokbench::otlp {

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
  // One kept-alive connection, reopened after a failure.
  net::io_context ioc;
  std::optional<beast::tcp_stream> stream;

  void post(const std::vector<Span>& spans) {
    const std::string body = encode_traces(spans, scope);
    beast::error_code ec;
    for (int attempt = 0; attempt < 2; ++attempt) {  // once more on a fresh connection
      if (!stream) {
        stream.emplace(ioc);
        stream->expires_after(std::chrono::seconds(5));
        tcp::resolver resolver(ioc);
        const auto found = resolver.resolve(host, port, ec);
        if (!ec) stream->connect(found, ec);
        if (ec) {
          stream.reset();
          break;
        }
      }
      http::request<http::string_body> req{http::verb::post, path, 11};
      req.set(http::field::host, host);
      req.set(http::field::content_type, "application/x-protobuf");
      req.keep_alive(true);
      req.body() = body;
      req.prepare_payload();
      stream->expires_after(std::chrono::seconds(10));
      http::write(*stream, req, ec);
      beast::flat_buffer buf;
      http::response<http::string_body> res;
      if (!ec) http::read(*stream, buf, res, ec);
      if (ec) {
        stream.reset();
        continue;
      }
      std::lock_guard lock(mu);
      if (res.result_int() / 100 == 2) {
        stats.exported += static_cast<int64_t>(spans.size());
      } else {
        stats.failed += static_cast<int64_t>(spans.size());
        stats.last_error = fmt::format("HTTP {}: {}", res.result_int(), res.body().substr(0, 200));
      }
      if (!res.keep_alive()) stream.reset();
      return;
    }
    std::lock_guard lock(mu);
    stats.failed += static_cast<int64_t>(spans.size());
    stats.last_error = ec ? ec.message() : "cannot connect";
  }

  void run() {
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait_for(lock, interval, [&] { return stopping || queue.size() >= batch; });
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
      post(out);
      lock.lock();
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
