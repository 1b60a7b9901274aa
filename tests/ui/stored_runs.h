#pragma once
// Completed runs written straight into a results database, for the tests of a tab that reads
// them: one run per value, seeds 0..n-1, the value its final accuracy.

#include <string>
#include <vector>

#include "core/study/store/results_store.h"

namespace paritylab::ui::testing {

inline void addCompletedRuns(study::ResultsStore& store, const std::string& backend,
                             const std::vector<double>& accuracies) {
  for (std::size_t i = 0; i < accuracies.size(); ++i) {
    study::RunRecord r;
    r.backend = backend;
    r.seed = i;
    r.status = study::RunState::Completed;
    r.epochsDone = 1;
    r.finalAccuracy = accuracies[i];
    r.finalTestLoss = 0.5;
    r.finalTrainLoss = 0.5;
    store.addRun(r);
  }
}

}  // namespace paritylab::ui::testing
