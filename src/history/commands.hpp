#pragma once
// history/commands: what `tokbench history add|list|show|trend|check` do, and the run's own
// recording (run --history): formats and exit codes; the store is history/store, the judgement
// history/regression.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace tokbench::history {

struct HistoryOptions {
  std::string store;                       ///< --history ("" = $TOKBENCH_HISTORY)
  std::vector<std::string> folders;        ///< add: run folders (a series root adds its points)
  std::vector<std::string> labels;         ///< add: --label key=value
  std::vector<std::string> scenario_keys;  ///< labels that also make a scenario (--scenario-keys)
  std::vector<std::string> where;          ///< --where key=value: a scenario fact or a label
  std::string run;                         ///< show: id, run id or folder
  std::string metric;                      ///< trend
  std::vector<std::string> metrics;        ///< check: --metric (default: kCheckedMetrics)
  int baseline = 10;                       ///< check: earlier VALID runs in the baseline window
  std::string threshold = "5%";            ///< check: the smallest change that counts
  bool json = false;                       ///< check: JSON on stdout for CI
  std::string page;         ///< page: where to write it ("" = the store's path with .html)
  bool no_records = false;  ///< page: judge by the band alone, not reading the folders' records
};

/// What `history check` judges by default.
inline const std::vector<std::string> kCheckedMetrics = {"ttft.p50",
                                                         "ttft.p99",
                                                         "tpot.p50",
                                                         "tpot.p99",
                                                         "e2el.p50",
                                                         "e2el.p99",
                                                         "output_token_throughput",
                                                         "request_throughput"};

int history_add(const HistoryOptions& o, std::FILE* out);
int history_list(const HistoryOptions& o, std::FILE* out);
int history_show(const HistoryOptions& o, std::FILE* out);
int history_trend(const HistoryOptions& o, std::FILE* out);
/// Exit 3 when a scenario's newest run regressed, 0 otherwise.
int history_check(const HistoryOptions& o, std::FILE* out);
/// Writes the dashboard (history/page) and says where.
int history_page_command(const HistoryOptions& o, std::FILE* out);

/// Records a finished run folder into the store at `store` with extra labels (run --history).
/// Throws std::runtime_error naming the store and the fix; the folder is only read.
void record_run(const std::string& store, const std::filesystem::path& dir);

/// Run folders for `compare --history`: each token a folder (kept as given) or a query of the
/// store — `latest` (the newest run), `latest~K` (the K-th before it), `last:N` (the N newest,
/// oldest first), an id or a run id. A folder named twice is kept once, where first named.
/// std::invalid_argument naming the token and the forms when one matches nothing.
std::vector<std::string> resolve_runs(const std::string& store,
                                      const std::vector<std::string>& tokens);

/// "5%" or "5" (both percent) into a fraction (0.05); std::invalid_argument naming --threshold
/// otherwise.
double parse_threshold(const std::string& text);

}  // namespace tokbench::history
