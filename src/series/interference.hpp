#pragma once
// series/interference: `--interference` with two --class or more — how much the classes slow each
// other on one server (issue 43, item 3). Round by round (--repeats rounds): each class alone
// (folder alone-<class>-run-K: its load only, drawn from the same seed as beside the others),
// then every class together (together-run-K). For each class, four figures — TTFT P99, TPOT
// mean, E2EL mean (ms) and its output tokens/s — give one round's slowdown: together ÷ alone for
// a latency, alone ÷ together for the throughput, so above 1 always means slower beside the
// others. The matrix is each class's mean slowdown over the rounds ± Student's t interval: a
// round's runs are paired (minutes apart on the same server), so drift between rounds falls out
// of each ratio. interference/summary.json and summary.csv are rewritten after every run (a
// killed series keeps what it measured), and `report` on the root rebuilds them from the folders.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "point/outcome.hpp"
#include "point/points.hpp"
#include "record/run_parts.hpp"

namespace tokbench::runner {

/// One figure of the matrix: its key in the summary, its column, and which way is better.
struct InterferenceFigure {
  const char* key;    ///< "ttft_p99_ms" (series/repeats' headline key)
  const char* label;  ///< "TTFT P99" (the matrix's column)
  const char* brief;  ///< "TTFT P99", "TPOT", "" (the means' line, before the values)
  const char* unit;   ///< "ms", "tok/s"
  bool throughput;    ///< higher is better: its slowdown is alone ÷ together
};
const std::vector<InterferenceFigure>& interference_figures();

/// A run of the series: its round (1-based) and the class it ran alone ("" = every class).
struct InterferenceRun {
  int round = 1;
  std::string alone;
  std::string folder() const;  ///< "alone-chat-run-2", "together-run-2"
};
/// Every run of `rounds` rounds over `classes`, in the order they run.
std::vector<InterferenceRun> interference_runs(const std::vector<std::string>& classes, int rounds);

class InterferenceSummary {
 public:
  InterferenceSummary(std::filesystem::path root, std::vector<std::string> classes, int rounds,
                      double level);
  /// A finished run: its classes' figures (RunOutcome::class_metrics), its verdict.
  void add(const InterferenceRun& run, const RunOutcome& outcome);
  void stopped() { code_ = 1; }  ///< a run could not be made: the series is short
  /// interference/summary.{json,csv} as they stand (`complete`: every run was added).
  void write(const std::optional<record::ServerProcessFacts>& server_process) const;
  /// Writes the summary, prints the matrix; the exit code is the worst run's (as --repeats).
  RunOutcome finish(const std::optional<record::ServerProcessFacts>& server_process,
                    bool interrupted, std::FILE* console);

  /// One class's figure: each round's value alone and together, each round's slowdown.
  struct Cell {
    std::vector<std::optional<double>> alone, together;  ///< by round
    /// Each round's slowdown, of the rounds with both values above 0.
    std::vector<double> slowdowns(bool throughput) const;
  };
  const Cell& cell(const std::string& cls, const char* figure) const;

 private:
  std::filesystem::path root_;
  std::vector<std::string> classes_;
  int rounds_;
  double level_;
  std::map<std::string, std::map<std::string, Cell>> cells_;  ///< class → figure key → cell
  struct Done {
    InterferenceRun run;
    std::string verdict;
  };
  std::vector<Done> done_;
  int64_t fewest_ttft_ = INT64_MAX;  ///< the fewest TTFTs of a class in one run (P99's samples)
  int code_ = 0;
  bool disk_stopped_ = false;
  bool complete() const;
};

RunOutcome run_interference(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                            const SeriesOptions& options = {});

}  // namespace tokbench::runner
