// Runs and their claims. Part of ResultsStore.
#include <sqlite3.h>

#include <string>
#include <vector>

#include "core/study/store/results_store.h"
#include "core/study/store/results_store_rows.h"
#include "core/study/store/results_store_transaction.h"
#include "core/study/store/sqlite_statement.h"

namespace paritylab::study {

using namespace store_rows;

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

}  // namespace paritylab::study
