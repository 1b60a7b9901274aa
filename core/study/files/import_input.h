#pragma once
// What an import reads, before anything is stored: a results CSV or TensorBoard event files (a
// folder of runs, or one events.out.tfevents.* file), with what was skipped and noted. The
// command line's `import` (and its dry run) and the app's import read results through here.

#include <string>
#include <vector>

#include "core/study/files/results_import.h"
#include "core/study/files/tensorboard_import.h"

namespace paritylab::study {

enum class ImportFormat { Auto, Csv, TensorBoard };

struct ImportInput {
  ImportFormat format = ImportFormat::Csv;  // the one read (never Auto)
  std::vector<ImportedRun> runs;
  std::vector<SkippedRun> skipped;  // run folders left out, and why
  ImportNotes notes;
  std::string tags;  // TensorBoard: which tag held which metric ("accuracy 'val/acc', ...")
};

// Auto: TensorBoard when `path` is a folder or an event file's name, else CSV. Throws the
// readers' errors (naming the file, field or value).
ImportInput readImportInput(const std::string& path, ImportFormat format = ImportFormat::Auto,
                            const CsvImportOptions& csv = {},
                            const TensorBoardImportOptions& tensorboard = {});

}  // namespace paritylab::study
