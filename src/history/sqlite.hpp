#pragma once
// history/sqlite: SQLite, loaded the first time the results store is opened (dlopen of
// libsqlite3.so.0, as client/curl_loader does for libcurl: nothing at start-up), and a small RAII
// wrapper: a connection in WAL mode with a busy timeout, prepared statements, transactions.
// Every failure is a std::runtime_error that names the store's path and what to do.
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tokbench::history {

class Statement;

class Database {
 public:
  /// Opens (creating it when `create`) the store at `path`.
  Database(const std::string& path, bool create);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const std::string& sql);
  Statement prepare(const std::string& sql);
  int64_t last_insert_rowid() const;
  const std::string& path() const { return path_; }
  /// The error of the last call, with the store's path and a fix for the common causes.
  [[noreturn]] void fail(int rc, std::string_view what) const;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(Database& db, sqlite3_stmt* s) : db_(&db), s_(s) {}
  Statement(Statement&& o) noexcept : db_(o.db_), s_(o.s_) { o.s_ = nullptr; }
  ~Statement();
  Statement& bind(int i, std::string_view v);
  Statement& bind(int i, double v);
  Statement& bind(int i, int64_t v);
  Statement& bind_null(int i);
  /// Steps once: true while a row is there.
  bool step();
  void reset();
  std::string text(int col) const;
  double real(int col) const;
  int64_t integer(int col) const;
  bool is_null(int col) const;

 private:
  Database* db_;
  sqlite3_stmt* s_;
};

/// BEGIN IMMEDIATE ... COMMIT (ROLLBACK when left by an exception).
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace tokbench::history
