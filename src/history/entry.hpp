#pragma once
// history/entry: what the results store keeps of one run folder — its identity, the facts that
// make runs comparable (its scenario), its verdict, its labels and its statistics — read from the
// folder's result.json, so the store can always be rebuilt from the folders (they stay the truth).
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace tokbench::history {

struct Entry {
  std::string folder;  ///< absolute path of the run folder (the store's key)
  std::string run_id,
      parent;  ///< parent: the sweep, search or repeats root it is a point of ("" for none)
  std::string started_at, tokbench_version,
      target;  ///< target: the URL as the folder has it (secrets removed)
  std::string model, api, dataset;
  int64_t input_len = 0, output_len = 0, max_tokens = 0, concurrency = 0;
  bool stream = true;
  double request_rate = 0;                                  ///< 0 = closed loop
  std::string verdict;                                      ///< VALID, INVALID or INTERRUPTED
  std::vector<std::pair<std::string, std::string>> labels;  ///< --label key=value, sorted by key
  std::vector<std::pair<std::string, double>>
      metrics;  ///< e.g. ("tpot.p99", 10.4), ("output_token_throughput", 812)

  bool valid() const { return verdict == "VALID"; }
  /// The label's value, "" when the run has none.
  std::string label(const std::string& key) const;
};

/// Reads a run folder's result.json. Throws std::runtime_error naming the folder and the fix when
/// it is not a finished run folder.
Entry read_entry(const std::filesystem::path& dir);

/// "key=value" into (key, value); std::invalid_argument naming `flag` when it is not that shape.
std::pair<std::string, std::string> parse_label(const std::string& text, const std::string& flag);
/// Adds or replaces labels, keeping them sorted by key.
void set_labels(Entry& e, const std::vector<std::pair<std::string, std::string>>& labels);

/// The scenario: what makes runs comparable — model, API, dataset, lengths, stream, load point,
/// and the labels named in `label_keys` — as one line ("model=m api=chat ... concurrency=8").
std::string scenario(const Entry& e, const std::vector<std::string>& label_keys);

/// A metric's store name from a result.json row and statistic: ("TPOT", "median") -> "tpot.p50".
std::string metric_name(std::string_view row, std::string_view stat);

}  // namespace tokbench::history
