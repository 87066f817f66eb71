#include "point/points.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <optional>
#include <stdexcept>

#include "common/abbreviate.hpp"
#include "core/run_control.hpp"
#include "measure/measure.hpp"
#include "point/cluster_run.hpp"
#include "point/resume.hpp"
#include "point/stages.hpp"
#include "report/tables.hpp"
#include "runfolder/files.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

// "c8: VALID  400 of 400 ok, 200.12 req/s, output 51229 token/s, TTFT P99 2.637 ms, TPOT P99
// 0.186 ms"; when it is not VALID, without its output rate (not a figure to quote) and with its
// first reason's headline, in one line of 120 columns where it fits (a search prints a line a
// probe, and its page and folders hold every reason whole). A series' own words (a search's pass
// or fail and SLO values) follow the status and stand in for the P99s.
std::string point_line(const std::string& name, const RunOutcome& out,
                       const std::optional<PointWords>& words) {
  const char* said = out.exit_code == kExitDiskStopped ? "STOPPED (the disk refused a record)"
                     : out.interrupted                 ? "INTERRUPTED"
                                                       : metrics::verdict_status(out.verdict);
  std::string line = fmt::format("{}: {}", name, said);
  if (words && !words->mark.empty()) line += "  " + words->mark;
  const metrics::MetricSet& m = out.metrics;
  auto common = [&](const char* key) -> std::optional<double> {
    const metrics::Common* c = m.common_metric(key);
    return c && c->known ? std::optional<double>(c->value) : std::nullopt;
  };
  if (const auto total = common("total_requests"); total && *total > 0) {
    line += fmt::format("  {:.0f} of {:.0f} ok, {} req/s", common("success_requests").value_or(0),
                        *total, report::format_short(common("request_throughput").value_or(0)));
    if (const auto out_tps = common("output_token_throughput");
        out_tps && *out_tps > 0 && out.verdict.valid)
      line += fmt::format(", output {} token/s", report::format_short(*out_tps));
    if (words) {
      if (!words->figures.empty()) line += ", " + words->figures;
    } else {
      for (const char* row : {"TTFT", "TPOT"})
        if (const auto p99 = metrics::row_statistic(m, row, "p99"))
          line += fmt::format(", {} P99 {} ms", row, report::format_short(*p99));
    }
  }
  const auto& reasons = out.verdict.reasons;
  if (reasons.empty()) return line;
  const std::string more =
      reasons.size() > 1 ? fmt::format(" (+{} more reason(s))", reasons.size() - 1) : "";
  const size_t used = line.size() + 2 + more.size();  // the figures are ASCII
  line += "; " + headline(reasons.front(), used < kConsoleWidth - 30 ? kConsoleWidth - used : 30);
  return line + more;
}

}  // namespace

PointSession::PointSession(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                           const std::string& what, SeriesOptions options)
    : stop_(stop), console_(console), options_(std::move(options)) {
  start_ = std::make_unique<RankStart>(start_ranks());
  const bool resume = options_.resume;
  if (cluster::world().rank == 0 && !options_.root.empty()) {  // a grid's server point, or --resume
    root_ = options_.root;
    for (const char* sub : {"configs", "logs", "performances"}) fs::create_directories(root_ / sub);
  } else if (cluster::world().rank == 0) {
    root_ = runfolder::make_run_dir(plan.cfg.output.output_dir, start_->wall);
  } else {
    root_ = scratch_dir("series");
    quiet_ = std::fopen("/dev/null", "w");
    console_ = quiet_;
  }
  // A point's whole summary only with --verbose: by default each point says one line (the first
  // also the target and its request body), so a sweep of four points stays one screen; every
  // point's folder holds all, and `tokbench report` prints it.
  point_console_ = console_;
  if (!plan.cfg.output.verbose && !quiet_) {
    quiet_ = std::fopen("/dev/null", "w");
    point_console_ = quiet_ ? quiet_ : console_;
  }
  announce_ = plan.cfg.output.quiet ? point_console_ : console_;
  log_ = make_logger(root_, resume);
  log_->info("{}{}: {}", resume ? "resumed: " : "", what, plan.requested.to_json());
  if (cluster::world().rank == 0 && !resume) write_series_record(root_, plan.requested.to_json());
  log_rank(*log_, *start_);
  target_ = open_logged(plan, root_, *log_, console_);
  base_ = std::make_unique<RunPlan>(plan);
}

PointSession::~PointSession() {
  if (quiet_) std::fclose(quiet_);
}

bool PointSession::stopped() const {
  return stop_.load() != core::kRunning || cluster::rank_lost().has_value();
}

RunOutcome PointSession::run(const PointSpec& spec) {
  const cluster::World& world = cluster::world();
  if (const auto loss = cluster::rank_lost())  // between points: no point runs on fewer ranks
    throw std::runtime_error(fmt::format("rank {} of {} was lost before point {} ({})", loss->rank,
                                         world.size, spec.label, loss->how));
  // The other ranks run the same spec on the same plan: the point is the same there by type.
  if (world.size > 1) cluster::broadcast(spec_text(spec));
  try {
    return run_here(spec);
  } catch (const std::exception& e) {
    if (world.size == 1) throw;
    fmt::print(stderr, "tokbench (rank 0 of {}): point {} could not run: {}\n", world.size,
               spec.label, e.what());
    std::fflush(stderr);
    cluster::abort(1);  // the other ranks wait for this point's records: end them all
  }
}

void PointSession::serve() {
  while (true) {
    const std::string message = cluster::broadcast(std::string());
    if (message.empty()) return;  // rank 0 closed the series
    (void)run_here(spec_from_text(message));
  }
}

RunOutcome PointSession::run_here(const PointSpec& spec) {
  const cluster::World& world = cluster::world();
  const RunPlan point = at(spec);
  const std::string& label = spec.label;
  std::string name = label;
  for (int k = 2; used_.count(name); ++k)
    name = fmt::format("{}-{}", label, k);  // a repeated value: its own folder
  used_.insert(name);
  const fs::path dir = root_ / name;
  if (options_.resume && world.rank == 0 && fs::exists(dir)) {
    if (auto done = completed_point(dir)) {
      done->label = name;
      resumed_.push_back(name);
      fmt::print(console_, "{}: resumed (VALID in its folder; not run again)\n", name);
      std::fflush(console_);
      log_->info("point {} resumed from its folder", name);
      if (options_.on_point) options_.on_point(point, *done);
      return *done;
    }
    const fs::path aside = set_aside(dir);
    fmt::print(console_, "{}: did not complete VALID; kept as {} and run again\n", name,
               aside.filename().string());
    log_->info("point {}: unfinished folder kept as {}; run again", name, aside.string());
  }
  if (point.cfg.experiment.reset_prefix_cache && world.rank == 0) reset_cache(point);
  for (const char* sub : {"configs", "logs", "performances"}) fs::create_directories(dir / sub);
  auto log = make_logger(dir);
  runfolder::RunManifest manifest = asked(point, start_->wall);
  manifest.info.run_id = run_id(*start_, name);
  runfolder::write_manifest(dir, manifest);
  std::FILE* header = header_said_ ? point_console_ : announce_;  // the first point run here
  header_said_ = true;
  const SharedPoint shared =
      measure_point(point, *target_, manifest, dir, *log, stop_, header, start_->clock);
  RunOutcome out;
  if (world.rank == 0) {
    runfolder::write_end(dir, end_of(shared, std::nullopt));
    out = conclude(point, dir, shared.result, *log, point_console_);
    disk_stopped_ |= out.exit_code == kExitDiskStopped;
    if (point_console_ != console_) {  // one line a point
      fmt::print(console_, "{}\n",
                 point_line(name, out,
                            options_.point_words ? std::optional(options_.point_words(out))
                                                 : std::nullopt));
      std::fflush(console_);
    }
  } else {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  log_->info("point {} done", name);
  out.label = name;
  if (world.rank == 0 && options_.on_point) options_.on_point(point, out);
  return out;
}

void PointSession::reset_cache(const RunPlan& point) {
  if (!cache_reset_missing_.empty()) return;  // said once: the server has none
  cache_reset_missing_ = reset_prefix_cache(*target_, point, *log_);
  if (cache_reset_missing_.empty()) return;
  fmt::print(console_, "--reset-prefix-cache: {}; the points run with whatever the cache holds\n",
             cache_reset_missing_);
  std::fflush(console_);
}

RunOutcome PointSession::finish(const std::function<RunOutcome()>& write) {
  if (!disk_stopped_) return write();
  RunOutcome out;
  try {
    out = write();
  } catch (const std::exception& e) {
    out.run_dir = root_;
    out.interrupted = true;
    out.verdict.valid = false;
    out.verdict.reasons.push_back(
        fmt::format("the summary could not be written either ({})", e.what()));
  }
  fmt::print(
      console_,
      "stopped: the disk refused a record, so the series stopped at that point; free space, then "
      "run `tokbench report {}`\n",
      root_.string());
  std::fflush(console_);
  log_->error("the disk refused a record: the series stopped");
  out.exit_code = kExitDiskStopped;
  return out;
}

std::optional<record::ServerProcessFacts> PointSession::close() {
  const cluster::World& world = cluster::world();
  if (world.size > 1 && world.rank == 0 && !announced_end_) {
    cluster::broadcast(std::string());  // the series is over
    announced_end_ = true;
  }
  if (!target_) return std::nullopt;
  const auto server_process = close_target(*target_, root_, *log_, console_);
  target_.reset();
  std::error_code ec;
  if (world.rank != 0) {
    fs::remove_all(root_, ec);
    return server_process;
  }
  for (const char* sub :
       {"configs",
        "performances"}) {  // the points hold these; the root keeps logs/ and its summary
    if (fs::is_empty(root_ / sub, ec)) fs::remove(root_ / sub, ec);
  }
  return server_process;
}

RunOutcome serve_points(RunPlan& plan, std::atomic<int>& stop, std::FILE* console) {
  PointSession session(plan, stop, console,
                       fmt::format("rank {}: the points rank 0 sends", cluster::world().rank));
  session.serve();
  session.close();
  return {};
}

}  // namespace tokbench::runner
