// Part of ResultsStore: the paritylab_meta values, the file's quick check, the running runs'
// owners, and copying runs with every row of theirs from another results database (merge,
// results_merge.h). Table-generic: a
// table added in a later schema version with a run_id column is copied without a change here.
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <mutex>

#include "core/study/store/results_store.h"
#include "core/study/store/results_store_transaction.h"
#include "core/study/store/sqlite_statement.h"

namespace paritylab::study {
namespace {

std::vector<std::string> columnsOf(sqlite3* db, const std::string& file, const std::string& table) {
  Statement s(db, "SELECT name FROM pragma_table_info(?) ORDER BY cid", file);
  s.bind(1, table);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

// Every table holding rows of a run (a run_id column), by name.
std::vector<std::string> runTablesOf(sqlite3* db, const std::string& file) {
  Statement s(db,
              "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND EXISTS (SELECT 1 "
              "FROM pragma_table_info(m.name) c WHERE c.name = 'run_id') ORDER BY m.name",
              file);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::string joined(const std::vector<std::string>& names, const char* prefix = "") {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + std::string(prefix) + n;
  return out;
}

[[noreturn]] void refuseColumn(const std::string& sourceFile, const std::string& table,
                               const std::string& column, const std::string& targetFile) {
  throw StoreError(sourceFile + ": table '" + table + "' has a column '" + column + "' that " +
                   targetFile + " cannot store (written by a newer ParityLab?)");
}

// The source's columns of `table`, each of which this database must have.
std::vector<std::string> copiedColumns(sqlite3* source, const std::string& sourceFile,
                                       sqlite3* target, const std::string& targetFile,
                                       const std::string& table) {
  std::vector<std::string> from = columnsOf(source, sourceFile, table);
  const std::vector<std::string> to = columnsOf(target, targetFile, table);
  if (to.empty())
    throw StoreError(sourceFile + ": has a table '" + table + "' that " + targetFile +
                     " cannot store (written by a newer ParityLab?); merge with that version");
  for (const std::string& c : from) {
    if (!contains(to, c)) refuseColumn(sourceFile, table, c, targetFile);
  }
  return from;
}

std::string insertSql(const std::string& table, const std::vector<std::string>& columns) {
  std::string marks;
  for (std::size_t i = 0; i < columns.size(); ++i) marks += i ? ",?" : "?";
  return "INSERT INTO " + table + " (" + joined(columns) + ") VALUES (" + marks + ")";
}

}  // namespace

std::string ResultsStore::metaValue(const std::string& key) const {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT value FROM paritylab_meta WHERE key = ?", path_);
  s.bind(1, key);
  return s.step() ? s.text(0) : "";
}

void ResultsStore::setMetaValue(const std::string& key, const std::string& value) {
  std::lock_guard lock(mutex_);
  if (value.empty()) {
    Statement(db_, "DELETE FROM paritylab_meta WHERE key = ?", path_).bind(1, key).run();
    return;
  }
  Statement(db_, "INSERT OR REPLACE INTO paritylab_meta (key, value) VALUES (?, ?)", path_)
      .bind(1, key)
      .bind(2, value)
      .run();
}

std::string ResultsStore::damage() const {
  std::lock_guard lock(mutex_);
  try {
    Statement s(db_, "PRAGMA quick_check(1)", path_);
    if (!s.step()) return "quick_check gave no answer";
    return s.text(0) == "ok" ? "" : s.text(0);
  } catch (const StoreError& e) {
    return e.what();
  }
}

std::map<std::int64_t, std::string> ResultsStore::runningOwners() const {
  std::lock_guard lock(mutex_);
  std::map<std::int64_t, std::string> out;
  if (!contains(columnsOf(db_, path_, "runs"), "claimed_by")) return out;
  Statement s(db_, "SELECT id, claimed_by FROM runs WHERE status = 'running'", path_);
  while (s.step()) out[s.i64(0)] = s.text(1);
  return out;
}

void ResultsStore::copyRunsFrom(const ResultsStore& source,
                                const std::vector<std::int64_t>& sourceRunIds,
                                const std::vector<std::int64_t>& replaceRunIds) {
  std::scoped_lock lock(mutex_, source.mutex_);
  transaction([&] {
    const std::vector<std::string> ownTables = runTablesOf(db_, path_);
    for (std::int64_t id : replaceRunIds) {
      for (const std::string& table : ownTables)
        Statement(db_, "DELETE FROM " + table + " WHERE run_id = ?", path_).bind(1, id).run();
      Statement(db_, "DELETE FROM runs WHERE id = ?", path_).bind(1, id).run();
    }
    std::vector<std::string> runColumns =
        copiedColumns(source.db_, source.path_, db_, path_, "runs");
    runColumns.erase(std::remove(runColumns.begin(), runColumns.end(), "id"), runColumns.end());
    const std::vector<std::string> tables = runTablesOf(source.db_, source.path_);
    std::vector<std::vector<std::string>> tableColumns;
    tableColumns.reserve(tables.size());
    for (const std::string& table : tables)
      tableColumns.push_back(copiedColumns(source.db_, source.path_, db_, path_, table));

    Statement readRun(source.db_, "SELECT " + joined(runColumns) + " FROM runs WHERE id = ?",
                      source.path_);
    Statement writeRun(db_, insertSql("runs", runColumns), path_);
    for (std::int64_t sourceId : sourceRunIds) {
      readRun.reset();
      readRun.bind(1, sourceId);
      if (!readRun.step())
        throw StoreError(source.path_ + ": run " + std::to_string(sourceId) + " vanished");
      writeRun.reset();
      for (std::size_t c = 0; c < runColumns.size(); ++c) {
        if (runColumns[c] == "claimed_by")
          writeRun.bind(int(c) + 1, std::string());  // the copy is nobody's work in progress
        else
          writeRun.bindColumnOf(int(c) + 1, readRun, int(c));
      }
      writeRun.run();  // a collision throws StoreError naming this database
      const std::int64_t targetId = sqlite3_last_insert_rowid(db_);
      for (std::size_t t = 0; t < tables.size(); ++t) {
        const std::vector<std::string>& columns = tableColumns[t];
        const std::string select =
            "SELECT " + joined(columns) + " FROM " + tables[t] + " WHERE run_id = ?";
        std::unique_ptr<Statement> read;
        try {  // as recorded (rowid order), unless the table has no rowid
          read = std::make_unique<Statement>(source.db_, select + " ORDER BY rowid", source.path_);
        } catch (const StoreError&) {
          read = std::make_unique<Statement>(source.db_, select, source.path_);
        }
        read->bind(1, sourceId);
        Statement write(db_, insertSql(tables[t], columns), path_);
        while (read->step()) {
          write.reset();
          for (std::size_t c = 0; c < columns.size(); ++c) {
            if (columns[c] == "run_id")
              write.bind(int(c) + 1, targetId);
            else
              write.bindColumnOf(int(c) + 1, *read, int(c));
          }
          write.run();
        }
      }
    }
    return true;
  });
}

void ResultsStore::copyDatabaseTo(const std::string& path) const {
  // A new file, or an empty one made for the copy (DatabaseBuild's): this never deletes or
  // overwrites a file that holds anything.
  namespace fs = std::filesystem;
  const fs::file_status status = fs::symlink_status(path);
  std::error_code sizeError;
  if (fs::exists(status) &&
      (!fs::is_regular_file(status) || fs::file_size(path, sizeError) != 0 || sizeError))
    throw StoreError(path_ + ": cannot copy to " + path + ": it exists already");
  sqlite3* target = nullptr;
  const auto fail = [&](const std::string& why) {
    sqlite3_close(target);
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
    throw StoreError(path_ + ": cannot copy to " + path + ": " + why);
  };
  if (sqlite3_open_v2(path.c_str(), &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK)
    fail(sqlite3_errmsg(target));
  std::lock_guard lock(mutex_);
  sqlite3_backup* backup = sqlite3_backup_init(target, "main", db_, "main");
  if (!backup) fail(sqlite3_errmsg(target));
  const int stepped = sqlite3_backup_step(backup, -1);
  const int finished = sqlite3_backup_finish(backup);
  if (stepped != SQLITE_DONE || finished != SQLITE_OK) fail(sqlite3_errmsg(target));
  if (sqlite3_close(target) != SQLITE_OK) {
    target = nullptr;
    fail("cannot close the copy");
  }
}

}  // namespace paritylab::study
