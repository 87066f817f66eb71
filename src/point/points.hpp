#pragma once
// point/points: the point runner that series/ builds on — several load points against one
// target (a sweep's points, a search's probes, a --repeats series), and one point alone. One root
// folder (logs/run.log for the target's life, the server's log) holds one normal run folder per
// point, each `report`-able alone; the target is opened once. Under mpirun a session is open on
// every rank: rank 0's sends each point's spec to the others (serve_points), and every rank
// measures its share of it (point/cluster_run.hpp). A point is a PointSpec (plan/plan): the
// session's plan at that spec is the whole point, on every rank.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "point/outcome.hpp"
#include "record/run_parts.hpp"

namespace spdlog {
class logger;
}

namespace tokbench::runner {

struct Target;
struct RankStart;

/// logs/run.log of a run folder.
/// `append`: keep what an earlier run wrote there (a resumed series).
std::shared_ptr<spdlog::logger> make_logger(const std::filesystem::path& run_dir,
                                            bool append = false);

/// One load point in its own run folder (no experiment around it). Under mpirun every rank runs
/// it with the same flags: rank 0 writes the folder; the others measure their shares in scratch
/// folders of their own, removed at the end, and say nothing (point/cluster_run.hpp).
RunOutcome run_single(RunPlan& plan, std::atomic<int>& stop, std::FILE* console);

/// What a concluded point's folder is handed to besides the console: the results store (--history,
/// whose value is `history`, or $TOKBENCH_HISTORY), which point/ does not reach; the command line
/// sets it (cli/run_command). Called on rank 0 once the folder's result.json is written; it says
/// its own failures (the folder and the run's exit code stay as they are) and must not throw.
using FolderKeeper = std::function<void(const std::string& history,
                                        const std::filesystem::path& dir, spdlog::logger& log)>;
void keep_folders_with(FolderKeeper keeper);

/// A series' own words in a point's console line: after its status ("pass"), and in place of its
/// TTFT and TPOT P99s ("ttft.p99 1.829 ms, tpot.p90 0.064 ms").
struct PointWords {
  std::string mark;
  std::string figures;
};

/// What an experiment around a series sets (series/grid, --resume); a plain series leaves them be.
struct SeriesOptions {
  /// The series' root chosen by the caller (a grid's server point, --resume); "" = a new
  /// timestamped folder under --output-dir.
  std::filesystem::path root;
  /// Reuse the point folders under `root` that completed VALID; re-run the others.
  bool resume = false;
  /// Called on rank 0 with every finished point of the series, run or resumed (a grid's rows).
  std::function<void(const RunPlan& point, const RunOutcome& outcome)> on_point;
  /// What a point's console line says in place of its TTFT and TPOT P99s (a search: pass or fail
  /// and each SLO's value, so the probes need no table of their own); unset: those P99s.
  std::function<PointWords(const RunOutcome& outcome)> point_words;
};

class PointSession {
 public:
  /// Creates the root folder (a rank other than 0: a scratch one) and opens the target for
  /// `plan` (which learns the model, ...). `what` names the series in the log ("sweep of 3
  /// points"). Under mpirun every rank makes its session at the same step (it aligns the clocks).
  PointSession(RunPlan& plan, std::atomic<int>& stop, std::FILE* console, const std::string& what,
               SeriesOptions options = {});
  ~PointSession();

  /// The session's plan at `spec`: what run(spec) measures.
  RunPlan at(const PointSpec& spec) const { return at_point(*base_, spec); }
  /// Runs the point `spec` names in root/<its label>, a suffix added when the label is taken.
  /// Throws when the point could not run (its folder says why). Under mpirun (rank 0): the other
  /// ranks are sent the spec and run their shares; a point that cannot run ends every rank (the
  /// others would wait for it), the points before it staying in their folders.
  RunOutcome run(const PointSpec& spec);
  /// A rank other than 0: runs each point rank 0 sends until it says the series is over.
  void serve();
  /// Ctrl-C was pressed, or the disk refused a point's records: run no more points.
  bool stopped() const;
  /// A point's details file was refused (its exit code was kExitDiskStopped).
  bool disk_stopped() const { return disk_stopped_; }
  /// The series' summary, written by `write`: when the disk stopped a point, a summary the disk
  /// refuses too is said (with the fix) rather than thrown, the series ends with exit 5, and the
  /// line saying why is printed even under --quiet.
  RunOutcome finish(const std::function<RunOutcome()>& write);
  /// Stops the target (if tokbench started it) and returns how its server went (nullopt: none
  /// started). Under mpirun rank 0 tells the other ranks the series is over.
  std::optional<record::ServerProcessFacts> close();
  const std::filesystem::path& root() const { return root_; }
  std::FILE* console() const { return console_; }
  /// Where a point's own header, tables and paths go: the console with --verbose, else nowhere
  /// (each point then says one line, and the series its summary).
  std::FILE* point_console() const { return point_console_; }
  spdlog::logger& log() { return *log_; }
  /// --resume: the points read back from their folders rather than run.
  const std::vector<std::string>& resumed() const { return resumed_; }

 private:
  RunOutcome run_here(const PointSpec& spec);
  void reset_cache(const RunPlan& point);  ///< --reset-prefix-cache, before a point

  std::atomic<int>& stop_;
  std::FILE* console_;
  std::FILE* quiet_ = nullptr;  // a rank other than 0 says nothing
  std::FILE* point_console_ = nullptr;
  std::FILE* announce_ = nullptr;  // the first point's target and body: the console unless --quiet
  bool header_said_ = false;
  std::filesystem::path root_;
  std::shared_ptr<spdlog::logger> log_;
  std::shared_ptr<Target> target_;  // opaque here (measure/measure); the session its only owner
  std::unique_ptr<RunPlan> base_;   // the plan as opened: what every point's load is applied to
  std::set<std::string> used_;
  std::unique_ptr<RankStart> start_;  // the clock against rank 0's, the series' wall-clock start
  bool announced_end_ = false;
  bool disk_stopped_ = false;
  SeriesOptions options_;  // options_.resume: --resume (or a resumed grid's server point)
  std::vector<std::string> resumed_;
  std::string cache_reset_missing_;  // why the server could not reset its prefix cache (said once)
};

/// A rank other than 0 of a multi-host series: its session, serving rank 0's points.
RunOutcome serve_points(RunPlan& plan, std::atomic<int>& stop, std::FILE* console);

}  // namespace tokbench::runner
