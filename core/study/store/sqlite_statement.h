#pragma once
// A prepared SQLite statement with 1-based binds whose errors throw StoreError naming the database
// file and SQLite's own message (e.g. "database or disk is full"). Internal to core/study.

#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "core/study/store/store_error.h"

namespace paritylab::study {

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& file) : db_(db), file_(file) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) fail("prepare");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& bind(int i, std::int64_t v) { return check(sqlite3_bind_int64(stmt_, i, v)); }
  Statement& bind(int i, double v) {  // NaN/inf are stored as NULL ("unknown")
    return check(std::isfinite(v) ? sqlite3_bind_double(stmt_, i, v) : sqlite3_bind_null(stmt_, i));
  }
  Statement& bind(int i, const std::string& v) {
    return check(sqlite3_bind_text(stmt_, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT));
  }
  Statement& bindBlob(int i, const std::string& bytes) {
    return check(sqlite3_bind_blob64(stmt_, i, bytes.data(), sqlite3_uint64(bytes.size()),
                                     SQLITE_TRANSIENT));
  }
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail("step");
  }
  void run() {
    while (step()) {
    }
  }
  void reset() { sqlite3_reset(stmt_); }  // run again with new binds
  // Binds column c of `from`'s current row as it is (any type; `from` may be another database's).
  Statement& bindColumnOf(int i, const Statement& from, int c) {
    return check(sqlite3_bind_value(stmt_, i, sqlite3_column_value(from.stmt_, c)));
  }
  std::int64_t i64(int c) const { return sqlite3_column_int64(stmt_, c); }
  // A number or NULL (not text or a blob, which SQLite would read as 0).
  bool isNumberOrNull(int c) const {
    const int type = sqlite3_column_type(stmt_, c);
    return type == SQLITE_INTEGER || type == SQLITE_FLOAT || type == SQLITE_NULL;
  }
  bool isInteger(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_INTEGER; }
  double real(int c) const {
    return sqlite3_column_type(stmt_, c) == SQLITE_NULL ? std::numeric_limits<double>::quiet_NaN()
                                                        : sqlite3_column_double(stmt_, c);
  }
  std::string text(int c) const {
    const auto* p = sqlite3_column_text(stmt_, c);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  std::string blob(int c) const {
    const void* p = sqlite3_column_blob(stmt_, c);
    return p ? std::string(static_cast<const char*>(p), std::size_t(sqlite3_column_bytes(stmt_, c)))
             : std::string();
  }

 private:
  Statement& check(int rc) {
    if (rc != SQLITE_OK) fail("bind");
    return *this;
  }
  [[noreturn]] void fail(const char* what) const {
    throw StoreError(file_ + ": database error (" + what + "): " + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  const std::string& file_;
};

// Runs body() inside BEGIN IMMEDIATE ... COMMIT, rolled back on any exception (SQLite may have
// rolled back itself, e.g. on SQLITE_FULL: only a transaction still open is rolled back). The
// exception in flight is the cause and propagates. Returns body()'s result.
template <typename Body>
auto inTransaction(sqlite3* db, const std::string& file, Body&& body) {
  const auto exec = [&](const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string msg = err ? err : sqlite3_errmsg(db);
      sqlite3_free(err);
      throw StoreError(file + ": " + msg);
    }
  };
  exec("BEGIN IMMEDIATE");
  try {
    auto result = body();
    exec("COMMIT");
    return result;
  } catch (...) {
    if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace paritylab::study
