// Epochs and sampled steps: the curves of a run. Part of ResultsStore.
#include <sqlite3.h>

#include <limits>
#include <map>
#include <vector>

#include "core/study/store/results_store.h"
#include "core/study/store/results_store_rows.h"
#include "core/study/store/results_store_transaction.h"
#include "core/study/store/sqlite_statement.h"

namespace paritylab::study {

using namespace store_rows;

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
    st.step =
        storedInteger(s, 1, path_, runId, "step", 1, std::numeric_limits<std::int64_t>::max());
    st.epoch = int(storedInteger(s, 2, path_, runId, "step epoch", 1, kMaxInt));
    st.trainLoss = storedReal(s, 3, path_, runId, "step train_loss", -kInf, kInf);
    st.lr = storedReal(s, 4, path_, runId, "step lr", 0, kInf);
    out[runId].push_back(st);
  }
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

}  // namespace paritylab::study
