#include "probe/live_server.hpp"

#include <fmt/format.h>
// clang-format off: boost 1.74 awaitable.hpp uses std::exchange without including <utility>
#include <utility>
// clang-format on

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/clock.hpp"
#include "common/json_writer.hpp"
#include "common/listen_address.hpp"
#include "report/chart_asset.hpp"

namespace tokbench::probe {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using net::awaitable;
using net::use_awaitable;
using tcp = net::ip::tcp;

namespace {

constexpr int64_t kNsPerS = 1'000'000'000;
constexpr int64_t kMaxLingerNs = 30 * kNsPerS;
constexpr int64_t kFirstScrapeGuessNs = 15 * kNsPerS;  // Prometheus' default scrape_interval

// One second of the timeline: the point's totals at `t_s` since the server started.
struct Sample {
  double t_s = 0;
  int64_t ok = 0, failed = 0, apart = 0, in_flight = 0;
  double output_tokens = 0;
};

void histogram_json(JsonWriter& w, std::string_view key, const metrics::BucketHistogram& h) {
  w.key(key).begin_object();
  w.key("bounds").begin_array();
  for (double b : h.bounds) w.value(b);
  w.end_array().key("counts").begin_array();
  for (uint64_t c : h.counts) w.value(c);
  w.end_array();
  w.field("count", h.count).field("sum", h.sum).end_object();
}

// The page: the chart library and web/live.js, inline (no network but this server).
std::string page_html(const PointLabels& l) {
  std::string title;
  append_json_string(title, fmt::format("tokbench live: {} ({})", l.point, l.model));
  for (size_t at = title.find("</"); at != std::string::npos; at = title.find("</", at))
    title.replace(at, 2, "<\\/");  // a model's name cannot close the script it sits in
  return fmt::format(
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>tokbench live</title>"
      "<link rel=\"icon\" href=\"data:,\">"
      "<style>body{{font-family:sans-serif;margin:16px}}.charts{{display:grid;"
      "grid-template-columns:1fr 1fr;gap:12px}}.chart{{height:300px}}#status{{font-size:15px;"
      "margin:8px 0}}</style></head><body><h2 id=\"title\"></h2><div id=\"status\">waiting for "
      "the first counts…</div><div class=\"charts\"><div class=\"chart\" id=\"requests\"></div>"
      "<div class=\"chart\" id=\"throughput\"></div><div class=\"chart\" id=\"ttft\"></div>"
      "<div class=\"chart\" id=\"e2el\"></div></div><script>{}</script><script>"
      "window.tokbenchLiveTitle={};</script><script>{}</script></body></html>",
      report::chart_library(), title, report::web_asset(report::WebAsset::Live));
}

}  // namespace

struct LiveServer::Impl {
  std::shared_ptr<const metrics::LiveTally> tally;
  std::function<int64_t()> sent;
  PointLabels labels;
  std::string page;
  int64_t start_ns = steady_now_ns();
  net::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  std::thread thread;
  mutable std::mutex mu;
  std::condition_variable scraped;
  std::vector<Sample> timeline;  // kMaxSamples at most: thinned by half, its period doubled
  int64_t period_ms = 1000;
  bool final = false;
  int64_t scrapes = 0, last_scrape_ns = -1, prev_scrape_ns = -1, final_ns = 0;

  int64_t sent_now() const { return sent ? sent() : 0; }

  void sample() {
    Sample s;
    s.t_s = static_cast<double>(steady_now_ns() - start_ns) / kNsPerS;
    int64_t finished = 0;
    for (const auto& [cls, c] : tally->snapshot()) {
      s.ok += c.ok, s.failed += c.failed, s.apart += c.cancelled + c.cut;
      s.output_tokens += c.output_tokens.sum;
      finished += c.finished();
    }
    s.in_flight = std::max<int64_t>(0, sent_now() - finished);
    std::lock_guard lock(mu);
    timeline.push_back(s);
    if (timeline.size() >= kMaxSamples) {  // keep every other one: the run's whole span, coarser
      size_t kept = 0;
      for (size_t i = 0; i < timeline.size(); i += 2) timeline[kept++] = timeline[i];
      timeline.resize(kept);
      period_ms *= 2;
    }
  }

  awaitable<void> sample_loop() {
    net::steady_timer timer(ioc);
    for (;;) {
      sample();
      int64_t wait_ms = 0;
      {
        std::lock_guard lock(mu);
        wait_ms = period_ms;
      }
      timer.expires_after(std::chrono::milliseconds(wait_ms));
      beast::error_code ec;
      co_await timer.async_wait(net::redirect_error(use_awaitable, ec));
      if (ec) co_return;
    }
  }

  std::string live_json() const {
    const auto classes = tally->snapshot();
    const int64_t sent_n = sent_now();
    JsonWriter w;
    w.begin_object()
        .field("run_id", labels.run_id)
        .field("point", labels.point)
        .field("model", labels.model);
    int64_t finished = 0;
    w.key("classes").begin_object();
    for (const auto& [cls, c] : classes) {
      finished += c.finished();
      w.key(cls).begin_object();
      w.field("ok", c.ok).field("failed", c.failed).field("cancelled", c.cancelled);
      w.field("cut", c.cut).field("output_tokens", c.output_tokens.sum);
      histogram_json(w, "ttft_s", c.ttft_s);
      histogram_json(w, "tpot_s", c.tpot_s);
      histogram_json(w, "e2el_s", c.e2el_s);
      w.end_object();
    }
    w.end_object();
    w.field("sent", sent_n).field("in_flight", std::max<int64_t>(0, sent_n - finished));
    std::lock_guard lock(mu);
    w.field("final", final)
        .field("t_s", static_cast<double>(steady_now_ns() - start_ns) / kNsPerS)
        .field("sample_period_s", static_cast<double>(period_ms) / 1000);
    w.key("timeline").begin_array();  // [t_s, ok, failed, cancelled + cut, in flight, tokens]
    for (const Sample& s : timeline) {
      w.begin_array().value(s.t_s).value(s.ok).value(s.failed).value(s.apart);
      w.value(s.in_flight).value(s.output_tokens).end_array();
    }
    w.end_array().end_object();
    return w.take();
  }

  std::string metrics_text() {
    std::string text = prometheus_text(tally->snapshot(), sent_now(), labels);
    std::lock_guard lock(mu);
    ++scrapes;
    prev_scrape_ns = last_scrape_ns;
    last_scrape_ns = steady_now_ns();
    scraped.notify_all();
    return text;
  }

  awaitable<void> accept_loop() {
    for (;;) {
      beast::error_code ec;
      tcp::socket sock = co_await acceptor.async_accept(net::redirect_error(use_awaitable, ec));
      if (ec) co_return;  // stopping
      net::co_spawn(ioc, session(std::move(sock)), net::detached);
    }
  }

  awaitable<void> session(tcp::socket sock) {
    beast::flat_buffer buf;
    try {
      for (;;) {
        http::request_parser<http::empty_body> parser;
        parser.header_limit(16 * 1024);
        beast::error_code ec;
        co_await http::async_read(sock, buf, parser, net::redirect_error(use_awaitable, ec));
        if (ec) break;
        auto req = parser.release();
        const std::string_view target(req.target().data(), req.target().size());
        const std::string_view path = target.substr(0, target.find('?'));
        http::response<http::string_body> res{http::status::ok, req.version()};
        if (req.method() != http::verb::get && req.method() != http::verb::head) {
          res.result(http::status::method_not_allowed);
          res.set(http::field::content_type, "text/plain");
          res.body() = "tokbench --live serves GET /, /live.json and /metrics";
        } else if (path == "/metrics") {
          res.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
          res.body() = metrics_text();
        } else if (path == "/live.json") {
          res.set(http::field::content_type, "application/json");
          res.set(http::field::cache_control, "no-store");
          res.body() = live_json();
        } else if (path == "/") {
          res.set(http::field::content_type, "text/html; charset=utf-8");
          res.body() = page;
        } else {
          res.result(http::status::not_found);
          res.set(http::field::content_type, "text/plain");
          res.body() = "tokbench --live serves GET /, /live.json and /metrics";
        }
        res.keep_alive(req.keep_alive());
        res.prepare_payload();
        co_await http::async_write(sock, res, use_awaitable);
        if (!req.keep_alive()) break;
      }
    } catch (const std::exception&) {
      // The browser or scraper went away, or the server is stopping.
    }
    beast::error_code ec;
    sock.shutdown(tcp::socket::shutdown_both, ec);
  }
};

LiveServer::LiveServer(const std::string& listen, std::shared_ptr<const metrics::LiveTally> tally,
                       std::function<int64_t()> sent, PointLabels labels)
    : impl_(std::make_unique<Impl>()) {
  auto& m = *impl_;
  m.tally = std::move(tally);
  m.sent = std::move(sent);
  m.page = page_html(labels);
  m.labels = std::move(labels);
  std::string why;
  const auto at = parse_listen_address(listen, &why);
  if (!at) throw std::runtime_error(fmt::format("--live: bad value '{}' ({})", listen, why));
  beast::error_code ec;
  const auto addr = net::ip::make_address(at->host, ec);
  if (ec) throw std::runtime_error(fmt::format("--live: bad address '{}'", at->host));
  const tcp::endpoint ep(addr, at->port);
  m.acceptor.open(ep.protocol(), ec);
  if (!ec) m.acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) m.acceptor.bind(ep, ec);
  if (!ec) m.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    throw std::runtime_error(
        fmt::format("--live: cannot listen on {}: {} (pick another port)", listen, ec.message()));
  const uint16_t port = m.acceptor.local_endpoint().port();
  const bool any = at->host == "0.0.0.0" || at->host == "::";
  const std::string host = any ? "127.0.0.1" : at->host;
  url_ = host.find(':') != std::string::npos ? fmt::format("http://[{}]:{}/", host, port)
                                             : fmt::format("http://{}:{}/", host, port);
  net::co_spawn(m.ioc, m.accept_loop(), net::detached);
  net::co_spawn(m.ioc, m.sample_loop(), net::detached);
  m.thread = std::thread([&m] { m.ioc.run(); });
}

LiveServer::~LiveServer() {
  auto& m = *impl_;
  if (!m.thread.joinable()) return;
  m.ioc.stop();
  m.thread.join();
}

int64_t LiveServer::finish(bool stopped) {
  auto& m = *impl_;
  if (!m.thread.joinable()) return m.scrapes;
  m.sample();  // the final totals on the timeline too
  std::unique_lock lock(m.mu);
  m.final = true;
  m.final_ns = steady_now_ns();
  // A scraper came: wait for its next scrape, so the final counts are what it stores last.
  if (!stopped && m.scrapes > 0) {
    const int64_t interval =
        m.prev_scrape_ns >= 0 ? m.last_scrape_ns - m.prev_scrape_ns : kFirstScrapeGuessNs;
    const int64_t wait_ns = std::min(kMaxLingerNs, 2 * interval + kNsPerS);  // a late one too
    m.scraped.wait_for(lock, std::chrono::nanoseconds(wait_ns),
                       [&] { return m.last_scrape_ns > m.final_ns; });
  }
  const int64_t scrapes = m.scrapes;
  lock.unlock();
  m.ioc.stop();
  m.thread.join();
  beast::error_code ec;
  m.acceptor.close(ec);  // refused from now on, not accepted and left unanswered
  return scrapes;
}

}  // namespace tokbench::probe
