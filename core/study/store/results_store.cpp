#include "core/study/store/results_store.h"

#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "core/study/store/results_schema.h"
#include "core/study/store/results_store_transaction.h"
#include "core/study/store/sqlite_statement.h"
#include "core/study/store/xray_histogram_text.h"

#ifndef PARITYLAB_VERSION
#define PARITYLAB_VERSION "0"
#endif

namespace paritylab::study {
namespace {

// The runs' columns as every schema version can give them (version 1 had no run_name/seed_given:
// imported runs kept "name@datetime" in message and had assigned seeds).
// epochs.skipped_steps exists from version 3; older databases read as 0 skipped.
std::string skippedStepsColumn(int schemaVersion) {
  return schemaVersion >= 3 ? "skipped_steps" : "0";
}

std::string runColumns(int schemaVersion) {
  std::string base =
      "id, backend, policy, seed, status, epochs_done, final_train_loss, final_test_loss, "
      "final_accuracy, wall_seconds, diverged_epoch, message, source, ";
  if (schemaVersion >= 2) return base + "run_name, seed_given";
  return base +
         "CASE WHEN source = 'imported' THEN (CASE WHEN instr(message, '@') > 0 THEN "
         "substr(message, 1, instr(message, '@') - 1) ELSE message END) ELSE '' END, "
         "CASE WHEN source = 'imported' AND message NOT LIKE 'row %' THEN 0 ELSE 1 END";
}

// A stored value in a message: a number as written, text quoted, cut and made printable.
std::string storedValue(const Statement& s, int c) {
  if (s.isInteger(c)) return std::to_string(s.i64(c));
  if (s.isNumberOrNull(c)) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.9g", s.real(c));
    return buffer;
  }
  std::string text = s.text(c), shown = "'";
  for (std::size_t i = 0; i < text.size() && i < 40; ++i)
    shown += (text[i] >= 0x20 && text[i] < 0x7f) ? text[i] : '?';
  return shown + (text.size() > 40 ? "...'" : "'");
}

[[noreturn]] void damagedRun(const std::string& file, std::int64_t runId, const char* column,
                             const std::string& value) {
  throw StoreError(file + ": damaged database: run " + std::to_string(runId) + " " + column + " " +
                   value);
}

// Column c as a real: a number or NULL (NaN, unknown), within [lo, hi] unless NaN.
double storedReal(const Statement& s, int c, const std::string& file, std::int64_t runId,
                  const char* column, double lo, double hi) {
  const double v = s.real(c);
  if (!s.isNumberOrNull(c) || (!std::isnan(v) && (v < lo || v > hi)))
    damagedRun(file, runId, column, storedValue(s, c));
  return v;
}

// Column c as an integer in [lo, hi] (NULL reads as 0).
std::int64_t storedInteger(const Statement& s, int c, const std::string& file, std::int64_t runId,
                           const char* column, std::int64_t lo, std::int64_t hi) {
  const std::int64_t v = s.i64(c);
  if (!s.isNumberOrNull(c) || (!s.isInteger(c) && !std::isnan(s.real(c))) || v < lo || v > hi)
    damagedRun(file, runId, column, storedValue(s, c));
  return v;
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();

// Every value is checked against what a run can hold: "FILE: damaged database: run 1
// final_accuracy 5" otherwise.
RunRecord readRun(const Statement& s, const std::string& file) {
  RunRecord r;
  r.id = s.i64(0);
  r.backend = s.text(1);
  r.policyJson = s.text(2);
  r.seed = std::uint64_t(
      storedInteger(s, 3, file, r.id, "seed", 0, std::numeric_limits<std::int64_t>::max()));
  try {
    r.status = runStateFromString(s.text(4));
  } catch (const std::invalid_argument& e) {
    throw StoreError(file + ": run " + std::to_string(r.id) + ": " + e.what());
  }
  r.epochsDone = int(storedInteger(s, 5, file, r.id, "epochs_done", 0, kMaxInt));
  r.finalTrainLoss = storedReal(s, 6, file, r.id, "final_train_loss", -kInf, kInf);
  r.finalTestLoss = storedReal(s, 7, file, r.id, "final_test_loss", -kInf, kInf);
  r.finalAccuracy = storedReal(s, 8, file, r.id, "final_accuracy", 0, 1);
  r.wallSeconds = storedReal(s, 9, file, r.id, "wall_seconds", 0, kInf);
  r.divergedEpoch = int(storedInteger(s, 10, file, r.id, "diverged_epoch", 0, kMaxInt));
  r.message = s.text(11);
  r.source = s.text(12);
  if (r.source != "emulated" && r.source != "imported")
    damagedRun(file, r.id, "source", storedValue(s, 12));
  r.runName = s.text(13);
  r.seedGiven = s.i64(14) != 0;
  return r;
}

// One epoch row whose columns start at `c` (epoch, train_loss, test_loss, test_accuracy, seconds,
// skipped_steps), checked as readRun checks a run.
EpochRecord readEpoch(const Statement& s, int c, const std::string& file, std::int64_t runId) {
  EpochRecord e;
  e.epoch = int(storedInteger(s, c, file, runId, "epoch", 1, kMaxInt));
  e.trainLoss = storedReal(s, c + 1, file, runId, "train_loss", -kInf, kInf);
  e.testLoss = storedReal(s, c + 2, file, runId, "test_loss", -kInf, kInf);
  e.testAccuracy = storedReal(s, c + 3, file, runId, "test_accuracy", 0, 1);
  e.seconds = storedReal(s, c + 4, file, runId, "epoch seconds", 0, kInf);
  e.skippedSteps = int(storedInteger(s, c + 5, file, runId, "skipped_steps", 0, kMaxInt));
  return e;
}

// What a run redone from scratch loses: its epochs, sampled steps, X-ray samples, predictions and
// weight snapshots.
void deleteRunResults(sqlite3* db, const std::string& file, std::int64_t runId) {
  for (const char* table : {"epochs", "steps", "xray", "predictions", "weights"}) {
    Statement(db, std::string("DELETE FROM ") + table + " WHERE run_id = ?", file)
        .bind(1, runId)
        .run();
  }
}

bool isUniqueViolation(sqlite3* db) {
  return sqlite3_extended_errcode(db) == SQLITE_CONSTRAINT_UNIQUE ||
         sqlite3_extended_errcode(db) == SQLITE_CONSTRAINT_PRIMARYKEY;
}

}  // namespace

ResultsStore::ResultsStore(std::string path) : path_(std::move(path)) {}

ResultsStore::~ResultsStore() {
  sqlite3_close(db_);
}

void ResultsStore::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw StoreError(path_ + ": " + msg);
  }
}

bool ResultsStore::hasStudy() const {
  return !loadStudySpecJson().empty();
}

namespace {

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char created[32];
  std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return created;
}

}  // namespace

namespace {

// Writes the study row; `conflict` is "REPLACE" (save) or "IGNORE" (save unless one is there).
// True when a row was written.
bool writeStudyRow(sqlite3* db, const std::string& path, const char* conflict,
                   const std::string& specJson) {
  const std::string sql = std::string("INSERT OR ") + conflict +
                          " INTO study (id, spec, software_version, created) VALUES (1, ?, ?, ?)";
  Statement s(db, sql, path);
  s.bind(1, specJson).bind(2, std::string(PARITYLAB_VERSION)).bind(3, utcNow()).run();
  return sqlite3_changes(db) == 1;
}

}  // namespace

void ResultsStore::saveStudySpec(const std::string& specJson) {
  std::lock_guard lock(mutex_);
  writeStudyRow(db_, path_, "REPLACE", specJson);
}

bool ResultsStore::saveStudySpecIfNone(const std::string& specJson) {
  std::lock_guard lock(mutex_);
  return writeStudyRow(db_, path_, "IGNORE", specJson);
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

std::int64_t ResultsStore::insertRun(const RunRecord& r) {
  Statement s(db_,
              "INSERT INTO runs (backend, policy, seed, status, epochs_done, final_train_loss, "
              "final_test_loss, final_accuracy, wall_seconds, diverged_epoch, message, source, "
              "run_name, seed_given) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
              path_);
  s.bind(1, r.backend).bind(2, r.policyJson).bind(3, std::int64_t(r.seed));
  s.bind(4, std::string(toString(r.status))).bind(5, std::int64_t(r.epochsDone));
  s.bind(6, r.finalTrainLoss).bind(7, r.finalTestLoss).bind(8, r.finalAccuracy);
  s.bind(9, r.wallSeconds).bind(10, std::int64_t(r.divergedEpoch)).bind(11, r.message);
  s.bind(12, r.source).bind(13, r.runName).bind(14, std::int64_t(r.seedGiven ? 1 : 0));
  try {
    s.run();
  } catch (const StoreError&) {
    if (!isUniqueViolation(db_)) throw;
    throw StoreError(
        path_ + ": the run " + r.backend +
        (r.source == "imported" ? " '" + r.message + "'" : " seed " + std::to_string(r.seed)) +
        " is already in the database");
  }
  return sqlite3_last_insert_rowid(db_);
}

std::int64_t ResultsStore::addRun(const RunRecord& r) {
  std::lock_guard lock(mutex_);
  return insertRun(r);
}

std::int64_t ResultsStore::ensureRun(const RunRecord& r) {
  std::lock_guard lock(mutex_);
  return transaction([&] {
    Statement s(db_,
                "INSERT OR IGNORE INTO runs (backend, policy, seed, status, source) "
                "VALUES (?, ?, ?, 'pending', 'emulated')",
                path_);
    s.bind(1, r.backend).bind(2, r.policyJson).bind(3, std::int64_t(r.seed)).run();
    Statement q(db_, "SELECT id FROM runs WHERE source = 'emulated' AND backend = ? AND seed = ?",
                path_);
    q.bind(1, r.backend).bind(2, std::int64_t(r.seed));
    if (!q.step()) throw StoreError(path_ + ": run " + r.backend + " vanished while adding it");
    return q.i64(0);
  });
}

bool ResultsStore::claimRun(std::int64_t runId, const std::string& owner) {
  std::lock_guard lock(mutex_);
  return transaction([&] {
    Statement s(db_,
                "UPDATE runs SET status = 'running', claimed_by = ?, epochs_done = 0, "
                "final_train_loss = NULL, final_test_loss = NULL, final_accuracy = NULL, "
                "wall_seconds = NULL, diverged_epoch = 0, message = '' "
                "WHERE id = ? AND status = 'pending'",
                path_);
    s.bind(1, owner).bind(2, runId).run();
    if (sqlite3_changes(db_) != 1) return false;
    // Whatever an earlier, interrupted attempt committed starts again from scratch.
    deleteRunResults(db_, path_, runId);
    return true;
  });
}

int ResultsStore::releaseUnfinishedRuns(bool otherHostsGone) {
  std::lock_guard lock(mutex_);
  return transaction([&] {
    Statement s(db_,
                "SELECT id, status, claimed_by FROM runs WHERE source = 'emulated' AND "
                "status IN ('failed', 'cancelled', 'running')",
                path_);
    std::vector<std::int64_t> release;
    while (s.step())
      if (s.text(1) != "running" || ownerIsGone(s.text(2), otherHostsGone))
        release.push_back(s.i64(0));
    for (std::int64_t id : release) {
      Statement(db_, "UPDATE runs SET status = 'pending', claimed_by = '' WHERE id = ?", path_)
          .bind(1, id)
          .run();
    }
    return int(release.size());
  });
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
  transaction([&] {
    Statement s(db_,
                "INSERT OR REPLACE INTO epochs (run_id, epoch, train_loss, test_loss, "
                "test_accuracy, seconds, skipped_steps) VALUES (?,?,?,?,?,?,?)",
                path_);
    s.bind(1, runId).bind(2, std::int64_t(e.epoch)).bind(3, e.trainLoss).bind(4, e.testLoss);
    s.bind(5, e.testAccuracy).bind(6, e.seconds).bind(7, std::int64_t(e.skippedSteps)).run();
    Statement u(db_, "UPDATE runs SET epochs_done = ? WHERE id = ?", path_);
    u.bind(1, std::int64_t(e.epoch)).bind(2, runId).run();
    return true;
  });
}

void ResultsStore::deleteEpochs(std::int64_t runId) {
  std::lock_guard lock(mutex_);
  transaction([&] {
    deleteRunResults(db_, path_, runId);
    return true;
  });
}

void ResultsStore::addSteps(std::int64_t runId, const std::vector<StepRecord>& steps) {
  if (steps.empty()) return;
  std::lock_guard lock(mutex_);
  transaction([&] {
    Statement s(db_,
                "INSERT OR REPLACE INTO steps (run_id, step, epoch, train_loss, lr) "
                "VALUES (?,?,?,?,?)",
                path_);
    for (const StepRecord& st : steps) {
      s.bind(1, runId).bind(2, st.step).bind(3, std::int64_t(st.epoch));
      s.bind(4, st.trainLoss).bind(5, st.lr).run();
      s.reset();
    }
    return true;
  });
}

std::map<std::int64_t, std::vector<StepRecord>> ResultsStore::loadAllSteps() const {
  std::lock_guard lock(mutex_);
  std::map<std::int64_t, std::vector<StepRecord>> out;
  Statement has(db_, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='steps'",
                path_);
  if (!has.step() || has.i64(0) == 0) return out;
  Statement s(db_, "SELECT run_id, step, epoch, train_loss, lr FROM steps ORDER BY run_id, step",
              path_);
  while (s.step()) {
    const std::int64_t runId = s.i64(0);
    StepRecord st;
    st.step = storedInteger(s, 1, path_, runId, "step", 1, std::numeric_limits<std::int64_t>::max());
    st.epoch = int(storedInteger(s, 2, path_, runId, "step epoch", 1, kMaxInt));
    st.trainLoss = storedReal(s, 3, path_, runId, "step train_loss", -kInf, kInf);
    st.lr = storedReal(s, 4, path_, runId, "step lr", 0, kInf);
    out[runId].push_back(st);
  }
  return out;
}

int ResultsStore::addRunsWithEpochs(std::vector<RunRecord>& runs,
                                    const std::vector<std::vector<EpochRecord>>& epochs) {
  std::lock_guard lock(mutex_);
  return transaction([&] {
    int added = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      Statement present(db_,
                        "SELECT count(*) FROM runs WHERE source = 'imported' AND backend = ? "
                        "AND message = ?",
                        path_);
      present.bind(1, runs[i].backend).bind(2, runs[i].message).step();
      if (runs[i].source == "imported" && present.i64(0) > 0) {
        runs[i].id = 0;  // already imported (the same file again): kept as it is
        continue;
      }
      runs[i].id = insertRun(runs[i]);
      ++added;
      for (const EpochRecord& e : epochs[i]) {
        Statement one(db_,
                      "INSERT INTO epochs (run_id, epoch, train_loss, test_loss, test_accuracy, "
                      "seconds) VALUES (?,?,?,?,?,?)",
                      path_);
        one.bind(1, runs[i].id).bind(2, std::int64_t(e.epoch)).bind(3, e.trainLoss);
        one.bind(4, e.testLoss).bind(5, e.testAccuracy).bind(6, e.seconds);
        try {
          one.run();
        } catch (const StoreError&) {
          if (!isUniqueViolation(db_)) throw;
          throw StoreError(path_ + ": run " + runs[i].backend + " '" + runs[i].message +
                           "' has epoch " + std::to_string(e.epoch) + " twice");
        }
      }
    }
    return added;
  });
}

std::vector<RunRecord> ResultsStore::loadRuns() const {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT " + runColumns(schemaVersion_) + " FROM runs ORDER BY id", path_);
  std::vector<RunRecord> out;
  while (s.step()) out.push_back(readRun(s, path_));
  return out;
}

std::vector<EpochRecord> ResultsStore::loadEpochs(std::int64_t runId) const {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "SELECT epoch, train_loss, test_loss, test_accuracy, seconds, " +
                  skippedStepsColumn(schemaVersion_) +
                  " FROM epochs WHERE run_id = ? ORDER BY epoch",
              path_);
  s.bind(1, runId);
  std::vector<EpochRecord> out;
  while (s.step()) out.push_back(readEpoch(s, 0, path_, runId));
  return out;
}

std::map<std::int64_t, std::vector<EpochRecord>> ResultsStore::loadAllEpochs() const {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "SELECT run_id, epoch, train_loss, test_loss, test_accuracy, seconds, " +
                  skippedStepsColumn(schemaVersion_) + " FROM epochs ORDER BY run_id, epoch",
              path_);
  std::map<std::int64_t, std::vector<EpochRecord>> out;
  while (s.step()) out[s.i64(0)].push_back(readEpoch(s, 1, path_, s.i64(0)));
  return out;
}

void ResultsStore::addXraySample(std::int64_t runId, const nn::XraySample& sample) {
  if (sample.records.empty()) return;
  std::lock_guard lock(mutex_);
  transaction([&] {
    Statement s(db_,
                "INSERT OR REPLACE INTO xray (run_id, step, epoch, site, operand, format, count, "
                "zeros, non_finite, amax, min_nonzero, flushed, subnormal, overflowed, "
                "signal_energy, error_energy, max_rel_error, exponent_histogram) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                path_);
    for (const nn::XrayRecord& r : sample.records) {
      const numerics::TensorXray& x = r.xray;
      s.bind(1, runId).bind(2, sample.step).bind(3, std::int64_t(sample.epoch)).bind(4, r.site);
      s.bind(5, r.operand).bind(6, r.format).bind(7, x.count).bind(8, x.zeros);
      s.bind(9, x.nonFinite).bind(10, x.amax).bind(11, x.minNonzero).bind(12, x.flushed);
      s.bind(13, x.subnormal).bind(14, x.overflowed).bind(15, x.signalEnergy);
      s.bind(16, x.errorEnergy).bind(17, x.maxRelativeError);
      s.bind(18, exponentHistogramText(x)).run();
      s.reset();
    }
    return true;
  });
}

std::vector<XrayRow> ResultsStore::loadXray(std::int64_t runId) const {
  std::lock_guard lock(mutex_);
  std::vector<XrayRow> rows;
  // A database of schema version 4 or older opened read-only has no xray table: no samples.
  Statement has(db_, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='xray'",
                path_);
  if (!has.step() || has.i64(0) == 0) return rows;
  Statement s(db_,
              "SELECT run_id, step, epoch, site, operand, format, count, zeros, non_finite, amax, "
              "min_nonzero, flushed, subnormal, overflowed, signal_energy, error_energy, "
              "max_rel_error, exponent_histogram FROM xray WHERE ? = 0 OR run_id = ? "
              "ORDER BY run_id, rowid",
              path_);
  s.bind(1, runId).bind(2, runId);
  while (s.step()) {
    XrayRow r;
    r.runId = s.i64(0);
    const auto count = [&](int c, const char* column, std::int64_t hi) {
      return storedInteger(s, c, path_, r.runId, column, 0, hi);
    };
    const auto real = [&](int c, const char* column, double fallback) {
      const double v = storedReal(s, c, path_, r.runId, column, 0, kInf);
      return std::isnan(v) ? fallback : v;
    };
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    r.step = count(1, "xray step", kMax);
    r.epoch = int(storedInteger(s, 2, path_, r.runId, "xray epoch", 1, kMaxInt));
    r.site = s.text(3);
    r.operand = s.text(4);
    r.format = s.text(5);
    numerics::TensorXray& x = r.xray;
    x.count = count(6, "xray count", kMax);
    x.zeros = count(7, "xray zeros", x.count);
    x.nonFinite = count(8, "xray non_finite", x.count);
    x.amax = real(9, "xray amax", 0.0);
    x.minNonzero = real(10, "xray min_nonzero", kInf);
    x.flushed = count(11, "xray flushed", x.count);
    x.subnormal = count(12, "xray subnormal", x.count);
    x.overflowed = count(13, "xray overflowed", x.count);
    x.signalEnergy = real(14, "xray signal_energy", 0.0);
    x.errorEnergy = real(15, "xray error_energy", 0.0);
    x.maxRelativeError = real(16, "xray max_rel_error", 0.0);
    try {
      parseExponentHistogram(s.text(17), x);
    } catch (const std::runtime_error& e) {
      throw StoreError(path_ + ": damaged database: run " + std::to_string(r.runId) + " xray step " +
                       std::to_string(r.step) + " " + e.what());
    }
    rows.push_back(std::move(r));
  }
  return rows;
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

}  // namespace paritylab::study
