#pragma once
// Imports results measured elsewhere (real hardware) as first-class runs: status completed,
// source "imported", the study spec recording the origin file.

#include <optional>
#include <string>
#include <vector>

#include "core/study/store/results_store.h"

namespace paritylab::study {

struct ImportedRun {
  RunRecord run;
  std::vector<EpochRecord> epochs;
};

// Column names for a generic CSV. Long format (one row per run x epoch): runColumn, epochColumn
// and at least accuracyColumn. Wide format (one row per run): leave epochColumn empty; the
// accuracy column holds the final accuracy and seedColumn (optional) the seed.
// How the accuracy column is read: declared as fractions in [0, 1] or percents in [0, 100], or
// inferred from the whole column (percent when every value lies in (1, 100], else fractions), in
// which case a note says what was inferred.
enum class AccuracyUnit { Inferred, Fraction, Percent };

struct CsvImportOptions {
  std::string runColumn = "run";
  std::string backendColumn = "backend";
  std::string epochColumn = "epoch";  // "" = wide
  std::string seedColumn = "seed";
  std::string accuracyColumn = "accuracy";
  std::string trainLossColumn;  // optional
  std::string testLossColumn;   // optional
  AccuracyUnit accuracyUnit = AccuracyUnit::Inferred;
};

// What reading a file found that the user should be told (e.g. "column 'accuracy' read as
// percent (all 56 values within (1, 100])").
using ImportNotes = std::vector<std::string>;

// The torchprime reference CSV (run_name,datetime,hyperparameters,epoch,train_loss,test_loss,
// accuracy_top1): a run is run_name + datetime (its run name, e.g. "prod_42", is kept; the file
// gives no seeds, so runs get 0..n-1 per backend); the backend is the 'device' in
// hyperparameters. Every value is checked: accuracies are fractions in [0, 1] or, for a whole
// column within (1, 100], percent (noted); out-of-range values and a run's epoch given twice are
// refused. Throws CsvError naming file:line and the column. NaN or an infinity in a run's metric
// (accuracy, train or test loss) is a run that diverged, not an error: it keeps its epochs before
// the first such epoch (a wide file's run: none) and is stored as diverged
// (markImportedRunDiverged), with a note naming the row, the column and the value.
std::vector<ImportedRun> readTorchprimeCsv(const std::string& path, ImportNotes* notes = nullptr,
                                           AccuracyUnit unit = AccuracyUnit::Inferred);
std::vector<ImportedRun> readGenericCsv(const std::string& path, const CsvImportOptions& options,
                                        ImportNotes* notes = nullptr);
// Detects the torchprime header, else uses `options`.
std::vector<ImportedRun> readResultsCsv(const std::string& path, const CsvImportOptions& options,
                                        ImportNotes* notes = nullptr);

// Marks a run read from a file as imported and completed, its epochs sorted, its final values
// those of its last epoch (every reader of measured results ends a run with this).
void finishImportedRun(ImportedRun& run);
// Marks a finished run (finishImportedRun) as diverged, as an emulated run that diverged is
// stored: status diverged, `epoch` the epoch it diverged in (1-based; 0 when the source does not
// say, a run of final values), its epochs those before it and its final values those of its last
// epoch (unknown, NaN, when it has none). The statistics leave it out, the tables list it.
void markImportedRunDiverged(ImportedRun& run, int epoch);
// Its note: "WHERE: WHAT diverged; imported as diverged with its N epochs before it", `where`
// the cell or tag and the value read there, `what` the run ("run 'seed 1' (backend 'tpu')");
// `kept` the epochs kept, none for a run of final values only.
std::string divergedRunNote(const std::string& where, const std::string& what,
                            std::optional<std::size_t> kept);

// One line per backend holding identical runs (same curve and final accuracy to the last digit):
// "xla: 2 pairs of identical runs (prod_42 and prod_42; prod_3 and prod_3); n would be 12 without
// them (14 runs)".
std::vector<std::string> identicalRunNotes(const std::vector<ImportedRun>& runs);

struct ImportSummary {
  int added = 0;    // runs written
  int present = 0;  // runs already in the database (the same file imported again): skipped
};

// Writes the runs into the store (one transaction); creates the study record (name = file stem,
// origin = path) when the store holds none. Idempotent: a run already imported (same backend and
// source run) is skipped and keeps id 0. A database holds one study: a store holding an emulated
// study, or results imported from another file, is refused (StoreError naming both) unless
// addToStudy; a new backend or seed of the same file's runs is added to its stored study.
ImportSummary importRuns(ResultsStore& store, const std::string& originPath,
                         std::vector<ImportedRun>& runs, bool addToStudy = false);

}  // namespace paritylab::study
