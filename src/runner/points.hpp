#pragma once
// runner/points: several load points against one target — a sweep's points, a search's probes,
// a --repeats series. One root folder (logs/run.log for the target's life, the server's log) holds
// one normal run folder per point, each `report`-able alone; the target is opened once.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "runner/plan.hpp"
#include "runner/runner.hpp"

namespace spdlog {
class logger;
}

namespace tokbench::runner {

struct Target;

class PointSession {
 public:
  /// Creates the root folder and opens the target for `plan` (which learns the model, ...).
  /// `what` names the series in the log ("sweep of 3 points").
  PointSession(RunPlan& plan, std::atomic<int>& stop, std::FILE* console, const std::string& what);
  ~PointSession();

  /// Runs `point` (its cfg and requested hold that point's values) in root/<label>, a suffix
  /// added when the label is taken. Throws when the point could not run (its folder says why).
  RunOutcome run(const RunPlan& point, const std::string& label);
  /// Ctrl-C was pressed: run no more points.
  bool stopped() const;
  /// Stops the target (if tokbench started it) and returns its summary as JSON ("" if none).
  std::string close();
  const std::filesystem::path& root() const { return root_; }
  std::FILE* console() const { return console_; }
  spdlog::logger& log() { return *log_; }

 private:
  std::atomic<int>& stop_;
  std::FILE* console_;
  std::filesystem::path root_;
  std::shared_ptr<spdlog::logger> log_;
  std::unique_ptr<Target> target_;
  std::set<std::string> used_;
  std::time_t wall_;
};

}  // namespace tokbench::runner
