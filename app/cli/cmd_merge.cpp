// `paritylab-cli merge PART.db... --db ALL.db [--require-complete]`: joins the databases of a
// study's shards (`run --shard K/N`) into one (core/study/cluster/results_merge.h).

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "app/cli/command_registry.h"
#include "core/study/cluster/results_merge.h"

namespace paritylab::cli {
namespace merge_command {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string db;
  bool requireComplete = false;
};

void merge(const MergeArgs& a) {
  study::MergeReport report;
  try {
    study::requireDatabaseFilePath(a.db, "--db");
    report = study::mergeResults(a.inputs, a.db);
  } catch (const std::exception& e) {
    throw CommandError(e.what());
  }
  std::printf("Study '%s': merged %zu database%s into %s\n", report.studyName.c_str(),
              a.inputs.size(), a.inputs.size() == 1 ? "" : "s", a.db.c_str());
  for (const std::string& line : report.inputs) std::printf("  %s\n", line.c_str());
  if (report.alreadyThere > 0)
    std::printf("%s already held %d finished runs.\n", a.db.c_str(), report.alreadyThere);
  for (const std::string& note : report.notes) std::printf("Note: %s\n", note.c_str());
  const int have = report.planned - int(report.missing.size());
  if (report.complete()) {
    std::printf("Complete: all %d runs of the study are finished in %s.\n", report.planned,
                a.db.c_str());
    return;
  }
  std::printf("Incomplete: %d of %d runs are finished in %s; missing:\n", have, report.planned,
              a.db.c_str());
  for (const std::string& line : report.missing) std::printf("  %s\n", line.c_str());
  if (report.imported) {
    std::printf(
        "%s holds imported results: import the missing runs' files again (`run --resume` trains "
        "emulations, not measurements).\n",
        a.db.c_str());
  } else {
    std::printf(
        "Finish the missing runs with `paritylab-cli run --db %s --resume` (or resume their "
        "shard and merge it in).\n",
        a.db.c_str());
  }
  if (a.requireComplete)
    throw CommandError(std::to_string(report.missing.size()) +
                       " runs missing (--require-complete); what was there is merged into " + a.db);
}

const CommandRegistration reg{
    "merge", 55, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "merge", "Join the databases of a study's shards (run --shard K/N) into one");
      auto a = std::make_shared<MergeArgs>();
      cmd->add_option("inputs", a->inputs, "Shard databases (part-1.db part-2.db ...)")->required();
      cmd->add_option("--db", a->db,
                      "Output database: a new file, or one holding the same study and none of "
                      "the inputs' finished runs")
          ->required();
      cmd->add_flag("--require-complete", a->requireComplete,
                    "Exit with status 1 when runs of the study are missing (still merges)");
      cmd->callback([a] { merge(*a); });
    }};

}  // namespace merge_command
}  // namespace paritylab::cli
