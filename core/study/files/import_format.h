#pragma once
// Which format an imported file is, told by its header (docs/import.md): the torchprime metrics
// CSV, a generic results CSV, the CSV exports of the trackers (Weights & Biases, MLflow, PyTorch
// Lightning's CSVLogger, TensorBoard's per-tag download) and TensorBoard event files. The command
// line's --format names, and the message that lists what each format needs when a file matches
// none.

#include <optional>
#include <string>
#include <vector>

namespace paritylab::study {

enum class ImportFormat {
  Auto,
  Csv,             // torchprime metrics, or a generic long or wide results CSV
  TensorBoard,     // events.out.tfevents.* files
  WandbRuns,       // W&B run table: one row per run (Name, State, config and summary columns)
  WandbHistory,    // W&B history: one row per logged step (_step, metric columns)
  WandbChart,      // W&B chart panel export: Step, then a "RUN - METRIC" column per run
  MlflowRuns,      // mlflow.search_runs: one row per run (run_id, experiment_id, metrics.X)
  MlflowHistory,   // MLflow metric history: one row per metric and step (key, value, step)
  Lightning,       // Lightning CSVLogger: version_N/metrics.csv (step, epoch, metric columns)
  TensorBoardCsv,  // TensorBoard's per-tag download: Wall time, Step, Value
};

// The --format name of each format ("wandb-history") and back; nullopt for an unknown name.
const std::string& formatName(ImportFormat format);
std::optional<ImportFormat> formatNamed(const std::string& name);
const std::vector<ImportFormat>& namedFormats();  // every format but Auto, in --help order
// What a format is, for "PATH read as ..." ("a W&B history export (CSV)").
std::string formatDescription(ImportFormat format);

// The tracker format a CSV's header (trimmed names) says, else nullopt. `fileName` is the file's
// own name (a Lightning log is metrics.csv). The torchprime and generic CSVs are not trackers:
// isResultsCsvHeader says those (`backendColumn` is the generic CSV's, --backend-col).
std::optional<ImportFormat> trackerFormatOfHeader(const std::vector<std::string>& header,
                                                  const std::string& fileName);
bool isResultsCsvHeader(const std::vector<std::string>& header, const std::string& backendColumn);

// "each format is recognised by its header: ..." : the identifying columns of every format, for
// the message of a file or folder that matches none.
std::string formatsNeeded();

}  // namespace paritylab::study
