#pragma once
// Train under one backend, serve under another: the train x serve matrix of a study. Each cell
// (trained by T, served by S) is the mean over T's completed runs of how their answers change when
// the same parameters are evaluated under S's arithmetic (run_serving.h): the share of predictions
// whose argmax flips, the mean KL divergence and the mean change of the true class's
// log-probability. The diagonal (T served by T) is batch invariance: T's own arithmetic one item
// at a time against its batches. Beside each row, T's seed floor: how often two of its runs with
// different seeds disagree (stats::seedChurn), the change that retraining alone makes.

#include <optional>
#include <string>
#include <vector>

#include "core/stats/churn.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

struct ServeCell {
  std::string trainedBy, servedBy;
  int batchSize = 0;                  // the served answers' batch size (1 on the diagonal)
  std::size_t runs = 0;               // trained runs served (0: none; the figures are NaN)
  std::int64_t predictions = 0;       // per run
  double flipRate = 0.0;              // mean over runs of flips / predictions
  double meanKl = 0.0;                // nats
  double meanAbsLogProbChange = 0.0;  // nats
  double accuracyChange = 0.0;        // mean served minus trained accuracy, fraction
};

struct TrainServeMatrix {
  std::vector<std::string> backends;  // rows and columns, the study's order
  std::vector<ServeCell> cells;       // row-major: cells[t * backends.size() + s]
  std::vector<std::optional<stats::ChurnEstimate>> seedFloor;  // per row; none below 2 runs
  std::string predictions = "test predictions";                // what is compared, in words
  std::vector<std::string> headlines;                          // one per row, in plain words
  std::vector<std::string> notes;                              // what is missing

  const ServeCell& cell(std::size_t trained, std::size_t served) const {
    return cells[trained * backends.size() + served];
  }
};

// Throws StoreError when the database cannot be read. A database without serving rows (a study
// run with "serve": false, or before they were kept) gives empty cells and a note.
TrainServeMatrix analyseTrainServe(const ResultsStore& store);

}  // namespace paritylab::study
