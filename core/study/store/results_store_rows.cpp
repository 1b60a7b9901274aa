#include "core/study/store/results_store_rows.h"

#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "core/input/number_input.h"

namespace paritylab::study::store_rows {

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
  return "'" + input::excerpt(s.text(c)) + "'";
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
  for (const char* table : {"epochs", "steps", "xray", "predictions", "weights", "samples",
                            "signals", "signal_layers", "serving"}) {
    Statement(db, std::string("DELETE FROM ") + table + " WHERE run_id = ?", file)
        .bind(1, runId)
        .run();
  }
}

bool isUniqueViolation(sqlite3* db) {
  return sqlite3_extended_errcode(db) == SQLITE_CONSTRAINT_UNIQUE ||
         sqlite3_extended_errcode(db) == SQLITE_CONSTRAINT_PRIMARYKEY;
}

}  // namespace paritylab::study::store_rows
