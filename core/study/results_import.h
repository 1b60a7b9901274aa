#pragma once
// Imports results measured elsewhere (real hardware) as first-class runs: status completed,
// source "imported", the study spec recording the origin file.

#include <string>
#include <vector>

#include "core/study/results_store.h"

namespace paritylab::study {

struct ImportedRun {
  RunRecord run;
  std::vector<EpochRecord> epochs;
};

// Column names for a generic CSV. Long format (one row per run x epoch): runColumn, epochColumn
// and at least accuracyColumn. Wide format (one row per run): leave epochColumn empty; the
// accuracy column holds the final accuracy and seedColumn (optional) the seed.
struct CsvImportOptions {
  std::string runColumn = "run";
  std::string backendColumn = "backend";
  std::string epochColumn = "epoch";  // "" = wide
  std::string seedColumn = "seed";
  std::string accuracyColumn = "accuracy";
  std::string trainLossColumn;  // optional
  std::string testLossColumn;   // optional
};

// The torchprime reference CSV (run_name,datetime,hyperparameters,epoch,train_loss,test_loss,
// accuracy_top1): a run is run_name + datetime; the backend is the 'device' in hyperparameters.
// Throws CsvError naming file:line:column.
std::vector<ImportedRun> readTorchprimeCsv(const std::string& path);
std::vector<ImportedRun> readGenericCsv(const std::string& path, const CsvImportOptions& options);
// Detects the torchprime header, else uses `options`.
std::vector<ImportedRun> readResultsCsv(const std::string& path, const CsvImportOptions& options);

// Writes the runs into the store (one transaction); creates the study record (name = file stem,
// origin = path) when the store holds none.
void importRuns(ResultsStore& store, const std::string& originPath, std::vector<ImportedRun>& runs);

}  // namespace paritylab::study
