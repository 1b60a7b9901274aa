// `paritylab-cli import PATH --db FILE [options]`: results measured on real hardware become
// first-class runs (source "imported") of a results database. PATH is a results CSV, TensorBoard
// event files or a tracker's CSV export (import_sources.h); --dry-run reads and reports without
// writing anything.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "app/cli/command_registry.h"
#include "app/cli/import_sources.h"
#include "core/input/csv.h"
#include "core/study/files/prediction_files.h"
#include "core/study/files/results_import.h"
#include "core/study/files/tensorboard_import.h"
#include "core/study/files/tracker_import.h"

namespace paritylab::cli {
namespace import_command {

struct ImportArgs {
  std::string path, db;
  ImportFormat format = ImportFormat::Auto;
  study::CsvImportOptions options;
  study::TensorBoardImportOptions tensorboard;
  bool addToStudy = false;
  bool dryRun = false;
  bool dbGiven = false;             // --db "" is given, and refused as no plain file path
  std::string predictions, labels;  // per-example predictions (prediction_files.h)
};

std::map<std::string, ImportFormat> formatChoices() {
  std::map<std::string, ImportFormat> choices{{"auto", ImportFormat::Auto}};
  for (const ImportFormat format : study::namedFormats())
    choices.emplace(study::formatName(format), format);
  return choices;
}

std::string tagChoices(const std::vector<std::string>& tags) {
  std::string text;
  for (const std::string& tag : tags) text += (text.empty() ? "" : ", ") + tag;
  return text;
}

void runImport(const ImportArgs& a) {
  std::unique_ptr<study::ResultsStore> store;
  bool created = false;  // by this import: deleted again if it fails
  study::TensorBoardImportOptions tensorboard = a.tensorboard;
  tensorboard.accuracyUnit = a.options.accuracyUnit;  // one --accuracy-unit for both formats
  if (!a.dryRun && !a.dbGiven)                        // as CLI11 says it of a required option
    throw CLI::RequiredError("--db (or --dry-run, which writes nothing)");
  try {
    if (a.predictions.empty() != a.labels.empty())
      throw CLI::ValidationError(
          "--predictions and --labels go together (the runs' files and "
          "the test set's labels)");
    if (!a.dryRun) study::requireDatabaseFilePath(a.db, "--db");
    ImportInput input = readImportInput(a.path, a.format, a.options, tensorboard);
    std::optional<study::RunsPredictions> predictions;
    if (!a.predictions.empty()) {
      predictions = study::readRunsPredictions(a.predictions, a.labels, input.runs);
      std::size_t attached = 0;
      for (const auto& p : predictions->perRun) attached += p ? 1 : 0;
      input.notes.insert(input.notes.begin(),
                         "predictions: " + std::to_string(attached) + " of " +
                             std::to_string(input.runs.size()) + " runs, " +
                             std::to_string(predictions->testSet.labels.size()) +
                             " test examples of " +
                             std::to_string(predictions->testSet.classNames.size()) + " classes");
      input.notes.insert(input.notes.end(), predictions->notes.begin(), predictions->notes.end());
    }
    if (a.dryRun) {
      printDryRun(std::cout, a.path, input);
      return;
    }
    auto& runs = input.runs;
    created = !std::filesystem::exists(a.db);
    store = study::ResultsStore::open(a.db, true);
    if (predictions) study::requireSameTestSet(*store, predictions->testSet);
    const study::ImportSummary summary = study::importRuns(*store, a.path, runs, a.addToStudy);
    if (predictions) study::storeRunsPredictions(*store, *predictions, runs);
    std::map<std::string, int> perBackend;
    for (auto& r : runs)
      if (r.run.id != 0) ++perBackend[r.run.backend];
    std::cout << "Imported " << summary.added << " runs from " << a.path << " into " << a.db;
    if (!perBackend.empty()) std::cout << ":";
    for (auto& [b, n] : perBackend) std::cout << " " << b << " " << n;
    std::cout << "\n";
    if (summary.present > 0)
      std::cout << summary.present
                << " runs already present (imported before), kept as they were\n";
    if (!input.tags.empty()) std::cout << "Tags read: " << input.tags << "\n";
    if (!input.metrics.empty()) std::cout << "Metrics read: " << input.metrics << "\n";
    printSkipped(std::cout, input);
    for (const std::string& note : input.notes) std::cout << "Note: " << note << "\n";
    for (const std::string& note : study::identicalRunNotes(runs))
      std::cout << "Note: " << note << "\n";
  } catch (const std::exception& ex) {
    store.reset();
    if (created) study::removeDatabaseWithoutResults(a.db);
    throw CommandError(ex.what());
  }
}

const CommandRegistration reg{
    "import", 80, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "import",
          "Import measured results (a CSV, TensorBoard event files, or a W&B, MLflow, Lightning "
          "or TensorBoard CSV export) into a results database");
      auto a = std::make_shared<ImportArgs>();
      cmd->add_option("path", a->path,
                      "CSV file (torchprime metrics, long or wide, or a tracker's export), "
                      "TensorBoard logs (a folder of runs or one events.out.tfevents.* file), or "
                      "a folder of a tracker's CSVs (Lightning logs, per-run downloads)")
          ->required();
      auto* db = cmd->add_option("--db", a->db, "Results database (created if missing)");
      cmd->add_flag("--dry-run", a->dryRun,
                    "Read PATH and print the runs found (backend, seed, epochs, final metric) and "
                    "what was skipped and why; write nothing");
      cmd->add_option("--format", a->format,
                      "auto (the default: told by the path and its header), csv, tensorboard, "
                      "wandb-runs, wandb-history, wandb-chart, mlflow-runs, mlflow-history, "
                      "lightning or tensorboard-csv (docs/import.md)")
          ->transform(CLI::CheckedTransformer(formatChoices(), CLI::ignore_case));
      cmd->add_option("--backend-from", a->tensorboard.backendRule,
                      "TensorBoard and trackers: backend (and seed) of each run, "
                      "'path:{backend}/seed{seed}' on its path; trackers also 'column:NAME' "
                      "(e.g. column:config.device) and 'hparam:NAME' (hparams.yaml, W&B config, "
                      "MLflow params.NAME). Default: TensorBoard the run folder's parent folder, "
                      "trackers a 'backend' or 'device' hyperparameter or column");
      cmd->add_option("--accuracy-tag", a->tensorboard.accuracyTag,
                      "TensorBoard: the tag holding accuracy (default: the first logged of " +
                          tagChoices(study::defaultAccuracyTags()) +
                          "); trackers: the metric (default: the first logged of " +
                          tagChoices(study::defaultTrackerAccuracyMetrics()) + ")");
      cmd->add_option("--test-loss-tag", a->tensorboard.testLossTag,
                      "TensorBoard: the tag holding test loss (default: the first logged of " +
                          tagChoices(study::defaultTestLossTags()) +
                          "); trackers: the metric (default: the first logged of " +
                          tagChoices(study::defaultTrackerTestLossMetrics()) + ")");
      cmd->add_option("--train-loss-tag", a->tensorboard.trainLossTag,
                      "TensorBoard: the tag holding train loss (default: the first logged of " +
                          tagChoices(study::defaultTrainLossTags()) +
                          "); trackers: the metric (default: the first logged of " +
                          tagChoices(study::defaultTrackerTrainLossMetrics()) + ")");
      cmd->add_option("--perplexity-tag", a->tensorboard.perplexityTag,
                      "TensorBoard and trackers: the tag or metric holding the perplexity, read "
                      "as the test loss ln(perplexity) when no test loss is read (default: the "
                      "first logged of " +
                          tagChoices(study::defaultPerplexityTags()) +
                          ", when no test-loss tag is logged); not with --test-loss-tag");
      cmd->add_option("--run-col", a->options.runColumn, "Long CSV: column naming the run");
      cmd->add_option("--backend-col", a->options.backendColumn, "Column naming the backend");
      cmd->add_option("--epoch-col", a->options.epochColumn,
                      "Long CSV: epoch column (\"\" = wide)");
      cmd->add_option("--seed-col", a->options.seedColumn,
                      "Wide CSV: seed column; trackers: the hyperparameter or column of the seed "
                      "(default seed, when a run has it)");
      cmd->add_option("--accuracy-col", a->options.accuracyColumn,
                      "Accuracy column (fraction or %)");
      cmd->add_option(
             "--accuracy-unit", a->options.accuracyUnit,
             "Unit of the accuracy column or tag: fraction (0..1), percent (0..100), or auto "
             "(inferred from the whole column, with a note; the default)")
          ->transform(CLI::CheckedTransformer(
              std::map<std::string, study::AccuracyUnit>{
                  {"auto", study::AccuracyUnit::Inferred},
                  {"fraction", study::AccuracyUnit::Fraction},
                  {"percent", study::AccuracyUnit::Percent}},
              CLI::ignore_case));
      cmd->add_option("--train-loss-col", a->options.trainLossColumn, "Training-loss column");
      cmd->add_option("--test-loss-col", a->options.testLossColumn, "Test-loss column");
      cmd->add_option("--predictions", a->predictions,
                      "Per-example predictions of each run, a CSV (index,predicted"
                      "[,true_class_probability]) or .npy file named by its {backend} and {seed}, "
                      "e.g. 'preds/{backend}/seed{seed}.csv' (docs/import.md); with --labels");
      cmd->add_option("--labels", a->labels,
                      "The test set's labels for --predictions: a CSV (index,label[,class_name]) "
                      "or .npy file");
      cmd->add_flag("--add-to-study", a->addToStudy,
                    "Add the runs to the study the database holds although it is another one "
                    "(an emulated study, or another file's import); by default refused");
      cmd->callback([a, db] {
        a->dbGiven = db->count() > 0;
        runImport(*a);
      });
    }};

}  // namespace import_command
}  // namespace paritylab::cli
