#pragma once
// What `paritylab-cli import PATH` reads, before anything is stored: a results CSV or TensorBoard
// event files (a folder of runs, or one events.out.tfevents.* file), and the dry run's report of
// it (import --dry-run).

#include <ostream>
#include <string>
#include <vector>

#include "core/study/files/results_import.h"
#include "core/study/files/tensorboard_import.h"
#include "core/study/files/tensorboard_runs.h"

namespace paritylab::cli {

enum class ImportFormat { Auto, Csv, TensorBoard };

struct ImportInput {
  ImportFormat format = ImportFormat::Csv;  // the one read (never Auto)
  std::vector<study::ImportedRun> runs;
  std::vector<study::SkippedRun> skipped;  // run folders left out, and why
  study::ImportNotes notes;
  std::string tags;  // TensorBoard: which tag held which metric
};

// Auto: TensorBoard when PATH is a folder or an event file's name, else CSV. Throws the readers'
// errors (naming the file, field or value).
ImportInput readImportInput(const std::string& path, ImportFormat format,
                            const study::CsvImportOptions& csv,
                            const study::TensorBoardImportOptions& tensorboard);

// The runs found (backend, seed, epochs, final metric, run), what was skipped and why, the notes.
void printDryRun(std::ostream& out, const std::string& path, const ImportInput& input);

// "Skipped 2 run folders:" and one line each (nothing when none was skipped).
void printSkipped(std::ostream& out, const std::vector<study::SkippedRun>& skipped);

}  // namespace paritylab::cli
