#include "core/study/files/import_input.h"

#include <utility>

#include "core/study/files/tensorboard_runs.h"

namespace paritylab::study {
namespace {

std::string quoted(const std::string& tag) {
  return "'" + tag + "'";
}

std::string tagsRead(const TensorBoardRuns& runs) {
  std::string text = "accuracy " + (runs.accuracyTag.empty() ? "none" : quoted(runs.accuracyTag));
  text += ", test loss " + (runs.testLossTag.empty() ? "none" : quoted(runs.testLossTag));
  text += ", train loss " + (runs.trainLossTag.empty() ? "none" : quoted(runs.trainLossTag));
  return text;
}

}  // namespace

ImportInput readImportInput(const std::string& path, ImportFormat format,
                            const CsvImportOptions& csv,
                            const TensorBoardImportOptions& tensorboard) {
  if (format == ImportFormat::Auto)
    format = looksLikeTensorBoardPath(path) ? ImportFormat::TensorBoard : ImportFormat::Csv;
  ImportInput input;
  input.format = format;
  if (format == ImportFormat::Csv) {
    input.runs = readResultsCsv(path, csv, &input.notes);
    return input;
  }
  TensorBoardRuns runs = readTensorBoardRuns(path, tensorboard);
  input.runs = std::move(runs.runs);
  input.skipped = std::move(runs.skipped);
  input.notes = std::move(runs.notes);
  input.tags = tagsRead(runs);
  return input;
}

}  // namespace paritylab::study
