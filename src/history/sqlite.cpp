#include "history/sqlite.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "common/dynamic_library.hpp"

namespace tokbench::history {

namespace {

struct SqliteApi {
  decltype(&::sqlite3_open_v2) open_v2;
  decltype(&::sqlite3_close_v2) close_v2;
  decltype(&::sqlite3_exec) exec;
  decltype(&::sqlite3_errmsg) errmsg;
  decltype(&::sqlite3_busy_timeout) busy_timeout;
  decltype(&::sqlite3_prepare_v2) prepare_v2;
  decltype(&::sqlite3_bind_text) bind_text;
  decltype(&::sqlite3_bind_double) bind_double;
  decltype(&::sqlite3_bind_int64) bind_int64;
  decltype(&::sqlite3_bind_null) bind_null;
  decltype(&::sqlite3_step) step;
  decltype(&::sqlite3_reset) reset;
  decltype(&::sqlite3_finalize) finalize;
  decltype(&::sqlite3_column_text) column_text;
  decltype(&::sqlite3_column_double) column_double;
  decltype(&::sqlite3_column_int64) column_int64;
  decltype(&::sqlite3_column_type) column_type;
  decltype(&::sqlite3_last_insert_rowid) last_insert_rowid;
  decltype(&::sqlite3_free) free;
};

void bind(void* lib, auto& f, const char* name) {
  bind_symbol(lib, f, name, "libsqlite3.so.0", "tokbench needs SQLite 3.22 or later");
}

SqliteApi load() {
  void* lib = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    throw std::runtime_error(
        fmt::format("cannot load SQLite for the results store ({}): install it (Debian: apt-get "
                    "install libsqlite3-0)",
                    dlerror()));
  }
  SqliteApi a{};
  bind(lib, a.open_v2, "sqlite3_open_v2");
  bind(lib, a.close_v2, "sqlite3_close_v2");
  bind(lib, a.exec, "sqlite3_exec");
  bind(lib, a.errmsg, "sqlite3_errmsg");
  bind(lib, a.busy_timeout, "sqlite3_busy_timeout");
  bind(lib, a.prepare_v2, "sqlite3_prepare_v2");
  bind(lib, a.bind_text, "sqlite3_bind_text");
  bind(lib, a.bind_double, "sqlite3_bind_double");
  bind(lib, a.bind_int64, "sqlite3_bind_int64");
  bind(lib, a.bind_null, "sqlite3_bind_null");
  bind(lib, a.step, "sqlite3_step");
  bind(lib, a.reset, "sqlite3_reset");
  bind(lib, a.finalize, "sqlite3_finalize");
  bind(lib, a.column_text, "sqlite3_column_text");
  bind(lib, a.column_double, "sqlite3_column_double");
  bind(lib, a.column_int64, "sqlite3_column_int64");
  bind(lib, a.column_type, "sqlite3_column_type");
  bind(lib, a.last_insert_rowid, "sqlite3_last_insert_rowid");
  bind(lib, a.free, "sqlite3_free");
  return a;
}

const SqliteApi& sql() {
  static const SqliteApi api = load();  // thread-safe: the first caller loads
  return api;
}

constexpr int kBusyTimeoutMs = 30'000;  // several runs may record at once: wait for each other

}  // namespace

Database::Database(const std::string& path, bool create) : path_(path) {
  // Only a regular file: SQLite would block for ever reading a FIFO, and a device or a folder is
  // no store either.
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
    throw std::runtime_error(fmt::format(
        "results store '{}' is not a regular file (it is {}): give --history an SQLite file", path,
        std::filesystem::is_directory(st) ? "a folder"
        : std::filesystem::is_fifo(st)    ? "a FIFO"
                                          : "a device or socket"));
  const int flags =
      SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
  try {
    const int rc = sql().open_v2(path.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
      if (!create && rc == SQLITE_CANTOPEN)
        throw std::runtime_error(fmt::format(
            "no results store at '{0}': record a run into it first (tokbench run --history {0}, "
            "or tokbench history add DIR... --history {0})",
            path));
      fail(rc, "cannot open it");
    }
    sql().busy_timeout(db_, kBusyTimeoutMs);
    // Switching a new store to WAL takes a lock that SQLite does not wait for (its busy handler is
    // not called there): two runs creating one store at once retry, within the same timeout.
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    for (;;) {
      char* err = nullptr;
      const int rc = sql().exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, &err);
      if (err) sql().free(err);
      if (rc == SQLITE_OK) break;
      if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) ||
          std::chrono::steady_clock::now() > deadline)
        fail(rc, "cannot switch it to WAL mode");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    exec("PRAGMA foreign_keys=ON");
  } catch (...) {
    if (db_) sql().close_v2(db_);  // the destructor does not run for a constructor that threw
    db_ = nullptr;
    throw;
  }
}

Database::~Database() {
  if (db_) sql().close_v2(db_);
}

void Database::fail(int rc, std::string_view what) const {
  const std::string msg = db_ ? sql().errmsg(db_) : "unknown error";
  const int primary = rc & 0xff;
  std::string fix;
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT)
    fix =
        "it is not a tokbench results store or it is damaged: move it aside and rebuild it from "
        "the run folders "
        "(tokbench history add OUTPUT_DIR/* --history NEW.db)";
  else if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    fix = fmt::format(
        "another process held it for {} s: retry, or record later with tokbench history add",
        kBusyTimeoutMs / 1000);
  else if (primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN || primary == SQLITE_PERM)
    fix = "check that the file and its folder are writable";
  else if (primary == SQLITE_FULL || primary == SQLITE_IOERR)
    fix =
        "the disk refused a write (full, over a file-size limit, or failing): free some space "
        "or check the disk; the run folders hold everything, so nothing measured is lost";
  throw std::runtime_error(fmt::format("results store '{}': {} ({}){}{}", path_, what, msg,
                                       fix.empty() ? "" : ": ", fix));
}

void Database::exec(const std::string& statement) {
  char* err = nullptr;
  const int rc = sql().exec(db_, statement.c_str(), nullptr, nullptr, &err);
  if (err) sql().free(err);
  if (rc != SQLITE_OK) fail(rc, statement.substr(0, statement.find_first_of("( ", 8)));
}

Statement Database::prepare(const std::string& statement) {
  sqlite3_stmt* s = nullptr;
  const int rc =
      sql().prepare_v2(db_, statement.c_str(), static_cast<int>(statement.size()), &s, nullptr);
  if (rc != SQLITE_OK) fail(rc, "cannot read it");
  return Statement(*this, s);
}

int64_t Database::last_insert_rowid() const { return sql().last_insert_rowid(db_); }

Statement::~Statement() {
  if (s_) sql().finalize(s_);
}

Statement& Statement::bind(int i, std::string_view v) {
  sql().bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::bind(int i, double v) {
  sql().bind_double(s_, i, v);
  return *this;
}
Statement& Statement::bind(int i, int64_t v) {
  sql().bind_int64(s_, i, v);
  return *this;
}
Statement& Statement::bind_null(int i) {
  sql().bind_null(s_, i);
  return *this;
}

bool Statement::step() {
  const int rc = sql().step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail(rc, "cannot read or write it");
}

void Statement::reset() { sql().reset(s_); }

std::string Statement::text(int col) const {
  const unsigned char* t = sql().column_text(s_, col);
  return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
}
double Statement::real(int col) const { return sql().column_double(s_, col); }
int64_t Statement::integer(int col) const { return sql().column_int64(s_, col); }
bool Statement::is_null(int col) const { return sql().column_type(s_, col) == SQLITE_NULL; }

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {
    }
  }
}
void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace tokbench::history
