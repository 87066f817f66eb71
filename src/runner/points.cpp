#include "runner/points.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <stdexcept>

#include "client/engine.hpp"
#include "probe/cache_reset.hpp"
#include "runfolder/files.hpp"
#include "runner/cluster_run.hpp"
#include "runner/resume.hpp"
#include "runner/stages.hpp"
#include "runner/target.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

PointSession::PointSession(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                           const std::string& what)
    : stop_(stop), console_(console) {
  start_ = start_ranks();
  resume_ = plan.resume;
  if (cluster::world().rank == 0 &&
      !plan.series_root.empty()) {  // a grid's server point, or --resume
    root_ = plan.series_root;
    for (const char* sub : {"configs", "logs", "performances"}) fs::create_directories(root_ / sub);
  } else if (cluster::world().rank == 0) {
    root_ = runfolder::make_run_dir(plan.cfg.output_dir, start_.wall);
  } else {
    root_ = scratch_dir("series");
    quiet_ = std::fopen("/dev/null", "w");
    console_ = quiet_;
  }
  point_console_ = console_;
  if (plan.cfg.quiet && !quiet_) {
    quiet_ = std::fopen("/dev/null", "w");
    point_console_ = quiet_ ? quiet_ : console_;
  }
  log_ = make_logger(root_, resume_);
  log_->info("{}{}: {}", resume_ ? "resumed: " : "", what, plan.requested.to_json());
  if (cluster::world().rank == 0 && !resume_) write_series_record(root_, plan.requested.to_json());
  log_rank(*log_, start_);
  target_ = std::make_unique<Target>(open_logged(plan, root_, *log_, console_));
  base_ = std::make_unique<RunPlan>(plan);
}

PointSession::~PointSession() {
  if (quiet_) std::fclose(quiet_);
}

bool PointSession::stopped() const { return stop_.load() != client::kRunning; }

RunOutcome PointSession::run(const RunPlan& point, const std::string& label) {
  const cluster::World& world = cluster::world();
  if (world.size > 1) {
    const PointLoad load = load_of(point, label);
    // The other ranks rebuild the point from its load alone: a point that differs in anything
    // else would be measured as something else there.
    if (with_load(*base_, load).cfg.to_json() != point.cfg.to_json())
      throw std::logic_error(fmt::format(
          "point {} varies a setting the other ranks are not sent (runner/cluster_run PointLoad)",
          label));
    cluster::broadcast(point_message(load));
  }
  try {
    return run_here(point, label);
  } catch (const std::exception& e) {
    if (world.size == 1) throw;
    fmt::print(stderr, "tokbench (rank 0 of {}): point {} could not run: {}\n", world.size, label,
               e.what());
    std::fflush(stderr);
    cluster::abort(1);  // the other ranks wait for this point's records: end them all
  }
}

void PointSession::serve() {
  while (true) {
    const std::string message = cluster::broadcast(std::string());
    if (message.empty()) return;  // rank 0 closed the series
    const PointLoad load = point_from_message(message);
    (void)run_here(with_load(*base_, load), load.label);
  }
}

RunOutcome PointSession::run_here(const RunPlan& point, const std::string& label) {
  const cluster::World& world = cluster::world();
  std::string name = label;
  for (int k = 2; used_.count(name); ++k)
    name = fmt::format("{}-{}", label, k);  // a repeated value: its own folder
  used_.insert(name);
  const fs::path dir = root_ / name;
  if (resume_ && world.rank == 0 && fs::exists(dir)) {
    if (auto done = completed_point(dir)) {
      done->label = name;
      resumed_.push_back(name);
      fmt::print(console_, "{}: resumed (VALID in its folder; not run again)\n", name);
      std::fflush(console_);
      log_->info("point {} resumed from its folder", name);
      if (base_->on_point) base_->on_point(point.cfg, *done);
      return *done;
    }
    const fs::path aside = set_aside(dir);
    fmt::print(console_, "{}: did not complete VALID; kept as {} and run again\n", name,
               aside.filename().string());
    log_->info("point {}: unfinished folder kept as {}; run again", name, aside.string());
  }
  if (point.cfg.reset_prefix_cache && world.rank == 0) reset_cache(point);
  for (const char* sub : {"configs", "logs", "performances"}) fs::create_directories(dir / sub);
  auto log = make_logger(dir);
  runfolder::RunManifest manifest = asked(point, start_.wall);
  manifest.info.run_id = run_id(start_, name);
  runfolder::write_manifest(dir, manifest);
  const SharedPoint shared =
      measure_point(point, *target_, manifest, dir, *log, stop_, point_console_, start_.clock);
  RunOutcome out;
  if (world.rank == 0) {
    runfolder::write_end(dir, end_of(shared, std::nullopt));
    out = conclude(point, dir, shared.result, *log, point_console_);
    disk_stopped_ |= out.exit_code == kExitDiskStopped;
    if (point_console_ != console_) {  // --quiet: one line a point
      std::string why;
      for (const auto& r : out.verdict.reasons) why += (why.empty() ? "  " : "; ") + r;
      const char* said = out.exit_code == kExitDiskStopped ? "STOPPED (the disk refused a record)"
                         : out.interrupted                 ? "INTERRUPTED"
                                                           : metrics::verdict_status(out.verdict);
      fmt::print(console_, "{}: {}{}\n", name, said, why);
      std::fflush(console_);
    }
  } else {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  log_->info("point {} done", name);
  out.label = name;
  if (world.rank == 0 && base_->on_point) base_->on_point(point.cfg, out);
  return out;
}

void PointSession::reset_cache(const RunPlan& point) {
  if (!cache_reset_missing_.empty()) return;  // said once: the server has none
  const probe::CacheReset r =
      probe::reset_prefix_cache(target_->url, point.cfg.headers, point.cfg.api_key, point.tls);
  if (r.done) {
    log_->info("prefix cache reset ({})", r.how);
    return;
  }
  cache_reset_missing_ = r.how;
  fmt::print(console_, "--reset-prefix-cache: {}; the points run with whatever the cache holds\n",
             r.how);
  std::fflush(console_);
  log_->warn("--reset-prefix-cache: {}", r.how);
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
  const auto server_process = target_->close(root_, *log_, console_);
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
