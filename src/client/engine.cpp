#include "client/engine.hpp"

#include <curl/curl.h>
#include <fmt/format.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <latch>
#include <memory>
#include <optional>
#include <random>
#include <thread>

#include "client/transport.hpp"
#include "common/clock.hpp"
#include "common/json_writer.hpp"
#include "net/http1.hpp"
#include "net/http_get.hpp"

namespace tokbench::client {

using record::ChunkEvent;
using record::kNone;
using record::Outcome;
using record::RequestRecord;

namespace {

constexpr int64_t kIdlePollMs = 50;             // bounds how late a stop request is noticed
constexpr int64_t kBusyWindowNs = 100'000'000;  // the window of a worker's busiest stretch
constexpr int64_t kSpinNs = 100'000;            // an open loop polls the last 100 µs before a send
constexpr int64_t kBusyShareMinNs = 1'000'000'000;  // the shortest phase whose busy share is judged

struct Shared {
  const EngineSettings& settings;
  load::RequestSource& source;
  int64_t origin_ns;
  const std::function<void(RequestRecord&&)>& on_done;
  const std::atomic<int>& stop;
  std::vector<std::string>
      headers;  // every request's headers but Host, User-Agent, Accept and Content-Length
  ServerHabits& habits;
  int64_t cut_at_ns = kNone;  // since the origin: in-flight requests are cut then (duration runs)
  // The phase starts once every worker has warmed its connections: an arrival schedule (a trace,
  // --warm-connections on with a rate) must not count the warming as its requests' lateness.
  std::latch* warmed = nullptr;  // each worker counts down once warm
  std::latch* go = nullptr;      // the phase has started: pull requests
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
    const double busy =
        1.0 - static_cast<double>(idle_ns - idle_at) / static_cast<double>(now - at);
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
  if (s.content_type.empty()) return {};            // nothing declared: judged by its bytes
  const bool lines = s.parser.api().caps().ndjson;  // Ollama's application/x-ndjson
  const bool ok = s.stream && !lines ? s.content_type.starts_with("text/event-stream")
                                     : s.content_type.find("json") != std::string::npos;
  if (ok) return {};
  return fmt::format("HTTP {} with Content-Type '{}' where {} was asked for; it began: {}",
                     s.rec.http_status, s.content_type,
                     !s.stream ? "a JSON body"
                     : lines   ? "an application/x-ndjson stream"
                               : "a text/event-stream",
                     s.head);
}

// One thread: its slots, its transport, and the loop that fills the slots with due requests,
// waits for the network, and turns every ended transfer into a record.
class Worker {
 public:
  Worker(Shared& shared, int slots, TransportKind kind)
      : sh_(shared), slots_(static_cast<size_t>(slots)) {
    for (size_t i = 0; i < slots_.size(); ++i) {
      Slot& s = slots_[i];
      s.id = i;
      s.origin_ns = sh_.origin_ns;
      s.stream = sh_.settings.stream;
      s.keep_text = sh_.settings.keep_text || sh_.settings.keep_content;
      s.keep_content = sh_.settings.keep_content;
      if (!sh_.settings.request_id_header.empty() && !sh_.settings.run_id.empty())
        s.id_prefix = sh_.settings.run_id + "-";
      if (sh_.settings.trace_context) s.trace_seed = trace_seed_of(sh_.settings.run_id);
      s.max_body = sh_.settings.max_body_bytes;
      s.max_events = sh_.settings.max_events;
      s.framer.set_max_bytes(sh_.settings.max_event_bytes);
      s.framer.set_lines((sh_.settings.api ? *sh_.settings.api : default_api()).caps().ndjson);
      s.parser.set_api(sh_.settings.api);
      s.parser.share(&json_);  // every slot's event is parsed, and used, before the next read
      free_.push_back(&s);
    }
    const TransportContext ctx{
        sh_.settings, sh_.headers, slots_, poller_, this, &Worker::on_transfer_end, sh_.habits};
    transport_ =
        kind == TransportKind::Sockets ? make_socket_transport(ctx) : make_curl_transport(ctx);
  }
  ~Worker() { transport_.reset(); }  // before the slots and the poller it uses

  EngineCounters run() {
    const int64_t cpu_start = thread_cpu_ns();
    // Timer slack: the kernel may wake this thread up to 50 µs late by default, to batch wake-ups;
    // an arrival schedule wants it on time (this thread only).
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    const auto& st = sh_.settings;
    if (!st.warm_url.empty()) transport_->warm(st.warm_url, sh_.stop);
    sh_.warmed->count_down();
    sh_.go->wait();
    EngineCounters c;
    const int64_t phase_from = steady_now_ns();
    BusiestStretch busy{phase_from - sh_.origin_ns};  // from here: the warm-up is not the load
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
        give_up_retries();  // nothing new is sent after a stop: a waiting retry ends as its last
                            // attempt did
        if (stop == kCancelNow || now >= drain_deadline) cancel_all(now, Outcome::Cancelled, "");
      }
      if (sh_.cut_at_ns != kNone && now >= sh_.cut_at_ns) {  // a duration run's grace is over
        pending.reset();
        pending_due = kNone;
        exhausted = true;
        cancel_all(now, Outcome::Cut, st.cut_reason);
      }
      const int64_t retry_due = start_due_retries(now);
      if (!armed_.empty()) cancel_due_requests(now);  // their slots are filled just below
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
        slot.req = std::move(*pending);
        pending.reset();
        pending_due = kNone;
        start(slot, scheduled, 1);
        now = steady_now_ns() - sh_.origin_ns;
      }
      if (exhausted && active_ == 0) break;

      // The timed cancels of what was just sent too (the earliest is a deadline below).
      const int64_t cancel_next = armed_.empty() ? kNone : cancel_due_requests(now);
      // Sleep until a socket is ready, the transport's timer fires, the next request is due, or
      // the idle cap passes (so a stop request is noticed).
      int64_t deadline = now + kIdlePollMs * 1'000'000;
      if (const int64_t t = transport_->next_deadline(); t != kNone)
        deadline = std::min(deadline, t - sh_.origin_ns);
      if (pending_due != kNone) deadline = std::min(deadline, pending_due);
      if (retry_due != kNone) deadline = std::min(deadline, retry_due);
      if (cancel_next != kNone) deadline = std::min(deadline, cancel_next);
      if (sh_.cut_at_ns != kNone) deadline = std::min(deadline, sh_.cut_at_ns);
      // The next request due within kSpinNs: poll instead of sleeping (sockets are still served),
      // since a sleeping thread wakes up to a few hundred µs late on a busy machine (LoadGen's
      // habit).
      int64_t wait_ns = deadline - now;
      const bool spinning = pending_due != kNone && pending_due - now <= kSpinNs;
      if (spinning)
        wait_ns = 0;
      else if (pending_due != kNone && deadline == pending_due)
        wait_ns -= kSpinNs;
      const int64_t wait_start = steady_now_ns();
      const int ready = poller_.wait(events, wait_ns);
      const int64_t wait_end = steady_now_ns();
      // Idle: blocked in the wait, or polling before a send with nothing to do (the whole turn).
      busy.idle_ns +=
          (spinning && ready == 0 ? wait_start - last_wait_end : 0) + (wait_end - wait_start);
      last_wait_end = wait_end;
      for (int i = 0; i < ready; ++i) transport_->on_ready(events[static_cast<size_t>(i)]);
      transport_->on_timer();
    }
    busy.close(steady_now_ns() - sh_.origin_ns, kBusyWindowNs / 10,
               c);  // the last, partial window (short runs too)
    // Over a phase shorter than a second the share is the scheduler's noise (a 2 ms phase against
    // a local server read 99 % busy under the sanitizers): unknown.
    if (const int64_t span = steady_now_ns() - phase_from; span >= kBusyShareMinNs)
      c.busy_share = 1.0 - static_cast<double>(busy.idle_ns) / static_cast<double>(span);
    for (auto& s : slots_) {
      c.events += s.events;
      c.bytes += s.bytes;
    }
    c.cpu_ns = thread_cpu_ns() - cpu_start;
    c.busiest_cpu_ns = c.cpu_ns;  // one thread: its own busiest
    return c;
  }

 private:
  void start(Slot& s, int64_t scheduled, int attempt) {
    if (!free_.empty() && free_.back() == &s) free_.pop_back();  // a retry reuses its own slot
    s.active = true;
    s.begin(scheduled, attempt, sh_.settings.reserve_chunks);
    ++active_;
    if (sh_.settings.started && attempt == 1)
      sh_.settings.started->fetch_add(1, std::memory_order_relaxed);
    transport_->start(s);  // stamps sent_ns right before the request goes out
    if (s.cancel.after_ns >= 0 && s.active) armed_.push_back(&s);
  }

  // --cancel-rate's timed cancels: the slots waiting for theirs, and the earliest due.
  void disarm(Slot& s) {
    if (const auto it = std::find(armed_.begin(), armed_.end(), &s); it != armed_.end()) {
      *it = armed_.back();
      armed_.pop_back();
    }
  }
  int64_t cancel_due(const Slot& s) const { return s.rec.sent_ns + s.cancel.after_ns; }
  // Lets go of every request whose cancel time has come, the way a client gives up: its
  // connection is closed (the server learns it from the closed socket, as vLLM aborts). Returns
  // the earliest cancel still to come, or `now` when it freed a slot (to be filled at once).
  int64_t cancel_due_requests(int64_t now) {
    int64_t next = kNone;
    bool freed = false;
    for (size_t i = 0; i < armed_.size();) {
      Slot& s = *armed_[i];
      if (!s.active || s.retry_at_ns != kNone) {  // ended, or waiting out a backoff
        armed_[i] = armed_.back();
        armed_.pop_back();
        continue;
      }
      if (cancel_due(s) > now) {
        next = next == kNone ? cancel_due(s) : std::min(next, cancel_due(s));
        ++i;
        continue;
      }
      armed_[i] = armed_.back();
      armed_.pop_back();
      freed = true;
      let_go(s, now, Outcome::ClientCancelled,
             fmt::format("cancelled by the client {:.1f} ms after it was sent, after {} answer "
                         "token(s) (--cancel-rate)",
                         static_cast<double>(now - s.rec.sent_ns) / 1e6, s.tokens_seen));
    }
    return freed ? now : next;
  }

  static void on_transfer_end(void* worker, Slot& s, Ending ending) {
    static_cast<Worker*>(worker)->finish(s, std::move(ending));
  }

  void finish(Slot& s, Ending ending) {
    RequestRecord& r = s.rec;
    const int64_t now = s.now();
    disarm(s);
    if (!s.cancelled.empty()) {  // its cancel point came: the partial answer is kept as it came
      r.outcome = Outcome::ClientCancelled;
      r.error = s.cancelled;
    } else if (!s.too_large.empty()) {
      r.outcome = Outcome::TooLarge;
      r.error = s.too_large;
      r.chunks.clear();
      r.chunks.shrink_to_fit();
    } else if (ending.failure == Outcome::Ok) {
      if (r.http_status < 200 || r.http_status >= 300) {
        r.outcome = Outcome::HttpStatus;
        r.error = fmt::format("HTTP {}: {}", r.http_status, utf8_whole(s.body));  // kept whole
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
                    : r.chunks.empty()
                        ? "no SSE events in a streaming response (does the server honour "
                          "\"stream\": true?)"
                        : fmt::format("stream ended without {}", s.parser.api().end_of_stream());
        }
      } else {
        std::string why;
        if (s.parser.parse(s.body, s.info, &why)) {
          s.take_usage();
          s.take_tool_deltas(s.info);
          r.choices = std::max<int64_t>(1, s.info.choices);
          r.output_chars = s.info.text_bytes;
          if (s.keep_text) {
            r.output_text = std::string(s.info.reasoning) + std::string(s.info.content) +
                            std::string(s.info.tool_args);
            if (s.keep_content) r.content_text = std::string(s.info.content);
          }
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
      r.outcome = ending.failure;
      r.error = std::move(ending.error);
      if (r.first_byte_ns == kNone && r.outcome == Outcome::StreamProtocol)
        r.error += " (the request was sent; the connection closed before any response byte)";
    }
    if (r.done_ns == kNone || (r.outcome != Outcome::Ok && s.cancelled.empty()))
      r.done_ns = std::max(r.done_ns, now);
    r.malformed_sse_lines = s.framer.malformed_lines();
    // Retried: a connection never made, or a server that says "later" (429, 503). After an
    // exponential, jittered backoff, or the server's Retry-After; the slot stays taken meanwhile.
    const bool later =
        r.outcome == Outcome::HttpStatus && (r.http_status == 429 || r.http_status == 503);
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
    const double base_ms =
        std::min(100.0 * static_cast<double>(int64_t{1} << std::min(attempt - 1, 20)), 10'000.0);
    return static_cast<int64_t>(base_ms * std::uniform_real_distribution<double>(0.5, 1.5)(rng_) *
                                1e6);
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
    std::vector<Slot*> due;
    for (size_t i = 0; i < retrying_.size();) {
      Slot& s = *retrying_[i];
      if (s.retry_at_ns <= now) {
        retrying_[i] = retrying_.back();
        retrying_.pop_back();
        due.push_back(&s);
        continue;
      }
      next = next == kNone ? s.retry_at_ns : std::min(next, s.retry_at_ns);
      ++i;
    }
    for (Slot* s : due) {  // after the scan: a retry that fails at once joins retrying_ again
      --active_;           // start() counts it again
      start(*s, s->rec.scheduled_ns, s->rec.attempts + 1);  // same request, same intended time
    }
    return next;
  }

  // Ends every request in flight as `outcome`; `why` names the cause ("" = a stop request).
  void cancel_all(int64_t now, Outcome outcome, const std::string& why) {
    give_up_retries();  // waiting out a backoff: ends as its last attempt did
    for (auto& s : slots_) {
      if (!s.active) continue;
      let_go(s, now, outcome,
             fmt::format("{} after {} chunk(s)", why.empty() ? "cancelled by stop request" : why,
                         s.rec.chunks.size()));
    }
    armed_.clear();
  }

  // Ends the request in flight in `s` now: its transfer abandoned, recorded as `outcome`.
  void let_go(Slot& s, int64_t now, Outcome outcome, std::string error) {
    transport_->abandon(s);
    s.active = false;
    --active_;
    free_.push_back(&s);
    s.rec.outcome = outcome;
    s.rec.error = std::move(error);
    s.rec.done_ns = now;
    sh_.source.completed(s.rec);
    sh_.on_done(std::move(s.rec));
  }

  Shared& sh_;
  JsonScratch json_;  // before the slots, which point to it
  std::vector<Slot> slots_;
  Poller poller_;
  std::unique_ptr<Transport> transport_;
  std::vector<Slot*> free_;
  std::vector<Slot*> retrying_;                  // failed attempts waiting out their backoff
  std::vector<Slot*> armed_;                     // in flight with a timed cancel (--cancel-rate)
  std::mt19937_64 rng_{std::random_device{}()};  // backoff jitter only
  int active_ = 0;
};

}  // namespace

Poller::Poller() : epfd_(epoll_create1(EPOLL_CLOEXEC)) {}
Poller::~Poller() { close(epfd_); }

int Poller::wait(std::vector<epoll_event>& events, int64_t wait_ns) {
  wait_ns = std::max<int64_t>(0, wait_ns);
  const int n = static_cast<int>(events.size());
  if (have_pwait2_) {
    const timespec ts{static_cast<time_t>(wait_ns / 1'000'000'000),
                      static_cast<long>(wait_ns % 1'000'000'000)};
    const int got = epoll_pwait2(epfd_, events.data(), n, &ts, nullptr);
    if (got >= 0 || errno != ENOSYS) return got;
    have_pwait2_ = false;
  }
  return epoll_wait(epfd_, events.data(), n, static_cast<int>((wait_ns + 999'999) / 1'000'000));
}

std::vector<std::string> request_headers(const EngineSettings& st) {
  std::vector<std::string> h{"Content-Type: application/json",
                             "Expect:"};  // Expect: no 100-continue round trip
  if (st.stream)
    h.emplace_back((st.api ? *st.api : default_api()).caps().ndjson ? "Accept: application/x-ndjson"
                                                                    : "Accept: text/event-stream");
  // The API's credential headers (and any it requires), unless --header already has them.
  for (auto& c : (st.api ? *st.api : default_api()).credential_headers(st.headers, st.api_key))
    h.push_back(std::move(c));
  h.insert(h.end(), st.headers.begin(), st.headers.end());
  return h;
}

TransportKind chosen_transport(const EngineSettings& st, std::string* why) {
  auto say = [&](const char* reason) {
    if (why) *why = reason;
  };
  if (st.transport == TransportKind::Curl)
    return say("asked for (--transport libcurl)"), TransportKind::Curl;
  if (st.transport == TransportKind::Sockets)
    return say("asked for (--transport sockets)"), TransportKind::Sockets;
  if (!net::parse_http_url(st.url)) return say("the URL is not plain http://"), TransportKind::Curl;
  if (net::proxy_in_environment())
    return say("a proxy is set in the environment (http_proxy or all_proxy)"), TransportKind::Curl;
  return say("a plain http:// URL with no proxy"), TransportKind::Sockets;
}

const char* transport_name(TransportKind k) {
  switch (k) {
    case TransportKind::Sockets:
      return "sockets";
    case TransportKind::Curl:
      return "libcurl";
    default:
      return "auto";
  }
}

void ServerHabits::saw_close(int64_t idle_ns) {
  constexpr int64_t kQuickCloseNs = 1'000'000'000;
  closed.fetch_add(1, std::memory_order_relaxed);
  if (idle_ns >= 0 && idle_ns < kQuickCloseNs)
    closes_after_response.store(true, std::memory_order_relaxed);
}

Engine::Engine(EngineSettings settings) : settings_(std::move(settings)) {}

EngineCounters Engine::run(load::RequestSource& source, int64_t origin_ns,
                           const std::function<void(RequestRecord&&)>& on_done,
                           const std::atomic<int>& stop) {
  Shared sh{settings_, source, origin_ns, on_done, stop, request_headers(settings_), *habits_};
  const int64_t closed_before = habits_->closed.load();
  const TransportKind kind = chosen_transport(settings_);

  const int64_t planned = source.planned();
  const int conc =
      std::max(1, planned < 0 ? settings_.concurrency
                              : static_cast<int>(std::min<int64_t>(settings_.concurrency,
                                                                   std::max<int64_t>(1, planned))));
  const int workers = std::clamp(settings_.workers, 1, conc);
  std::vector<std::unique_ptr<Worker>> ws;
  for (int w = 0; w < workers; ++w)
    ws.push_back(std::make_unique<Worker>(sh, conc / workers + (w < conc % workers), kind));
  std::latch warmed(workers), go(1);
  sh.warmed = &warmed;
  sh.go = &go;
  std::vector<EngineCounters> counters(static_cast<size_t>(workers));
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w)
    threads.emplace_back(
        [&, w] { counters[static_cast<size_t>(w)] = ws[static_cast<size_t>(w)]->run(); });
  // The phase (and an arrival schedule) starts once the slots exist and their connections are
  // warm: making 10,000 handles takes ~70 ms, and warming 64 connections tens of ms under load,
  // which made the first requests of an open loop or a trace that late.
  warmed.wait();
  int64_t start_at = settings_.phase_start_at ? settings_.phase_start_at() : steady_now_ns();
  while (steady_now_ns() <
         start_at) {  // several ranks start together: sleep, then spin the last 100 µs
    const int64_t left = start_at - steady_now_ns();
    if (left > kSpinNs) std::this_thread::sleep_for(std::chrono::nanoseconds(left - kSpinNs));
  }
  const int64_t phase_start = start_at - origin_ns;
  source.start(phase_start);
  if (settings_.cut_after_ns >= 0) sh.cut_at_ns = phase_start + settings_.cut_after_ns;
  go.count_down();
  for (auto& t : threads) t.join();
  ws.clear();
  EngineCounters total;
  total.server_closed = habits_->closed.load() - closed_before;
  for (const auto& c : counters) total.add(c);
  return total;
}

}  // namespace tokbench::client
