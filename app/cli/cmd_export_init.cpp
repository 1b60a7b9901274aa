// `paritylab-cli export-init DB --run ID --out DIR [--data]`: a run's start for another engine —
// its model's initial parameters, the batch order of every epoch and its training settings (and
// with --data the data split as trained on), as .npy files and a manifest (docs/study-spec.md,
// "Exporting a run's start"). bench/validate_autocast.py trains PyTorch from it.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <limits>
#include <memory>

#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "core/study/files/run_start_export.h"

namespace paritylab::cli {
namespace export_init_command {

struct ExportInitArgs {
  std::string db, out;
  std::int64_t runId = 0;
  bool data = false;
};

void runExportInit(const ExportInitArgs& a) {
  study::RunStartExport e;
  try {
    e = study::exportRunStart(a.db, a.runId, a.out, a.data);
  } catch (const std::exception& ex) {
    throw CommandError(ex.what());
  }
  std::printf("Exported the start of run %lld (%s, seed %llu) of %s to %s:\n",
              static_cast<long long>(e.runId), e.backend.c_str(),
              static_cast<unsigned long long>(e.seed), a.db.c_str(), e.directory.c_str());
  if (e.steps > 0) {
    std::printf(
        "  %zu parameter files (params/), the training windows of %lld steps x %d "
        "(window_offsets.npy), manifest.json\n",
        e.parameters, static_cast<long long>(e.steps), e.batchSize);
    if (e.data)
      std::printf("  the text as trained on: %zu training tokens, %zu validation positions\n",
                  e.trainTokens, e.validationPositions);
    return;
  }
  std::printf(
      "  %zu parameter and buffer files (params/), the batch order of %d epoch%s x %zu "
      "examples (batch_order.npy), manifest.json\n",
      e.parameters, e.epochs, e.epochs == 1 ? "" : "s", e.trainExamples);
  if (e.data)
    std::printf("  the data split as trained on: %zu training and %zu test images\n",
                e.trainExamples, e.testExamples);
}

const CommandRegistration reg{
    "export-init", 78, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "export-init",
          "Export a run's initial parameters and batch order (.npy) for another framework");
      auto a = std::make_shared<ExportInitArgs>();
      cmd->add_option("db", a->db, "Results database of the study")->required();
      addIntegerOption(cmd, "--run", a->runId, {1, std::numeric_limits<std::int64_t>::max()},
                       "The run (its id, as `report` and the Runs tab list it)")
          ->required();
      cmd->add_option("--out", a->out, "A new (or empty) folder to write into")->required();
      cmd->add_flag("--data", a->data,
                    "Also the data split as trained on (normalised images and labels)");
      cmd->callback([a] { runExportInit(*a); });
    }};

}  // namespace export_init_command
}  // namespace paritylab::cli
