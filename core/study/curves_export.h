#pragma once
// The per-step curves of a results database as a long-form CSV, one value a row:
// run_id, backend, seed, step, epoch, metric, value — metric "train_loss" (that step's batch
// training loss) or "lr" (its learning rate), for every stored (sampled) step of every run.

#include <string>

#include "core/study/results_store.h"

namespace paritylab::study {

// Returns the number of data rows written. Throws std::runtime_error naming the file that
// cannot be written.
std::size_t writeStepCurves(const ResultsStore& store, const std::string& csvPath);

}  // namespace paritylab::study
