#include "core/study/files/run_start_export.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>

#include "core/data/dataset.h"
#include "core/data/text_split.h"
#include "core/data/text_windows.h"
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

// A language model's batches: the offsets into the training tokens of every window of every step
// [steps, batch], and with `withData` the tokens and the validation windows. Returns the manifest's
// "data" entry.
json writeTextBatches(const fs::path& folder, const nn::TrainConfig& config,
                      const data::DataSplit& split, bool withData) {
  const data::TextSplit& text = *split.text;
  const std::int64_t steps = nn::plannedSteps(config, split);
  std::vector<std::uint32_t> offsets;
  offsets.reserve(std::size_t(steps) * std::size_t(config.batchSize));
  for (std::int64_t step = 0; step < steps; ++step)
    for (std::size_t offset : data::trainingWindowOffsets(
             text.corpus, text.blockSize, config.batchSize, config.seed, std::uint64_t(step)))
      offsets.push_back(std::uint32_t(offset));  // a corpus holds at most 2^28 tokens
  input::writeNpy((folder / "window_offsets.npy").string(), std::span<const std::uint32_t>(offsets),
                  {std::size_t(steps), std::size_t(config.batchSize)});
  if (!withData) return nullptr;
  const std::vector<std::uint32_t> train(text.corpus.train.begin(), text.corpus.train.end());
  input::writeNpy((folder / "train_tokens.npy").string(), std::span<const std::uint32_t>(train),
                  {train.size()});
  const std::vector<std::int32_t> inputs(text.validationInputs.begin(),
                                         text.validationInputs.end());
  const std::size_t windows = text.validationWindows(), block = std::size_t(text.blockSize);
  input::writeNpy((folder / "validation_inputs.npy").string(),
                  std::span<const std::int32_t>(inputs), {windows, block});
  input::writeNpy((folder / "validation_targets.npy").string(),
                  std::span<const std::int32_t>(text.validationTargets), {windows, block});
  return {{"train_tokens", "train_tokens.npy"},
          {"validation_inputs", "validation_inputs.npy"},
          {"validation_targets", "validation_targets.npy"}};
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
  out.epochs = nn::plannedEpochs(config, split);
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

  json dataFiles = nullptr;
  json batches;
  if (split.text) {
    dataFiles = writeTextBatches(folder, config, split, withData);
    out.steps = nn::plannedSteps(config, split);
    out.batchSize = config.batchSize;
    out.trainTokens = split.text->corpus.train.size();
    out.validationPositions = split.text->validationTargets.size();
    batches = {{"window_offsets", "window_offsets.npy"}};
  } else {
    std::vector<std::uint32_t> order(out.trainExamples), orders;
    orders.reserve(std::size_t(std::max(config.epochs, 0)) * order.size());
    for (int epoch = 1; epoch <= config.epochs; ++epoch) {
      nn::fillEpochOrder(order, config.seed, epoch);
      orders.insert(orders.end(), order.begin(), order.end());
    }
    input::writeNpy((folder / "batch_order.npy").string(), std::span<const std::uint32_t>(orders),
                    {std::size_t(std::max(config.epochs, 0)), out.trainExamples});

    if (withData) {
      writeSplit(folder, "train", split.train);
      writeSplit(folder, "test", split.test);
      dataFiles = {{"train_images", "train_images.npy"},
                   {"train_labels", "train_labels.npy"},
                   {"test_images", "test_images.npy"},
                   {"test_labels", "test_labels.npy"}};
    }
    batches = {{"batch_order", "batch_order.npy"}};
  }
  const json manifest = {
      {"format", "paritylab-run-start"},
      {"version", 1},
      {"database", db},
      {"run", {{"id", run.id}, {"backend", run.backend}, {"seed", run.seed}}},
      {"policy", json::parse(run.policyJson.empty() ? "null" : run.policyJson)},
      {"model", config.model},
      {"width", config.width},
      {"epochs", nn::plannedEpochs(config, split)},
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
      {"data", dataFiles},
      {"study", studySpecToJson(spec)}};
  json full = manifest;
  full.update(batches);
  if (split.text) {
    full["gpt"] = {{"n_layer", config.gpt.nLayer},
                   {"n_head", config.gpt.nHead},
                   {"n_embd", config.gpt.nEmbd},
                   {"block_size", config.gpt.blockSize},
                   {"tie_weights", config.gpt.tieWeights}};
    full["steps"] = nn::plannedSteps(config, split);
    full["vocabulary"] = split.text->corpus.vocabulary;  // the byte each token id stands for
  }
  input::writeFileAtomically((folder / "manifest.json").string(), full.dump(2) + "\n");
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
