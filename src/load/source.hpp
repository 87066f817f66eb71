#pragma once
// load/source: what the engine pulls requests from. A source decides WHAT is sent next and WHEN
// it is due; the engine asks when it has room (closed loop) or holds a request until its time
// (open loop), and reports every completion back. Bodies are made at that moment by a
// core::RequestMaker, so nothing is built ahead and memory does not grow with the request count.
// Knows nothing about HTTP, JSON or tokens.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>

#include "core/request.hpp"
#include "record/record.hpp"

namespace tokbench::load {

/// What a source answers when the engine has room for a request.
struct Pull {
  enum class Kind {
    Request,  ///< here it is (its scheduled_ns may lie ahead: the engine holds it until then)
    Later,    ///< none yet (a session waits for its last answer): ask again at retry_at_ns, or
              ///< after the next completion (kNotSet)
    Done,     ///< this source will produce no more
  };
  Kind kind = Kind::Done;
  core::PlannedRequest request;
  int64_t retry_at_ns = core::kNotSet;  ///< Later: steady ns since the run origin

  static Pull done() { return {}; }
  static Pull later(int64_t at_ns = core::kNotSet) { return {Kind::Later, {}, at_ns}; }
  static Pull of(core::PlannedRequest r) { return {Kind::Request, std::move(r), core::kNotSet}; }
};

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  /// Called once by the engine as the phase starts (steady ns since the run origin).
  virtual void start(int64_t phase_start_ns) = 0;
  /// The next request, "later", or "done". Thread-safe (worker threads call it). A request's
  /// `scheduled_ns` is absolute (since the origin) or core::kNotSet (send at once).
  virtual Pull next(int64_t now_ns) = 0;
  /// Every finished request (after retries), from worker threads. Thread-safe.
  virtual void completed(const record::RequestRecord& r) = 0;
  /// The most requests this source will produce (sizes the connection pool); -1 = unbounded.
  virtual int64_t planned() const = 0;
};

/// When each request of a sequence is due.
class Arrivals {
 public:
  virtual ~Arrivals() = default;
  /// Offset (ns from the phase start) of the next request, or core::kNotSet: "when a slot frees".
  virtual int64_t next_offset_ns() = 0;
};

/// Closed loop: every request is due as soon as a concurrency slot frees up.
std::unique_ptr<Arrivals> closed_loop();
/// Poisson arrivals at `rate_rps` on an absolute schedule (exponential gaps from a seeded
/// generator, accumulated, so lateness never shifts later requests — wrk2's lesson). The first
/// request is due at once, as vLLM bench and AISBench do. Same offsets as poisson_schedule().
std::unique_ptr<Arrivals> poisson(double rate_rps, uint64_t seed);

/// A fixed number of requests (the dataset cycles), made by `make` as they are pulled, due as
/// `arrivals` says. The warm-up and the measured phase of a run are two of these.
class CountedSource final : public RequestSource {
 public:
  CountedSource(int64_t count, bool warmup, std::unique_ptr<Arrivals> arrivals, core::RequestMaker make);
  void start(int64_t phase_start_ns) override;
  Pull next(int64_t now_ns) override;
  void completed(const record::RequestRecord& r) override;
  int64_t planned() const override { return count_; }

 private:
  int64_t count_;
  bool warmup_;
  std::unique_ptr<Arrivals> arrivals_;
  core::RequestMaker make_;
  mutable std::mutex mu_;
  int64_t next_ = 0, phase_start_ns_ = 0;
};

}  // namespace tokbench::load
