#include "core/study/results_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <limits>

#include "core/study/xray_rows.h"

#ifndef PARITYLAB_VERSION
#define PARITYLAB_VERSION "0"
#endif

namespace paritylab::study {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS paritylab_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS study (
  id INTEGER PRIMARY KEY CHECK (id = 1), spec TEXT NOT NULL, software_version TEXT NOT NULL,
  created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT, backend TEXT NOT NULL, policy TEXT NOT NULL,
  seed INTEGER NOT NULL, status TEXT NOT NULL, epochs_done INTEGER NOT NULL DEFAULT 0,
  final_train_loss REAL, final_test_loss REAL, final_accuracy REAL, wall_seconds REAL,
  diverged_epoch INTEGER, message TEXT NOT NULL DEFAULT '', source TEXT NOT NULL DEFAULT 'emulated');
CREATE TABLE IF NOT EXISTS epochs (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, epoch INTEGER NOT NULL,
  train_loss REAL, test_loss REAL, test_accuracy REAL, seconds REAL,
  skipped_steps INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run_id, epoch));
CREATE TABLE IF NOT EXISTS xray (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,
  epoch INTEGER NOT NULL, site TEXT NOT NULL, operand TEXT NOT NULL, format TEXT NOT NULL,
  count INTEGER NOT NULL, zeros INTEGER NOT NULL, non_finite INTEGER NOT NULL, amax REAL,
  min_nonzero REAL, flushed INTEGER NOT NULL, subnormal INTEGER NOT NULL,
  overflowed INTEGER NOT NULL, signal_energy REAL, error_energy REAL, max_rel_error REAL,
  exponent_histogram TEXT NOT NULL, PRIMARY KEY (run_id, site, operand, step));
INSERT OR IGNORE INTO paritylab_meta (key, value) VALUES ('format', 'paritylab-results-1');
)sql";

// RAII prepared statement with 1-based binds.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::string& file) : db_(db), file_(file) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail("prepare");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement& bind(int i, std::int64_t v) { return check(sqlite3_bind_int64(stmt_, i, v)); }
  Statement& bind(int i, double v) {
    return check(std::isfinite(v) ? sqlite3_bind_double(stmt_, i, v) : sqlite3_bind_null(stmt_, i));
  }
  Statement& bind(int i, const std::string& v) {
    return check(sqlite3_bind_text(stmt_, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT));
  }
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail("step");
  }
  void run() {
    while (step()) {
    }
  }
  std::int64_t i64(int c) const { return sqlite3_column_int64(stmt_, c); }
  sqlite3_stmt* handle() const { return stmt_; }
  double real(int c) const {
    return sqlite3_column_type(stmt_, c) == SQLITE_NULL ? std::numeric_limits<double>::quiet_NaN()
                                                        : sqlite3_column_double(stmt_, c);
  }
  std::string text(int c) const {
    auto p = sqlite3_column_text(stmt_, c);
    return p ? reinterpret_cast<const char*>(p) : "";
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

RunRecord readRun(const Statement& s) {
  RunRecord r;
  r.id = s.i64(0);
  r.backend = s.text(1);
  r.policyJson = s.text(2);
  r.seed = std::uint64_t(s.i64(3));
  r.status = runStateFromString(s.text(4));
  r.epochsDone = int(s.i64(5));
  r.finalTrainLoss = s.real(6);
  r.finalTestLoss = s.real(7);
  r.finalAccuracy = s.real(8);
  r.wallSeconds = s.real(9);
  r.divergedEpoch = int(s.i64(10));
  r.message = s.text(11);
  r.source = s.text(12);
  return r;
}

// Databases written before epochs.skipped_steps existed get the column (0: none recorded).
void addSkippedStepsColumn(sqlite3* db, const std::string& file) {
  Statement columns(db, "SELECT 1 FROM pragma_table_info('epochs') WHERE name = 'skipped_steps'",
                    file);
  if (columns.step()) return;
  Statement(db, "ALTER TABLE epochs ADD COLUMN skipped_steps INTEGER NOT NULL DEFAULT 0", file)
      .run();
}

constexpr const char* kRunColumns =
    "id, backend, policy, seed, status, epochs_done, final_train_loss, final_test_loss, "
    "final_accuracy, wall_seconds, diverged_epoch, message, source";

}  // namespace

ResultsStore::ResultsStore(std::string path) : path_(std::move(path)) {}

ResultsStore::~ResultsStore() {
  sqlite3_close(db_);
}

void ResultsStore::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw StoreError(path_ + ": " + msg);
  }
}

std::unique_ptr<ResultsStore> ResultsStore::open(const std::string& path, bool create) {
  bool exists = std::filesystem::exists(path);
  if (!exists && !create) throw StoreError(path + ": no such results database");
  std::unique_ptr<ResultsStore> store(new ResultsStore(path));
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &store->db_, flags, nullptr) != SQLITE_OK)
    throw StoreError(path + ": cannot open: " + sqlite3_errmsg(store->db_));
  sqlite3_busy_timeout(store->db_, 5000);
  bool empty = true;
  try {
    Statement s(store->db_, "SELECT count(*) FROM sqlite_master", path);
    s.step();
    empty = s.i64(0) == 0;
  } catch (const StoreError&) {
    throw StoreError(path + ": not a ParityLab results database (not an SQLite file)");
  }
  if (!empty) {
    try {
      Statement s(store->db_, "SELECT value FROM paritylab_meta WHERE key = 'format'", path);
      if (!s.step() || s.text(0).rfind("paritylab-results-", 0) != 0) throw StoreError("");
    } catch (const StoreError&) {
      throw StoreError(path +
                       ": not a ParityLab results database (an SQLite file of another kind)");
    }
  } else if (!create) {
    throw StoreError(path + ": not a ParityLab results database (empty)");
  }
  store->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
  store->exec(kSchema);
  addSkippedStepsColumn(store->db_, path);
  return store;
}

bool ResultsStore::hasStudy() const {
  return !loadStudySpecJson().empty();
}

void ResultsStore::saveStudySpec(const std::string& specJson) {
  std::lock_guard lock(mutex_);
  std::time_t now = std::time(nullptr);
  char created[32];
  std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  Statement s(db_,
              "INSERT OR REPLACE INTO study (id, spec, software_version, created) "
              "VALUES (1, ?, ?, ?)",
              path_);
  s.bind(1, specJson).bind(2, std::string(PARITYLAB_VERSION)).bind(3, std::string(created)).run();
}

std::string ResultsStore::loadStudySpecJson() const {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT spec FROM study WHERE id = 1", path_);
  return s.step() ? s.text(0) : "";
}

std::string ResultsStore::softwareVersion() const {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT software_version FROM study WHERE id = 1", path_);
  return s.step() ? s.text(0) : "";
}

StudySpec ResultsStore::loadStudySpec() const {
  std::string text = loadStudySpecJson();
  if (text.empty()) throw StoreError(path_ + ": the database holds no study");
  try {
    return parseStudySpec(text, path_ + " (stored study)");
  } catch (const SpecError& ex) {
    throw StoreError(ex.what());
  }
}

std::int64_t ResultsStore::addRun(const RunRecord& r) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "INSERT INTO runs (backend, policy, seed, status, epochs_done, final_train_loss, "
              "final_test_loss, final_accuracy, wall_seconds, diverged_epoch, message, source) "
              "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
              path_);
  s.bind(1, r.backend).bind(2, r.policyJson).bind(3, std::int64_t(r.seed));
  s.bind(4, std::string(toString(r.status))).bind(5, std::int64_t(r.epochsDone));
  s.bind(6, r.finalTrainLoss).bind(7, r.finalTestLoss).bind(8, r.finalAccuracy);
  s.bind(9, r.wallSeconds).bind(10, std::int64_t(r.divergedEpoch)).bind(11, r.message);
  s.bind(12, r.source).run();
  return sqlite3_last_insert_rowid(db_);
}

void ResultsStore::updateRun(const RunRecord& r) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "UPDATE runs SET status=?, epochs_done=?, final_train_loss=?, final_test_loss=?, "
              "final_accuracy=?, wall_seconds=?, diverged_epoch=?, message=? WHERE id=?",
              path_);
  s.bind(1, std::string(toString(r.status))).bind(2, std::int64_t(r.epochsDone));
  s.bind(3, r.finalTrainLoss).bind(4, r.finalTestLoss).bind(5, r.finalAccuracy);
  s.bind(6, r.wallSeconds).bind(7, std::int64_t(r.divergedEpoch)).bind(8, r.message);
  s.bind(9, r.id).run();
}

void ResultsStore::setRunStatus(std::int64_t runId, RunState state) {
  std::lock_guard lock(mutex_);
  Statement(db_, "UPDATE runs SET status=? WHERE id=?", path_)
      .bind(1, std::string(toString(state)))
      .bind(2, runId)
      .run();
}

void ResultsStore::addEpoch(std::int64_t runId, const EpochRecord& e) {
  std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    Statement s(db_,
                "INSERT OR REPLACE INTO epochs (run_id, epoch, train_loss, test_loss, "
                "test_accuracy, seconds, skipped_steps) VALUES (?,?,?,?,?,?,?)",
                path_);
    s.bind(1, runId).bind(2, std::int64_t(e.epoch)).bind(3, e.trainLoss).bind(4, e.testLoss);
    s.bind(5, e.testAccuracy).bind(6, e.seconds).bind(7, std::int64_t(e.skippedSteps)).run();
    Statement u(db_, "UPDATE runs SET epochs_done = ? WHERE id = ?", path_);
    u.bind(1, std::int64_t(e.epoch)).bind(2, runId).run();
    exec("COMMIT");
  } catch (...) {
    exec("ROLLBACK");
    throw;
  }
}

void ResultsStore::deleteEpochs(std::int64_t runId) {
  std::lock_guard lock(mutex_);
  Statement(db_, "DELETE FROM epochs WHERE run_id = ?", path_).bind(1, runId).run();
}

void ResultsStore::addRunsWithEpochs(std::vector<RunRecord>& runs,
                                     const std::vector<std::vector<EpochRecord>>& epochs) {
  {
    std::lock_guard lock(mutex_);
    exec("BEGIN IMMEDIATE");
  }
  try {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      runs[i].id = addRun(runs[i]);
      std::lock_guard lock(mutex_);
      for (const EpochRecord& e : epochs[i]) {
        Statement one(db_,
                      "INSERT INTO epochs (run_id, epoch, train_loss, test_loss, test_accuracy, "
                      "seconds) VALUES (?,?,?,?,?,?)",
                      path_);
        one.bind(1, runs[i].id).bind(2, std::int64_t(e.epoch)).bind(3, e.trainLoss);
        one.bind(4, e.testLoss).bind(5, e.testAccuracy).bind(6, e.seconds).run();
      }
    }
    std::lock_guard lock(mutex_);
    exec("COMMIT");
  } catch (...) {
    std::lock_guard lock(mutex_);
    exec("ROLLBACK");
    throw;
  }
}

std::vector<RunRecord> ResultsStore::loadRuns() const {
  std::lock_guard lock(mutex_);
  Statement s(db_, (std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY id").c_str(),
              path_);
  std::vector<RunRecord> out;
  while (s.step()) out.push_back(readRun(s));
  return out;
}

std::vector<EpochRecord> ResultsStore::loadEpochs(std::int64_t runId) const {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "SELECT epoch, train_loss, test_loss, test_accuracy, seconds, skipped_steps "
              "FROM epochs WHERE run_id = ? ORDER BY epoch",
              path_);
  s.bind(1, runId);
  std::vector<EpochRecord> out;
  while (s.step())
    out.push_back({int(s.i64(0)), s.real(1), s.real(2), s.real(3), s.real(4), int(s.i64(5))});
  return out;
}

std::map<std::int64_t, std::vector<EpochRecord>> ResultsStore::loadAllEpochs() const {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "SELECT run_id, epoch, train_loss, test_loss, test_accuracy, seconds, "
              "skipped_steps FROM epochs ORDER BY run_id, epoch",
              path_);
  std::map<std::int64_t, std::vector<EpochRecord>> out;
  while (s.step())
    out[s.i64(0)].push_back(
        {int(s.i64(1)), s.real(2), s.real(3), s.real(4), s.real(5), int(s.i64(6))});
  return out;
}

std::vector<std::pair<std::string, std::vector<double>>> ResultsStore::finalAccuraciesByBackend()
    const {
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (const RunRecord& r : loadRuns()) {
    if (r.status != RunState::Completed || std::isnan(r.finalAccuracy)) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](auto& p) { return p.first == r.backend; });
    if (it == out.end()) it = out.insert(out.end(), {r.backend, {}});
    it->second.push_back(r.finalAccuracy);
  }
  return out;
}

void ResultsStore::addXraySample(std::int64_t runId, const nn::XraySample& sample) {
  std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    Statement s(db_,
                "INSERT OR REPLACE INTO xray (run_id, step, epoch, site, operand, format, count, "
                "zeros, non_finite, amax, min_nonzero, flushed, subnormal, overflowed, "
                "signal_energy, error_energy, max_rel_error, exponent_histogram) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                path_);
    for (const nn::XrayRecord& r : sample.records) {
      const numerics::TensorXray& x = r.xray;
      sqlite3_reset(s.handle());
      s.bind(1, runId).bind(2, sample.step).bind(3, std::int64_t(sample.epoch)).bind(4, r.site);
      s.bind(5, r.operand).bind(6, r.format).bind(7, x.count).bind(8, x.zeros);
      s.bind(9, x.nonFinite).bind(10, x.amax).bind(11, x.minNonzero).bind(12, x.flushed);
      s.bind(13, x.subnormal).bind(14, x.overflowed).bind(15, x.signalEnergy);
      s.bind(16, x.errorEnergy).bind(17, x.maxRelativeError);
      s.bind(18, exponentHistogramText(x)).run();
    }
    exec("COMMIT");
  } catch (...) {
    exec("ROLLBACK");
    throw;
  }
}

void ResultsStore::deleteXray(std::int64_t runId) {
  std::lock_guard lock(mutex_);
  Statement(db_, "DELETE FROM xray WHERE run_id = ?", path_).bind(1, runId).run();
}

std::vector<XrayRow> ResultsStore::loadXray(std::int64_t runId) const {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "SELECT run_id, step, epoch, site, operand, format, count, zeros, non_finite, amax, "
              "min_nonzero, flushed, subnormal, overflowed, signal_energy, error_energy, "
              "max_rel_error, exponent_histogram FROM xray WHERE ? = 0 OR run_id = ? "
              "ORDER BY run_id, rowid",
              path_);
  s.bind(1, runId).bind(2, runId);
  std::vector<XrayRow> rows;
  while (s.step()) {
    XrayRow r;
    r.runId = s.i64(0);
    r.step = s.i64(1);
    r.epoch = int(s.i64(2));
    r.site = s.text(3);
    r.operand = s.text(4);
    r.format = s.text(5);
    numerics::TensorXray& x = r.xray;
    x.count = s.i64(6);
    x.zeros = s.i64(7);
    x.nonFinite = s.i64(8);
    x.amax = std::isnan(s.real(9)) ? 0.0 : s.real(9);
    x.minNonzero = std::isnan(s.real(10)) ? std::numeric_limits<double>::infinity() : s.real(10);
    x.flushed = s.i64(11);
    x.subnormal = s.i64(12);
    x.overflowed = s.i64(13);
    x.signalEnergy = std::isnan(s.real(14)) ? 0.0 : s.real(14);
    x.errorEnergy = std::isnan(s.real(15)) ? 0.0 : s.real(15);
    x.maxRelativeError = std::isnan(s.real(16)) ? 0.0 : s.real(16);
    parseExponentHistogram(s.text(17), x);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace paritylab::study
