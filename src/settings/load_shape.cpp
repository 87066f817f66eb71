#include "settings/load_shape.hpp"

#include <fmt/format.h>

#include <cmath>

namespace tokbench::runner {

namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

// How many requests an open loop may have in flight, as the header says it.
std::string in_flight_text(int max_in_flight, bool capped) {
  if (capped) return fmt::format("concurrency {}", max_in_flight);
  return fmt::format("in flight: no cap (no --concurrency; safety ceiling {})", max_in_flight);
}

}  // namespace

bool OpenLoop::all_at_once() const { return std::isinf(rate_rps); }

LoadShape load_shape(const LoadSettings& load, const WorkloadSettings& workload,
                     const ExperimentSettings& experiment) {
  LoadShape l;
  l.ramp = {load.ramp_up_s, load.ramp_up_strategy == RampCurve::Exponential, load.ramp_up_start_rps,
            load.ramp_up_measured};
  l.duration_s = load.duration_s;
  l.grace_s = load.duration_s > 0 ? load.grace_s : 0;
  // No --concurrency (0): one at a time where the client sets the pace, no cap (but the safety
  // ceiling) where a schedule does.
  const bool given = load.concurrency > 0;
  const int closed = given ? load.concurrency : 1,
            open = given ? load.concurrency : kOpenLoopCeiling;
  // validate() admits one shape at a time; the order here is the one it checks them in.
  if (experiment.adaptive_window_s > 0) {
    l.shape = Adaptive{closed, experiment.adaptive_max, experiment.adaptive_window_s};
  } else if (load.pressure) {
    l.shape = Pressure{
        closed, load.request_rate > 0 && !std::isinf(load.request_rate) ? load.request_rate : 0};
  } else if (workload.dataset.is(core::DatasetSource::Trace)) {
    l.shape = TraceReplay{workload.trace_speed, open, given};
  } else if (workload.sessions()) {
    l.shape = Sessions{closed, workload.turns, workload.think_time_ms,
                       workload.dataset.is(core::DatasetSource::Agent)};
  } else if (load.request_rate > 0) {
    l.shape = OpenLoop{.rate_rps = load.request_rate,
                       .process = load.arrivals,
                       .burstiness = load.burstiness,
                       .max_in_flight = open,
                       .capped = given,
                       .burst_on_s = load.burst_on_s,
                       .burst_off_s = load.burst_off_s};
  } else {
    l.shape = ClosedLoop{closed};
  }
  return l;
}

bool LoadShape::open_loop() const {
  return std::holds_alternative<OpenLoop>(shape) || std::holds_alternative<TraceReplay>(shape);
}

int LoadShape::max_in_flight() const {
  return std::visit(Overloaded{[](const ClosedLoop& s) { return s.concurrency; },
                               [](const OpenLoop& s) { return s.max_in_flight; },
                               [](const Pressure& s) { return s.clients; },
                               [](const TraceReplay& s) { return s.max_in_flight; },
                               [](const Sessions& s) { return s.active; },
                               [](const Adaptive& s) { return s.max; }},
                    shape);
}

bool LoadShape::in_flight_capped() const {
  if (const auto* open = std::get_if<OpenLoop>(&shape)) return open->capped;
  if (const auto* trace = std::get_if<TraceReplay>(&shape)) return trace->capped;
  return true;
}

double LoadShape::paced_rate() const {
  const auto* open = std::get_if<OpenLoop>(&shape);
  return open ? open->rate_rps : 0;
}

double LoadShape::mean_rate() const {
  const auto* open = std::get_if<OpenLoop>(&shape);
  if (!open || open->burst_on_s <= 0) return paced_rate();
  return open->rate_rps * open->burst_on_s / (open->burst_on_s + open->burst_off_s);
}

std::string LoadShape::arrivals() const {
  return std::visit(
      Overloaded{[](const ClosedLoop&) { return std::string("closed"); },
                 [](const OpenLoop& s) {
                   return std::string(s.all_at_once()
                                          ? "all-at-once"
                                          : std::string(core::kArrivalKinds.name(s.process)));
                 },
                 [](const Pressure&) { return std::string("pressure"); },
                 [](const TraceReplay&) { return std::string("trace"); },
                 [](const Sessions&) { return std::string("sessions"); },
                 [](const Adaptive&) { return std::string("adaptive"); }},
      shape);
}

std::string LoadShape::text(bool warms_connections) const {
  std::string out = std::visit(
      Overloaded{
          [](const ClosedLoop& s) { return fmt::format("concurrency {}", s.concurrency); },
          [](const OpenLoop& s) {
            const std::string rate =
                s.all_at_once() ? std::string("rate inf (all due at once)")
                                : fmt::format("rate {} req/s ({}{})", s.rate_rps,
                                              core::kArrivalKinds.name(s.process),
                                              s.process == core::ArrivalKind::Gamma
                                                  ? fmt::format(", burstiness {}", s.burstiness)
                                                  : "");
            const std::string bursts = s.burst_on_s > 0 ? fmt::format("  bursts {} s on, {} s off",
                                                                      s.burst_on_s, s.burst_off_s)
                                                        : "";
            return fmt::format("{}{}  {}", rate, bursts, in_flight_text(s.max_in_flight, s.capped));
          },
          [](const Pressure& s) {
            return fmt::format(
                "concurrency {}  pressure: clients added {}", s.clients,
                s.clients_per_s > 0 ? fmt::format("at {}/s", s.clients_per_s) : "at once");
          },
          [](const TraceReplay& s) {
            return fmt::format("trace at its timestamps (x{})  {}", s.speed,
                               in_flight_text(s.max_in_flight, s.capped));
          },
          [](const Sessions& s) {
            return fmt::format("{} {} at once", s.agent_tasks ? "tasks" : "sessions", s.active);
          },
          [](const Adaptive& s) {
            return fmt::format("adaptive: concurrency {} up to {}, {} s windows", s.start, s.max,
                               s.window_s);
          }},
      shape);
  if (ramp.seconds > 0)
    out += fmt::format("  ramp-up {} s{}", ramp.seconds, ramp.measured ? " (measured)" : "");
  if (duration_s > 0) out += fmt::format("  duration {} s (grace {} s)", duration_s, grace_s);
  if (warms_connections) out += "  connections warmed";
  return out;
}

}  // namespace tokbench::runner
