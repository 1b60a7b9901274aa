#pragma once
// Per-example predictions of measured runs (docs/import.md), so that churn, McNemar, per-class
// figures and the Divergence tab work on runs from real hardware as on emulated ones. One file
// of labels for the test set and one file of predictions per run, each a CSV or a .npy:
//
//   labels       CSV  index,label[,class_name]            .npy  [n] integers (position = index)
//   predictions  CSV  index,predicted[,true_class_probability]   .npy  [n] integers
//
// Every index 0..n-1 once (any order), labels and predicted classes integers in [0, classes),
// the probability in [0, 1]; a predictions file holds exactly the labels' examples. The file of a
// run is found by a pattern naming its backend and seed ("preds/{backend}/seed{seed}.csv").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/nn/test_predictions.h"
#include "core/study/files/results_import.h"

namespace paritylab::study {

struct ImportedTestSet {
  std::vector<std::int32_t> labels;     // [test examples]
  std::vector<std::string> classNames;  // [classes]: the file's names, else "0", "1", ...
};

// Throws input::CsvError or input::InputError naming the file, line and column or value.
ImportedTestSet readLabelsFile(const std::string& path);
nn::TestPredictions readPredictionsFile(const std::string& path, const ImportedTestSet& testSet);

// The pattern with {backend} and {seed} replaced by the run's (each must appear at most once;
// InputError naming --predictions otherwise).
std::string predictionsPathOf(const std::string& pattern, const RunRecord& run);

struct RunsPredictions {
  ImportedTestSet testSet;
  std::vector<std::optional<nn::TestPredictions>> perRun;  // [runs]: none when no file exists
  ImportNotes notes;
};
// Each run's predictions from `pattern`, checked against the labels at `labelsPath`; a run
// whose file does not exist, or that diverged, gets none (noted); no file for any run is an
// error (InputError naming the pattern). A file whose accuracy against the labels differs from
// the run's logged final accuracy by more than half an example is noted (another model or test
// set, or a log rounded coarsely).
RunsPredictions readRunsPredictions(const std::string& pattern, const std::string& labelsPath,
                                    const std::vector<ImportedRun>& runs);

// Throws StoreError when `store` holds another test set than `testSet` (its predictions would
// not be of the same examples): checked before anything is written.
void requireSameTestSet(const ResultsStore& store, const ImportedTestSet& testSet);

// Stores the test set and each imported run's predictions (runs given an id by importRuns; a run
// imported before gets predictions it does not have yet, and keeps those it has). The test set
// must be the one the database holds, if any (requireSameTestSet).
void storeRunsPredictions(ResultsStore& store, const RunsPredictions& predictions,
                          const std::vector<ImportedRun>& runs);

}  // namespace paritylab::study
