#pragma once
// client/transport (internal to the engine): how a worker's requests reach the server. Two kinds
// behind one interface — libcurl's multi interface (TLS, proxies, every URL) and HTTP/1.1 on
// plain non-blocking sockets (net/http1: a plain http:// target, 17–30 % less CPU per SSE
// event). The worker owns the loop, the slots and the records; a transport only moves bytes,
// feeds them to the slot, stamps the HTTP phases, and says when a response has ended.
#include <sys/epoll.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "client/engine.hpp"
#include "client/slot.hpp"

namespace tokbench::client {

/// epoll with a nanosecond wait. epoll_pwait2 takes nanoseconds: epoll_wait's whole
/// milliseconds, rounded up, made an open loop's requests up to 1 ms late (send lag p99 0.9 ms
/// at 1,000 req/s). Kernels before 5.11 lack it: then milliseconds.
class Poller {
 public:
  Poller();
  ~Poller();
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;
  int fd() const { return epfd_; }
  /// Waits up to `wait_ns` for ready descriptors; returns how many are in `events`.
  int wait(std::vector<epoll_event>& events, int64_t wait_ns);

 private:
  int epfd_ = -1;
  bool have_pwait2_ = true;  // false once the kernel said ENOSYS
};

/// How a transfer ended, as far as the transport can tell: Outcome::Ok means a whole response
/// came (the worker then judges its status, type and content); anything else names the failure.
struct Ending {
  record::Outcome failure = record::Outcome::Ok;
  std::string error;
};

class Transport {
 public:
  /// Told of each ended transfer, from inside on_ready() or on_timer().
  using Done = void (*)(void* worker, Slot& slot, Ending ending);

  virtual ~Transport() = default;
  /// Opens one kept-alive connection per slot before the measured phase (--warm-connections):
  /// all at once, at most 10 s; one that fails is opened again by its first request.
  virtual void warm(const std::string& url, const std::atomic<int>& stop) = 0;
  /// Sends slot.req (slot.begin() was called); its rec.sent_ns is stamped here, right before the
  /// request goes out.
  virtual void start(Slot& slot) = 0;
  /// A descriptor the Poller reported ready.
  virtual void on_ready(const epoll_event& event) = 0;
  /// The transport's next deadline (absolute steady ns; record::kNone = none) and its handler.
  virtual int64_t next_deadline() const = 0;
  virtual void on_timer() = 0;
  /// Ends the slot's transfer without a word (a stop, a cut): its connection is not reused.
  virtual void abandon(Slot& slot) = 0;
};

/// Both transports take the same header list (libcurl's "Name: value" rules).
struct TransportContext {
  const EngineSettings& settings;
  const std::vector<std::string>&
      headers;  ///< every request header but Host, User-Agent, Accept and Content-Length
  std::vector<Slot>& slots;
  Poller& poller;
  void* worker;
  Transport::Done done;
  ServerHabits& habits;  ///< the engine's, across its runs and workers
};

std::unique_ptr<Transport> make_curl_transport(const TransportContext& ctx);
std::unique_ptr<Transport> make_socket_transport(const TransportContext& ctx);

}  // namespace tokbench::client
