// ResultsStore's serving comparisons (schema version 9): each finished run's model served by the
// study's backends and, in batches of 1, by its own.
#include <limits>

#include "core/study/store/results_store.h"
#include "core/study/store/results_store_rows.h"
#include "core/study/store/results_store_transaction.h"
#include "core/study/store/sqlite_statement.h"

namespace paritylab::study {

using namespace store_rows;

void ResultsStore::addServing(std::int64_t runId, const std::vector<ServingRecord>& rows) {
  if (rows.empty()) return;
  std::lock_guard lock(mutex_);
  transaction([&] {
    Statement s(db_,
                "INSERT OR REPLACE INTO serving (run_id, served_by, batch_size, predictions, "
                "flips, mean_abs_log_prob_change, mean_kl, accuracy) VALUES (?,?,?,?,?,?,?,?)",
                path_);
    for (const ServingRecord& r : rows) {
      s.bind(1, runId).bind(2, r.servedBy).bind(3, std::int64_t(r.batchSize));
      s.bind(4, r.predictions).bind(5, r.flips).bind(6, r.meanAbsLogProbChange);
      s.bind(7, r.meanKl).bind(8, r.accuracy).run();
      s.reset();
    }
    return true;
  });
}

std::map<std::int64_t, std::vector<ServingRecord>> ResultsStore::loadAllServing() const {
  std::lock_guard lock(mutex_);
  std::map<std::int64_t, std::vector<ServingRecord>> out;
  if (!hasTable("serving")) return out;
  Statement s(db_,
              "SELECT run_id, served_by, batch_size, predictions, flips, "
              "mean_abs_log_prob_change, mean_kl, accuracy FROM serving ORDER BY run_id, rowid",
              path_);
  constexpr std::int64_t kMaxCount = std::numeric_limits<std::int64_t>::max();
  while (s.step()) {
    const std::int64_t runId = s.i64(0);
    ServingRecord r;
    r.servedBy = s.text(1);
    r.batchSize = int(storedInteger(s, 2, path_, runId, "serving batch_size", 1, kMaxInt));
    r.predictions = storedInteger(s, 3, path_, runId, "serving predictions", 0, kMaxCount);
    r.flips = storedInteger(s, 4, path_, runId, "serving flips", 0, r.predictions);
    r.meanAbsLogProbChange =
        storedReal(s, 5, path_, runId, "serving mean_abs_log_prob_change", 0, kInf);
    r.meanKl = storedReal(s, 6, path_, runId, "serving mean_kl", 0, kInf);
    r.accuracy = storedReal(s, 7, path_, runId, "serving accuracy", 0, 1);
    out[runId].push_back(std::move(r));
  }
  return out;
}

}  // namespace paritylab::study
