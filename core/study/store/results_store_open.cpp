// Opening a results database: for writing (created or migrated) or read-only (never changed).
// Part of ResultsStore.
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/study/store/results_schema.h"
#include "core/study/store/results_store.h"
#include "core/study/store/sqlite_statement.h"

namespace paritylab::study {
namespace {

// "file:/abs/path?mode=ro" with the path percent-encoded as RFC 3986 wants.
std::string readOnlyUri(const std::string& path, bool immutable) {
  const std::string abs = std::filesystem::absolute(path).string();
  std::string uri = "file:";
  for (unsigned char c : abs) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += char(c);
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri + (immutable ? "?immutable=1" : "?mode=ro");
}

constexpr int kWriterBusyMilliseconds = 10 * 60 * 1000;

// A writer needs the file and its folder writable (SQLite keeps its -wal and -shm files beside the
// database); SQLite itself would answer "unable to open database file" or open read-only.
void requireWritable(const std::string& path, bool exists) {
  const auto refuse = [&](const std::string& what, int error) {
    throw StoreError(path + ": cannot write " + what + " (" + std::strerror(error) +
                     "); results need a database this process can write");
  };
  if (exists && ::access(path.c_str(), W_OK) != 0) refuse("the file", errno);
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (::access(folder.c_str(), W_OK) != 0) refuse("in its folder " + folder.string(), errno);
}

}  // namespace

void requireDatabaseFilePath(const std::string& path, const std::string& what) {
  const auto refuse = [&](const std::string& why) {
    throw StoreError(what + ": '" + path + "' is not a plain file path (" + why +
                     "); name the database file, e.g. results.db");
  };
  if (path.empty()) refuse("empty: SQLite would use a temporary database, deleted when closed");
  if (path == ":memory:") refuse("SQLite's in-memory database, gone when closed");
  if (path.rfind("file:", 0) == 0)
    refuse("an SQLite URI, possibly in memory or temporary; write ./" + path + " for a file");
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status)) refuse("a directory");
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    refuse("a pipe, device or socket, not a regular file");
}

// Throws unless the file is an SQLite database of ParityLab (or empty and `create`).
void ResultsStore::checkIsParityLab(bool create) {
  bool empty = true;
  try {
    Statement s(db_, "SELECT count(*) FROM sqlite_master", path_);
    s.step();
    empty = s.i64(0) == 0;
  } catch (const StoreError&) {
    const int code = sqlite3_errcode(db_);
    if (code == SQLITE_NOTADB)
      throw StoreError(path_ + ": not a ParityLab results database (not an SQLite file)");
    throw StoreError(path_ + ": cannot read: " + sqlite3_errmsg(db_));
  }
  if (empty) {
    if (!create) throw StoreError(path_ + ": not a ParityLab results database (empty)");
    return;
  }
  bool ours = false;
  try {
    Statement s(db_, "SELECT value FROM paritylab_meta WHERE key = 'format'", path_);
    ours = s.step() && s.text(0).rfind("paritylab-results-", 0) == 0;
  } catch (const StoreError&) {
  }
  if (!ours)
    throw StoreError(path_ + ": not a ParityLab results database (an SQLite file of another kind)");
}

std::unique_ptr<ResultsStore> ResultsStore::open(const std::string& path, bool create) {
  requireDatabaseFilePath(path);
  const bool exists = std::filesystem::exists(path);
  if (!exists && !create) throw StoreError(path + ": no such results database");
  requireWritable(path, exists);
  std::unique_ptr<ResultsStore> store(new ResultsStore(path));
  const int flags =
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &store->db_, flags, nullptr) != SQLITE_OK)
    throw StoreError(path + ": cannot open: " + sqlite3_errmsg(store->db_));
  // A writer waits for a neighbour's transaction rather than fail: an import of a million rows
  // holds the database for seconds, and a study must not die of it ("database is locked").
  sqlite3_busy_timeout(store->db_, kWriterBusyMilliseconds);
  sqlite3_extended_result_codes(store->db_, 1);
  store->checkIsParityLab(create);
  // Switching to WAL needs the file to itself for a moment. While a neighbour creates the schema
  // of the same new database (in rollback mode until it switches too), SQLite answers "database
  // is locked" at once instead of waiting (a lock upgrade it will not wait for): try again.
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    try {
      store->exec("PRAGMA journal_mode=WAL");
      break;
    } catch (const StoreError&) {
      const bool busy = (sqlite3_errcode(store->db_) & 0xff) == SQLITE_BUSY;
      if (!busy || std::chrono::steady_clock::now() - start >
                       std::chrono::milliseconds(kWriterBusyMilliseconds))
        throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  store->exec("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
  bool fresh = false;
  {
    Statement s(store->db_, "SELECT count(*) FROM sqlite_master WHERE name = 'runs'", path);
    s.step();
    fresh = s.i64(0) == 0;
  }
  if (fresh) {
    try {
      createSchema(store->db_, path);
    } catch (const StoreError&) {
      // Two processes may create the same new database at once: the other one did it first
      // (the schema is created in one transaction); the checks below decide.
      requireTables(store->db_, path);
    }
  }
  requireTables(store->db_, path);
  store->openNotes_ = migrateSchema(store->db_, path);
  store->schemaVersion_ = currentSchemaVersion();
  store->checkConsistency();
  return store;
}

std::unique_ptr<ResultsStore> ResultsStore::openReadOnly(const std::string& path) {
  if (std::filesystem::is_directory(path))
    throw StoreError(path + ": is a directory, not a results database");
  if (!std::filesystem::exists(path)) throw StoreError(path + ": no such results database");
  // SQLite would wait forever on a pipe nobody writes to.
  if (!std::filesystem::is_regular_file(path))
    throw StoreError(path +
                     ": not a regular file (a pipe, device or socket), not a results database");
  std::unique_ptr<ResultsStore> store;
  // A WAL database needs its -shm file; in a read-only directory it cannot be created, and the
  // file is then read as immutable (nobody can be writing it from there either).
  for (bool immutable : {false, true}) {
    store.reset(new ResultsStore(path));
    const std::string uri = readOnlyUri(path, immutable);
    const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(uri.c_str(), &store->db_, flags, nullptr) != SQLITE_OK) {
      if (!immutable) continue;
      throw StoreError(path + ": cannot open: " + sqlite3_errmsg(store->db_));
    }
    sqlite3_busy_timeout(store->db_, 5000);
    sqlite3_extended_result_codes(store->db_, 1);
    const int probe =
        sqlite3_exec(store->db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    if (probe != SQLITE_OK && !immutable && (probe & 0xff) != SQLITE_NOTADB) continue;
    break;
  }
  store->checkIsParityLab(false);
  requireTables(store->db_, path);
  store->schemaVersion_ = schemaVersionOf(store->db_, path);
  // Tables and meanings of a newer schema are unknown here: read as this version, they could be
  // misread without a word.
  if (store->schemaVersion_ > currentSchemaVersion()) {
    throw StoreError(path + ": written by a newer ParityLab (schema version " +
                     std::to_string(store->schemaVersion_) + ", this one knows " +
                     std::to_string(currentSchemaVersion()) + "); open it with that version");
  }
  store->checkConsistency();
  return store;
}

bool removeDatabaseWithoutResults(const std::string& path) {
  try {
    if (!std::filesystem::is_regular_file(path)) return false;
    {
      const auto store = ResultsStore::openReadOnly(path);
      // Only planned runs: any other state means a run was claimed, by this command or by
      // another process working in the same file now.
      for (const RunRecord& run : store->loadRuns())
        if (run.status != RunState::Pending || run.source != "emulated" || run.epochsDone > 0)
          return false;
      if (!store->loadAllEpochs().empty()) return false;  // a cancelled run's epochs are results
    }
  } catch (const std::exception&) {
    return false;  // not ours to judge: leave it
  }
  std::error_code ignored;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ignored);
  return true;
}

void ResultsStore::checkConsistency() const {
  {
    std::lock_guard lock(mutex_);
    checkStoredReferences(db_, path_, schemaVersion_);
  }
  // Every emulated run is one of the stored study's backends (imported ones are named by their
  // source). A spec that does not parse is reported by whoever loads it.
  std::optional<StudySpec> spec;
  try {
    if (hasStudy()) spec = loadStudySpec();
  } catch (const std::exception&) {
  }
  if (!spec) return;
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT backend, min(id) FROM runs WHERE source = 'emulated' GROUP BY backend",
              path_);
  while (s.step()) {
    const std::string backend = s.text(0);
    const bool listed = std::any_of(spec->backends.begin(), spec->backends.end(),
                                    [&](const BackendEntry& e) { return e.name == backend; });
    if (!listed) {
      throw StoreError(path_ + ": damaged database: run " + std::to_string(s.i64(1)) +
                       " backend '" + backend +
                       "' is not one of the stored study's backends (the file was not changed)");
    }
  }
}

void ResultsStore::setMaxPageCount(std::int64_t pages) {
  std::lock_guard lock(mutex_);
  Statement(db_, "PRAGMA max_page_count = " + std::to_string(pages), path_).run();
}

}  // namespace paritylab::study
