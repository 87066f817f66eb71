#pragma once
// client/engine: sends requests on worker threads (client/transport: plain sockets or libcurl) and
// turns every response into a RequestRecord. Hot path: stamp steady_clock once per read, frame SSE,
// classify each event, append a ChunkEvent to a pre-reserved vector. Statistics and formatting
// happen elsewhere, after the fact. Decides nothing about WHAT or WHEN: it pulls requests from a
// load::RequestSource when it has room, holds an open-loop request until it is due, and reports
// every completion back to the source.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "client/api.hpp"
#include "common/choice.hpp"
#include "core/run_control.hpp"
#include "load/source.hpp"
#include "net/http_get.hpp"
#include "record/record.hpp"

namespace tokbench::client {

using core::kTransportChoices;  // core/run_control: the settings name it too
using core::TransportKind;

struct EngineSettings {
  std::string url;                   ///< full endpoint URL
  std::vector<std::string> headers;  ///< extra "Key: Value" headers
  /// Each request's id goes in this header as "<run_id>-<index>" ("" either: none is sent).
  std::string request_id_header;
  std::string run_id;
  /// Each request carries a W3C `traceparent` (its trace id drawn from run_id and its index, a
  /// span per attempt), recorded as RequestRecord::traceparent.
  bool trace_context = false;
  std::string api_key;  ///< sent as the API's credential header (Authorization: Bearer, x-api-key)
                        ///< when non-empty
  const ApiAdapter* api =
      nullptr;  ///< the API: its payload format, how its stream ends, its credentials (null: chat)
  bool stream = true;
  int concurrency = 1;           ///< max requests in flight (keep-alive pool of that size)
  int workers = 1;               ///< threads, each with its own curl multi handle
  int64_t timeout_ms = 600'000;  ///< whole-request limit; 0 = none
  int retries = 0;               ///< extra attempts after a connect_error
  int64_t drain_timeout_ms =
      5'000;                    ///< after a stop request, wait this long for in-flight requests
  size_t reserve_chunks = 512;  ///< per-request chunk capacity reserved up front
  bool keep_text = false;       ///< keep generated text in RequestRecord::output_text
  /// Also keep the answer's content alone in RequestRecord::content_text (an agent task's next
  /// turn sends it back); implies keep_text.
  bool keep_content = false;
  size_t max_event_bytes =
      1 << 20;  ///< one SSE line or event larger than this fails the request (too_large)
  size_t max_body_bytes =
      64 << 20;  ///< a non-streaming body larger than this fails the request (too_large)
  size_t max_events = 1 << 20;  ///< SSE events in one response; more fails the request (too_large)
  /// A duration-bound phase: requests still in flight this long after the phase started are
  /// cancelled and recorded as Outcome::Cut with `cut_reason` (kNone = never).
  int64_t cut_after_ns = -1;
  std::string cut_reason;
  /// --warm-connections: before its first request, each worker opens one connection per slot
  /// with a GET of this URL (all at once), kept alive for the requests ("" = no warming).
  std::string warm_url;
  std::atomic<int64_t>* started = nullptr;  ///< if set, counts requests handed to the transport
  /// A multi-host run: called on the calling thread once every worker is warm; returns the
  /// moment (steady ns, this process's clock) the phase starts on every rank at once, and the
  /// engine waits for it. Empty = start as soon as the workers are warm.
  std::function<int64_t()> phase_start_at;
  net::TlsSettings tls;
  TransportKind transport = TransportKind::Auto;
};

using core::kCancelNow;  // the stop levels (core/run_control)
using core::kDrain;
using core::kRunning;
using core::StopLevel;

struct EngineCounters {
  int64_t events = 0;  ///< SSE data events parsed (the unit of the bench's CPU figure)
  int64_t bytes = 0;   ///< response body bytes
  int64_t cpu_ns = 0;  ///< CPU time of the worker threads (the client's own cost)
  int64_t busiest_cpu_ns =
      0;  ///< CPU time of the busiest worker thread (a saturated one delays its streams)
  /// The busiest 100 ms of any worker thread: the share of it the thread went without waiting
  /// for the network (1.0 = never waited: events queued behind it) and when it began (ns since
  /// the origin). A whole-run average hides a burst the thread fell behind in.
  double peak_busy = 0;
  int64_t peak_busy_at_ns = -1;
  /// The busiest worker thread's share of the whole phase spent not waiting for the network:
  /// working, or waiting for a CPU (a shared core, a CPU quota), which its CPU time does not show
  /// (-1 = unknown, or a phase shorter than a second).
  double busy_share = -1;
  /// Kept-alive connections the server closed after a response, found before they were reused
  /// (llama.cpp's server closes every connection after a stream though it says Keep-Alive).
  int64_t server_closed = 0;

  /// Adds `c` (a worker's, or another engine's): sums, and the busiest thread of either.
  void add(const EngineCounters& c) {
    events += c.events;
    bytes += c.bytes;
    cpu_ns += c.cpu_ns;
    server_closed += c.server_closed;
    busiest_cpu_ns = std::max(busiest_cpu_ns, c.busiest_cpu_ns);
    busy_share = std::max(busy_share, c.busy_share);
    if (c.peak_busy > peak_busy) {
      peak_busy = c.peak_busy;
      peak_busy_at_ns = c.peak_busy_at_ns;
    }
  }
};

/// What the engine learnt of the server's connections, kept across its runs (a warm-up teaches
/// the measured phase): once the server is seen closing a connection soon after its response, no
/// connection is kept after a response (a reuse would race the server's close, and a request
/// written into a closing connection must be sent again).
struct ServerHabits {
  std::atomic<bool> closes_after_response{false};
  std::atomic<int64_t> closed{0};  ///< connections found closed by the server, in all
  /// A connection found closed `idle_ns` after its response ended: counted, and learnt from
  /// when that was soon (kQuickCloseNs; an idle timeout of seconds is no such habit).
  void saw_close(int64_t idle_ns);
};

class Engine {
 public:
  explicit Engine(EngineSettings settings);

  /// Sends what `source` hands out until it has no more, and returns when all have ended (or a
  /// stop has drained or cancelled them; requests not pulled because of a stop produce no
  /// record). All times are ns since `origin_ns` (steady clock). `on_done` is called from worker
  /// threads, once per request, after source.completed().
  EngineCounters run(load::RequestSource& source, int64_t origin_ns,
                     const std::function<void(record::RequestRecord&&)>& on_done,
                     const std::atomic<int>& stop);

 private:
  EngineSettings settings_;
  std::shared_ptr<ServerHabits> habits_ = std::make_shared<ServerHabits>();
};

/// The transport a run with `settings` uses (Auto resolved) and, in `why`, the reason.
TransportKind chosen_transport(const EngineSettings& settings, std::string* why = nullptr);
const char* transport_name(TransportKind kind);
/// Every request's headers ("Name: value", libcurl's rules) but Host, User-Agent, Accept and
/// Content-Length: the body type, the stream's Accept, the credential, then --header's.
std::vector<std::string> request_headers(const EngineSettings& settings);

}  // namespace tokbench::client
