#pragma once
// The early warnings of a results database as a long-form CSV, one value a row: run_id, backend,
// seed, step, epoch, signal, layer, value — signal "grad_norm", "attention_logit_max" or
// "output_logit_norm" (layer empty) or "update_ratio" (one row per layer), for every sampled
// step that measured them (step_signals.h says what each is). An unknown value is an empty cell;
// a model without attention has no attention_logit_max rows.

#include <cstddef>
#include <string>

#include "core/study/store/results_store.h"

namespace paritylab::study {

// Returns the number of data rows written. Throws std::runtime_error naming the file that
// cannot be written.
std::size_t writeStepSignals(const ResultsStore& store, const std::string& csvPath);

}  // namespace paritylab::study
