#pragma once
// The runs of a tracker's export (tracked_runs.h, read by wandb_csv, mlflow_csv, lightning_csv
// and tensorboard_csv) made into the ImportedRuns that importRuns() stores, by one set of rules
// for every tracker (docs/import.md):
//
// - metrics: the accuracy, test loss and train loss are the metrics named, else the first of the
//   defaults below that any run logs; an accuracy or a test loss is needed;
// - backend: the --backend-from rule (import_run_rule.h); without one, a hyperparameter or column
//   named 'backend', else 'device'. A run the rule does not match is skipped with the reason;
// - seed: the rule's {seed}, else the hyperparameter or column named `seed` when the run has it,
//   else numbered 0..n-1 per backend in the order of the runs (noted);
// - epochs: the indices (epoch or step, as the format logs) at which the accuracy (else the test
//   loss) is logged, from 1 (indices from 0 are shifted by one, noted); losses logged at the same
//   index; at most input::kMaxEpochs;
// - values: accuracies in the unit declared or inferred (import_checks' AccuracyColumn), losses
//   within [-1e6, 1e6]; a value out of range is refused naming its cell. NaN or an infinity is a
//   diverged run: it keeps its epochs before that index and is stored as diverged (status and
//   epoch, as an emulated run that diverged), with a note naming the cell and the value.
// - perplexity: when no test loss is read (none named and no default logged) or a perplexity
//   metric is named, the perplexity metric (named, else the first of defaultPerplexityTags()
//   logged) is read and the test loss is ln(perplexity), noted; a perplexity that is not positive
//   is refused naming its cell, the run, the index and the value. A test-loss metric and a
//   perplexity metric both named are refused.
//
// Throws input::CsvError (a value refused, no metric, no run left) and input::InputError (a
// malformed rule, naming --backend-from).

#include <string>
#include <vector>

#include "core/study/files/results_import.h"
#include "core/study/files/tensorboard_import.h"
#include "core/study/files/tracked_runs.h"

namespace paritylab::study {

struct TrackerImportOptions {
  std::string backendRule;  // path:PATTERN, column:NAME, hparam:NAME; "": backend or device
  std::string accuracy, testLoss, trainLoss;  // metric names; "": the first default logged
  std::string perplexity;                     // read as the test loss ln(perplexity)
  std::string seed = "seed";                  // hyperparameter or column of the seed
  AccuracyUnit accuracyUnit = AccuracyUnit::Inferred;
};

// The metric names tried, in order, when none is named.
const std::vector<std::string>& defaultTrackerAccuracyMetrics();
const std::vector<std::string>& defaultTrackerTestLossMetrics();
const std::vector<std::string>& defaultTrackerTrainLossMetrics();

// What a reader must keep for these options (the metrics that may be chosen, the columns and
// hyperparameters of the rule and the seed).
TrackerWanted trackerWanted(const TrackerImportOptions& options);

struct TrackerRuns {
  std::vector<ImportedRun> runs;  // run.message: the run's identity in the export
  std::vector<SkippedRun> skipped;
  ImportNotes notes;
  std::string accuracy, testLoss, trainLoss;  // the metrics read ("" when none)
  std::string perplexity;  // the test loss read as ln of this metric ("" when testLoss is read)
};

// `path` names the import in messages.
TrackerRuns importTrackedRuns(const std::string& path, TrackedRuns tracked,
                              const TrackerImportOptions& options);

}  // namespace paritylab::study
