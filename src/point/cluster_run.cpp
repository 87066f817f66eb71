#include "point/cluster_run.hpp"

#include <fmt/format.h>
#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <ctime>
#include <random>
#include <stdexcept>

#include "cluster/watch.hpp"
#include "common/clock.hpp"
#include "common/json_fields.hpp"
#include "common/json_writer.hpp"
#include "core/run_control.hpp"
#include "measure/measure.hpp"
#include "point/stages.hpp"
#include "runfolder/run_folder.hpp"

namespace tokbench::runner {

std::string rank_health_json(const PointResult& p, int rank, const cluster::ClockSync& clock) {
  JsonWriter w;
  w.begin_object().field("rank", static_cast<int64_t>(rank));
  json::write_fields<record::ClientHealth>(w, p.client, record::kClientHealthFields);
  w.field("records_written", p.records_written).field("interrupted", p.interrupted);
  w.field("clock_offset_ns", clock.offset_ns)
      .field("clock_residual_ns", clock.residual_ns)
      .end_object();
  return w.take();
}

record::RankHealth rank_health_from_json(const std::string& json, int64_t* records_written,
                                         bool* interrupted) {
  simdjson::dom::parser parser;
  simdjson::dom::element o = parser.parse(json);
  record::RankHealth h;
  h.rank = json::int_or(o, "rank", 0);
  json::read_fields<record::ClientHealth>(o, h.client, record::kClientHealthFields);
  h.clock_offset_ns = json::int_or(o, "clock_offset_ns", 0);
  h.clock_residual_ns = json::int_or(o, "clock_residual_ns", 0);
  if (records_written) *records_written = json::int_or(o, "records_written", 0);
  if (interrupted) *interrupted = json::bool_or(o, "interrupted", false);
  return h;
}

runfolder::RunEnd combine_ends(runfolder::RunEnd e, const std::vector<record::RankHealth>& ranks,
                               int64_t records_written) {
  e.records_written = records_written;
  e.client.cpu_s = 0;
  e.client.events = 0;
  for (const auto& h : ranks) {
    e.client.cpu_s += std::max(0.0, h.client.cpu_s);
    e.client.events += std::max<int64_t>(0, h.client.events);
    e.client.measured_wall_s = std::max(e.client.measured_wall_s, h.client.measured_wall_s);
    e.client.cpu_share = std::max(
        e.client.cpu_share, h.client.cpu_share);  // each rank's busiest stretch is in its note
  }
  e.ranks = ranks;
  return e;
}

RankStart start_ranks() {
  const auto tag = static_cast<uint16_t>(std::random_device{}());
  if (cluster::world().size == 1) return {{}, std::time(nullptr), tag, {}};
  RankStart s;
  s.lifeline_problem = cluster::watch_ranks();
  s.clock = cluster::sync_clocks();
  s.wall = static_cast<std::time_t>(cluster::broadcast(static_cast<int64_t>(std::time(nullptr))));
  s.tag = static_cast<uint16_t>(cluster::broadcast(static_cast<int64_t>(tag)));
  return s;
}

std::string run_id(const RankStart& start, std::string_view label) {
  std::tm tm{};
  localtime_r(&start.wall, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
  return fmt::format("{}-{:04x}{}{}", stamp, start.tag, label.empty() ? "" : "-", label);
}

void log_rank(spdlog::logger& log, const RankStart& start) {
  const cluster::World& world = cluster::world();
  if (world.size > 1)
    log.info("rank {} of {}; clock offset to rank 0 {} ns (± {} ns)", world.rank, world.size,
             start.clock.offset_ns, start.clock.residual_ns);
  if (!start.lifeline_problem.empty()) log.warn("{}", start.lifeline_problem);
}

namespace {

// What rank 0 writes of a loss: seen_at is the wall-clock time of the moment it learned of it.
runfolder::RankLost lost_note(const cluster::RankLoss& loss, int ranks, int64_t origin) {
  const auto wall =
      std::chrono::system_clock::now() - std::chrono::nanoseconds(steady_now_ns() - loss.seen_ns);
  const std::time_t t = std::chrono::system_clock::to_time_t(wall);
  std::tm tm{};
  gmtime_r(&t, &tm);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(wall.time_since_epoch()) % 1000;
  runfolder::RankLost note;
  note.rank = loss.rank;
  note.ranks = ranks;
  note.how = loss.how;
  note.seen_at =
      fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03} UTC", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms.count());
  note.after_s = std::max<double>(0, static_cast<double>(loss.seen_ns - origin) / 1e9);
  return note;
}

}  // namespace

std::string lost_rank_reason(const runfolder::RankLost& lost, int64_t recorded) {
  std::string kept;
  for (const auto& [rank, n] : lost.kept)
    kept += fmt::format("{}rank {}: {}", kept.empty() ? "" : ", ", rank, n);
  return fmt::format(
      "rank {} of {} was lost {:.1f} s into the run ({}): {}; every rank stopped there, so the "
      "load asked for was not held. {} record(s) are here{}; rank {}'s were on its own host",
      lost.rank, lost.ranks, lost.after_s, lost.seen_at, lost.how, recorded,
      lost.collected ? fmt::format(" ({})", kept)
                     : " (what reached rank 0's disk before the run was ended: the surviving "
                       "ranks' records were never sent)",
      lost.rank);
}

void after_loss(SharedPoint& out, const cluster::RankLoss& loss,
                const std::vector<std::filesystem::path>& files, const std::filesystem::path& dir,
                int64_t origin, const cluster::ClockSync& clock, spdlog::logger& log) {
  const cluster::World& world = cluster::world();
  cluster::loss_handled();  // past the collectives: the watchdog is called off
  out.result.interrupted = true;
  log.error("rank {} of {} was lost: {}", loss.rank, world.size, loss.how);
  if (world.rank != 0) {  // the survivors' records go to rank 0 over the lifeline, then it ends
    const bool sent = cluster::ship_files(files, std::chrono::seconds(10));
    throw std::runtime_error(fmt::format(
        "rank {} was lost ({}): this rank stopped{}", loss.rank, loss.how,
        sent ? " and sent its records to rank 0" : "; its records stay in " + dir.string()));
  }
  runfolder::RankLost note = lost_note(loss, world.size, origin);
  note.kept = cluster::collect_files(files, std::chrono::seconds(10));
  note.kept[0] = out.result.records_written;
  note.collected = true;
  out.records = 0;
  for (const auto& [rank, n] : note.kept) out.records += n;
  runfolder::write_rank_lost(dir, note);
  out.ranks = {rank_health_from_json(rank_health_json(out.result, 0, clock))};
}

SharedPoint measure_point(const RunPlan& point, const Target& target,
                          runfolder::RunManifest& manifest, const std::filesystem::path& dir,
                          spdlog::logger& log, std::atomic<int>& stop, std::FILE* console,
                          const cluster::ClockSync& clock) {
  if (cluster::world().size > 1)
    return measure_shared(point, target, manifest, dir, log, stop, console, clock);
  SharedPoint one;
  one.result = measure(point, target, manifest, dir, log, stop, console);
  return one;
}

runfolder::RunEnd end_of(const SharedPoint& point,
                         const std::optional<record::ServerProcessFacts>& server_process) {
  const runfolder::RunEnd own = ended(point.result, server_process);
  return point.ranks.empty() ? own : combine_ends(own, point.ranks, point.records);
}

SharedPoint measure_shared(const RunPlan& point, const Target& target,
                           runfolder::RunManifest& manifest, const std::filesystem::path& dir,
                           spdlog::logger& log, std::atomic<int>& stop, std::FILE* console,
                           const cluster::ClockSync& clock) {
  const cluster::World& world = cluster::world();
  const bool root = world.rank == 0;
  RunPlan mine = point;  // this rank's share of the in-flight cap; the manifest keeps the whole
  if (point.cfg.load.concurrency >
      0)  // auto stays auto: each rank's open loop is uncapped, its closed loop is 1
    mine.cfg.load.concurrency =
        std::max(1, rank_share(point.cfg.load.concurrency, world.rank, world.size));
  mine.load = mine.cfg.load_shape();
  if (!root) {
    mine.cfg.output.quiet = true;
    mine.cfg.observe.server_metrics = "off";  // rank 0 watches the server
    mine.cfg.observe.telemetry.clear();       // and the devices
    mine.cfg.observe.profile_window.clear();
    mine.parsed.profile_window.reset();
  }
  const int64_t origin =
      cluster::broadcast(root ? steady_now_ns() + clock.offset_ns : 0) - clock.offset_ns;
  RankShare share{
      world.rank, world.size,
      [&clock] {
        return cluster::common_moment(steady_now_ns(), clock,
                                      20'000'000);  // 20 ms for the slowest rank
      },
      [] { cluster::gather(std::string()); }};  // rank 0 hears from every rank: all have finished
  // A lost rank (cluster/watch) while this point runs: the load stops at once on every rank, and
  // rank 0 marks the folder before anything else (the launcher may end every rank a moment later).
  cluster::on_rank_loss([&stop, dir, origin, root, size = world.size](const cluster::RankLoss& l) {
    stop.store(core::kCancelNow);
    if (root) runfolder::write_rank_lost(dir, lost_note(l, size, origin));
  });
  SharedPoint out;
  out.result = measure(mine, target, manifest, dir, log, stop, console, origin, share, &point);
  cluster::on_rank_loss(nullptr);
  const auto perf = dir / "performances" / point.cfg.output.model_abbr;
  const std::vector<std::filesystem::path> files{perf / (dataset_abbr(target) + "_details.jsonl"),
                                                 perf / (dataset_abbr(target) + "_failed.jsonl")};
  if (const auto loss = cluster::rank_lost()) {
    after_loss(out, *loss, files, dir, origin, clock, log);
    return out;
  }
  const auto healths = cluster::gather(rank_health_json(out.result, world.rank, clock));
  for (const auto& f : files) cluster::append_to_root(f);
  for (const auto& h : healths) {  // rank 0 only: the others get an empty list
    int64_t written = 0;
    bool interrupted = false;
    out.ranks.push_back(rank_health_from_json(h, &written, &interrupted));
    out.records += written;
    out.result.interrupted = out.result.interrupted || interrupted;
  }
  return out;
}

}  // namespace tokbench::runner
