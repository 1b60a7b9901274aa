#include "core/study/files/run_start_export.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>

#include "core/data/dataset.h"
#include "core/input/atomic_file.h"
#include "core/input/npy_file.h"
#include "core/nn/run_start.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The stored study's entry that trained `run`.
const BackendEntry& entryOf(const StudySpec& spec, const RunRecord& run, const std::string& db) {
  const auto it = std::find_if(spec.backends.begin(), spec.backends.end(),
                               [&](const BackendEntry& e) { return e.name == run.backend; });
  if (it == spec.backends.end())
    throw StoreError(db + ": run " + std::to_string(run.id) + "'s backend '" + run.backend +
                     "' is not in the stored study");
  return *it;
}

const RunRecord& findRun(const std::vector<RunRecord>& runs, std::int64_t runId,
                         const std::string& db) {
  const auto it =
      std::find_if(runs.begin(), runs.end(), [&](const RunRecord& r) { return r.id == runId; });
  if (it == runs.end()) {
    std::string have = runs.empty() ? "it has no runs"
                                    : "its runs are " + std::to_string(runs.front().id) + " to " +
                                          std::to_string(runs.back().id);
    throw StoreError(db + ": no run " + std::to_string(runId) + " (" + have + ")");
  }
  if (it->source != "emulated")
    throw StoreError(db + ": run " + std::to_string(runId) + " (" + it->backend +
                     ") was imported from real hardware: it has no emulated start to export");
  return *it;
}

// Refuses a target that holds anything, before any work.
void requireEmptyTarget(const fs::path& target) {
  std::error_code ec;
  if (!fs::exists(target, ec)) return;
  if (!fs::is_directory(target, ec))
    throw std::runtime_error(target.string() +
                             ": exists and is not a folder; the export "
                             "writes a new folder and never replaces a file");
  if (!fs::is_empty(target, ec))
    throw std::runtime_error(target.string() +
                             ": the folder holds files; the export writes "
                             "only into a new or empty folder");
}

// A new folder beside `target`, made by us (mkdtemp), for building the export.
fs::path makeBuildFolder(const fs::path& target) {
  fs::path parent = target.parent_path();
  if (parent.empty()) parent = ".";
  std::string pattern = (parent / ("." + target.filename().string() + ".building-XXXXXX")).string();
  if (!::mkdtemp(pattern.data()))
    throw input::FileWriteError(target.string() + ": cannot write: cannot make a folder in " +
                                parent.string() + " (" + std::strerror(errno) + ")");
  return pattern;
}

std::vector<std::size_t> dimsOf(const nn::Shape& shape) {
  std::vector<std::size_t> dims;
  for (int i = 0; i < shape.rank; ++i) dims.push_back(std::size_t(shape[i]));
  return dims;
}

void writeSplit(const fs::path& folder, const std::string& name, const data::Dataset& d) {
  const std::size_t n = d.size();
  input::writeNpy((folder / (name + "_images.npy")).string(), std::span<const float>(d.images),
                  {n, std::size_t(d.channels), std::size_t(d.height), std::size_t(d.width)});
  input::writeNpy((folder / (name + "_labels.npy")).string(),
                  std::span<const std::int32_t>(d.labels), {n});
}

// Writes every file of the export into `folder`; returns the manifest's summary.
RunStartExport writeExport(const fs::path& folder, const std::string& db, const RunRecord& run,
                           const StudySpec& spec, const BackendEntry& entry, bool withData) {
  nn::TrainConfig config = trainConfigFor(spec, entry);
  config.seed = run.seed;
  if (spec.pretrain) {
    config.initCheckpoint = db + ".backbone.ckpt";
    if (!fs::exists(config.initCheckpoint))
      throw StoreError(db + ": run " + std::to_string(run.id) +
                       " starts from the pretrained backbone " + config.initCheckpoint +
                       ", which is missing (it is made when the study runs)");
  }
  const data::DataSplit split = data::loadDataset(spec.dataset);
  nn::TrainingSession session(nn::modelSpecFor(config, split.train), entry.policy, config.seed);
  nn::applyStartingWeights(config, session);

  RunStartExport out;
  out.runId = run.id;
  out.backend = run.backend;
  out.seed = run.seed;
  out.epochs = config.epochs;
  out.trainExamples = split.train.size();
  out.testExamples = split.test.size();
  out.data = withData;

  const nn::ParamStore& params = session.model().params;
  fs::create_directory(folder / "params");
  json parameters = json::array();
  for (std::size_t id = 0; id < params.infos().size(); ++id) {
    const nn::ParamInfo& info = params.infos()[id];
    const std::string file = "params/" + info.name + ".npy";
    input::writeNpy((folder / file).string(),
                    std::span<const float>(params.master(int(id)), info.size), dimsOf(info.shape));
    parameters.push_back({{"name", info.name},
                          {"shape", dimsOf(info.shape)},
                          {"file", file},
                          {"trained", info.kind == nn::ParamKind::Weight}});
    ++out.parameters;
  }

  std::vector<std::uint32_t> order(out.trainExamples), orders;
  orders.reserve(std::size_t(std::max(config.epochs, 0)) * order.size());
  for (int epoch = 1; epoch <= config.epochs; ++epoch) {
    nn::fillEpochOrder(order, config.seed, epoch);
    orders.insert(orders.end(), order.begin(), order.end());
  }
  input::writeNpy((folder / "batch_order.npy").string(), std::span<const std::uint32_t>(orders),
                  {std::size_t(std::max(config.epochs, 0)), out.trainExamples});

  json dataFiles = nullptr;
  if (withData) {
    writeSplit(folder, "train", split.train);
    writeSplit(folder, "test", split.test);
    dataFiles = {{"train_images", "train_images.npy"},
                 {"train_labels", "train_labels.npy"},
                 {"test_images", "test_images.npy"},
                 {"test_labels", "test_labels.npy"}};
  }
  const json manifest = {
      {"format", "paritylab-run-start"},
      {"version", 1},
      {"database", db},
      {"run", {{"id", run.id}, {"backend", run.backend}, {"seed", run.seed}}},
      {"policy", json::parse(run.policyJson.empty() ? "null" : run.policyJson)},
      {"model", config.model},
      {"width", config.width},
      {"epochs", config.epochs},
      {"batch_size", config.batchSize},
      {"eval_batch_size", config.evalBatchSize},
      {"optimizer", optimizerToJson(config.optimizer)},
      {"schedule", scheduleToJson(config.schedule)},
      {"grad_clip", config.gradClipNorm},
      {"freeze_epochs", config.freezeEpochs},
      {"augment", config.augment},
      {"nudged_first_weight", config.nudgeFirstWeight},
      {"train_examples", out.trainExamples},
      {"test_examples", out.testExamples},
      {"image_shape", {split.train.channels, split.train.height, split.train.width}},
      {"classes", split.train.numClasses},
      {"channel_mean", split.train.channelMean},
      {"channel_std", split.train.channelStd},
      {"parameters", parameters},
      {"batch_order", "batch_order.npy"},
      {"data", dataFiles},
      {"study", studySpecToJson(spec)}};
  input::writeFileAtomically((folder / "manifest.json").string(), manifest.dump(2) + "\n");
  return out;
}

}  // namespace

RunStartExport exportRunStart(const std::string& databasePath, std::int64_t runId,
                              const std::string& directory, bool withData) {
  const fs::path target(directory);
  requireEmptyTarget(target);
  const auto store = ResultsStore::openReadOnly(databasePath);
  const StudySpec spec = store->loadStudySpec();
  const std::vector<RunRecord> runs = store->loadRuns();
  const RunRecord& run = findRun(runs, runId, databasePath);
  const BackendEntry& entry = entryOf(spec, run, databasePath);

  const fs::path folder = makeBuildFolder(target);
  try {
    RunStartExport out = writeExport(folder, databasePath, run, spec, entry, withData);
    requireEmptyTarget(target);  // still empty: nothing appeared there meanwhile
    std::error_code ec;
    fs::rename(folder, target, ec);  // over an empty folder, or to a new name
    if (ec) throw input::FileWriteError(target.string() + ": cannot write: " + ec.message());
    out.directory = target.string();
    return out;
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(folder, ignored);  // the folder mkdtemp made for us, holding only our files
    throw;
  }
}

}  // namespace paritylab::study
