#include "core/study/files/import_input.h"

#include <filesystem>
#include <utility>

#include "core/input/csv.h"
#include "core/study/files/import_checks.h"
#include "core/study/files/import_run_rule.h"
#include "core/study/files/lightning_csv.h"
#include "core/study/files/mlflow_csv.h"
#include "core/study/files/tensorboard_csv.h"
#include "core/study/files/tensorboard_runs.h"
#include "core/study/files/tracker_files.h"
#include "core/study/files/tracker_import.h"
#include "core/study/files/tracker_table.h"
#include "core/study/files/wandb_csv.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& tag) {
  return "'" + tag + "'";
}

std::string metricsRead(const std::string& accuracy, const std::string& testLoss,
                        const std::string& trainLoss, const std::string& perplexity) {
  std::string text = "accuracy " + (accuracy.empty() ? "none" : quoted(accuracy));
  text += ", test loss " + (!perplexity.empty() ? "ln of perplexity " + quoted(perplexity)
                            : testLoss.empty()  ? "none"
                                                : quoted(testLoss));
  text += ", train loss " + (trainLoss.empty() ? "none" : quoted(trainLoss));
  return text;
}

std::string columnList(const std::vector<std::string>& header) {
  std::string list;
  for (std::size_t i = 0; i < header.size() && i < 20; ++i)
    list += (list.empty() ? "" : ", ") + import_checks::shownValue(header[i]);
  if (header.size() > 20) list += ", ... (" + std::to_string(header.size()) + " columns)";
  return list;
}

// The format of one CSV file's header; nullopt when it matches none.
std::optional<ImportFormat> formatOfFile(const TrackerFile& file, const std::string& backendColumn,
                                         std::vector<std::string>* header = nullptr) {
  std::vector<std::string> names = csvHeaderOf(file.path);
  std::optional<ImportFormat> format =
      trackerFormatOfHeader(names, fs::path(file.path).filename().string());
  if (!format && isResultsCsvHeader(names, backendColumn)) format = ImportFormat::Csv;
  if (header) *header = std::move(names);
  return format;
}

ImportFormat formatOfFolder(const std::string& path, const std::string& backendColumn) {
  const std::vector<TrackerFile> files = findTrackerFiles(path);
  if (files.empty()) {
    throw input::CsvError(path +
                          ": no TensorBoard event file and no CSV file in it or in any folder "
                          "under it; " +
                          formatsNeeded());
  }
  std::optional<ImportFormat> found;
  const TrackerFile* first = nullptr;
  bool lightning = false;
  for (const TrackerFile& file : files)
    if (fs::path(file.path).filename() == "metrics.csv" &&
        formatOfFile(file, backendColumn) == ImportFormat::Lightning)
      lightning = true;
  if (lightning) return ImportFormat::Lightning;
  for (const TrackerFile& file : files) {
    std::vector<std::string> header;
    const std::optional<ImportFormat> format = formatOfFile(file, backendColumn, &header);
    if (!format) {
      throw input::CsvError(file.path + ":1: matches no format ParityLab reads (its columns: " +
                            columnList(header) + "); " + formatsNeeded());
    }
    if (*format == ImportFormat::Csv) {
      throw input::CsvError(file.path +
                            ": a results CSV in a folder; import the file itself (a folder is "
                            "read as the logs or exports of a tracker)");
    }
    if (found && *found != *format) {
      throw input::CsvError(first->path + " is " + formatDescription(*found) + ", " + file.path +
                            " is " + formatDescription(*format) +
                            ": import one format at a time (a folder of each, or --format)");
    }
    found = format;
    if (!first) first = &file;
  }
  return *found;
}

ImportInput readTrackerInput(const std::string& path, ImportFormat format,
                             const CsvImportOptions& csv, const TensorBoardImportOptions& tb) {
  TrackerImportOptions options;
  options.backendRule = tb.backendRule;
  options.accuracy = tb.accuracyTag;
  options.testLoss = tb.testLossTag;
  options.trainLoss = tb.trainLossTag;
  options.perplexity = tb.perplexityTag;
  options.accuracyUnit = tb.accuracyUnit;
  options.seed = csv.seedColumn;
  requireOneTestLossSource(options.testLoss, options.perplexity);  // before reading
  if (!options.backendRule.empty()) RunBackendRule::parse(options.backendRule);
  const TrackerWanted wanted = trackerWanted(options);
  const bool lightning = format == ImportFormat::Lightning;
  const std::vector<TrackerFile> files = findTrackerFiles(path, lightning ? "metrics.csv" : "");
  if (files.empty()) {
    throw input::CsvError(path + ": no " + (lightning ? "metrics.csv" : "CSV") +
                          " file in it or in any folder under it (" + formatDescription(format) +
                          ")");
  }
  TrackedRuns tracked;
  switch (format) {
    case ImportFormat::WandbRuns:
      tracked = readWandbRunTable(files, wanted);
      break;
    case ImportFormat::WandbHistory:
      tracked = readWandbHistory(files, wanted);
      break;
    case ImportFormat::WandbChart:
      tracked = readWandbChart(files, wanted);
      break;
    case ImportFormat::MlflowRuns:
      tracked = readMlflowRuns(files, wanted);
      break;
    case ImportFormat::MlflowHistory:
      tracked = readMlflowHistory(files, wanted);
      break;
    case ImportFormat::Lightning:
      tracked = readLightningLogs(path, files, wanted);
      break;
    default:
      tracked = readTensorBoardCsv(path, files, wanted);
      break;
  }
  TrackerRuns runs = importTrackedRuns(path, std::move(tracked), options);
  ImportInput input;
  input.format = format;
  input.runs = std::move(runs.runs);
  input.skipped = std::move(runs.skipped);
  input.notes = std::move(runs.notes);
  input.metrics = metricsRead(runs.accuracy, runs.testLoss, runs.trainLoss, runs.perplexity);
  input.perplexity = runs.perplexity;
  return input;
}

}  // namespace

ImportFormat detectImportFormat(const std::string& path, const std::string& backendColumn) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) throw input::CsvError(path + ": no such file or folder");
  if (fs::is_directory(status))
    return holdsEventFiles(path) ? ImportFormat::TensorBoard : formatOfFolder(path, backendColumn);
  if (isEventFileName(fs::path(path).filename().string())) return ImportFormat::TensorBoard;
  std::vector<std::string> header;
  const std::optional<ImportFormat> format =
      formatOfFile({path, fs::path(path).filename().string()}, backendColumn, &header);
  if (!format) {
    throw input::CsvError(path + ":1: matches no format ParityLab reads (its columns: " +
                          columnList(header) + "); " + formatsNeeded());
  }
  return *format;
}

ImportInput readImportInput(const std::string& path, ImportFormat format,
                            const CsvImportOptions& csv,
                            const TensorBoardImportOptions& tensorboard) {
  if (format == ImportFormat::Auto) format = detectImportFormat(path, csv.backendColumn);
  ImportInput input;
  input.format = format;
  if (format == ImportFormat::Csv) {
    input.runs = readResultsCsv(path, csv, &input.notes);
    return input;
  }
  if (format != ImportFormat::TensorBoard) return readTrackerInput(path, format, csv, tensorboard);
  TensorBoardRuns runs = readTensorBoardRuns(path, tensorboard);
  input.runs = std::move(runs.runs);
  input.skipped = std::move(runs.skipped);
  input.notes = std::move(runs.notes);
  input.tags =
      metricsRead(runs.accuracyTag, runs.testLossTag, runs.trainLossTag, runs.perplexityTag);
  input.perplexity = runs.perplexityTag;
  return input;
}

}  // namespace paritylab::study
