#pragma once
// What an import reads, before anything is stored: a results CSV, TensorBoard event files (a
// folder of runs, or one events.out.tfevents.* file), or a tracker's CSV export (W&B, MLflow,
// Lightning CSVLogger, TensorBoard CSV downloads; tracker_import.h), with what was skipped and
// noted. The command line's `import` (and its dry run) and the app's import read results through
// here.

#include <string>
#include <vector>

#include "core/study/files/import_format.h"
#include "core/study/files/results_import.h"
#include "core/study/files/tensorboard_import.h"

namespace paritylab::study {

struct ImportInput {
  ImportFormat format = ImportFormat::Csv;  // the one read (never Auto)
  std::vector<ImportedRun> runs;
  std::vector<SkippedRun> skipped;  // run folders or runs left out, and why
  ImportNotes notes;
  std::string tags;     // TensorBoard: which tag held which metric ("accuracy 'val/acc', ...")
  std::string metrics;  // a tracker's export: which metric held which ("accuracy 'val_acc', ...")
  std::string perplexity;  // the tag or metric whose ln is the test loss ("" when a loss is read)
};

// The format of `path` by its kind and header (import_format.h): a folder holding event files,
// or an event file, is TensorBoard; a folder of CSVs is the one format all of them are (Lightning
// when it holds metrics.csv logs); a file is the format of its header. Throws input::CsvError
// naming the path, the columns it has and what each format needs, when it matches none.
ImportFormat detectImportFormat(const std::string& path, const std::string& backendColumn);

// Auto: detectImportFormat. The tracker formats take the metrics, the --backend-from rule and the
// accuracy unit of `tensorboard`, and the seed's name of `csv` (seedColumn). Throws the readers'
// errors (naming the file, field or value).
ImportInput readImportInput(const std::string& path, ImportFormat format = ImportFormat::Auto,
                            const CsvImportOptions& csv = {},
                            const TensorBoardImportOptions& tensorboard = {});

}  // namespace paritylab::study
