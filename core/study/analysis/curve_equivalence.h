#pragma once
// Per-step curve equivalence of two backends of a study: is backend B's training-loss curve
// inside backend A's seed-to-seed band at every sampled step at once, and B's compared metric
// (accuracy, or a language model's validation loss) at every epoch? A simultaneous band calibrated
// by permuting the seeds' curves between the backends (core/stats/curve_band.h;
// docs/curve-equivalence.md), so that over all steps together a backend that trains like A leaves
// it with probability at most alpha.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/stats/curve_band.h"
#include "core/study/analysis/compared_metric.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

struct CurveEquivalence {
  std::string reference, backend;  // A (whose seeds set the band) and B
  double alpha = 0.05;
  int runsReference = 0, runsBackend = 0;   // completed runs compared (emulated or imported)
  bool emulated = false, imported = false;  // whether any compared run was so
  std::vector<std::int64_t> steps;          // the sampled steps every compared run has, 1-based
  std::optional<stats::CurveBandResult> trainLoss;  // over `steps`
  std::vector<int> epochs;                          // the epochs every compared run has, 1-based
  std::string metric;  // the study's compared metric per epoch ("accuracy", ...)
  std::optional<stats::CurveBandResult> testMetric;  // over `epochs`
  std::string trainLossWords, testMetricWords;  // each part in plain words ("" without its band)
  std::string headline;                         // in plain words, the training-loss part first
  std::vector<std::string> notes;               // why a part is missing
};

// Throws StoreError (from the store) when the database cannot be read; a backend with fewer
// than 2 completed runs gives no band and says so in `notes` and `headline`. `metric`: the one
// compared per epoch (none: the study's default, defaultComparedMetric).
CurveEquivalence analyseCurveEquivalence(const ResultsStore& store, const std::string& reference,
                                         const std::string& backend, double alpha = 0.05,
                                         std::optional<ComparedMetric> metric = std::nullopt);

}  // namespace paritylab::study
