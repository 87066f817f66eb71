#include "otlp/receiver.hpp"

#include <fmt/format.h>
// clang-format off: boost 1.74 awaitable.hpp uses std::exchange without including <utility>
#include <utility>
// clang-format on

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "otlp/metric.hpp"
#include "otlp/protobuf.hpp"

namespace tokbench::otlp {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using net::awaitable;
using net::use_awaitable;
using tcp = net::ip::tcp;

struct Receiver::Impl {
  explicit Impl(size_t max) : max_spans(max) {}
  size_t max_spans;
  net::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  std::thread thread;
  mutable std::mutex mu;
  std::vector<Span> spans;
  std::vector<Metric> metrics;
  size_t metric_points = 0;
  ReceiverStats stats;

  awaitable<void> accept_loop() {
    for (;;) {
      beast::error_code ec;
      tcp::socket sock = co_await acceptor.async_accept(net::redirect_error(use_awaitable, ec));
      if (ec) co_return;  // stopping
      net::co_spawn(ioc, session(std::move(sock)), net::detached);
    }
  }

  // What one export body gives: the spans (or metrics) kept, or why it is refused (HTTP 400/415).
  std::pair<http::status, std::string> take_export(const http::request<http::string_body>& req,
                                                   bool is_metrics) {
    const std::string_view type(req[http::field::content_type].data(),
                                req[http::field::content_type].size());
    std::lock_guard lock(mu);
    if (!type.starts_with("application/x-protobuf")) {
      ++stats.refused;
      stats.last_error = fmt::format(
          "an export with Content-Type '{}': tokbench reads OTLP's http/protobuf (set "
          "OTEL_EXPORTER_OTLP_{}_PROTOCOL=http/protobuf on the server)",
          type, is_metrics ? "METRICS" : "TRACES");
      return {http::status::unsupported_media_type, stats.last_error};
    }
    std::string why;
    size_t dropped_points = 0;
    const bool ok = is_metrics ? decode_metrics(req.body(), metrics,
                                                max_spans - std::min(max_spans, metric_points),
                                                &dropped_points, &why)
                               : decode_traces(req.body(), spans, max_spans, &stats.dropped, &why);
    metric_points = 0;
    for (const auto& m : metrics) metric_points += m.points.size();
    stats.dropped += dropped_points;
    if (!ok) {
      ++stats.refused;
      stats.last_error = "a malformed export body: " + why;
      return {http::status::bad_request, stats.last_error};
    }
    ++(is_metrics ? stats.metric_exports : stats.exports);
    return {http::status::ok, ""};
  }

  awaitable<void> session(tcp::socket sock) {
    beast::flat_buffer buf;
    try {
      for (;;) {
        http::request_parser<http::string_body> parser;
        parser.body_limit(kMaxBodyBytes);
        beast::error_code ec;
        co_await http::async_read(sock, buf, parser, net::redirect_error(use_awaitable, ec));
        if (ec) {
          if (ec == http::error::body_limit) {
            std::lock_guard lock(mu);
            ++stats.refused;
            stats.last_error = fmt::format("an export body over {} MiB", kMaxBodyBytes >> 20);
          }
          break;
        }
        auto req = parser.release();
        http::response<http::string_body> res{http::status::not_found, req.version()};
        const std::string_view target(req.target().data(), req.target().size());
        const bool is_metrics = target.starts_with("/v1/metrics");
        if (req.method() == http::verb::post && (is_metrics || target.starts_with("/v1/traces"))) {
          auto [status, text] = take_export(req, is_metrics);
          res.result(status);
          // An empty Export(Trace|Metrics)ServiceResponse: full success.
          res.set(http::field::content_type,
                  status == http::status::ok ? "application/x-protobuf" : "text/plain");
          res.body() = std::move(text);
        } else {
          res.set(http::field::content_type, "text/plain");
          res.body() = "tokbench's OTLP receiver takes POST /v1/traces and /v1/metrics";
        }
        res.keep_alive(req.keep_alive());
        res.prepare_payload();
        co_await http::async_write(sock, res, use_awaitable);
        if (!req.keep_alive()) break;
      }
    } catch (const std::exception&) {
      // The exporter went away or the receiver is stopping.
    }
    beast::error_code ec;
    sock.shutdown(tcp::socket::shutdown_both, ec);
  }
};

Receiver::Receiver(size_t max_spans) : impl_(std::make_unique<Impl>(max_spans)) {}
Receiver::~Receiver() { stop(); }

uint16_t Receiver::start(const std::string& host, uint16_t port) {
  auto& m = *impl_;
  beast::error_code ec;
  const auto addr = net::ip::make_address(host, ec);
  if (ec) throw std::runtime_error(fmt::format("--otlp-receive: bad address '{}'", host));
  const tcp::endpoint ep(addr, port);
  m.acceptor.open(ep.protocol(), ec);
  if (!ec) m.acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) m.acceptor.bind(ep, ec);
  if (!ec) m.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    throw std::runtime_error(fmt::format(
        "--otlp-receive: cannot listen on {}:{}: {} (pick another port, or 0 for any free port)",
        host, port, ec.message()));
  const uint16_t bound = m.acceptor.local_endpoint().port();
  net::co_spawn(m.ioc, m.accept_loop(), net::detached);
  m.thread = std::thread([&m] { m.ioc.run(); });
  return bound;
}

void Receiver::stop() {
  auto& m = *impl_;
  if (!m.thread.joinable()) return;
  m.ioc.stop();
  m.thread.join();
}

std::vector<Span> Receiver::take() {
  std::lock_guard lock(impl_->mu);
  return std::exchange(impl_->spans, {});
}

std::vector<Metric> Receiver::take_metrics() {
  std::lock_guard lock(impl_->mu);
  impl_->metric_points = 0;
  return std::exchange(impl_->metrics, {});
}

ReceiverStats Receiver::stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->stats;
}

}  // namespace tokbench::otlp
