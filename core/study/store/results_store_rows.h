#pragma once
// How rows of the results database are read back and checked, shared by the store's source files
// (runs, curves, X-ray). Internal to core/study/store.

#include <cstdint>
#include <limits>
#include <string>

#include "core/study/store/results_store.h"
#include "core/study/store/sqlite_statement.h"

struct sqlite3;

namespace paritylab::study::store_rows {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();

// The runs' columns as every schema version can give them (version 1 had no run_name/seed_given:
// imported runs kept "name@datetime" in message and had assigned seeds).
std::string runColumns(int schemaVersion);
// epochs.skipped_steps exists from version 3; older databases read as 0 skipped.
std::string skippedStepsColumn(int schemaVersion);

// A stored value in a message: a number as written, text quoted, cut and made printable.
std::string storedValue(const Statement& s, int c);
// Throws StoreError "FILE: damaged database: run ID COLUMN VALUE".
[[noreturn]] void damagedRun(const std::string& file, std::int64_t runId, const char* column,
                             const std::string& value);
// Column c as a real: a number or NULL (NaN, unknown), within [lo, hi] unless NaN.
double storedReal(const Statement& s, int c, const std::string& file, std::int64_t runId,
                  const char* column, double lo, double hi);
// Column c as an integer in [lo, hi] (NULL reads as 0).
std::int64_t storedInteger(const Statement& s, int c, const std::string& file, std::int64_t runId,
                           const char* column, std::int64_t lo, std::int64_t hi);

// A run row (the columns of runColumns), every value checked against what a run can hold.
RunRecord readRun(const Statement& s, const std::string& file);
// One epoch row whose columns start at `c` (epoch, train_loss, test_loss, test_accuracy, seconds,
// skipped_steps), checked as readRun checks a run.
EpochRecord readEpoch(const Statement& s, int c, const std::string& file, std::int64_t runId);

// What a run redone from scratch loses: its epochs, sampled steps, X-ray samples, predictions,
// weight snapshots, text sample, early warnings and serving comparisons.
void deleteRunResults(sqlite3* db, const std::string& file, std::int64_t runId);
// The last statement failed on a uniqueness constraint.
bool isUniqueViolation(sqlite3* db);

}  // namespace paritylab::study::store_rows
