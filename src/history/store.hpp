#pragma once
// history/store: the results store — an SQLite index of run folders, never the truth (the folders
// are; `tokbench history add` rebuilds it from them). Table `runs`: one row per run folder (its
// identity, scenario facts, verdict, labels as JSON); table `metrics`: (run, name, value). WAL mode
// and a busy timeout let several runs record at once; a store written by a newer tokbench, a
// damaged one or a locked one is a clear error (history/sqlite), and the run folder is never
// touched.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "history/entry.hpp"
#include "history/sqlite.hpp"

namespace tokbench::history {

/// The store's schema version (PRAGMA user_version): a store with a larger one is refused.
inline constexpr int kSchemaVersion = 1;

struct StoredRun {
  int64_t id = 0;  ///< the row id: `history show ID`
  Entry entry;     ///< without its metrics (see Store::metric)
};

class Store {
 public:
  /// Opens the store at `path`; `create` makes it (and its schema) when absent.
  Store(const std::string& path, bool create);

  /// Records a run folder's entry (replacing the row of the same folder): its id.
  int64_t record(const Entry& e);
  /// Every run, oldest first (by start time, then id).
  std::vector<StoredRun> runs();
  /// One run with its metrics, by id, run id or folder; nullopt when none matches.
  std::optional<StoredRun> find(const std::string& key, bool with_metrics = true);
  /// A metric's value per run id (runs without it are absent).
  std::map<int64_t, double> metric(const std::string& name);

 private:
  void migrate();
  Database db_;
};

/// The store's path: `flag` when given, else $TOKBENCH_HISTORY; std::invalid_argument naming both
/// when neither.
std::string store_path(const std::string& flag);

}  // namespace tokbench::history
