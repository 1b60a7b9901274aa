#pragma once
// The study's lockstep comparisons (the spec's "lockstep"; core/nn/lockstep.h, docs/lockstep.md):
// before the study's runs, each mode the database does not hold yet trains the backend and the
// reference side by side from the first seed's initial weights on its batches, and is stored.
// Cancelling stops it within a step; a comparison cut short is not stored (a resumed study runs
// it again).

#include <atomic>
#include <functional>
#include <string>

#include "core/data/dataset.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

// Returns the modes it stored, in order; `onStored` (when set) is called after each.
std::vector<std::string> runStudyLockstep(
    const StudySpec& spec, const data::DataSplit& data, ResultsStore& store,
    const std::atomic<bool>& cancel,
    const std::function<void(const LockstepRecord&)>& onStored = {});

}  // namespace paritylab::study
