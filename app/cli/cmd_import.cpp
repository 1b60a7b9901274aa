// `paritylab-cli import CSV --db FILE [column options]`: results measured on real hardware become
// first-class runs (source "imported") of a results database.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "app/cli/command_registry.h"
#include "core/input/csv.h"
#include "core/study/files/results_import.h"

namespace paritylab::cli {
namespace {

struct ImportArgs {
  std::string csv, db;
  study::CsvImportOptions options;
  bool addToStudy = false;
};

void runImport(const ImportArgs& a) {
  std::unique_ptr<study::ResultsStore> store;
  bool created = false;  // by this import: deleted again if it fails
  try {
    study::requireDatabaseFilePath(a.db, "--db");
    study::ImportNotes notes;
    auto runs = study::readResultsCsv(a.csv, a.options, &notes);
    created = !std::filesystem::exists(a.db);
    store = study::ResultsStore::open(a.db, true);
    const study::ImportSummary summary = study::importRuns(*store, a.csv, runs, a.addToStudy);
    std::map<std::string, int> perBackend;
    for (auto& r : runs)
      if (r.run.id != 0) ++perBackend[r.run.backend];
    std::cout << "Imported " << summary.added << " runs from " << a.csv << " into " << a.db;
    if (!perBackend.empty()) std::cout << ":";
    for (auto& [b, n] : perBackend) std::cout << " " << b << " " << n;
    std::cout << "\n";
    if (summary.present > 0)
      std::cout << summary.present
                << " runs already present (imported before), kept as they were\n";
    for (const std::string& note : notes) std::cout << "Note: " << note << "\n";
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
      auto* cmd =
          root.add_subcommand("import", "Import measured results (CSV) into a results database");
      auto a = std::make_shared<ImportArgs>();
      cmd->add_option("csv", a->csv, "CSV file (torchprime metrics, long or wide)")->required();
      cmd->add_option("--db", a->db, "Results database (created if missing)")->required();
      cmd->add_option("--run-col", a->options.runColumn, "Long CSV: column naming the run");
      cmd->add_option("--backend-col", a->options.backendColumn, "Column naming the backend");
      cmd->add_option("--epoch-col", a->options.epochColumn,
                      "Long CSV: epoch column (\"\" = wide)");
      cmd->add_option("--seed-col", a->options.seedColumn, "Wide CSV: seed column");
      cmd->add_option("--accuracy-col", a->options.accuracyColumn,
                      "Accuracy column (fraction or %)");
      cmd->add_option("--accuracy-unit", a->options.accuracyUnit,
                      "Unit of the accuracy column: fraction (0..1), percent (0..100), or auto "
                      "(inferred from the whole column, with a note; the default)")
          ->transform(CLI::CheckedTransformer(
              std::map<std::string, study::AccuracyUnit>{
                  {"auto", study::AccuracyUnit::Inferred},
                  {"fraction", study::AccuracyUnit::Fraction},
                  {"percent", study::AccuracyUnit::Percent}},
              CLI::ignore_case));
      cmd->add_option("--train-loss-col", a->options.trainLossColumn, "Training-loss column");
      cmd->add_option("--test-loss-col", a->options.testLossColumn, "Test-loss column");
      cmd->add_flag("--add-to-study", a->addToStudy,
                    "Add the runs to the study the database holds although it is another one "
                    "(an emulated study, or another file's import); by default refused");
      cmd->callback([a] { runImport(*a); });
    }};

}  // namespace
}  // namespace paritylab::cli
