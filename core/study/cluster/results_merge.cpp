#include "core/study/cluster/results_merge.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "core/input/atomic_file.h"
#include "core/study/run/study_runner.h"
#include "core/study/run/study_shard.h"
#include "core/study/store/database_file.h"

namespace paritylab::study {
namespace {

using nlohmann::json;

// A run's identity in words: "tpu-bf16 seed 3", or an imported one's "xla run 'prod_42'".
std::string runName(const RunRecord& r) {
  if (r.source == "imported") return r.backend + " run '" + r.message + "' (imported)";
  return r.backend + " seed " + std::to_string(r.seed);
}

bool ended(RunState s) {
  return s == RunState::Completed || s == RunState::Diverged || s == RunState::Failed;
}
bool finished(RunState s) {
  return s == RunState::Completed || s == RunState::Diverged;
}

struct Input {
  std::string path;
  std::unique_ptr<ResultsStore> store;
  StudyShard shard;
  std::vector<RunRecord> runs;
};

std::string shardLabel(const Input& in) {
  return in.shard.whole() ? in.path : in.path + " (shard " + in.shard.text() + ")";
}

Input openInput(const std::string& path) {
  Input in;
  in.path = path;
  try {
    in.store = ResultsStore::openReadOnly(path);  // names the file when missing or foreign
    if (std::string damage = in.store->damage(); !damage.empty())
      throw StoreError(path + ": damaged or truncated database (" + damage + ")");
    if (!in.store->hasStudy()) throw StoreError(path + ": holds no study");
    in.shard = storedShard(*in.store);
    in.runs = in.store->loadRuns();
    // Everything that is copied is decoded first: a file cut short can pass quick_check and
    // still hold a damaged row or blob, which would otherwise surface only when read later.
    in.store->loadAllEpochs();
    in.store->loadAllSteps();
    in.store->loadXray();
    in.store->loadTestSet();
    in.store->loadPredictions();
    in.store->loadSamples();
    for (const RunRecord& r : in.runs) in.store->loadWeightSnapshots(r.id);
  } catch (const StoreError& e) {
    throw StoreError(std::string(e.what()) + "; nothing merged");
  }
  return in;
}

bool samePath(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) ||
         std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

// The missing runs in words, and which shards were given.
void reportCoverage(const StudySpec& spec, const std::vector<Input>& inputs,
                    const std::vector<RunRecord>& outputRuns, MergeReport& report) {
  for (const RunRecord& r : outputRuns) report.imported = report.imported || r.source != "emulated";
  if (!spec.origin.empty()) {
    // Imported results: the runs the files held are the study (it has no plan of backends x
    // seeds to complete); each is present when finished.
    report.imported = true;
    report.planned = int(outputRuns.size());
    for (const RunRecord& r : outputRuns)
      if (!finished(r.status))
        report.missing.push_back(runName(r) + ": " + std::string(toString(r.status)));
    return;
  }
  std::map<std::string, const RunRecord*> inOutput;
  for (const RunRecord& r : outputRuns) inOutput[runName(r)] = &r;
  std::map<std::string, std::pair<const Input*, const RunRecord*>> inInputs;
  std::set<int> counts;
  std::map<int, std::vector<std::string>> givenShards;
  for (const Input& in : inputs) {
    for (const RunRecord& r : in.runs) inInputs[runName(r)] = {&in, &r};
    if (!in.shard.whole()) {
      counts.insert(in.shard.count);
      givenShards[in.shard.index].push_back(in.path);
    }
  }
  const int shardCount = counts.size() == 1 ? *counts.begin() : 0;
  if (counts.size() > 1) {
    report.notes.emplace_back(
        "the inputs are shards of different splits (N differs); a run's shard "
        "is not named below");
  }
  if (shardCount > 0) {
    std::string absent;
    for (int k = 1; k <= shardCount; ++k) {
      if (givenShards.count(k) == 0) {
        absent +=
            (absent.empty() ? "" : ", ") + std::to_string(k) + "/" + std::to_string(shardCount);
      } else if (givenShards[k].size() > 1) {
        report.notes.push_back("shard " + std::to_string(k) + "/" + std::to_string(shardCount) +
                               " is given twice");
      }
    }
    if (!absent.empty()) report.notes.push_back("not given: shard " + absent);
  }
  std::map<std::pair<std::size_t, std::uint64_t>, int> shardOf;
  if (shardCount > 0) {
    const std::vector<PlannedRun> order = costliestFirstRunsOf(spec);
    for (std::size_t i = 0; i < order.size(); ++i)
      shardOf[{order[i].backendIndex, order[i].seed}] = int(i % std::size_t(shardCount)) + 1;
  }
  for (const PlannedRun& p : plannedRunsOf(spec)) {
    ++report.planned;
    RunRecord key;
    key.backend = spec.backends[p.backendIndex].name;
    key.seed = p.seed;
    const std::string name = runName(key);
    const std::string shard = shardCount > 0
                                  ? " (shard " + std::to_string(shardOf[{p.backendIndex, p.seed}]) +
                                        "/" + std::to_string(shardCount) + ")"
                                  : "";
    auto out = inOutput.find(name);
    if (out != inOutput.end() && finished(out->second->status)) continue;
    auto in = inInputs.find(name);
    if (out != inOutput.end() && out->second->status == RunState::Failed) {
      report.missing.push_back(name + shard + ": failed (" + out->second->message +
                               "); `run --resume` redoes it");
    } else if (in != inInputs.end()) {
      report.missing.push_back(name + shard + ": " +
                               std::string(toString(in->second.second->status)) + " in " +
                               in->second.first->path + ", not finished there");
    } else {
      report.missing.push_back(name + shard + ": in no input" +
                               (shardCount > 0 && !shard.empty() &&
                                        givenShards.count(shardOf[{p.backendIndex, p.seed}]) == 0
                                    ? " (that shard was not given)"
                                    : ""));
    }
  }
}

// Copies into `out` (the output being built, to be renamed to `output`).
MergeReport copyInputs(const std::vector<Input>& inputs, const std::string& specJson,
                       const StudySpec& spec, ResultsStore& out,
                       const std::map<std::string, RunRecord>& outputRuns,
                       const std::string& output);

}  // namespace

MergeReport mergeResults(const std::vector<std::string>& inputPaths, const std::string& output) {
  if (inputPaths.empty()) throw StoreError("merge: no input databases given");
  std::vector<Input> inputs;
  for (const std::string& path : inputPaths) {
    if (samePath(path, output))
      throw StoreError(path + ": is both an input and the output; merge into another database");
    for (const Input& earlier : inputs)
      if (samePath(earlier.path, path)) throw StoreError(path + ": is given twice");
    inputs.push_back(openInput(path));
  }
  // Every stored study parses (its error names the file) before two of them are compared.
  for (const Input& in : inputs) {
    try {
      if (in.store->hasStudy()) in.store->loadStudySpec();
    } catch (const StoreError& e) {
      throw StoreError(std::string(e.what()) + "; nothing merged");
    }
  }
  const std::string specJson = inputs.front().store->loadStudySpecJson();
  for (const Input& in : inputs) {
    const std::string d = firstSpecDifference(specJson, in.store->loadStudySpecJson());
    if (!d.empty()) {
      throw StoreError(in.path + ": holds a different study than " + inputs.front().path + ": " +
                       d + " (first difference; values of " + inputs.front().path + " against " +
                       in.path + "); nothing merged");
    }
  }
  StudySpec spec;
  try {
    spec = inputs.front().store->loadStudySpec();
  } catch (const StoreError& e) {
    throw StoreError(std::string(e.what()) + "; nothing merged");
  }

  // No run in two inputs.
  std::map<std::string, std::pair<const Input*, const RunRecord*>> seen;
  for (const Input& in : inputs) {
    for (const RunRecord& r : in.runs) {
      auto [at, fresh] = seen.insert({runName(r), {&in, &r}});
      if (!fresh) {
        throw StoreError("the run " + runName(r) + " is in both " + at->second.first->path + " (" +
                         std::string(toString(at->second.second->status)) + ") and " + in.path +
                         " (" + std::string(toString(r.status)) +
                         "): the inputs overlap (a shard given twice, or a database run without "
                         "--shard?); nothing merged");
      }
    }
  }

  // The output: a new database, or one holding the same study and none of the inputs' runs.
  const bool outputExisted = std::filesystem::exists(output);
  std::unique_ptr<ResultsStore> out;
  std::map<std::string, RunRecord> outputRuns;
  if (outputExisted) {
    out = ResultsStore::open(output, false);  // names the file when foreign or damaged
    if (out->hasStudy()) {
      out->loadStudySpec();  // a stored study that does not parse is named with its file
      const std::string d = firstSpecDifference(out->loadStudySpecJson(), specJson);
      if (!d.empty()) {
        throw StoreError(output + ": holds a different study than the inputs: " + d +
                         " (values of " + output + " against " + inputs.front().path +
                         "); merge into a new database");
      }
    }
    for (const RunRecord& r : out->loadRuns()) outputRuns[runName(r)] = r;
    for (const Input& in : inputs) {
      for (const RunRecord& r : in.runs) {
        auto it = outputRuns.find(runName(r));
        if (it != outputRuns.end() && finished(it->second.status)) {
          throw StoreError(output + ": already holds the run " + runName(r) + " (" +
                           std::string(toString(it->second.status)) + "), which " + in.path +
                           " holds too; merge into a new database, or leave " + in.path +
                           " out; nothing merged");
        }
      }
    }
  }

  // Built beside the output under a name of its own (a copy of the output when it exists) and
  // renamed over it once complete: a failed or killed merge leaves the output as it was, or
  // absent, never half merged.
  std::optional<DatabaseBuild> build;
  try {
    build.emplace(output);
  } catch (const input::FileWriteError& e) {
    throw StoreError(std::string(e.what()) + "; nothing merged");
  }
  const std::string building = build->path();
  // In its own name: a message about the file being built names the output.
  const auto named = [&](std::string text) {
    for (std::size_t at; (at = text.find(building)) != std::string::npos;)
      text.replace(at, building.size(), output);
    return text;
  };
  try {
    if (out) {
      out->copyDatabaseTo(building);
      out.reset();  // the last connection: SQLite folds the output's -wal file into it
      std::error_code ec;
      if (std::filesystem::file_size(output + "-wal", ec) > 0 && !ec)
        throw StoreError(output +
                         ": is in use by another process (its -wal file is open); "
                         "nothing merged");
    }
    MergeReport report;
    {
      std::unique_ptr<ResultsStore> target = ResultsStore::open(building, true);
      report = copyInputs(inputs, specJson, spec, *target, outputRuns, output);
    }  // closed: the copy is whole in its one file
    try {
      build->commit();
    } catch (const input::FileWriteError& e) {
      throw StoreError(std::string(e.what()) + "; nothing merged");
    }
    return report;
  } catch (const StoreError& e) {       // anything else (std::bad_alloc) propagates as it is; the
    throw StoreError(named(e.what()));  // build removes what it created either way
  }
}

namespace {

MergeReport copyInputs(const std::vector<Input>& inputs, const std::string& specJson,
                       const StudySpec& spec, ResultsStore& out,
                       const std::map<std::string, RunRecord>& outputRuns,
                       const std::string& output) {
  if (!out.hasStudy()) out.saveStudySpec(specJson);
  // The study's test set (labels, class names) the divergence analysis reads: the same in every
  // input of one study; saveTestSet refuses a different one, naming the output.
  for (const Input& in : inputs)
    if (std::optional<ResultsStore::TestSet> set = in.store->loadTestSet())
      out.saveTestSet(set->labels, set->classNames);
  // The lockstep comparisons the first shard ran before its runs (one per mode; the same in any
  // input that holds one).
  for (const Input& in : inputs)
    for (const LockstepRecord& r : in.store->loadLockstep()) out.saveLockstep(r);
  MergeReport report;
  report.studyName = spec.name;
  for (const auto& [name, r] : outputRuns)
    if (finished(r.status)) ++report.alreadyThere;
  for (const Input& in : inputs) {
    std::vector<std::int64_t> copy, replace;
    for (const RunRecord& r : in.runs) {
      if (!ended(r.status)) continue;
      copy.push_back(r.id);
      auto it = outputRuns.find(runName(r));
      if (it != outputRuns.end()) replace.push_back(it->second.id);
    }
    out.copyRunsFrom(*in.store, copy, replace);
    report.copied += int(copy.size());
    report.inputs.push_back(shardLabel(in) + ": " + std::to_string(copy.size()) + " of " +
                            std::to_string(in.runs.size()) + " runs copied");
  }
  if (!storedShard(out).whole()) {
    report.notes.push_back(output + " held shard " + storedShard(out).text() +
                           "; it now holds merged runs and is marked as the whole study");
    out.setMetaValue("shard", "");
  }
  reportCoverage(spec, inputs, out.loadRuns(), report);
  return report;
}

}  // namespace

}  // namespace paritylab::study
