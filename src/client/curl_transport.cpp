// client/curl_transport: the worker's requests through libcurl's multi interface, driven by
// epoll through curl_multi_socket_action, so each wake-up costs in proportion to the sockets that
// are ready, not to the requests in flight (curl_multi_poll + curl_multi_perform walk every
// handle on every wake-up). Used for https://, proxies and anything net/http1 does not read.
#include <curl/curl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "client/transport.hpp"
#include "net/http_get.hpp"

namespace tokbench::client {

using record::kNone;
using record::Outcome;

namespace {

// Only a connection that was never made is a connect error (and may be retried): once the
// request was sent, a reset, an empty reply or a broken body is the response's failure.
Outcome classify(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_PEER_FAILED_VERIFICATION:  // TLS failed before the request went out
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
      return Outcome::ConnectError;
    case CURLE_OPERATION_TIMEDOUT:
      return Outcome::Timeout;
    default:
      return Outcome::StreamProtocol;
  }
}

size_t discard(char*, size_t size, size_t n, void*) { return size * n; }

class CurlTransport final : public Transport {
 public:
  explicit CurlTransport(const TransportContext& ctx) : ctx_(ctx), easy_(ctx.slots.size()) {
    for (const auto& h : ctx.headers) headers_ = curl_slist_append(headers_, h.c_str());
    multi_ = curl_multi_init();
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(ctx.slots.size()));
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlTransport::on_socket);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlTransport::on_curl_timer);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    for (auto& s : ctx.slots) configure(s);
  }
  ~CurlTransport() override {
    for (auto& s : ctx_.slots) {
      if (s.active) curl_multi_remove_handle(multi_, easy_[s.id].handle);
      curl_easy_cleanup(easy_[s.id].handle);
      curl_slist_free_all(easy_[s.id].headers);
    }
    curl_multi_cleanup(multi_);
    curl_slist_free_all(headers_);
  }

  // One GET per slot, all in flight at once, so the multi handle's cache holds one kept-alive
  // connection per slot when the first request goes out.
  void warm(const std::string& url, const std::atomic<int>& stop) override {
    std::vector<CURL*> warm;
    for (size_t i = 0; i < ctx_.slots.size(); ++i) {
      CURL* e = curl_easy_init();
      curl_easy_setopt(e, CURLOPT_URL, url.c_str());
      curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
      curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers_);
      curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &discard);
      curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
      curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
      curl_easy_setopt(e, CURLOPT_USERAGENT, "tokbench");
      curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 10'000L);
      track_sockets(e);  // these connections are kept for the requests
      net::apply_tls(e, ctx_.settings.tls);
      curl_multi_add_handle(multi_, e);
      warm.push_back(e);
    }
    const int64_t deadline = steady_now_ns() + 10'000'000'000;
    std::vector<epoll_event> events(64);
    size_t left = warm.size();
    int running = 0;
    curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);  // start them
    while (left > 0 && steady_now_ns() < deadline &&
           stop.load(std::memory_order_relaxed) == kRunning) {
      int64_t wait_ns = 50'000'000;
      if (timer_ != kNone)
        wait_ns = std::min(wait_ns, std::max<int64_t>(0, timer_ - steady_now_ns()));
      const int n = ctx_.poller.wait(events, wait_ns);
      for (int i = 0; i < n; ++i) action(events[static_cast<size_t>(i)]);
      if (timer_ != kNone && steady_now_ns() >= timer_) on_timer_only();
      int queued = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi_, &queued))
        if (msg->msg == CURLMSG_DONE) --left;
    }
    for (CURL* e : warm) {
      curl_multi_remove_handle(multi_, e);  // the connection stays in the multi handle's cache
      curl_easy_cleanup(e);
    }
  }

  void start(Slot& s) override {
    CURL* e = easy_[s.id].handle;
    easy_[s.id].errbuf[0] = '\0';
    easy_[s.id].issued = 0;
    easy_[s.id].first_fd = -1;
    easy_[s.id].first_reset = false;
    // A server seen closing connections after their responses: none is kept, so no reuse races
    // its close.
    curl_easy_setopt(e, CURLOPT_FORBID_REUSE,
                     ctx_.habits.closes_after_response.load(std::memory_order_relaxed) ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, s.req.body.data());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(s.req.body.size()));
    curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 0L);
    if (curl_slist* node = easy_[s.id].id_node; node && !s.rec.client_request_id.empty()) {
      std::free(node->data);  // the list's own allocation (curl_slist_append strdup's)
      node->data = strdup(
          fmt::format("{}: {}", ctx_.settings.request_id_header, s.rec.client_request_id).c_str());
    }
    if (curl_slist* node = easy_[s.id].trace_node; node && !s.rec.traceparent.empty()) {
      std::free(node->data);
      node->data = strdup(fmt::format("traceparent: {}", s.rec.traceparent).c_str());
    }
    if (curl_slist* node = easy_[s.id].state_node; node && !s.rec.client_request_id.empty()) {
      std::free(node->data);
      node->data =
          strdup(fmt::format("tracestate: {}", tracestate(s.rec.client_request_id)).c_str());
    }
    s.rec.sent_ns = s.now();
    curl_multi_add_handle(multi_, e);
    // Start it now, not after the next epoll_wait has handed every ready stream to libcurl: in a
    // burst (a closed loop's whole wave ending at once) that wait put milliseconds between the
    // send stamp and the request on the wire, in every TTFT. libcurl also counts its phase times
    // from this moment, which take_phases places at sent_ns.
    int running = 0;
    curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
  }

  void on_ready(const epoll_event& ev) override {
    action(ev);
    reap();
  }

  int64_t next_deadline() const override { return timer_; }

  void on_timer() override {
    if (timer_ != kNone && steady_now_ns() >= timer_) on_timer_only();
    reap();
  }

  void abandon(Slot& s) override { curl_multi_remove_handle(multi_, easy_[s.id].handle); }

 private:
  struct Easy {
    CURL* handle = nullptr;
    char errbuf[CURL_ERROR_SIZE] = {0};  // libcurl's own words for a failure (names TLS causes)
    bool stray =
        false;  // its kept-alive connection held bytes nobody asked for: start again on a new one
    CurlTransport* owner = nullptr;
    // Times this attempt's request went out. libcurl sends a request again, unasked, when the
    // kept-alive connection it was sent on closes before any answer (RFC 9110 §9.2.2 warns
    // against repeating a POST): more than one here is recorded as `resent`, as the socket
    // transport records its own.
    int issued = 0;
    int first_fd = -1;         // the connection its request first went out on
    bool first_reset = false;  // that connection, closed, had been reset by the server's kernel:
                               // the server never read the request libcurl then sent again
    // With a request-id header: the shared headers and, last, this request's id (rewritten per
    // request; libcurl reads the list when the request goes out).
    curl_slist* headers = nullptr;
    curl_slist* id_node = nullptr;
    curl_slist* trace_node = nullptr;  // --trace-context: its traceparent, replaced per request
    curl_slist* state_node = nullptr;  // and its tracestate (the request's id), when ids are sent
  };

  // Just before the request goes out on a connection: a kept-alive connection that already holds
  // bytes carries an answer nobody asked for (a late reply, a broken proxy). libcurl 7.88 would
  // read it as this request's answer, so the transfer is stopped before anything is sent and
  // started again on a new connection, as the socket transport drops a dirty idle connection.
  // libcurl names the connection here only by its ports (CURLINFO_ACTIVESOCKET is not set yet),
  // so the transport keeps its sockets by local port; the check is a peek: nothing is taken.
  static int on_prereq(void* ud, char*, char*, int, int local_port) {
    auto& easy = *static_cast<Easy*>(ud);
    // Only a connection that has carried a transfer: on a new one, bytes before the request are
    // the server's early answer (a 413 on accept), which is this request's.
    CurlTransport& t = *easy.owner;
    const int fd = t.kept_socket_on_port(local_port);
    char byte = 0;
    const ssize_t n = fd >= 0 ? recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) : -1;
    const bool closed =
        fd >= 0 && (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR));
    if (closed) {  // the server closed it after its last response: replaced, not re-sent
      Socket& sock = t.sockets_[fd];
      t.ctx_.habits.saw_close(steady_now_ns() - sock.idle_since);
      sock.kept = false;  // counted here, not again when libcurl closes it
    }
    if (n > 0 || closed) {
      easy.stray = true;
      return CURL_PREREQFUNC_ABORT;
    }
    if (++easy.issued == 1) easy.first_fd = t.socket_on_port(local_port);
    return CURL_PREREQFUNC_OK;
  }

  // Every socket libcurl opens and closes passes here, so its local port can be looked up.
  static int on_sockopt(void* ud, curl_socket_t fd, curlsocktype) {
    auto* t = static_cast<CurlTransport*>(ud);
    t->sockets_[fd] = {};
    t->unmapped_.push_back(fd);
    return CURL_SOCKOPT_OK;
  }
  static int on_close_socket(void* ud, curl_socket_t fd) {
    auto* t = static_cast<CurlTransport*>(ud);
    // A request's first connection, closed by libcurl to send it again: TCP_CLOSE means the
    // server's kernel reset it (the server had closed before the request came, and never read
    // it); a server that read it and closed leaves it in CLOSE_WAIT. A kept-alive connection in
    // either state was closed by the server (libcurl found it so before reusing it).
    tcp_info info{};
    socklen_t len = sizeof info;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) == 0) {
      if (info.tcpi_state == TCP_CLOSE)
        for (Easy& e : t->easy_)
          if (e.first_fd == fd && e.issued >= 1) e.first_reset = true;
      if (auto it = t->sockets_.find(fd);
          it != t->sockets_.end() && it->second.kept &&
          (info.tcpi_state == TCP_CLOSE || info.tcpi_state == TCP_CLOSE_WAIT))
        t->ctx_.habits.saw_close(steady_now_ns() - it->second.idle_since);
    }
    if (auto it = t->sockets_.find(fd); it != t->sockets_.end()) {
      if (it->second.port != 0) t->port_fd_.erase(it->second.port);
      t->sockets_.erase(it);
    }
    std::erase(t->unmapped_, fd);
    return close(fd);
  }
  int kept_socket_on_port(int port) {
    const int fd = socket_on_port(port);
    auto it = sockets_.find(fd);
    return it != sockets_.end() && it->second.kept ? fd : -1;
  }
  int socket_on_port(int port) {
    if (auto it = port_fd_.find(port); it != port_fd_.end()) return it->second;
    std::erase_if(unmapped_, [&](int fd) {  // sockets connected since the last look
      sockaddr_storage local{};
      socklen_t len = sizeof local;
      if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) return false;
      const int p = local.ss_family == AF_INET6
                        ? ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port)
                        : ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
      if (p == 0) return false;  // not bound yet
      port_fd_[p] = fd;
      sockets_[fd].port = p;
      return true;
    });
    auto it = port_fd_.find(port);
    return it == port_fd_.end() ? -1 : it->second;
  }
  void track_sockets(CURL* e) {
    curl_easy_setopt(e, CURLOPT_SOCKOPTFUNCTION, &CurlTransport::on_sockopt);
    curl_easy_setopt(e, CURLOPT_SOCKOPTDATA, this);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, &CurlTransport::on_close_socket);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, this);
  }

  void configure(Slot& s) {
    const auto& st = ctx_.settings;
    CURL* e = easy_[s.id].handle = curl_easy_init();
    curl_easy_setopt(e, CURLOPT_URL, st.url.c_str());
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers_);
    const bool ids = !st.request_id_header.empty() && !st.run_id.empty();
    if (ids || st.trace_context) {  // per-request lines, each replaced before its request
      Easy& easy = easy_[s.id];
      for (const auto& h : ctx_.headers) easy.headers = curl_slist_append(easy.headers, h.c_str());
      auto append = [&easy](const std::string& line) {
        easy.headers = curl_slist_append(easy.headers, line.c_str());
        curl_slist* last = easy.headers;
        while (last->next) last = last->next;
        return last;
      };
      if (ids) easy.id_node = append(st.request_id_header + ":");
      if (st.trace_context) easy.trace_node = append("traceparent:");
      if (st.trace_context && ids) easy.state_node = append("tracestate:");
      curl_easy_setopt(e, CURLOPT_HTTPHEADER, easy.headers);
    }
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &CurlTransport::on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &CurlTransport::on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &s);
    curl_easy_setopt(e, CURLOPT_PRIVATE, &s);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "tokbench");
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, easy_[s.id].errbuf);
    easy_[s.id].owner = this;
    curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, &CurlTransport::on_prereq);
    curl_easy_setopt(e, CURLOPT_PREREQDATA, &easy_[s.id]);
    track_sockets(e);
    net::apply_tls(e, st.tls);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(st.timeout_ms));
    curl_easy_setopt(
        e, CURLOPT_CONNECTTIMEOUT_MS,
        static_cast<long>(st.timeout_ms > 0 ? std::min<int64_t>(st.timeout_ms, 30'000) : 30'000));
  }

  static size_t on_write(char* p, size_t size, size_t n, void* ud) {
    auto& s = *static_cast<Slot*>(ud);
    const size_t len = size * n;
    // One stamp per read: events in one read arrived together. 0 makes libcurl abort the transfer.
    return s.take_body(std::string_view(p, len), s.now()) ? len : 0;
  }

  static size_t on_header(char* p, size_t size, size_t n, void* ud) {
    auto& s = *static_cast<Slot*>(ud);
    const size_t len = size * n;
    if (s.rec.first_byte_ns == kNone) s.rec.first_byte_ns = s.now();
    const std::string_view line(p, len);
    if (line.starts_with("HTTP/")) {  // status line (a new one per response, e.g. after 100)
      const size_t sp = line.find(' ');
      int code = 0;
      if (sp != std::string_view::npos)
        std::from_chars(line.data() + sp + 1, line.data() + line.size(), code);
      if (code > 0) s.take_status(code);
    } else if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
      while (!value.empty() &&
             (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
        value.remove_suffix(1);
      s.take_header(line.substr(0, colon), value);
    }
    return len;
  }

  static int on_socket(CURL*, curl_socket_t fd, int what, void* userp, void*) {
    auto* t = static_cast<CurlTransport*>(userp);
    if (what == CURL_POLL_REMOVE) {
      epoll_ctl(t->ctx_.poller.fd(), EPOLL_CTL_DEL, fd, nullptr);
      if (auto it = t->sockets_.find(fd); it != t->sockets_.end()) {
        it->second.kept = true;  // a transfer ended on it
        it->second.idle_since = steady_now_ns();
      }
      return 0;
    }
    epoll_event ev{};
    ev.data.fd = fd;
    ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
    if (epoll_ctl(t->ctx_.poller.fd(), EPOLL_CTL_MOD, fd, &ev) != 0 && errno == ENOENT)
      epoll_ctl(t->ctx_.poller.fd(), EPOLL_CTL_ADD, fd, &ev);
    return 0;
  }

  static int on_curl_timer(CURLM*, long timeout_ms, void* userp) {
    auto* t = static_cast<CurlTransport*>(userp);
    t->timer_ = timeout_ms < 0 ? kNone : steady_now_ns() + timeout_ms * 1'000'000;
    return 0;
  }

  void action(const epoll_event& ev) {
    const uint32_t e = ev.events;
    const int flags = ((e & EPOLLIN) ? CURL_CSELECT_IN : 0) |
                      ((e & EPOLLOUT) ? CURL_CSELECT_OUT : 0) |
                      ((e & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0);
    int running = 0;
    curl_multi_socket_action(multi_, ev.data.fd, flags, &running);
  }

  void on_timer_only() {
    timer_ = kNone;
    int running = 0;
    curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
  }

  // The HTTP phases of this attempt, from libcurl: µs since the transfer started (sent_ns). A phase
  // libcurl did not reach reads 0; a reused connection has no DNS, connect or TLS of its own.
  void take_phases(Slot& s) {
    record::RequestRecord& r = s.rec;
    CURL* e = easy_[s.id].handle;
    auto at = [&](CURLINFO what) -> int64_t {
      curl_off_t us = 0;
      if (curl_easy_getinfo(e, what, &us) != CURLE_OK || us <= 0) return kNone;
      return r.sent_ns + static_cast<int64_t>(us) * 1000;
    };
    long connects = -1;
    if (curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK) r.connects = connects;
    r.dns_done_ns = at(CURLINFO_NAMELOOKUP_TIME_T);
    r.connect_done_ns = at(CURLINFO_CONNECT_TIME_T);
    r.tls_done_ns = at(CURLINFO_APPCONNECT_TIME_T);
    r.request_start_ns = at(CURLINFO_PRETRANSFER_TIME_T);
    if (r.connects == 0)
      r.dns_done_ns = r.connect_done_ns = r.sent_ns;  // reused: nothing to set up
    if (Easy& easy = easy_[s.id]; easy.issued > 1) {
      if (easy.first_reset)
        ctx_.habits.saw_close(0);  // raced the server's close: learnt, and nothing repeated
      else
        r.resent = true;
    }
  }

  void reap() {
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Slot* s = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&s));
      const CURLcode rc = msg->data.result;
      curl_multi_remove_handle(multi_, msg->easy_handle);
      if (Easy& easy = easy_[s->id]; rc == CURLE_ABORTED_BY_CALLBACK && easy.stray) {
        easy.stray = false;  // nothing was sent: the same attempt, on a connection of its own
        curl_easy_setopt(easy.handle, CURLOPT_FRESH_CONNECT, 1L);
        curl_multi_add_handle(multi_, easy.handle);
        int running = 0;
        curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
        continue;
      }
      take_phases(*s);
      Ending end;
      if (rc != CURLE_OK) {
        end.failure = classify(rc);
        end.error = easy_[s->id].errbuf[0] ? easy_[s->id].errbuf : curl_easy_strerror(rc);
        if (rc == CURLE_OPERATION_TIMEDOUT)
          end.error += " (raise --timeout-s)";  // the fix, as the socket transport names it
      }
      ctx_.done(ctx_.worker, *s, std::move(end));
    }
  }

  TransportContext ctx_;
  std::vector<Easy> easy_;
  curl_slist* headers_ = nullptr;
  CURLM* multi_ = nullptr;
  int64_t timer_ = kNone;  // absolute steady ns of libcurl's next timeout
  struct Socket {
    int port = 0;                // local port, once looked up
    bool kept = false;           // a transfer ended on it: it is a kept-alive connection now
    int64_t idle_since = kNone;  // steady ns: when that transfer ended
  };
  std::unordered_map<int, Socket> sockets_;  // every socket libcurl has open
  std::unordered_map<int, int> port_fd_;     // local port -> socket, once connected
  std::vector<int> unmapped_;                // sockets whose port was not looked up yet
};

}  // namespace

std::unique_ptr<Transport> make_curl_transport(const TransportContext& ctx) {
  return std::make_unique<CurlTransport>(ctx);
}

}  // namespace tokbench::client
