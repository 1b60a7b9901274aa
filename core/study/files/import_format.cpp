#include "core/study/files/import_format.h"

#include <algorithm>
#include <utility>

#include "core/study/files/wandb_csv.h"

namespace paritylab::study {
namespace {

bool has(const std::vector<std::string>& header, const std::string& name) {
  return std::find(header.begin(), header.end(), name) != header.end();
}

struct Named {
  ImportFormat format;
  std::string name;
  std::string description;
};

const std::vector<Named>& formats() {
  static const std::vector<Named> list = {
      {ImportFormat::Auto, "auto", "the format its header says"},
      {ImportFormat::Csv, "csv", "a results CSV"},
      {ImportFormat::TensorBoard, "tensorboard", "TensorBoard event files"},
      {ImportFormat::WandbRuns, "wandb-runs", "a W&B run table export (CSV)"},
      {ImportFormat::WandbHistory, "wandb-history", "a W&B history export (CSV)"},
      {ImportFormat::WandbChart, "wandb-chart", "a W&B chart panel export (CSV)"},
      {ImportFormat::MlflowRuns, "mlflow-runs", "an MLflow runs export (CSV)"},
      {ImportFormat::MlflowHistory, "mlflow-history", "an MLflow metric history (CSV)"},
      {ImportFormat::Lightning, "lightning", "Lightning CSVLogger logs (metrics.csv)"},
      {ImportFormat::TensorBoardCsv, "tensorboard-csv", "TensorBoard CSV downloads"},
  };
  return list;
}

// A chart panel's export: Step first, then only "RUN - METRIC" columns (and their __MIN and
// __MAX bands), at least one of them.
bool isWandbChartHeader(const std::vector<std::string>& header) {
  if (header.size() < 2 || header[0] != "Step") return false;
  bool series = false;
  for (std::size_t i = 1; i < header.size(); ++i) {
    bool band = false;
    const bool column = wandbChartColumn(header[i], &band).has_value();
    if (!column && !band) return false;
    series = series || column;
  }
  return series;
}

}  // namespace

const std::string& formatName(ImportFormat format) {
  for (const Named& f : formats())
    if (f.format == format) return f.name;
  return formats().front().name;
}

std::optional<ImportFormat> formatNamed(const std::string& name) {
  for (const Named& f : formats())
    if (f.name == name) return f.format;
  return std::nullopt;
}

const std::vector<ImportFormat>& namedFormats() {
  static const std::vector<ImportFormat> list = [] {
    std::vector<ImportFormat> out;
    for (const Named& f : formats())
      if (f.format != ImportFormat::Auto) out.push_back(f.format);
    return out;
  }();
  return list;
}

std::string formatDescription(ImportFormat format) {
  for (const Named& f : formats())
    if (f.format == format) return f.description;
  return "";
}

std::optional<ImportFormat> trackerFormatOfHeader(const std::vector<std::string>& header,
                                                  const std::string& fileName) {
  if (has(header, "Wall time") && has(header, "Step") && has(header, "Value"))
    return ImportFormat::TensorBoardCsv;
  // A run table may show summary columns such as _step; a history has no State.
  if (has(header, "Name") && has(header, "State")) return ImportFormat::WandbRuns;
  if (has(header, "_step")) return ImportFormat::WandbHistory;
  if (isWandbChartHeader(header)) return ImportFormat::WandbChart;
  if (has(header, "key") && has(header, "value") && has(header, "step"))
    return ImportFormat::MlflowHistory;
  if (has(header, "run_id") && has(header, "experiment_id")) return ImportFormat::MlflowRuns;
  if (fileName == "metrics.csv" && has(header, "step")) return ImportFormat::Lightning;
  return std::nullopt;
}

bool isResultsCsvHeader(const std::vector<std::string>& header, const std::string& backendColumn) {
  return (has(header, "hyperparameters") && has(header, "accuracy_top1")) ||
         has(header, backendColumn);
}

std::string formatsNeeded() {
  return "each format is recognised by its header: torchprime metrics (run_name, datetime, "
         "hyperparameters, epoch, accuracy_top1); a results CSV (backend, with run, epoch and "
         "accuracy, or final_accuracy); W&B run table (Name, State); W&B history (_step); W&B "
         "chart "
         "export (Step, then 'RUN - METRIC' columns); "
         "MLflow runs (run_id, experiment_id); MLflow metric history (key, value, step); "
         "Lightning CSVLogger (a file named metrics.csv with step); TensorBoard CSV download "
         "(Wall time, Step, Value); TensorBoard event files (events.out.tfevents.*). Name the "
         "format with --format csv|tensorboard|wandb-runs|wandb-history|wandb-chart|"
         "mlflow-runs|mlflow-history|lightning|tensorboard-csv (docs/import.md)";
}

}  // namespace paritylab::study
