#include "core/study/analysis/compared_metric.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/nn/training_choices.h"

namespace paritylab::study {

ComparedMetric comparedMetricNamed(std::string_view name) {
  for (std::size_t i = 0; i < kComparedMetricNames.size(); ++i)
    if (name == kComparedMetricNames[i]) return ComparedMetric(i);
  throw std::invalid_argument("unknown metric '" + std::string(name) +
                              "' (one of: " + nn::joinedNames(kComparedMetricNames) + ")");
}

std::string_view comparedMetricName(ComparedMetric metric) {
  return kComparedMetricNames[std::size_t(metric)];
}

stats::MetricWords metricWords(ComparedMetric metric) {
  switch (metric) {
    case ComparedMetric::Accuracy:
      return stats::accuracyWords();
    case ComparedMetric::TestLoss:
      return stats::lossWords("test loss");
    case ComparedMetric::ValidationLoss:
      return stats::lossWords("validation loss");
    case ComparedMetric::Perplexity:
      return stats::perplexityWords();
  }
  return stats::accuracyWords();
}

ComparedMetric defaultComparedMetric(const StudySpec& spec) {
  return nn::isLanguageModel(spec.train.model) ? ComparedMetric::ValidationLoss
                                               : ComparedMetric::Accuracy;
}

ComparedMetric defaultComparedMetric(const ResultsStore& store) {
  return store.hasStudy() ? defaultComparedMetric(store.loadStudySpec()) : ComparedMetric::Accuracy;
}

double metricValue(ComparedMetric metric, double accuracy, double testLoss) {
  switch (metric) {
    case ComparedMetric::Accuracy:
      return accuracy;
    case ComparedMetric::TestLoss:
    case ComparedMetric::ValidationLoss:
      return testLoss;
    case ComparedMetric::Perplexity:
      return std::exp(testLoss);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double finalMetricOf(const RunRecord& run, ComparedMetric metric) {
  return metricValue(metric, run.finalAccuracy, run.finalTestLoss);
}

std::vector<std::pair<std::string, std::vector<double>>> finalMetricByBackend(
    const ResultsStore& store, ComparedMetric metric) {
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (const RunRecord& r : store.loadRuns()) {
    const double value = finalMetricOf(r, metric);
    if (r.status != RunState::Completed || !std::isfinite(value)) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](auto& p) { return p.first == r.backend; });
    if (it == out.end()) it = out.insert(out.end(), {r.backend, {}});
    it->second.push_back(value);
  }
  return out;
}

}  // namespace paritylab::study
