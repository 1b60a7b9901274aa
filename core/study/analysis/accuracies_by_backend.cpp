#include "core/study/analysis/accuracies_by_backend.h"

#include "core/study/analysis/compared_metric.h"

namespace paritylab::study {

std::vector<std::pair<std::string, std::vector<double>>> finalAccuraciesByBackend(
    const ResultsStore& store) {
  return finalMetricByBackend(store, ComparedMetric::Accuracy);
}

}  // namespace paritylab::study
