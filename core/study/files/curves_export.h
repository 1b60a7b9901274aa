#pragma once
// The curves of a results database as long-form CSVs, one value a row:
// - per step: run_id, backend, seed, step, epoch, metric, value — metric "train_loss" (that
//   step's batch training loss) or "lr" (its learning rate), for every stored (sampled) step;
// - per epoch: run_id, backend, seed, status, epoch, metric, value — metric "train_loss",
//   "test_loss" or "test_accuracy" (a fraction), every recorded epoch of every run (the data of
//   the Curves tab's epoch charts). An unknown value is an empty cell.

#include <string>

#include "core/study/store/results_store.h"

namespace paritylab::study {

// Returns the number of data rows written. Throws std::runtime_error naming the file that
// cannot be written.
std::size_t writeStepCurves(const ResultsStore& store, const std::string& csvPath);
std::size_t writeEpochCurves(const ResultsStore& store, const std::string& csvPath);

}  // namespace paritylab::study
