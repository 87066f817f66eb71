#include "history/store.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "common/abbreviate.hpp"
#include "common/json_writer.hpp"

namespace tokbench::history {

namespace {

constexpr const char* kColumns =
    "id, folder, run_id, parent, started_at, tokbench_version, target, model, api, dataset, "
    "input_len, output_len, "
    "max_tokens, stream, concurrency, request_rate, verdict, labels";

StoredRun row_of(const Statement& s) {
  StoredRun r;
  r.id = s.integer(0);
  Entry& e = r.entry;
  e.folder = s.text(1);
  e.run_id = s.text(2);
  e.parent = s.text(3);
  e.started_at = s.text(4);
  e.tokbench_version = s.text(5);
  e.target = s.text(6);
  e.model = s.text(7);
  e.api = s.text(8);
  e.dataset = s.text(9);
  e.input_len = s.integer(10);
  e.output_len = s.integer(11);
  e.max_tokens = s.integer(12);
  e.stream = s.integer(13) != 0;
  e.concurrency = s.integer(14);
  e.request_rate = s.real(15);
  e.verdict = s.text(16);
  simdjson::dom::parser p;
  simdjson::dom::object o;
  const std::string labels = s.text(17);
  if (!p.parse(labels).get_object().get(o)) {
    for (auto f : o) {
      std::string_view v;
      if (!f.value.get_string().get(v)) e.labels.emplace_back(std::string(f.key), std::string(v));
    }
  }
  return r;
}

std::string now_utc() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

}  // namespace

std::string store_path(const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* env = std::getenv("TOKBENCH_HISTORY");
  if (env && *env) return env;
  throw std::invalid_argument(
      "no results store: pass --history PATH (an SQLite file, made on first use) or set "
      "TOKBENCH_HISTORY");
}

Store::Store(const std::string& path, bool create) : db_(path, create) { migrate(); }

namespace {
constexpr std::string_view kTables[] = {"runs", "metrics"};
constexpr const char* kRebuild =
    "move it aside and rebuild it from the run folders (tokbench history add OUTPUT_DIR/* "
    "--history NEW.db)";
}  // namespace

void Store::migrate() {
  int64_t version = 0;
  std::vector<std::string> tables;
  {  // finalized before the write: a statement still open holds a read that could not become a
     // write
    Statement v = db_.prepare("PRAGMA user_version");
    version = v.step() ? v.integer(0) : 0;
    Statement t = db_.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name");
    while (t.step()) tables.push_back(t.text(0));
  }
  const auto ours = [](const std::string& t) {
    return std::find(std::begin(kTables), std::end(kTables), t) != std::end(kTables);
  };
  // An SQLite file of something else: tokbench never adds its tables to it.
  if (version == 0 && !std::all_of(tables.begin(), tables.end(), ours)) {
    std::string names;
    for (size_t i = 0; i < tables.size() && i < 5; ++i)
      names += (i ? ", " : "") + printable(tables[i]);
    throw std::runtime_error(fmt::format(
        "results store '{}' is an SQLite database of something else (its tables: {}{}): "
        "tokbench will not add its own to it; give --history a new file",
        db_.path(), names, tables.size() > 5 ? ", ..." : ""));
  }
  if (version >= 1 && version <= kSchemaVersion) {
    for (std::string_view t : kTables)
      if (!std::any_of(tables.begin(), tables.end(), [&](const std::string& x) { return x == t; }))
        throw std::runtime_error(
            fmt::format("results store '{}' is damaged: its table '{}' is missing: {}", db_.path(),
                        t, kRebuild));
  }
  if (version > kSchemaVersion) {
    throw std::runtime_error(fmt::format(
        "results store '{}' was written by a newer tokbench (schema {}; this one reads up to "
        "{}): use that tokbench, or rebuild a store for this one with tokbench history add",
        db_.path(), version, kSchemaVersion));
  }
  if (version == kSchemaVersion) return;
  Transaction t(db_);
  db_.exec(
      "CREATE TABLE IF NOT EXISTS runs ("
      " id INTEGER PRIMARY KEY, folder TEXT NOT NULL UNIQUE, run_id TEXT NOT NULL, parent TEXT NOT "
      "NULL,"
      " started_at TEXT NOT NULL, recorded_at TEXT NOT NULL, tokbench_version TEXT NOT NULL, "
      "target TEXT NOT NULL,"
      " model TEXT NOT NULL, api TEXT NOT NULL, dataset TEXT NOT NULL, input_len INTEGER NOT NULL,"
      " output_len INTEGER NOT NULL, max_tokens INTEGER NOT NULL, stream INTEGER NOT NULL, "
      "concurrency INTEGER NOT NULL,"
      " request_rate REAL NOT NULL, verdict TEXT NOT NULL, labels TEXT NOT NULL)");
  db_.exec(
      "CREATE TABLE IF NOT EXISTS metrics ("
      " run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, name TEXT NOT NULL, value REAL "
      "NOT NULL,"
      " PRIMARY KEY (run, name))");
  db_.exec("CREATE INDEX IF NOT EXISTS metrics_by_name ON metrics(name)");
  db_.exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion));
  t.commit();
}

int64_t Store::record(const Entry& e) {
  JsonWriter labels;
  labels.begin_object();
  for (const auto& [k, v] : e.labels) labels.field(k, v);
  labels.end_object();
  Transaction t(db_);
  db_.prepare("DELETE FROM runs WHERE folder = ?1")
      .bind(1, e.folder)
      .step();  // its metrics go with it
  Statement ins = db_.prepare(
      "INSERT INTO runs (folder, run_id, parent, started_at, recorded_at, tokbench_version, "
      "target, model, api, dataset,"
      " input_len, output_len, max_tokens, stream, concurrency, request_rate, verdict, labels)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)");
  ins.bind(1, e.folder)
      .bind(2, e.run_id)
      .bind(3, e.parent)
      .bind(4, e.started_at)
      .bind(5, now_utc());
  ins.bind(6, e.tokbench_version)
      .bind(7, e.target)
      .bind(8, e.model)
      .bind(9, e.api)
      .bind(10, e.dataset);
  ins.bind(11, e.input_len)
      .bind(12, e.output_len)
      .bind(13, e.max_tokens)
      .bind(14, static_cast<int64_t>(e.stream));
  ins.bind(15, e.concurrency).bind(16, e.request_rate).bind(17, e.verdict).bind(18, labels.take());
  ins.step();
  const int64_t id = db_.last_insert_rowid();
  Statement m =
      db_.prepare("INSERT OR REPLACE INTO metrics (run, name, value) VALUES (?1, ?2, ?3)");
  for (const auto& [name, value] : e.metrics) {
    m.bind(1, id).bind(2, name).bind(3, value);
    m.step();
    m.reset();
  }
  t.commit();
  return id;
}

std::vector<StoredRun> Store::runs() {
  Statement s = db_.prepare(fmt::format("SELECT {} FROM runs ORDER BY started_at, id", kColumns));
  std::vector<StoredRun> out;
  while (s.step()) out.push_back(row_of(s));
  return out;
}

std::optional<StoredRun> Store::find(const std::string& key, bool with_metrics) {
  Statement s = db_.prepare(
      fmt::format("SELECT {} FROM runs WHERE CAST(id AS TEXT) = ?1 OR run_id = ?1 OR folder = ?1 "
                  "ORDER BY id DESC LIMIT 1",
                  kColumns));
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  StoredRun r = row_of(s);
  if (with_metrics) {
    Statement m = db_.prepare("SELECT name, value FROM metrics WHERE run = ?1 ORDER BY name");
    m.bind(1, r.id);
    while (m.step()) r.entry.metrics.emplace_back(m.text(0), m.real(1));
  }
  return r;
}

std::map<int64_t, double> Store::metric(const std::string& name) {
  Statement s = db_.prepare("SELECT run, value FROM metrics WHERE name = ?1");
  s.bind(1, name);
  std::map<int64_t, double> out;
  while (s.step()) out[s.integer(0)] = s.real(1);
  return out;
}

}  // namespace tokbench::history
