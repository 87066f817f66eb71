#pragma once
// load/source: what the engine pulls requests from. A source decides WHAT is sent next and WHEN
// it is due; the engine asks when it has room (closed loop) or holds a request until its time
// (open loop), and reports every completion back. Bodies are made at that moment by a
// core::RequestMaker, so nothing is built ahead and memory does not grow with the request count.
// Load shapes live here too: arrival processes (Poisson, gamma, constant, all at once, ramped
// rates), in-flight ramps (linear, or AISBench's pressure mode) and duration-bound phases.
// Knows nothing about HTTP, JSON or tokens.
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <vector>

#include "common/choice.hpp"
#include "core/request.hpp"
#include "core/run_control.hpp"
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
  /// Every finished request (after retries), from worker threads, before it is recorded: a
  /// source may mark it with what it decided (load/agents: the task's last turn). Thread-safe.
  virtual void completed(record::RequestRecord& r) = 0;
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
/// A fixed schedule (trace replay): request i is due at offsets_ns[i], the offsets as given.
std::unique_ptr<Arrivals> fixed(std::vector<int64_t> offsets_ns);
/// Poisson arrivals at `rate_rps` on an absolute schedule (exponential gaps from a seeded
/// generator, accumulated, so lateness never shifts later requests — wrk2's lesson). The first
/// request is due at once, as vLLM bench and AISBench do. Same offsets as poisson_schedule().
std::unique_ptr<Arrivals> poisson(double rate_rps, uint64_t seed);

/// An open-loop arrival process (docs/METRICS.md, "Load shapes").
struct ArrivalShape {
  using Kind = core::ArrivalKind;  // a noun of the settings too: core/run_control.hpp
  static constexpr const Choices<Kind, 3>& kKinds = core::kArrivalKinds;
  double rate_rps = 0;  ///< the target rate; +inf = every request due at the phase start
  Kind kind = Kind::Poisson;
  /// Gamma only: the shape k of the gaps (vLLM's --burstiness): 1 is Poisson, < 1 burstier,
  /// > 1 more uniform; the gaps' coefficient of variation is 1/sqrt(k).
  double burstiness = 1;
  double ramp_s = 0;              ///< the rate rises to rate_rps over this long (0 = no ramp)
  bool exponential_ramp = false;  ///< rate r0·(R/r0)^(t/ramp) instead of linear r0 + (R−r0)·t/ramp
  double ramp_start_rps = 0;      ///< r0 (exponential ramps need r0 > 0)
  /// On/off bursts (--bursts ON:OFF): arrivals only in the first burst_on_s of every
  /// burst_on_s + burst_off_s, at the shape's rate there (0 = no bursts). The schedule is the
  /// unbursted one with every off window inserted: time t of "on time" is sent at
  /// ⌊t/on⌋·(on+off) + (t mod on), so the process and the ramp keep their shape while on.
  double burst_on_s = 0, burst_off_s = 0;
};
/// The offsets of `shape`: the same seeded draws give the same schedule, however the engine's
/// workers interleave. Without a ramp, Poisson is poisson() exactly. With one, unit-mean gaps
/// are drawn in "expected arrivals" and mapped back through the inverse of the cumulative rate,
/// so the instantaneous rate follows the ramp and the gap shape (gamma, constant) is kept. Bursts
/// then move each offset past the off windows before it.
std::unique_ptr<Arrivals> open_loop(const ArrivalShape& shape, uint64_t seed);

/// How far a phase goes and which of its requests are measured.
struct PhaseLimits {
  int64_t count = -1;  ///< requests to make; -1 = until the duration ends
  int64_t duration_ns =
      core::kNotSet;  ///< nothing is due at or after this offset; kNotSet = no bound
  int64_t measured_from_ns =
      0;  ///< requests due before this offset are recorded as warm-up (a ramp)
  /// An in-flight ramp (closed loop): at offset t at most min(max_in_flight,
  /// 1 + floor(t / step_ns)) requests are in flight. step_ns 0 = no ramp.
  int max_in_flight = 0;
  int64_t step_ns = 0;
  /// One rank's share of a multi-host run: it sends the requests whose global index i has
  /// i % shard_size == shard_rank, at the times the one global schedule gives them (the others'
  /// draws are made and skipped), so every rank keeps the same indices and times.
  int shard_rank = 0, shard_size = 1;
};

/// The in-flight ramp of --ramp-up-s: 1 request at the start, `concurrency` at `ramp_ns`.
PhaseLimits linear_concurrency_ramp(PhaseLimits base, int concurrency, int64_t ramp_ns);
/// AISBench's pressure mode: one more client every 1/`clients_per_s` seconds, up to `concurrency`.
PhaseLimits pressure_ramp(PhaseLimits base, int concurrency, double clients_per_s);

/// A phase of requests (the dataset cycles), made by `make` as they are pulled, due as
/// `arrivals` says, within `limits`. The warm-up and the measured phase of a run are two of these.
class CountedSource final : public RequestSource {
 public:
  CountedSource(PhaseLimits limits, bool warmup, std::unique_ptr<Arrivals> arrivals,
                core::RequestMaker make);
  CountedSource(int64_t count, bool warmup, std::unique_ptr<Arrivals> arrivals,
                core::RequestMaker make)
      : CountedSource(PhaseLimits{count}, warmup, std::move(arrivals), std::move(make)) {}
  void start(int64_t phase_start_ns) override;
  Pull next(int64_t now_ns) override;
  void completed(record::RequestRecord& r) override;
  int64_t planned() const override { return limits_.count; }

 private:
  PhaseLimits limits_;
  bool warmup_;
  std::unique_ptr<Arrivals> arrivals_;
  core::RequestMaker make_;
  mutable std::mutex mu_;
  int64_t next_ = 0, phase_start_ns_ = 0, in_flight_ = 0;
  std::optional<int64_t> pending_offset_;  ///< drawn but not yet handed out (past a Later)
};

}  // namespace tokbench::load
