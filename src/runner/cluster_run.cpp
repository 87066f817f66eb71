#include "runner/cluster_run.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>

#include "common/json_writer.hpp"

namespace tokbench::runner {

std::vector<std::string> cluster_problems(const RunConfig& cfg, int size) {
  std::vector<std::string> e;
  auto check = [&](bool ok, std::string msg) {
    if (!ok) e.push_back(fmt::format("mpirun -np {}: {}", size, msg));
  };
  check(!cfg.embedded_target() && cfg.server_cmd.empty() && cfg.deploy_sh.empty(),
        "every rank needs the server's address, and the server must already be up: pass --url (or --host and --port); "
        "the built-in simulator, --server-cmd and --deploy-sh are single-host only (start tokbench serve-mock or your "
        "server first)");
  check(cfg.sweep_points() <= 1 && cfg.search.empty() && cfg.repeats <= 1 && cfg.adaptive_window_s == 0,
        "sweeps, --search, --repeats and --adaptive-window-s are single-host for now: run one load point per mpirun");
  check(!cfg.pressure, "--pressure is single-host: its clients join one at a time on one clock");
  check(cfg.request_rate > 0 || cfg.dataset.starts_with("trace:") || cfg.concurrency >= size,
        fmt::format("--concurrency {} is split across the ranks (a closed loop): give at least one per rank ({})",
                    cfg.concurrency, size));
  return e;
}

int rank_share(int total, int rank, int size) { return total / size + (rank < total % size ? 1 : 0); }

std::string rank_health_json(const PointResult& p, int rank, const cluster::ClockSync& clock) {
  JsonWriter w;
  w.begin_object().field("rank", static_cast<int64_t>(rank)).field("client_cpu_s", p.client_cpu_s);
  w.field("client_cpu_share", p.client_cpu_share).field("measured_wall_s", p.measured_wall_s);
  w.field("client_peak_busy", p.client_peak_busy).field("client_sse_events", p.client_events);
  w.field("records_written", p.records_written).field("interrupted", p.interrupted);
  w.field("clock_offset_ns", clock.offset_ns).field("clock_residual_ns", clock.residual_ns).end_object();
  return w.take();
}

RankHealth rank_health_from_json(const std::string& json, int64_t* records_written, bool* interrupted) {
  simdjson::dom::parser parser;
  simdjson::dom::element o = parser.parse(json);
  RankHealth h;
  h.rank = o["rank"].get_int64().value();
  h.cpu_s = o["client_cpu_s"].get_double().value();
  h.cpu_share = o["client_cpu_share"].get_double().value();
  h.wall_s = o["measured_wall_s"].get_double().value();
  h.peak_busy = o["client_peak_busy"].get_double().value();
  h.events = o["client_sse_events"].get_int64().value();
  h.clock_offset_ns = o["clock_offset_ns"].get_int64().value();
  h.clock_residual_ns = o["clock_residual_ns"].get_int64().value();
  if (records_written) *records_written = o["records_written"].get_int64().value();
  if (interrupted) *interrupted = o["interrupted"].get_bool().value();
  return h;
}

RunEnd combine_ends(RunEnd e, const std::vector<RankHealth>& ranks, int64_t records_written) {
  e.records_written = records_written;
  e.client_cpu_s = 0;
  e.client_events = 0;
  for (const auto& h : ranks) {
    e.client_cpu_s += std::max(0.0, h.cpu_s);
    e.client_events += h.events;
    e.measured_wall_s = std::max(e.measured_wall_s, h.wall_s);
    e.client_cpu_share = std::max(e.client_cpu_share, h.cpu_share);  // each rank's busiest stretch is in its note
  }
  e.ranks = ranks;
  return e;
}

}  // namespace tokbench::runner
