// `paritylab-cli lockstep --backend A [--reference cpu-fp32] [--steps N] [--mode resync|free]
// [--tolerance X] [STUDY.json | --model M --dataset D ...] [--json] [--csv FILE]`: trains backend
// A and a reference side by side from one initial state on the same batches and prints, per step
// and per layer, how far A's outputs, gradients and weights are from the reference's, the first
// step and layer where a tolerance is crossed, and how the difference grows with depth
// (core/nn/lockstep.h). `lockstep --from DB [--mode M]` prints the comparison a study stored.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "app/cli/backend_argument.h"
#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "app/cli/training_flags.h"
#include "core/data/dataset.h"
#include "core/data/dataset_kinds.h"
#include "core/input/atomic_file.h"
#include "core/input/input_limits.h"
#include "core/input/json_input.h"
#include "core/nn/lockstep.h"
#include "core/nn/training_choices.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"

namespace paritylab::cli {
namespace lockstep_command {

struct LockstepArgs : TrainingFlags {
  std::string study, backend, reference = "cpu-fp32", mode = "resync", csv, from;
  std::int64_t steps = 100;
  int every = 1;
  std::uint64_t seed = 0;
  double tolerance = 0.01;
  bool json = false, overwrite = false, attribute = false;
};

// The quick study's training (mlp on Fashion-MNIST, batch 128, AdamW 1e-3), or the study file's,
// with the flags given replacing its fields.
study::StudySpec buildSpec(const LockstepArgs& a) {
  study::StudySpec spec =
      a.study.empty()
          ? study::parseStudySpec(R"({"name": "lockstep", "dataset": {"source": "fashion-mnist",
              "train_size": 60000, "test_size": 1000}, "model": "mlp", "batch_size": 128,
              "optimizer": {"kind": "adamw", "lr": 0.001}, "backends": ["cpu-fp32"], "seeds": 1})",
                                  "<default lockstep>")
          : study::loadStudySpecFile(a.study);
  applyTrainingFlags(a, spec);
  spec.dataset.blockSize = spec.train.gpt.blockSize;  // the windows the model reads
  spec.train.seed = a.seed;
  spec.train.xrayEverySteps = 0;
  study::requireDataForModel(spec, a.study.empty() ? "<command line>" : a.study);
  return spec;
}

nlohmann::json toJson(const nn::LockstepResult& r, const nn::LockstepOptions& o,
                      const std::string& backend, const std::string& reference,
                      const std::string& summary) {
  nlohmann::json j;
  j["backend"] = backend;
  j["reference"] = reference;
  j["emulated"] = true;
  j["mode"] = std::string(nn::toString(o.mode));
  j["tolerance"] = o.tolerance;
  j["steps_trained"] = r.stepsTrained;
  j["seconds"] = r.seconds;
  if (!r.stoppedBecause.empty()) j["stopped_because"] = r.stoppedBecause;
  nlohmann::json layers = nlohmann::json::array();
  for (const nn::LockstepLayer& l : r.layers) layers.push_back(l.name);
  j["layers"] = layers;
  nlohmann::json steps = nlohmann::json::array();
  for (const nn::LockstepStep& s : r.steps) {
    nlohmann::json js;
    js["step"] = s.step;
    js["loss"] = input::jsonNumber(s.lossA);
    js["loss_reference"] = input::jsonNumber(s.lossReference);
    nlohmann::json per = nlohmann::json::object();
    for (std::size_t l = 0; l < r.layers.size(); ++l) {
      nlohmann::json q;
      for (std::size_t k = 0; k < nn::kLockstepQuantities; ++k)
        q[std::string(nn::toString(nn::LockstepQuantity(k)))] =
            input::jsonNumber(s.difference[l][k]);
      per[r.layers[l].name] = q;
    }
    js["layers"] = per;
    steps.push_back(js);
  }
  j["steps"] = steps;
  if (r.firstCrossing) {
    const nn::LockstepCrossing& c = *r.firstCrossing;
    j["first_crossing"] = {{"step", c.step},
                           {"layer", r.layers[c.layer].name},
                           {"quantity", std::string(nn::toString(c.quantity))},
                           {"value", input::jsonNumber(c.value)}};
  } else {
    j["first_crossing"] = nullptr;
  }
  if (r.attribution) {
    const nn::LockstepAttribution& at = *r.attribution;
    nlohmann::json products = nlohmann::json::array();
    for (const nn::ProductShare& p : at.products)
      products.push_back({{"product", p.product},
                          {"share", input::jsonNumber(p.share)},
                          {"error_without", input::jsonNumber(p.errorWithout)}});
    j["attribution"] = {{"step", at.step},
                        {"weight_gradient_error", input::jsonNumber(at.error)},
                        {"error_outside_products", input::jsonNumber(at.errorOutsideProducts)},
                        {"products", products}};
  }
  j["summary"] = summary;
  return j;
}

std::string toCsv(const nn::LockstepResult& r) {
  std::ostringstream out;
  out.precision(9);
  out << "step,layer,quantity,relative_rms_difference\n";
  for (const nn::LockstepStep& s : r.steps)
    for (std::size_t l = 0; l < r.layers.size(); ++l)
      for (std::size_t k = 0; k < nn::kLockstepQuantities; ++k) {
        const double v = s.difference[l][k];
        if (std::isnan(v)) continue;
        out << s.step << "," << r.layers[l].name << "," << nn::toString(nn::LockstepQuantity(k))
            << ",";
        if (std::isinf(v))
          out << "inf";
        else
          out << v;
        out << "\n";
      }
  return out.str();
}

std::string cell(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return "inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return buffer;
}

void printTable(const nn::LockstepResult& r, const nn::LockstepStep& s) {
  std::printf("  step %lld (loss %s vs %s), relative RMS difference per layer:\n",
              static_cast<long long>(s.step), cell(s.lossA).c_str(), cell(s.lossReference).c_str());
  int width = 18;  // the layer column: as wide as its longest name (resnet18's downsample.0)
  for (const auto& layer : r.layers) width = std::max(width, static_cast<int>(layer.name.size()));
  std::printf("    %-*s %11s %15s %11s %11s\n", width, "layer", "activation", "activation_grad",
              "weight_grad", "weight");
  for (std::size_t l = 0; l < r.layers.size(); ++l)
    std::printf("    %-*s %11s %15s %11s %11s\n", width, r.layers[l].name.c_str(),
                cell(s.difference[l][0]).c_str(), cell(s.difference[l][1]).c_str(),
                cell(s.difference[l][2]).c_str(), cell(s.difference[l][3]).c_str());
}

// Prints `result` as asked (--csv, --json, else the tables and the summary); `heading` is the
// first line of the plain output.
void show(const nn::LockstepResult& result, const nn::LockstepOptions& options,
          const std::string& backend, const std::string& reference, const std::string& heading,
          const LockstepArgs& a) {
  const std::string summary = nn::describeLockstep(result, options, backend, reference);
  if (!a.csv.empty()) {
    if (a.csv == "-") {
      std::cout << toCsv(result);
    } else {
      try {
        input::writeFileAtomically(a.csv, toCsv(result));
      } catch (const input::FileWriteError& e) {
        throw CommandError(e.what());
      }
    }
  }
  if (a.json) {
    std::cout << toJson(result, options, backend, reference, summary).dump(2) << "\n";
    return;
  }
  if (a.csv == "-") return;
  std::printf("%s\n", heading.c_str());
  if (!result.steps.empty()) printTable(result, result.steps.front());
  if (result.steps.size() > 1) printTable(result, result.steps.back());
  if (result.attribution) {
    const nn::LockstepAttribution& at = *result.attribution;
    std::printf(
        "  step %lld: weight-gradient error %s; per product, its share when computed as %s:\n",
        static_cast<long long>(at.step), cell(at.error).c_str(), reference.c_str());
    for (std::size_t i = 0; i < at.products.size() && i < 8; ++i)
      std::printf("    %-22s %8.1f%%\n", at.products[i].product.c_str(),
                  100 * at.products[i].share);
  }
  std::printf("%s\n", summary.c_str());
  std::printf("  %.1f s for %lld steps of both runs\n", result.seconds,
              static_cast<long long>(result.stepsTrained));
}

// A comparison a study stored (the spec's "lockstep"), in the mode asked for.
void showStored(const LockstepArgs& a, nn::LockstepMode mode) {
  std::vector<study::LockstepRecord> stored;
  try {
    stored = study::ResultsStore::openReadOnly(a.from)->loadLockstep();
  } catch (const std::exception& e) {
    throw CommandError(e.what());
  }
  std::string modes;
  for (const study::LockstepRecord& r : stored) {
    if (r.mode == nn::toString(mode)) {
      nn::LockstepOptions options;
      options.mode = mode;
      options.tolerance = r.tolerance;
      options.steps = r.result.stepsTrained;
      show(r.result, options, r.backend, r.reference,
           r.backend + " against " + r.reference + " as stored in " + a.from + " (seed " +
               std::to_string(r.seed) + ", " + std::string(nn::toString(mode)) + ")",
           a);
      return;
    }
    modes += (modes.empty() ? "" : ", ") + r.mode;
  }
  throw CommandError(a.from + " holds no " + std::string(nn::toString(mode)) +
                     " lockstep comparison (" +
                     (modes.empty() ? std::string("none: the study's spec has no \"lockstep\"")
                                    : "it holds: " + modes) +
                     ")");
}

void runLockstepCommand(const LockstepArgs& a) {
  const std::optional<nn::LockstepMode> mode = nn::parseLockstepMode(a.mode);
  if (!mode) throw CommandError("--mode: unknown mode '" + a.mode + "' (resync | free)");
  if (!a.csv.empty() && a.csv != "-" && std::filesystem::exists(a.csv) && !a.overwrite)
    throw CommandError("--csv " + a.csv + ": the file exists; pass --overwrite to replace it");
  if (!a.from.empty()) {
    showStored(a, *mode);
    return;
  }
  if (a.backend.empty())
    throw CommandError("--backend is required (or --from DB for a study's stored comparison)");
  const backends::PrecisionPolicy policy = loadBackendArgument(a.backend);
  const bool fp64 = a.reference == nn::kFp64Reference;
  const backends::PrecisionPolicy reference =
      fp64 ? backends::PrecisionPolicy{} : loadBackendArgument(a.reference);
  study::StudySpec spec;
  try {
    spec = buildSpec(a);
  } catch (const std::exception& e) {
    throw CommandError(e.what());
  }
  data::DataSplit data;
  try {
    data = data::loadDataset(spec.dataset);
  } catch (const std::exception& e) {
    throw CommandError("dataset " + spec.dataset.source + ": " + e.what());
  }
  nn::LockstepOptions options;
  options.steps = a.steps;
  options.mode = *mode;
  options.tolerance = a.tolerance;
  options.everySteps = a.every;
  options.attribute = a.attribute;
  nn::LockstepResult result;
  try {
    result = fp64 ? nn::runLockstepAgainstFp64(spec.train, policy, data, options)
                  : nn::runLockstep(spec.train, policy, reference, data, options);
  } catch (const std::invalid_argument& e) {
    throw CommandError(e.what());
  }
  char heading[512];
  std::snprintf(heading, sizeof heading, "%s (%s) on %s, batch %d, seed %llu",
                spec.train.model.c_str(), policy.name.c_str(), spec.dataset.source.c_str(),
                spec.train.batchSize, static_cast<unsigned long long>(spec.train.seed));
  show(result, options, policy.name, fp64 ? a.reference : reference.name, heading, a);
}

const CommandRegistration reg{
    "lockstep", 76, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "lockstep",
          "Train a backend and a reference side by side on the same batches and show when and "
          "where they part: per step and layer, the relative difference of outputs, gradients "
          "and weights (emulated)");
      auto a = std::make_shared<LockstepArgs>();
      cmd->add_option("study", a->study,
                      "Study JSON whose training to use (default: the quick study's: mlp on "
                      "Fashion-MNIST, batch 128)");
      cmd->add_option("--backend,-b", a->backend, "Preset name or a policy .json file");
      cmd->add_option("--from", a->from,
                      "A results database whose study ran \"lockstep\": print its stored "
                      "comparison (--mode chooses which) instead of training");
      cmd->add_option("--reference", a->reference,
                      "Preset or policy file compared against, or fp64: every product, sum and "
                      "update in binary64 (every model: mlp, small-cnn, resnet18, gpt)")
          ->capture_default_str();
      addIntegerOption(cmd, "--steps", a->steps, {1, input::kMaxSteps}, "Steps both runs train");
      cmd->add_option("--mode", a->mode,
                      "resync: A starts every step from the reference's weights and optimizer "
                      "state (the error one step adds); free: each runs on (the error "
                      "accumulated)")
          ->capture_default_str();
      addRealOption(cmd, "--tolerance", a->tolerance, {0, 1e30, true},
                    "Relative RMS difference whose first crossing is reported (default 0.01)");
      addIntegerOption(cmd, "--every", a->every, {1, 1'000'000}, "Compare every N-th step");
      cmd->add_option("--model", a->model, nn::joinedNames(nn::kModelNames, " | "));
      cmd->add_option("--dataset", a->dataset,
                      "Dataset source (" + data::datasetSourceForms() + ")");
      addIntegerOption(cmd, "--train-size", a->trainSize, {0, input::kMaxDatasetImages},
                       "Training images (0 = all)");
      addIntegerOption(cmd, "--test-size", a->testSize, {0, input::kMaxDatasetImages},
                       "Test images (0 = all)");
      addIntegerOption(cmd, "--batch", a->batch, {1, input::kMaxBatchSize}, "Batch size");
      addIntegerOption(cmd, "--eval-batch", a->evalBatch, {1, input::kMaxBatchSize},
                       "Evaluation batch size (default 1000, or --batch for --model gpt)");
      addRealOption(cmd, "--lr", a->lr, {0, input::kMaxHyperparameter, true}, "Learning rate");
      addIntegerOption(cmd, "--seed", a->seed, {0, input::kMaxSeedValue},
                       "Seed of the weights and batches");
      addIntegerOption(cmd, "--n-layer", a->nLayer, {1, input::kMaxGptLayers},
                       "gpt: transformer blocks");
      addIntegerOption(cmd, "--n-head", a->nHead, {1, input::kMaxGptHeads}, "gpt: attention heads");
      addIntegerOption(cmd, "--n-embd", a->nEmbd, {1, input::kMaxGptEmbedding},
                       "gpt: embedding width");
      addIntegerOption(cmd, "--block-size", a->blockSize, {1, input::kMaxGptBlockSize},
                       "gpt: tokens per window");
      cmd->add_flag("--json", a->json,
                    "Print every compared step's per-layer figures and the first crossing as JSON");
      cmd->add_option("--csv", a->csv, "Write step,layer,quantity,value rows ('-': stdout)");
      cmd->add_flag("--overwrite", a->overwrite, "Replace an existing --csv file");
      cmd->add_flag("--attribute", a->attribute,
                    "Which product adds most of the one-step error: at the first crossing (else "
                    "the last step) redo the step once per product computed as the reference does");
      cmd->callback([a] { runLockstepCommand(*a); });
    }};

}  // namespace lockstep_command
}  // namespace paritylab::cli
