// client/socket_transport: the worker's requests as HTTP/1.1 on plain non-blocking sockets, one
// kept-alive connection per slot. Per readiness: one recv() into a buffer, one clock read, the
// bytes through net/http1's reader into the slot — no poll() per read, no state machine of
// libcurl's (docs/PERFORMANCE.md has the CPU per event of both). Only for a plain http:// target
// without a proxy; libcurl does the rest. Until a response's first token, each read first peeks
// at when its bytes reached the host (the kernel's receive time), and the request's end on the
// wire is stamped: the client's own part of TTFT is then measured (metrics: ClientDelay).
//
// The rules it keeps, as libcurl does: a kept-alive connection is looked at before it is reused
// (the server's close is peeked, and such a connection replaced, not counted as a re-send); a
// request that finds its kept-alive connection closed by the server before any response byte is
// sent again once on a new connection (not an attempt of its own; marked `resent` unless the
// server's kernel reset it, which says the server never read it); a connection is reused only
// after a whole response that allowed it, and never once the server is seen closing connections
// right after their responses (ServerHabits); every resolved address is tried in turn; connect
// and whole-request timeouts; phases stamped per request.
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "client/transport.hpp"
#include "common/receive_time.hpp"
#include "net/http1.hpp"

namespace tokbench::client {

using net::Http1Reader;
using net::HttpUrl;
using net::parse_http_url;
using net::request_head;
using record::kNone;
using record::Outcome;

namespace {

constexpr size_t kReadBytes = 64 * 1024;  // one recv() per readiness, up to this much
constexpr uint32_t kReadMask =
    EPOLLIN | EPOLLRDHUP;  // receiving, or idle and watching for the server's close
constexpr int64_t kWarmLimitNs = 10'000'000'000;  // --warm-connections gives up after 10 s

struct Address {
  sockaddr_storage addr{};
  socklen_t len = 0;
  int family = AF_INET;
};

// One connection per slot, and the request on it.
struct Conn {
  enum class State : uint8_t { Closed, Connecting, Sending, Receiving, Idle };
  int fd = -1;
  uint32_t gen = 0;  // bumps with every socket: a readiness reported for an older one is ignored
  State state = State::Closed;
  uint32_t mask = 0;         // what epoll watches on fd now
  bool reused = false;       // this attempt went out on a kept-alive connection
  bool sent_fresh = false;   // already re-sent once on a new connection (a stale kept-alive one)
  bool warming = false;      // --warm-connections' GET, not a measured request
  size_t addr = 0;           // the resolved address being tried
  size_t tried = 0;          // addresses that failed before it, for this connection
  std::string head;          // the request head
  std::string_view body;     // the request body (the slot's planned request owns it)
  size_t sent = 0;           // bytes of head + body written
  int64_t deadline = kNone;  // absolute steady ns: connect, then whole-request timeout
  int64_t connect_deadline = kNone;
  int64_t idle_since = kNone;  // steady ns: when its last response ended (kept alive)
  Http1Reader reader;
};

// Hands a read's decoded pieces to the slot, stamped with the read's one timestamp.
struct Feed final : Http1Reader::Sink {
  Slot* slot = nullptr;
  int64_t t = 0;
  bool discard = false;  // a warming GET: its answer is not looked at
  void on_status(int code) override {
    if (!discard) slot->take_status(code);
  }
  void on_header(std::string_view name, std::string_view value) override {
    if (!discard) slot->take_header(name, value);
  }
  bool on_body(std::string_view bytes) override { return discard || slot->take_body(bytes, t); }
};

std::string errno_text(int e) { return std::strerror(e); }

class SocketTransport final : public Transport {
 public:
  explicit SocketTransport(const TransportContext& ctx)
      : ctx_(ctx), conns_(ctx.slots.size()), buf_(kReadBytes) {
    std::string why;
    auto url = parse_http_url(ctx.settings.url, &why);
    if (!url)
      throw std::runtime_error(
          fmt::format("--transport sockets cannot reach {}: {}", ctx.settings.url, why));
    url_ = *url;
    where_ = fmt::format("{}:{}", url_.host, url_.port);
    resolve();
    post_prefix_ = request_head("POST", url_, ctx.headers, std::nullopt);
    post_prefix_.resize(post_prefix_.size() - 2);  // Content-Length goes last, per request
    timeout_ns_ = ctx.settings.timeout_ms * 1'000'000;
    connect_timeout_ns_ =
        (timeout_ns_ > 0 ? std::min<int64_t>(timeout_ns_, 30'000'000'000) : 30'000'000'000);
  }
  ~SocketTransport() override {
    for (auto& c : conns_) close_conn(c);
  }

  void warm(const std::string& url, const std::atomic<int>& stop) override {
    HttpUrl warm_url = url_;
    if (auto u = parse_http_url(url))
      warm_url.path = u->path;  // the same server: only the path differs
    std::vector<std::string> get_headers;
    for (const auto& h : ctx_.headers)  // a GET has no body to describe
      if (!h.starts_with("Content-Type:")) get_headers.push_back(h);
    const std::string warm_head = request_head("GET", warm_url, get_headers, std::nullopt);
    for (auto& s : ctx_.slots) {
      Conn& c = conns_[s.id];
      c.warming = true;
      c.head = warm_head;
      c.body = {};
      c.sent = 0;
      c.reader.reset();
      c.deadline = kNone;  // the loop below bounds the whole warming
      ++warm_left_;        // end() counts it down, even a failure at once
      open(s, c);
    }
    const int64_t deadline = steady_now_ns() + kWarmLimitNs;
    std::vector<epoll_event> events(256);
    while (warm_left_ > 0 && steady_now_ns() < deadline &&
           stop.load(std::memory_order_relaxed) == kRunning) {
      const int n = ctx_.poller.wait(events, 50'000'000);
      for (int i = 0; i < n; ++i) on_ready(events[static_cast<size_t>(i)]);
    }
    for (auto& c : conns_) {
      if (c.warming) close_conn(c);  // not answered in time: its first request connects as usual
      c.warming = false;
    }
  }

  void start(Slot& s) override {
    Conn& c = conns_[s.id];
    const int64_t now = steady_now_ns();
    c.head = post_prefix_;
    if (!s.rec.client_request_id.empty())
      fmt::format_to(std::back_inserter(c.head), "{}: {}\r\n", ctx_.settings.request_id_header,
                     s.rec.client_request_id);
    if (!s.rec.traceparent.empty())
      fmt::format_to(std::back_inserter(c.head), "traceparent: {}\r\n", s.rec.traceparent);
    if (!s.rec.traceparent.empty() && !s.rec.client_request_id.empty())
      fmt::format_to(std::back_inserter(c.head), "tracestate: {}\r\n",
                     tracestate(s.rec.client_request_id));
    fmt::format_to(std::back_inserter(c.head), "Content-Length: {}\r\n\r\n", s.req.body.size());
    c.body = s.req.body;
    c.sent = 0;
    c.sent_fresh = false;
    c.reader.reset();
    c.deadline = timeout_ns_ > 0 ? now + timeout_ns_ : kNone;
    if (c.deadline != kNone)
      next_check_ = std::min(next_check_ == kNone ? c.deadline : next_check_, c.deadline);
    s.rec.sent_ns = now - s.origin_ns;
    s.rec.dns_done_ns = s.rec.sent_ns;  // resolved once, before the run (libcurl caches it too)
    if (c.state == Conn::State::Idle && closed_by_server(c)) {  // closed since: a new one
      ctx_.habits.saw_close(now - c.idle_since);
      close_conn(c);
    }
    if (c.state == Conn::State::Idle) {
      c.reused = true;
      s.rec.connects = 0;
      s.rec.connect_done_ns = s.rec.sent_ns;
      c.state = Conn::State::Sending;
      send_more(s, c);
    } else {
      open(s, c);
    }
  }

  void on_ready(const epoll_event& ev) override {
    const auto id = static_cast<size_t>(ev.data.u64 & 0xffffffffu);
    const auto gen = static_cast<uint32_t>(ev.data.u64 >> 32);
    if (id >= conns_.size()) return;
    Conn& c = conns_[id];
    if (c.fd < 0 || c.gen != gen) return;  // that socket is gone
    Slot& s = ctx_.slots[id];
    switch (c.state) {
      case Conn::State::Idle:  // the server closed a kept-alive connection (or sent what nobody
                               // asked)
        if (closed_by_server(c)) ctx_.habits.saw_close(steady_now_ns() - c.idle_since);
        close_conn(c);
        return;
      case Conn::State::Connecting:
        connected(s, c);
        return;
      case Conn::State::Sending:
        if (ev.events & EPOLLIN) receive(s, c);  // an early answer (a 413 before the whole body)
        if (c.state == Conn::State::Sending && c.gen == gen) send_more(s, c);
        return;
      case Conn::State::Receiving:
        receive(s, c);
        return;
      case Conn::State::Closed:
        return;
    }
  }

  int64_t next_deadline() const override { return next_check_; }

  // A deadline passed (rare): every connection is looked at, and the next deadline found.
  void on_timer() override {
    const int64_t now = steady_now_ns();
    if (next_check_ == kNone || now < next_check_) return;
    next_check_ = kNone;
    for (auto& s : ctx_.slots) {
      Conn& c = conns_[s.id];
      const bool busy = c.state == Conn::State::Connecting || c.state == Conn::State::Sending ||
                        c.state == Conn::State::Receiving;
      if (!busy) continue;
      if (c.state == Conn::State::Connecting && c.connect_deadline != kNone &&
          now >= c.connect_deadline) {
        fail(s, c, Outcome::ConnectError,
             fmt::format("could not connect to {} within {} ms", where_,
                         connect_timeout_ns_ / 1'000'000));
        continue;
      }
      if (c.deadline != kNone && now >= c.deadline) {
        fail(s, c, Outcome::Timeout,
             c.warming ? std::string("warming timed out")
                       : fmt::format("no whole response within {} ms (raise --timeout-s)",
                                     ctx_.settings.timeout_ms));
        continue;
      }
      for (int64_t d :
           {c.deadline, c.state == Conn::State::Connecting ? c.connect_deadline : kNone})
        if (d != kNone) next_check_ = next_check_ == kNone ? d : std::min(next_check_, d);
    }
  }

  void abandon(Slot& s) override { close_conn(conns_[s.id]); }

 private:
  void resolve() {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    const int rc = getaddrinfo(url_.host.c_str(), url_.port.c_str(), &hints, &res);
    if (rc != 0) {
      resolve_error_ = fmt::format("could not resolve host {} ({})", url_.host, gai_strerror(rc));
      return;
    }
    for (addrinfo* a = res; a; a = a->ai_next) {
      Address ad;
      std::memcpy(&ad.addr, a->ai_addr, a->ai_addrlen);
      ad.len = a->ai_addrlen;
      ad.family = a->ai_family;
      addrs_.push_back(ad);
    }
    freeaddrinfo(res);
  }

  void watch(Conn& c, uint32_t mask) {
    if (c.mask == mask) return;
    epoll_event ev{};
    ev.events = mask;
    ev.data.u64 = (static_cast<uint64_t>(c.gen) << 32) | static_cast<uint64_t>(&c - conns_.data());
    epoll_ctl(ctx_.poller.fd(), c.mask == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c.fd, &ev);
    c.mask = mask;
  }

  void close_conn(Conn& c) {
    if (c.fd >= 0) {
      epoll_ctl(ctx_.poller.fd(), EPOLL_CTL_DEL, c.fd, nullptr);
      ::close(c.fd);
    }
    c.fd = -1;
    c.mask = 0;
    c.state = Conn::State::Closed;
  }

  // A new connection, from the preferred address on; the request goes out once it is made.
  void open(Slot& s, Conn& c) {
    close_conn(c);
    c.reused = false;
    if (!c.warming) s.rec.connects = 1;
    if (addrs_.empty()) {
      fail(s, c, Outcome::ConnectError, resolve_error_);
      return;
    }
    c.addr = preferred_;
    try_connect(s, c, 0);
  }

  // Tries the addresses from c.addr on, `tried` of them already failed with `last_error`.
  void try_connect(Slot& s, Conn& c, size_t tried, std::string last_error = {}) {
    for (; tried < addrs_.size(); ++tried, c.addr = (c.addr + 1) % addrs_.size()) {
      const Address& a = addrs_[c.addr];
      c.fd = ::socket(a.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (c.fd < 0) {
        last_error = errno_text(errno);
        continue;
      }
      ++c.gen;
      c.mask = 0;
      const int one = 1;
      setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      stamp_receive_times(c.fd);  // the first token's receive time: see receive()
      if (::connect(c.fd, reinterpret_cast<const sockaddr*>(&a.addr), a.len) == 0) {
        preferred_ = c.addr;
        connected_now(s, c);
        return;
      }
      if (errno == EINPROGRESS) {
        c.state = Conn::State::Connecting;
        c.connect_deadline = steady_now_ns() + connect_timeout_ns_;
        next_check_ =
            next_check_ == kNone ? c.connect_deadline : std::min(next_check_, c.connect_deadline);
        c.tried = tried;
        watch(c, EPOLLOUT);
        return;
      }
      last_error = errno_text(errno);
      close_conn(c);
    }
    fail(s, c, Outcome::ConnectError,
         fmt::format("could not connect to {} ({})", where_, last_error));
  }

  void connected(Slot& s, Conn& c) {
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err != 0) {
      close_conn(c);
      c.addr = (c.addr + 1) % addrs_.size();
      try_connect(s, c, c.tried + 1, errno_text(err));
      return;
    }
    preferred_ = c.addr;
    connected_now(s, c);
  }

  void connected_now(Slot& s, Conn& c) {
    if (!c.warming) s.rec.connect_done_ns = s.now();
    c.connect_deadline = kNone;
    c.state = Conn::State::Sending;
    send_more(s, c);
  }

  void send_more(Slot& s, Conn& c) {
    if (c.sent == 0 && !c.warming) s.rec.request_start_ns = s.now();
    const size_t total = c.head.size() + c.body.size();
    while (c.sent < total) {
      iovec iov[2];
      int n = 0;
      if (c.sent < c.head.size()) iov[n++] = {c.head.data() + c.sent, c.head.size() - c.sent};
      const size_t body_off = c.sent > c.head.size() ? c.sent - c.head.size() : 0;
      if (body_off < c.body.size())
        iov[n++] = {const_cast<char*>(c.body.data()) + body_off, c.body.size() - body_off};
      msghdr msg{};
      msg.msg_iov = iov;
      msg.msg_iovlen = static_cast<size_t>(n);
      const ssize_t w = ::sendmsg(c.fd, &msg, MSG_NOSIGNAL);
      if (w > 0) {
        c.sent += static_cast<size_t>(w);
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        watch(c, kReadMask | EPOLLOUT);
        return;
      }
      const int err = w < 0 ? errno : EPIPE;
      // The server may have answered already and closed without reading the rest (a 413 for a
      // body over its limit, as nginx and gateways do): that answer settles the request, and a
      // connection that answered is not "lost" (nor its POST sent again).
      if (answered_early(s, c)) return;
      // EPIPE from a send is a reset too (after the server's FIN): its kernel refused the bytes.
      lost(s, c, fmt::format("sending the request failed ({})", errno_text(err)),
           err == ECONNRESET || (w < 0 && err == EPIPE));
      return;
    }
    if (!c.warming) s.rec.request_sent_ns = s.now();
    c.state = Conn::State::Receiving;
    watch(c, kReadMask);
  }

  // After a failed send: reads what the server already sent, if anything. True when that settled
  // the request (completed with the answer, or failed naming it).
  bool answered_early(Slot& s, Conn& c) {
    char first = 0;
    if (::recv(c.fd, &first, 1, MSG_PEEK | MSG_DONTWAIT) <= 0) return false;  // nothing came back
    receive(s, c);
    return true;
  }

  void receive(Slot& s, Conn& c) {
    feed_.slot = &s;
    feed_.discard = c.warming;
    while (true) {
      // Until the first token: when this read's bytes reached the host (one peek per read,
      // not per event), so the time they waited for this thread is known (ClientDelay).
      const bool first_pending = s.stream && !c.warming && s.rec.first_token_ns == kNone;
      int peeked_error = 0;  // a reset the peek took: the recv() below would see an end instead
      const int64_t host = first_pending ? peek_receive_time(c.fd, &peeked_error) : -1;
      if (peeked_error != 0) {
        broken(s, c, peeked_error);
        return;
      }
      const ssize_t n = ::recv(c.fd, buf_.data(), buf_.size(), 0);
      if (n > 0) {
        feed_.t = s.now();  // one stamp per read: events in one read arrived together
        if (!c.reader.started() && !c.warming && s.rec.first_byte_ns == kNone)
          s.rec.first_byte_ns = feed_.t;
        const bool fine =
            c.reader.feed(std::string_view(buf_.data(), static_cast<size_t>(n)), feed_);
        if (first_pending && host >= 0 && s.rec.first_token_ns != kNone)
          s.rec.first_token_host_ns = host - s.origin_ns;
        if (!fine) {
          fail(s, c, Outcome::StreamProtocol, c.reader.error());
          return;
        }
        if (c.reader.done()) {
          complete(s, c);
          return;
        }
        if (static_cast<size_t>(n) < buf_.size()) return;  // drained: back to epoll
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n == 0) {
        c.reader.on_eof();
        if (c.reader.done()) {
          complete(s, c);
          return;
        }
        lost(s, c, c.reader.error());
        return;
      }
      broken(s, c, errno);
      return;
    }
  }

  // Receiving failed with `err`: a reset (ECONNRESET; EPIPE once the server's FIN had come, as
  // Linux's tcp_reset() says it in CLOSE_WAIT) says the server's kernel refused the request.
  void broken(Slot& s, Conn& c, int err) {
    lost(s, c, fmt::format("receiving the response failed ({})", errno_text(err)),
         err == ECONNRESET || err == EPIPE);
  }

  // An idle connection's end of stream (or reset) is waiting: the server closed it. Stray bytes
  // are not a close (the caller drops such a connection all the same).
  static bool closed_by_server(const Conn& c) {
    char byte = 0;
    const ssize_t n = ::recv(c.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
  }

  // The connection broke. A kept-alive one the server closed before answering is replaced once,
  // and the request sent again (libcurl's rule): not an attempt of its own, but the server may
  // have read the first copy (a POST is not idempotent), so the record says it was resent —
  // unless the server's kernel reset what was sent (a pending ECONNRESET, or EPIPE after its FIN:
  // the server had closed before the request arrived, or with it unread, so no one read it), as
  // happens when a server that closes after each response races the reuse.
  void lost(Slot& s, Conn& c, std::string why, bool reset_seen = false) {
    if (c.reused && !c.sent_fresh && !c.reader.started()) {
      int err = 0;
      socklen_t len = sizeof err;
      const bool reset = reset_seen || (getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
                                        (err == ECONNRESET || err == EPIPE));
      if (reset || c.sent == 0) ctx_.habits.saw_close(steady_now_ns() - c.idle_since);
      // Nothing went out before the close, or the server never read it: nothing is repeated.
      const bool repeated = c.sent > 0 && !reset;
      c.sent_fresh = true;
      c.sent = 0;
      c.reader.reset();
      if (!c.warming) {
        s.rec.connects = 1;
        s.rec.resent = repeated;
      }
      open(s, c);
      return;
    }
    fail(s, c, Outcome::StreamProtocol, std::move(why));
  }

  void complete(Slot& s, Conn& c) {
    const bool reusable = c.reader.keep_alive() && c.state == Conn::State::Receiving &&
                          !ctx_.habits.closes_after_response.load(std::memory_order_relaxed);
    c.deadline = kNone;
    if (reusable) {
      c.state = Conn::State::Idle;
      c.idle_since = steady_now_ns();
    } else {
      close_conn(c);
    }
    end(s, c, Ending{});
  }

  void fail(Slot& s, Conn& c, Outcome outcome, std::string why) {
    close_conn(c);
    c.deadline = c.connect_deadline = kNone;
    end(s, c, Ending{outcome, std::move(why)});
  }

  void end(Slot& s, Conn& c, Ending ending) {
    if (c.warming) {
      c.warming = false;
      --warm_left_;
      return;
    }
    ctx_.done(ctx_.worker, s, std::move(ending));
  }

  TransportContext ctx_;
  std::vector<Conn> conns_;
  std::vector<char> buf_;
  Feed feed_;
  HttpUrl url_;
  std::string where_;  // host:port, for errors
  std::vector<Address> addrs_;
  std::string resolve_error_;
  size_t preferred_ = 0;     // the address that last accepted a connection
  std::string post_prefix_;  // every POST's head but its Content-Length
  int64_t timeout_ns_ = 0, connect_timeout_ns_ = 0;
  int64_t next_check_ = kNone;  // absolute steady ns of the earliest deadline (or later)
  size_t warm_left_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_socket_transport(const TransportContext& ctx) {
  return std::make_unique<SocketTransport>(ctx);
}

}  // namespace tokbench::client
