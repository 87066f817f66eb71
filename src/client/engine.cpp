#include "client/engine.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <optional>
#include <random>
#include <latch>
#include <thread>

#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include "client/chunk_parser.hpp"
#include "client/sse.hpp"
#include "common/clock.hpp"

namespace tokbench::client {

using record::ChunkEvent;
using record::kNone;
using record::Outcome;
using record::RequestRecord;

namespace {

constexpr size_t kErrorBodyLimit = 1024;  // first KiB of a failing server's body is kept
constexpr int64_t kIdlePollMs = 50;       // bounds how late a stop request is noticed
constexpr int64_t kBusyWindowNs = 100'000'000;  // the window of a worker's busiest stretch
constexpr int64_t kSpinNs = 100'000;      // an open loop polls the last 100 µs before a send

struct Shared {
  const EngineSettings& settings;
  load::RequestSource& source;
  int64_t origin_ns;
  const std::function<void(RequestRecord&&)>& on_done;
  const std::atomic<int>& stop;
  curl_slist* headers = nullptr;
  int64_t cut_at_ns = kNone;  // since the origin: in-flight requests are cut then (duration runs)
  // The phase starts once every worker has warmed its connections: an arrival schedule (a trace,
  // --warm-connections on with a rate) must not count the warming as its requests' lateness.
  std::latch* warmed = nullptr;  // each worker counts down once warm
  std::latch* go = nullptr;      // the phase has started: pull requests
};

// One in-flight request: its easy handle, its framer and parser (reused across requests, so
// the hot path allocates nothing per event), and the record being filled.
struct Slot {
  CURL* easy = nullptr;
  bool active = false;
  core::PlannedRequest req;  // kept for a retry: same body, same intended time
  int64_t origin_ns = 0;
  bool stream = true;
  bool keep_text = false;
  size_t max_body = 0, max_events = 0;
  std::string too_large;  // why the response passed a cap ("" = it did not)
  std::string content_type;  // of the response, lower-cased ("" = none sent)
  std::string head;          // the first KiB of a 2xx body, to show what came when it is not what was asked
  char errbuf[CURL_ERROR_SIZE] = {0};  // libcurl's own words for a failure (names TLS causes)
  int64_t retry_after_ms = -1;         // the server's Retry-After, in ms (-1 = none)
  int64_t retry_at_ns = kNone;         // waiting to retry until then (the slot stays taken)
  RequestRecord rec;
  SseFramer framer;
  ChunkParser parser;
  ChunkInfo info;
  std::string body;            // non-streaming body, or the start of an error body
  std::string protocol_error;  // first thing in the stream that broke the protocol
  bool got_done = false;
  int64_t events = 0;
  int64_t bytes = 0;

  int64_t now() const { return steady_now_ns() - origin_ns; }

  void on_event(std::string_view data, int64_t t) {
    if (got_done || !too_large.empty()) return;  // nothing after [DONE] belongs to this response
    if (data == "[DONE]") {  // OpenAI's end; on Anthropic's API only message_stop ends a stream (a proxy may add it)
      if (parser.wire() == Wire::Anthropic) return;
      got_done = true;
      rec.done_ns = t;
      return;
    }
    ++events;
    if (rec.chunks.size() >= max_events) {
      too_large = fmt::format("more than {} SSE events in one response (raise --max-events)", max_events);
      return;
    }
    std::string why;
    if (!parser.parse(data, info, &why)) {
      if (protocol_error.empty()) protocol_error = fmt::format("invalid JSON in SSE event ({})", why);
      return;
    }
    if (info.end) {  // Anthropic's message_stop: the stream's own end, not a chunk of the answer
      got_done = true;
      rec.done_ns = t;
      return;
    }
    if (!info.error.empty() && protocol_error.empty())
      protocol_error = fmt::format("error event in stream: {}", info.error);
    rec.choices = std::max(rec.choices, info.choices);
    ChunkEvent ev;
    ev.t_ns = t;
    ev.bytes = static_cast<int32_t>(data.size());
    ev.cum_tokens = static_cast<int32_t>(info.completion_tokens);
    ev.kind = info.kind;
    ev.choice = static_cast<int16_t>(std::min(info.choice, record::kMaxChoiceIndex));
    rec.chunks.push_back(ev);
    if (rec.first_event_ns == kNone) rec.first_event_ns = t;
    rec.last_event_ns = t;
    if (ev.has_text()) {
      if (rec.first_token_ns == kNone) rec.first_token_ns = t;
      rec.last_token_ns = t;
      rec.output_chars += info.text_bytes;
      if (keep_text) {
        rec.output_text.append(info.reasoning);
        rec.output_text.append(info.content);
        rec.output_text.append(info.tool_args);
      }
    }
    take_usage();
    if (!info.finish_reason.empty()) rec.finish_reason = std::string(info.finish_reason);
    if (rec.request_id.empty() && !info.id.empty()) rec.request_id = std::string(info.id);
  }

  void take_usage() {
    if (info.completion_tokens >= 0) rec.completion_tokens = info.completion_tokens;
    if (info.prompt_tokens >= 0) rec.prompt_tokens = info.prompt_tokens;
    if (info.cached_tokens >= 0) rec.cached_tokens = info.cached_tokens;
  }

  static size_t on_write(char* p, size_t size, size_t n, void* ud) {
    auto& s = *static_cast<Slot*>(ud);
    const size_t len = size * n;
    const int64_t t = s.now();  // one stamp per read: events in one read arrived together
    s.bytes += static_cast<int64_t>(len);
    const bool error_status = s.rec.http_status < 200 || s.rec.http_status >= 300;
    if (!error_status && s.head.size() < kErrorBodyLimit) s.head.append(p, std::min(len, kErrorBodyLimit - s.head.size()));
    if (error_status) {
      s.body.append(p, std::min(len, kErrorBodyLimit - std::min(kErrorBodyLimit, s.body.size())));
    } else if (s.stream) {
      s.framer.feed(std::string_view(p, len), [&](std::string_view data) { s.on_event(data, t); });
      if (s.framer.too_large() && s.too_large.empty()) {
        s.too_large = fmt::format("an SSE line or event larger than {} bytes (raise --max-event-bytes)", s.framer.max_bytes());
      }
    } else if (s.body.size() + len > s.max_body) {
      s.too_large = fmt::format("a response body larger than {} bytes (raise --max-body-bytes)", s.max_body);
    } else {
      s.body.append(p, len);
    }
    return s.too_large.empty() ? len : 0;  // 0 makes libcurl abort the transfer at once
  }

  static size_t on_header(char* p, size_t size, size_t n, void* ud) {
    auto& s = *static_cast<Slot*>(ud);
    const size_t len = size * n;
    if (s.rec.first_byte_ns == kNone) s.rec.first_byte_ns = s.now();
    std::string_view line(p, len);
    // Header names are case-insensitive; only two matter here.
    std::string lower(line.substr(0, std::min<size_t>(line.size(), 13)));
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.starts_with("retry-after:")) {
      // Seconds (the HTTP-date form is rare from inference servers and is ignored).
      int64_t secs = -1;
      const std::string_view v = line.substr(12);
      const size_t d = v.find_first_of("0123456789");
      if (d != std::string_view::npos) std::from_chars(v.data() + d, v.data() + v.size(), secs);
      if (secs >= 0) s.retry_after_ms = secs * 1000;
    } else if (lower == "content-type:") {
      std::string v(line.substr(13));
      for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      v.erase(0, v.find_first_not_of(" \t"));
      v.erase(v.find_last_not_of(" \t\r\n") + 1);
      s.content_type = v;
    }
    if (line.starts_with("HTTP/")) {  // status line (a new one per response, e.g. after 100)
      const size_t sp = line.find(' ');
      if (sp != std::string_view::npos) {
        int code = 0;
        std::from_chars(line.data() + sp + 1, line.data() + line.size(), code);
        s.rec.http_status = code;
      }
    }
    return len;
  }
};

int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// How much of each 100 ms (or so) this worker thread went without waiting for the network: 1.0
// means it never did (it was working, or waiting for a CPU), so events queued up behind it. The
// busiest stretch is kept: a whole-run average hides the burst (a closed loop's wave starting at
// once) it fell behind in, and CPU time alone misses a thread that shares its core.
struct BusiestStretch {
  int64_t at;           // the window's start, ns since the origin
  int64_t idle_at = 0;  // idle_ns then
  int64_t idle_ns = 0;  // time spent waiting for sockets (or polling with nothing to do), all run
  void close(int64_t now, int64_t min_window, EngineCounters& c) {
    if (now - at < min_window) return;
    const double busy = 1.0 - static_cast<double>(idle_ns - idle_at) / static_cast<double>(now - at);
    if (busy > c.peak_busy) {
      c.peak_busy = busy;
      c.peak_busy_at_ns = at;
    }
    at = now;
    idle_at = idle_ns;
  }
};

// A 2xx answer that is not what was asked for (a proxy's HTML page, JSON where a stream was
// asked): named with what came, instead of "stream cut in the middle of an SSE event".
std::string unexpected_type(const Slot& s) {
  if (s.content_type.empty()) return {};  // nothing declared: judged by its bytes
  const bool ok = s.stream ? s.content_type.starts_with("text/event-stream") : s.content_type.find("json") != std::string::npos;
  if (ok) return {};
  return fmt::format("HTTP {} with Content-Type '{}' where {} was asked for; it began: {}", s.rec.http_status, s.content_type,
                     s.stream ? "a text/event-stream" : "a JSON body", s.head);
}

// Only a connection that was never made is a connect error (and may be retried): once the
// request was sent, a reset, an empty reply or a broken body is the response's failure.
Outcome classify_curl_error(CURLcode rc) {
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

// One thread: a curl multi handle driven by epoll through curl_multi_socket_action, so each
// wakeup costs in proportion to the sockets that are ready, not to the requests in flight
// (curl_multi_poll + curl_multi_perform walk every handle on every wakeup).
class Worker {
 public:
  Worker(Shared& shared, int slots) : sh_(shared), slots_(static_cast<size_t>(slots)) {
    epfd_ = epoll_create1(EPOLL_CLOEXEC);
    multi_ = curl_multi_init();
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(slots));
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &Worker::on_socket);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &Worker::on_timer);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    for (auto& s : slots_) {
      s.easy = curl_easy_init();
      s.origin_ns = sh_.origin_ns;
      s.stream = sh_.settings.stream;
      s.keep_text = sh_.settings.keep_text;
      s.max_body = sh_.settings.max_body_bytes;
      s.max_events = sh_.settings.max_events;
      s.framer.set_max_bytes(sh_.settings.max_event_bytes);
      s.parser.set_wire(sh_.settings.wire);
      configure(s);
      free_.push_back(&s);
    }
  }
  ~Worker() {
    for (auto& s : slots_) {
      if (s.active) curl_multi_remove_handle(multi_, s.easy);
      curl_easy_cleanup(s.easy);
    }
    curl_multi_cleanup(multi_);
    close(epfd_);
  }

  EngineCounters run() {
    const int64_t cpu_start = thread_cpu_ns();
    // Timer slack: the kernel may wake this thread up to 50 µs late by default, to batch wake-ups;
    // an arrival schedule wants it on time (this thread only).
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    const auto& st = sh_.settings;
    if (!st.warm_url.empty()) warm_connections();
    sh_.warmed->count_down();
    sh_.go->wait();
    EngineCounters c;
    BusiestStretch busy{steady_now_ns() - sh_.origin_ns};  // from here: the warm-up is not the load
    int64_t last_wait_end = steady_now_ns();
    bool exhausted = false;
    std::optional<core::PlannedRequest> pending;  // pulled but not yet due (open loop)
    int64_t pending_due = kNone;
    int64_t drain_deadline = kNone;
    std::vector<epoll_event> events(256);
    while (true) {
      const int stop = sh_.stop.load(std::memory_order_relaxed);
      int64_t now = steady_now_ns() - sh_.origin_ns;
      busy.close(now, kBusyWindowNs, c);
      if (stop != kRunning) {
        pending.reset();
        pending_due = kNone;
        exhausted = true;
        if (drain_deadline == kNone) drain_deadline = now + st.drain_timeout_ms * 1'000'000;
        give_up_retries();  // nothing new is sent after a stop: a waiting retry ends as its last attempt did
        if (stop == kCancelNow || now >= drain_deadline) cancel_all(now, Outcome::Cancelled, "");
      }
      if (sh_.cut_at_ns != kNone && now >= sh_.cut_at_ns) {  // a duration run's grace is over
        pending.reset();
        pending_due = kNone;
        exhausted = true;
        cancel_all(now, Outcome::Cut, st.cut_reason);
      }
      const int64_t retry_due = start_due_retries(now);
      // Fill free slots with due requests.
      if (!pending) pending_due = kNone;  // a "later" answer is asked again each time round
      while (!exhausted && !free_.empty()) {
        if (!pending) {
          load::Pull pull = sh_.source.next(now);
          if (pull.kind == load::Pull::Kind::Done) {
            exhausted = true;
            break;
          }
          if (pull.kind == load::Pull::Kind::Later) {  // e.g. a session waiting for its last answer
            if (pull.retry_at_ns != kNone) pending_due = pull.retry_at_ns;
            break;
          }
          pending = std::move(pull.request);
        }
        const int64_t scheduled = pending->scheduled_ns == kNone ? now : pending->scheduled_ns;
        if (scheduled > now) {
          pending_due = scheduled;
          break;
        }
        Slot& slot = *free_.back();
        free_.pop_back();
        slot.req = std::move(*pending);
        start(slot, scheduled, 1);
        pending.reset();
        pending_due = kNone;
        now = steady_now_ns() - sh_.origin_ns;
      }
      if (exhausted && active_ == 0) break;

      // Sleep until a socket is ready, curl's timer fires, the next request is due, or the
      // idle cap passes (so a stop request is noticed).
      int64_t deadline = now + kIdlePollMs * 1'000'000;
      if (timer_deadline_ != kNone) deadline = std::min(deadline, timer_deadline_ - sh_.origin_ns);
      if (pending_due != kNone) deadline = std::min(deadline, pending_due);
      if (retry_due != kNone) deadline = std::min(deadline, retry_due);
      if (sh_.cut_at_ns != kNone) deadline = std::min(deadline, sh_.cut_at_ns);
      // The next request due within kSpinNs: poll instead of sleeping (sockets are still served),
      // since a sleeping thread wakes up to a few hundred µs late on a busy machine (LoadGen's habit).
      int64_t wait_ns = deadline - now;
      const bool spinning = pending_due != kNone && pending_due - now <= kSpinNs;
      if (spinning) wait_ns = 0;
      else if (pending_due != kNone && deadline == pending_due) wait_ns -= kSpinNs;
      const int64_t wait_start = steady_now_ns();
      const int ready = wait_events(events, wait_ns);
      const int64_t wait_end = steady_now_ns();
      // Idle: blocked in the wait, or polling before a send with nothing to do (the whole turn).
      busy.idle_ns += (spinning && ready == 0 ? wait_start - last_wait_end : 0) + (wait_end - wait_start);
      last_wait_end = wait_end;
      drive(events, ready);
      reap();
    }
    busy.close(steady_now_ns() - sh_.origin_ns, kBusyWindowNs / 10, c);  // the last, partial window (short runs too)
    for (auto& s : slots_) {
      c.events += s.events;
      c.bytes += s.bytes;
    }
    c.cpu_ns = thread_cpu_ns() - cpu_start;
    return c;
  }

 private:
  // Waits up to `wait_ns` for ready sockets. epoll_pwait2 takes nanoseconds: epoll_wait's whole
  // milliseconds, rounded up, made an open loop's requests up to 1 ms late (send lag p99 0.9 ms
  // at 1,000 req/s). Kernels before 5.11 lack it: then milliseconds, as before.
  int wait_events(std::vector<epoll_event>& events, int64_t wait_ns) {
    wait_ns = std::max<int64_t>(0, wait_ns);
    const int n = static_cast<int>(events.size());
    if (have_pwait2_) {
      const timespec ts{static_cast<time_t>(wait_ns / 1'000'000'000), static_cast<long>(wait_ns % 1'000'000'000)};
      const int got = epoll_pwait2(epfd_, events.data(), n, &ts, nullptr);
      if (got >= 0 || errno != ENOSYS) return got;
      have_pwait2_ = false;
    }
    return epoll_wait(epfd_, events.data(), n, static_cast<int>((wait_ns + 999'999) / 1'000'000));
  }

  // Hands libcurl the `n` ready sockets epoll_wait reported, then its timer when it is due.
  void drive(const std::vector<epoll_event>& events, int n) {
    int running = 0;
    for (int i = 0; i < n; ++i) {
      const uint32_t e = events[static_cast<size_t>(i)].events;
      const int flags = ((e & EPOLLIN) ? CURL_CSELECT_IN : 0) | ((e & EPOLLOUT) ? CURL_CSELECT_OUT : 0) |
                        ((e & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0);
      curl_multi_socket_action(multi_, events[static_cast<size_t>(i)].data.fd, flags, &running);
    }
    if (timer_deadline_ != kNone && steady_now_ns() >= timer_deadline_) {
      timer_deadline_ = kNone;
      curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
    }
  }

  // One GET per slot, all in flight at once, so the multi handle's cache holds one kept-alive
  // connection per slot when the first request goes out (its set-up then is not in its TTFT).
  // Bounded: 10 s at most; a server that refuses leaves the requests to connect as usual.
  static size_t discard(char*, size_t size, size_t n, void*) { return size * n; }
  void warm_connections() {
    std::vector<CURL*> warm;
    for (size_t i = 0; i < slots_.size(); ++i) {
      CURL* e = curl_easy_init();
      curl_easy_setopt(e, CURLOPT_URL, sh_.settings.warm_url.c_str());
      curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
      curl_easy_setopt(e, CURLOPT_HTTPHEADER, sh_.headers);
      curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Worker::discard);
      curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
      curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
      curl_easy_setopt(e, CURLOPT_USERAGENT, "tokbench");
      curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 10'000L);
      apply_tls(e, sh_.settings.tls);
      curl_multi_add_handle(multi_, e);
      warm.push_back(e);
    }
    const int64_t deadline = steady_now_ns() + 10'000'000'000;
    std::vector<epoll_event> events(64);
    size_t left = warm.size();
    int running = 0;
    curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);  // start them
    while (left > 0 && steady_now_ns() < deadline && sh_.stop.load(std::memory_order_relaxed) == kRunning) {
      int64_t wait_ns = 50'000'000;
      if (timer_deadline_ != kNone) wait_ns = std::min(wait_ns, std::max<int64_t>(0, timer_deadline_ - steady_now_ns()));
      drive(events, wait_events(events, wait_ns));
      int queued = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi_, &queued))
        if (msg->msg == CURLMSG_DONE) --left;
    }
    for (CURL* e : warm) {
      curl_multi_remove_handle(multi_, e);  // the connection stays in the multi handle's cache
      curl_easy_cleanup(e);
    }
  }

  static int on_socket(CURL*, curl_socket_t fd, int what, void* userp, void*) {
    auto* w = static_cast<Worker*>(userp);
    if (what == CURL_POLL_REMOVE) {
      epoll_ctl(w->epfd_, EPOLL_CTL_DEL, fd, nullptr);
      return 0;
    }
    epoll_event ev{};
    ev.data.fd = fd;
    ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
    if (epoll_ctl(w->epfd_, EPOLL_CTL_MOD, fd, &ev) != 0 && errno == ENOENT)
      epoll_ctl(w->epfd_, EPOLL_CTL_ADD, fd, &ev);
    return 0;
  }

  static int on_timer(CURLM*, long timeout_ms, void* userp) {
    auto* w = static_cast<Worker*>(userp);
    w->timer_deadline_ = timeout_ms < 0 ? kNone : steady_now_ns() + timeout_ms * 1'000'000;
    return 0;
  }

  void configure(Slot& s) {
    const auto& st = sh_.settings;
    CURL* e = s.easy;
    curl_easy_setopt(e, CURLOPT_URL, st.url.c_str());
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, sh_.headers);
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Slot::on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &Slot::on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &s);
    curl_easy_setopt(e, CURLOPT_PRIVATE, &s);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "tokbench");
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, s.errbuf);
    apply_tls(e, st.tls);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(st.timeout_ms));
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(st.timeout_ms > 0 ? std::min<int64_t>(st.timeout_ms, 30'000) : 30'000));
  }

  void start(Slot& s, int64_t scheduled, int attempt) {
    if (!free_.empty() && free_.back() == &s) free_.pop_back();  // a retry reuses its own slot
    const std::string& body = s.req.body;
    s.active = true;
    s.rec = RequestRecord{};
    s.rec.chunks.reserve(sh_.settings.reserve_chunks);
    s.rec.index = s.req.index;
    s.rec.warmup = s.req.warmup;
    s.rec.expected_prompt_tokens = s.req.facts.expected_prompt_tokens;
    s.rec.requested_max_tokens = s.req.facts.requested_max_tokens;
    s.rec.ignore_eos_sent = s.req.facts.ignore_eos_sent;
    s.rec.model = s.req.facts.model;
    s.rec.images = s.req.facts.images;
    s.rec.session = s.req.facts.session;
    s.rec.turn = s.req.facts.turn;
    s.rec.session_start_ns = s.req.facts.session_start_ns;
    s.rec.last_turn = s.req.facts.last_turn;
    if (s.keep_text) s.rec.prompt_text = s.req.facts.prompt_text;
    s.too_large.clear();
    s.content_type.clear();
    s.head.clear();
    s.errbuf[0] = '\0';
    s.retry_after_ms = -1;
    s.retry_at_ns = kNone;
    s.rec.stream = s.stream;
    s.rec.attempts = attempt;
    s.rec.scheduled_ns = scheduled;
    s.framer.reset();
    s.parser.begin_response();
    s.body.clear();
    s.protocol_error.clear();
    s.got_done = false;
    curl_easy_setopt(s.easy, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(s.easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    ++active_;
    if (sh_.settings.started && attempt == 1) sh_.settings.started->fetch_add(1, std::memory_order_relaxed);
    s.rec.sent_ns = s.now();
    curl_multi_add_handle(multi_, s.easy);
    // Start it now, not after the next epoll_wait has handed every ready stream to libcurl: in a
    // burst (a closed loop's whole wave ending at once) that wait put milliseconds between the
    // send stamp and the request on the wire, in every TTFT. libcurl also counts its phase times
    // from this moment, which take_phases places at sent_ns.
    int running = 0;
    curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
  }

  // The HTTP phases of this attempt, from libcurl: µs since the transfer started (sent_ns). A phase
  // libcurl did not reach reads 0; a reused connection has no DNS, connect or TLS of its own.
  static void take_phases(Slot& s) {
    RequestRecord& r = s.rec;
    auto at = [&](CURLINFO what) -> int64_t {
      curl_off_t us = 0;
      if (curl_easy_getinfo(s.easy, what, &us) != CURLE_OK || us <= 0) return kNone;
      return r.sent_ns + static_cast<int64_t>(us) * 1000;
    };
    long connects = -1;
    if (curl_easy_getinfo(s.easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK) r.connects = connects;
    r.dns_done_ns = at(CURLINFO_NAMELOOKUP_TIME_T);
    r.connect_done_ns = at(CURLINFO_CONNECT_TIME_T);
    r.tls_done_ns = at(CURLINFO_APPCONNECT_TIME_T);
    r.request_start_ns = at(CURLINFO_PRETRANSFER_TIME_T);
    if (r.connects == 0) r.dns_done_ns = r.connect_done_ns = r.sent_ns;  // reused: nothing to set up
  }

  void reap() {
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Slot* s = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&s));
      const CURLcode rc = msg->data.result;
      curl_multi_remove_handle(multi_, s->easy);
      finish(*s, rc);
    }
  }

  void finish(Slot& s, CURLcode rc) {
    RequestRecord& r = s.rec;
    const int64_t now = s.now();
    if (!s.too_large.empty()) {
      r.outcome = Outcome::TooLarge;
      r.error = s.too_large;
      r.chunks.clear();
      r.chunks.shrink_to_fit();
    } else if (rc == CURLE_OK) {
      if (r.http_status < 200 || r.http_status >= 300) {
        r.outcome = Outcome::HttpStatus;
        r.error = fmt::format("HTTP {}: {}", r.http_status, s.body);
      } else if (const std::string wrong = unexpected_type(s); !wrong.empty()) {
        r.outcome = Outcome::StreamProtocol;
        r.error = wrong;
      } else if (s.stream) {
        if (!s.protocol_error.empty()) {
          r.outcome = Outcome::StreamProtocol;
          r.error = s.protocol_error;
        } else if (!s.got_done) {
          r.outcome = Outcome::StreamProtocol;
          r.error = s.framer.has_partial() ? "stream cut in the middle of an SSE event"
                    : r.chunks.empty()     ? "no SSE events in a streaming response (does the server honour \"stream\": true?)"
                                           : fmt::format("stream ended without {}", end_of_stream_name(s.parser.wire()));
        }
      } else {
        std::string why;
        if (s.parser.parse(s.body, s.info, &why)) {
          s.take_usage();
          r.choices = std::max<int64_t>(1, s.info.choices);
          r.output_chars = s.info.text_bytes;
          if (s.keep_text) r.output_text = std::string(s.info.reasoning) + std::string(s.info.content) + std::string(s.info.tool_args);
          r.finish_reason = std::string(s.info.finish_reason);
          r.request_id = std::string(s.info.id);
          if (!s.info.error.empty()) {
            r.outcome = Outcome::StreamProtocol;
            r.error = fmt::format("error body: {}", s.info.error);
          }
        } else {
          r.outcome = Outcome::StreamProtocol;
          r.error = fmt::format("response body is not valid JSON ({})", why);
        }
      }
    } else {
      r.outcome = classify_curl_error(rc);
      r.error = s.errbuf[0] ? s.errbuf : curl_easy_strerror(rc);
      if (r.first_byte_ns == kNone && r.outcome == Outcome::StreamProtocol)
        r.error += " (the request was sent; the connection closed before any response byte)";
    }
    if (r.done_ns == kNone || r.outcome != Outcome::Ok) r.done_ns = std::max(r.done_ns, now);
    r.malformed_sse_lines = s.framer.malformed_lines();
    take_phases(s);
    // Retried: a connection never made, or a server that says "later" (429, 503). After an
    // exponential, jittered backoff, or the server's Retry-After; the slot stays taken meanwhile.
    const bool later = r.outcome == Outcome::HttpStatus && (r.http_status == 429 || r.http_status == 503);
    if ((r.outcome == Outcome::ConnectError || later) && r.attempts <= sh_.settings.retries &&
        sh_.stop.load(std::memory_order_relaxed) == kRunning) {
      s.retry_at_ns = now + backoff_ns(r.attempts, s.retry_after_ms);
      retrying_.push_back(&s);
      return;
    }
    --active_;
    s.active = false;
    free_.push_back(&s);
    sh_.source.completed(r);
    sh_.on_done(std::move(r));
  }

  // 100 ms × 2^(attempt-1), at most 10 s, times a jitter in [0.5, 1.5) so that retries spread
  // out; a Retry-After (at most 60 s) wins.
  int64_t backoff_ns(int attempt, int64_t retry_after_ms) {
    if (retry_after_ms >= 0) return std::min<int64_t>(retry_after_ms, 60'000) * 1'000'000;
    const double base_ms = std::min(100.0 * static_cast<double>(int64_t{1} << std::min(attempt - 1, 20)), 10'000.0);
    return static_cast<int64_t>(base_ms * std::uniform_real_distribution<double>(0.5, 1.5)(rng_) * 1e6);
  }

  void give_up_retries() {
    for (Slot* s : retrying_) {
      --active_;
      s->active = false;
      free_.push_back(s);
      sh_.source.completed(s->rec);
      sh_.on_done(std::move(s->rec));
    }
    retrying_.clear();
  }

  // Starts the retries whose backoff has passed; returns the earliest one still waiting.
  int64_t start_due_retries(int64_t now) {
    int64_t next = kNone;
    for (size_t i = 0; i < retrying_.size();) {
      Slot& s = *retrying_[i];
      if (s.retry_at_ns <= now) {
        retrying_[i] = retrying_.back();
        retrying_.pop_back();
        --active_;  // start() counts it again
        start(s, s.rec.scheduled_ns, s.rec.attempts + 1);  // same request, same intended time
        continue;
      }
      next = next == kNone ? s.retry_at_ns : std::min(next, s.retry_at_ns);
      ++i;
    }
    return next;
  }

  // Ends every request in flight as `outcome`; `why` names the cause ("" = a stop request).
  void cancel_all(int64_t now, Outcome outcome, const std::string& why) {
    give_up_retries();  // waiting out a backoff: ends as its last attempt did
    for (auto& s : slots_) {
      if (!s.active) continue;
      curl_multi_remove_handle(multi_, s.easy);
      s.active = false;
      --active_;
      free_.push_back(&s);
      s.rec.outcome = outcome;
      s.rec.error = fmt::format("{} after {} chunk(s)", why.empty() ? "cancelled by stop request" : why, s.rec.chunks.size());
      s.rec.done_ns = now;
      sh_.source.completed(s.rec);
      sh_.on_done(std::move(s.rec));
    }
  }

  Shared& sh_;
  std::vector<Slot> slots_;
  std::vector<Slot*> free_;
  std::vector<Slot*> retrying_;  // failed attempts waiting out their backoff
  std::mt19937_64 rng_{std::random_device{}()};  // backoff jitter only
  CURLM* multi_ = nullptr;
  int epfd_ = -1;
  bool have_pwait2_ = true;  // false once the kernel said ENOSYS
  int64_t timer_deadline_ = kNone;  // absolute steady ns of curl's next timeout
  int active_ = 0;
};

}  // namespace

void global_init() { curl_global_init(CURL_GLOBAL_DEFAULT); }

Engine::Engine(EngineSettings settings) : settings_(std::move(settings)) {}

EngineCounters Engine::run(load::RequestSource& source, int64_t origin_ns,
                           const std::function<void(RequestRecord&&)>& on_done, const std::atomic<int>& stop) {
  Shared sh{settings_, source, origin_ns, on_done, stop};
  sh.headers = curl_slist_append(sh.headers, "Content-Type: application/json");
  sh.headers = curl_slist_append(sh.headers, "Expect:");  // no 100-continue round trip
  if (settings_.stream) sh.headers = curl_slist_append(sh.headers, "Accept: text/event-stream");
  // One credential header: an explicit --header wins over --api-key (both would be sent otherwise).
  // Anthropic's Messages API takes the key as x-api-key and needs anthropic-version.
  const bool anthropic = settings_.wire == Wire::Anthropic;
  if (!settings_.api_key.empty() && !anthropic && !has_authorization_header(settings_.headers)) {
    sh.headers = curl_slist_append(sh.headers, ("Authorization: Bearer " + settings_.api_key).c_str());
  }
  if (!settings_.api_key.empty() && anthropic && !has_header(settings_.headers, "x-api-key"))
    sh.headers = curl_slist_append(sh.headers, ("x-api-key: " + settings_.api_key).c_str());
  if (anthropic && !has_header(settings_.headers, "anthropic-version"))
    sh.headers = curl_slist_append(sh.headers, "anthropic-version: 2023-06-01");
  for (const auto& h : settings_.headers) sh.headers = curl_slist_append(sh.headers, h.c_str());

  const int64_t planned = source.planned();
  const int conc = std::max(1, planned < 0 ? settings_.concurrency
                                           : static_cast<int>(std::min<int64_t>(settings_.concurrency, std::max<int64_t>(1, planned))));
  const int workers = std::clamp(settings_.workers, 1, conc);
  std::vector<std::unique_ptr<Worker>> ws;
  for (int w = 0; w < workers; ++w) ws.push_back(std::make_unique<Worker>(sh, conc / workers + (w < conc % workers)));
  std::latch warmed(workers), go(1);
  sh.warmed = &warmed;
  sh.go = &go;
  std::vector<EngineCounters> counters(static_cast<size_t>(workers));
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&, w] { counters[static_cast<size_t>(w)] = ws[static_cast<size_t>(w)]->run(); });
  // The phase (and an arrival schedule) starts once the slots exist and their connections are
  // warm: making 10,000 handles takes ~70 ms, and warming 64 connections tens of ms under load,
  // which made the first requests of an open loop or a trace that late.
  warmed.wait();
  int64_t start_at = settings_.phase_start_at ? settings_.phase_start_at() : steady_now_ns();
  while (steady_now_ns() < start_at) {  // several ranks start together: sleep, then spin the last 100 µs
    const int64_t left = start_at - steady_now_ns();
    if (left > kSpinNs) std::this_thread::sleep_for(std::chrono::nanoseconds(left - kSpinNs));
  }
  const int64_t phase_start = start_at - origin_ns;
  source.start(phase_start);
  if (settings_.cut_after_ns >= 0) sh.cut_at_ns = phase_start + settings_.cut_after_ns;
  go.count_down();
  for (auto& t : threads) t.join();
  ws.clear();
  curl_slist_free_all(sh.headers);
  EngineCounters total;
  for (const auto& c : counters) {
    total.events += c.events;
    total.bytes += c.bytes;
    total.cpu_ns += c.cpu_ns;
    total.busiest_cpu_ns = std::max(total.busiest_cpu_ns, c.cpu_ns);
    if (c.peak_busy > total.peak_busy) {
      total.peak_busy = c.peak_busy;
      total.peak_busy_at_ns = c.peak_busy_at_ns;
    }
  }
  return total;
}

}  // namespace tokbench::client
