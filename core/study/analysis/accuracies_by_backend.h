#pragma once
// The samples a statistical test compares: each backend's completed runs' final accuracies.

#include <string>
#include <utility>
#include <vector>

#include "core/study/store/results_store.h"

namespace paritylab::study {

// Completed runs' final accuracies (fractions) per backend, backends in first-appearance order;
// runs without a final accuracy are left out.
std::vector<std::pair<std::string, std::vector<double>>> finalAccuraciesByBackend(
    const ResultsStore& store);

}  // namespace paritylab::study
