#pragma once
// A sweep's analysis (docs/study-designs.md): the compared metric per backend and cell of the
// grid with its confidence interval; a two-way ANOVA of backend x cell whose interaction row
// answers "does the backend change how the metric depends on the swept hyperparameters?"; the
// backend difference at each cell (simple effects, Welch, Holm-adjusted over the cells); for a
// learning-rate sweep, the range of rates each backend trains well at; and the verdict in words.
// With several factors, a cell (one combination of their values) is one level of the one swept
// factor: the interaction then tests the backend against the grid as a whole.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/stats/two_way_anova.h"
#include "core/study/analysis/compared_metric.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

// One backend at one cell of the grid.
struct SweepCell {
  std::size_t backend = 0, cell = 0;
  std::size_t runs = 0;      // the study's runs of this backend and cell in the store
  std::size_t finished = 0;  // completed with a finite value of the metric
  // Of the finished runs' values, in the metric's units (accuracy as a fraction); NaN with fewer
  // than 1 value (mean) or 2 values (sd, CI).
  double mean = 0.0, sd = 0.0, ciLow = 0.0, ciHigh = 0.0;
};

// A learning-rate sweep: the rates at which a backend trains within `distance` of its best mean
// (every run at that rate finished). With other factors swept too, a rate's value is the mean
// over their cells.
struct LearningRateRange {
  std::string backend;
  double bestLr = 0.0, bestValue = 0.0;  // NaN when no rate has a value
  double low = 0.0, high = 0.0;          // the lowest and highest usable rate; NaN when none
  std::size_t usable = 0, tried = 0;     // rates usable / swept
  double decades = 0.0;                  // log10(high / low); NaN when none
};

struct SweepOptions {
  ComparedMetric metric = ComparedMetric::Accuracy;
  stats::SumsOfSquares type = stats::SumsOfSquares::TypeII;
  std::string a, b;  // the backends compared cell by cell (b the reference); "": the 2nd and 1st
  double alpha = 0.05;
  // A learning-rate sweep's distance from the best; unset: 1 accuracy point, 0.1 nats, or a
  // perplexity of 1.
  std::optional<double> lrDistance;
};

struct SweepAnalysis {
  ComparedMetric metric = ComparedMetric::Accuracy;
  double alpha = 0.05;
  std::vector<std::string> backends;   // the entries the sweep was made from, in spec order
  std::vector<SweepFactor> factors;    // as the spec's sweep
  std::vector<std::string> cellNames;  // "batch_size=64 weight_decay=0.0005", grid order
  std::vector<SweepCell> cells;        // backend-major: cells[backend * cellNames.size() + cell]
  const SweepCell& at(std::size_t backend, std::size_t cell) const {
    return cells[backend * cellNames.size() + cell];
  }
  // The ANOVA and the simple effects use the cells where every backend has at least 2 finished
  // runs; the others are listed here with the reason.
  std::vector<std::size_t> analysedCells;
  std::vector<std::string> cellsLeftOut;  // "lr=0.3 (tpu-bf16: 1 of 3 runs finished)"
  // Factor A = the cell (levels: analysedCells), factor B = the backend; none when fewer than
  // two cells or backends can be analysed (anovaMissing says why).
  std::optional<stats::TwoWayAnovaResult> anova;
  std::string anovaMissing;
  std::size_t a = 1, b = 0;                        // indices into backends
  std::vector<stats::SimpleEffect> simpleEffects;  // levelA indexes analysedCells
  double lrDistance = 0.0;
  std::vector<LearningRateRange> lrRanges;  // per backend, when "lr" is swept
  std::vector<std::string> verdict;         // sentences, the interaction's first
};

// `spec` must have a sweep (std::invalid_argument otherwise); `runs` the store's. Throws
// std::invalid_argument naming an unknown --a / --b.
SweepAnalysis analyseSweep(const StudySpec& spec, const std::vector<RunRecord>& runs,
                           const SweepOptions& options);

}  // namespace paritylab::study
