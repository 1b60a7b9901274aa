// `paritylab-cli bench --model M --backend B [--batch N] [--steps N] [--threads N] [--json]`:
// times training steps on real Fashion-MNIST batches after a warm-up and prints images per second,
// so users can size their studies (core/study/run/training_benchmark.h does the measuring).
// `--against R [--rounds N]` times B and R side by side, taking turns, and prints B's speed as a
// fraction of R's (each round's, and their median), steady on a machine whose speed moves.
// `--input HxWxC` times random images of another shape instead (CIFAR-shaped 32x32x3: timing only,
// the pixels carry no signal).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <thread>

#include "app/cli/backend_argument.h"
#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "core/data/text_corpus.h"
#include "core/data/text_split.h"
#include "core/input/input_limits.h"
#include "core/nn/blas_setup.h"
#include "core/nn/model.h"
#include "core/nn/training_choices.h"
#include "core/study/run/training_benchmark.h"

namespace paritylab::cli {
namespace bench_command {

struct BenchArgs {
  // dataset: "" = fashion-mnist for an image model, the example corpus for the language model.
  std::string model = "small-cnn", backend = "cpu-fp32", dataset;
  std::string input;  // "" = the dataset's images; "HxWxC" = random images of that shape
  std::int64_t trainSize = 10000;
  int batch = 128, steps = 50, warmup = 5, threads = 1, width = 16, xrayEvery = 0, signalsEvery = 0;
  std::uint64_t seed = 0;
  bool json = false;
  std::string against;  // "" = time --backend alone; else the reference it is timed against
  int rounds = 6;       // with --against: rounds of --steps steps of each
};

// "32x32x3" -> {3, 32, 32} as {channels, height, width}; throws naming the value.
std::array<int, 3> parseInputShape(const std::string& text) {
  int h = 0, w = 0, c = 0;
  char x1 = 0, x2 = 0, rest = 0;
  const int read = std::sscanf(text.c_str(), "%d%c%d%c%d%c", &h, &x1, &w, &x2, &c, &rest);
  const auto inRange = [](int v, std::int64_t hi) { return v >= 1 && v <= hi; };
  if (read != 5 || x1 != 'x' || x2 != 'x' || !inRange(h, input::kMaxImageSide) ||
      !inRange(w, input::kMaxImageSide) || !inRange(c, 4))
    throw CommandError("--input \"" + text + "\": expected HxWxC, e.g. 32x32x3 (sides 1.." +
                       std::to_string(input::kMaxImageSide) + ", 1..4 channels)");
  return {c, h, w};
}

// Random N(0, 1) pixels (already "normalised") with labels cycling through 10 classes: enough to
// time training on another input shape; deterministic in the seed.
data::Dataset randomImages(const BenchArgs& a, const std::array<int, 3>& shape) {
  data::Dataset d;
  d.channels = shape[0];
  d.height = shape[1];
  d.width = shape[2];
  const std::int64_t n = a.trainSize > 0 ? a.trainSize : 10000;
  std::mt19937_64 rng(a.seed);
  std::normal_distribution<float> pixel(0.0f, 1.0f);
  d.images.resize(std::size_t(n) * d.imageSize());
  for (float& v : d.images) v = pixel(rng);
  d.labels.resize(std::size_t(n));
  for (std::size_t i = 0; i < d.labels.size(); ++i) d.labels[i] = std::int32_t(i % 10);
  d.channelMean.assign(std::size_t(d.channels), 0.0f);
  d.channelStd.assign(std::size_t(d.channels), 1.0f);
  for (int k = 0; k < 10; ++k) d.classNames.push_back("class " + std::to_string(k));
  return d;
}

std::string datasetOf(const BenchArgs& a) {
  if (!a.dataset.empty()) return a.dataset;
  return nn::isLanguageModel(a.model) ? std::string("text:") + data::kDefaultTextCorpus
                                      : std::string("fashion-mnist");
}

// What the timed steps train on: the dataset's (or random) images, or a text's windows.
data::DataSplit loadTrainingData(const BenchArgs& a) {
  if (!a.input.empty()) {
    if (nn::isLanguageModel(a.model))
      throw CommandError("--input: random images are no input for the language model");
    data::DataSplit split;
    split.train = randomImages(a, parseInputShape(a.input));
    return split;
  }
  data::DatasetSpec spec;
  spec.source = datasetOf(a);
  if (nn::isLanguageModel(a.model)) {
    spec.blockSize = nn::GptShape{}.blockSize;
  } else {
    spec.trainSize = a.trainSize;
    spec.testSize = 100;  // unused; keep loading cheap
  }
  spec.seed = a.seed;
  try {
    return data::loadDataset(spec);
  } catch (const std::exception& e) {
    throw CommandError("--dataset " + spec.source + ": " + e.what());
  }
}

void printText(const BenchArgs& a, const backends::PrecisionPolicy& policy,
               const study::ThroughputResult& r) {
  std::printf(
      "%s under %s (emulated on this CPU), batch %d, %d thread%s (one run each, "
      "single-threaded BLAS)\n",
      a.model.c_str(), policy.name.c_str(), r.batchSize, r.threads, r.threads == 1 ? "" : "s");
  const std::string source =
      a.input.empty() ? datasetOf(a) : "random " + a.input + " images (timing only)";
  std::printf(
      "  %d warm-up + %d timed steps per thread on %s; OpenBLAS kernels: %s; NVFP4's "
      "products: %s\n",
      a.warmup, r.steps, source.c_str(), nn::blasCoreName().c_str(),
      nn::bf16ProductEngine().c_str());
  if (a.xrayEvery > 0)
    std::printf("  X-ray on: every %d steps measured (records taken, not stored)\n", a.xrayEvery);
  if (a.signalsEvery > 0)
    std::printf("  early warnings on: every %d steps measured (not stored)\n", a.signalsEvery);
  if (r.tokensPerSecond > 0) {
    std::printf("  tokens/s      %10.1f%s\n  windows/s     %10.1f\n", r.tokensPerSecond,
                r.threads > 1 ? "  (all threads together)" : "", r.imagesPerSecond);
  } else {
    std::printf("  images/s      %10.1f%s\n", r.imagesPerSecond,
                r.threads > 1 ? "  (all threads together)" : "");
  }
  if (r.threads > 1) {
    std::printf("  per thread   ");
    for (double v : r.workerImagesPerSecond) std::printf(" %9.1f", v);
    std::printf("\n");
  }
  std::printf("  ms per step   %10.2f\n", r.stepMilliseconds);
  if (r.skippedSteps > 0)
    std::printf("  %lld steps skipped by loss scaling (timed all the same)\n",
                static_cast<long long>(r.skippedSteps));
  if (r.diverged) std::printf("  note: the loss diverged during timing (timing is still valid)\n");
}

// "tokens/s" or "images/s" of a result.
std::string rateText(const study::ThroughputResult& r) {
  char text[64];
  if (r.tokensPerSecond > 0)
    std::snprintf(text, sizeof text, "%.1f tokens/s", r.tokensPerSecond);
  else
    std::snprintf(text, sizeof text, "%.1f images/s", r.imagesPerSecond);
  return text;
}

void printRelativeText(const BenchArgs& a, const backends::PrecisionPolicy& policy,
                       const backends::PrecisionPolicy& reference,
                       const study::RelativeThroughput& r) {
  std::printf(
      "%s under %s against %s (both emulated on this CPU), batch %d, one thread, taking turns\n",
      a.model.c_str(), policy.name.c_str(), reference.name.c_str(), r.policy.batchSize);
  const std::string source =
      a.input.empty() ? datasetOf(a) : "random " + a.input + " images (timing only)";
  std::printf(
      "  %d warm-up steps each, then %d rounds of %d timed steps each on %s; OpenBLAS "
      "kernels: %s; NVFP4's products: %s\n",
      a.warmup, a.rounds, a.steps, source.c_str(), nn::blasCoreName().c_str(),
      nn::bf16ProductEngine().c_str());
  std::printf("  %-14s %s, %.2f ms per step\n", policy.name.c_str(), rateText(r.policy).c_str(),
              r.policy.stepMilliseconds);
  std::printf("  %-14s %s, %.2f ms per step\n", reference.name.c_str(),
              rateText(r.reference).c_str(), r.reference.stepMilliseconds);
  const auto [low, high] = std::minmax_element(r.ratios.begin(), r.ratios.end());
  std::printf("  %s runs at %.3fx the speed of %s (median of %zu rounds; rounds %.3f-%.3f)\n",
              policy.name.c_str(), r.medianRatio, reference.name.c_str(), r.ratios.size(), *low,
              *high);
  if (r.policy.diverged || r.reference.diverged)
    std::printf("  note: a loss diverged during timing (timing is still valid)\n");
}

void runBench(const BenchArgs& a) {
  const backends::PrecisionPolicy policy = loadBackendArgument(a.backend);
  std::optional<backends::PrecisionPolicy> reference;
  if (!a.against.empty()) {
    if (a.threads != 1) {
      throw CommandError(
          "--against: the two backends take turns on one thread; pass --threads 1 (got " +
          std::to_string(a.threads) + ")");
    }
    reference = loadBackendArgument(a.against);
  }
  study::ThroughputConfig config;
  config.model.name = a.model;
  config.model.resnetWidth = a.width;
  config.batchSize = a.batch;
  config.steps = a.steps;
  config.warmupSteps = a.warmup;
  config.threads =
      a.threads > 0 ? a.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  config.seed = a.seed;
  config.xrayEverySteps = a.xrayEvery;
  config.signalsEverySteps = a.signalsEvery;
  const data::DataSplit data = loadTrainingData(a);
  const data::Dataset& train = data.train;
  study::ThroughputResult r;
  std::optional<study::RelativeThroughput> relative;
  try {
    if (!reference) {
      r = study::measureTrainingThroughput(config, policy, data);
    } else {
      relative = study::measureRelativeThroughput(config, a.rounds, policy, *reference, data);
      r = relative->policy;
    }
  } catch (const std::invalid_argument& e) {
    throw CommandError(e.what());
  }
  if (!a.json)
    return relative ? printRelativeText(a, policy, *reference, *relative) : printText(a, policy, r);
  nlohmann::json j = {{"model", a.model},
                      {"backend", policy.name},
                      {"emulated", true},
                      {"dataset", a.input.empty() ? datasetOf(a) : std::string("random")},
                      {"batch", r.batchSize},
                      {"warmup_steps", a.warmup},
                      {"steps", r.steps},
                      {"threads", r.threads},
                      {"blas_core", nn::blasCoreName()},
                      {"nvfp4_products", nn::bf16ProductEngine()},
                      {"step_ms", r.stepMilliseconds},
                      {"wall_seconds", r.wallSeconds},
                      {"skipped_steps", r.skippedSteps},
                      {"diverged", r.diverged},
                      {"xray_every_steps", a.xrayEvery},
                      {"signals_every_steps", a.signalsEvery}};
  if (data.text) {  // windows of block_size tokens
    j["tokens_per_second"] = r.tokensPerSecond;
    j["windows_per_second"] = r.imagesPerSecond;
    j["block_size"] = data.text->blockSize;
  } else {
    j["images_per_second"] = r.imagesPerSecond;
    j["per_thread_images_per_second"] = r.workerImagesPerSecond;
  }
  if (relative) {  // the reference's own figures, each round's ratio and their median
    const study::ThroughputResult& ref = relative->reference;
    nlohmann::json against = {{"backend", reference->name}, {"step_ms", ref.stepMilliseconds}};
    if (data.text)
      against["tokens_per_second"] = ref.tokensPerSecond;
    else
      against["images_per_second"] = ref.imagesPerSecond;
    j["against"] = against;
    j["rounds"] = a.rounds;
    j["ratios"] = relative->ratios;
    j["ratio_median"] = relative->medianRatio;
  }
  if (a.model == "resnet18") j["width"] = a.width;
  if (!a.input.empty()) j["input"] = a.input;
  // Every parameter and buffer by name with its shape, to check a reimplementation layer by layer.
  nn::ModelSpec spec = config.model;
  spec.channels = train.channels;
  spec.height = train.height;
  spec.width = train.width;
  spec.numClasses = train.numClasses;
  if (data.text) spec.gpt.blockSize = data.text->blockSize;
  nlohmann::json shapes = nlohmann::json::object();
  const std::unique_ptr<nn::Model> model = nn::makeModel(spec);
  for (const nn::ParamInfo& p : model->params.infos()) {
    std::vector<int> dims(p.shape.dims.begin(), p.shape.dims.begin() + p.shape.rank);
    shapes[p.name] = dims;
  }
  j["parameter_shapes"] = shapes;
  std::cout << j.dump(2) << "\n";
}

const CommandRegistration reg{
    "bench", 90, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "bench",
          "Time training steps of a model under an emulated backend on real Fashion-MNIST "
          "batches, or the language model on real text (after a warm-up), and print images (or "
          "tokens) per second");
      auto a = std::make_shared<BenchArgs>();
      cmd->add_option("--model,-m", a->model, "Model to train")
          ->check(CLI::IsMember(
              std::vector<std::string>(nn::kModelNames.begin(), nn::kModelNames.end())))
          ->capture_default_str();
      cmd->add_option("--backend,-b", a->backend, "Preset name or a policy .json file")
          ->capture_default_str();
      addIntegerOption(cmd, "--batch", a->batch, {1, input::kMaxBatchSize}, "Batch size");
      addIntegerOption(cmd, "--steps", a->steps, {1, 1'000'000}, "Timed steps per thread");
      addIntegerOption(cmd, "--warmup", a->warmup, {0, 1'000'000}, "Untimed steps first");
      addIntegerOption(cmd, "--threads", a->threads, {0, input::kMaxThreads},
                       "Runs trained at once, one per thread (0 = one per core)");
      addIntegerOption(cmd, "--width", a->width, {1, input::kMaxModelWidth},
                       "resnet18: channels of the first stage");
      cmd->add_option("--dataset", a->dataset,
                      "Where the batches come from (default: fashion-mnist; for gpt text:" +
                          std::string(data::kDefaultTextCorpus) + ")");
      cmd->add_option("--input", a->input,
                      "Random images of shape HxWxC instead of the dataset (e.g. 32x32x3; "
                      "timing only)");
      addIntegerOption(cmd, "--train-size", a->trainSize, {0, input::kMaxDatasetImages},
                       "Training images loaded (0 = all)");
      addIntegerOption(cmd, "--seed", a->seed, {0, input::kMaxSeedValue},
                       "Seed of the weights and batch order");
      addIntegerOption(cmd, "--xray-every", a->xrayEvery, {0, 1'000'000},
                       "X-ray every N-th step, to time its cost (0 = off; nothing is stored)");
      addIntegerOption(cmd, "--signals-every", a->signalsEvery, {0, 1'000'000},
                       "Early warnings every N-th step, to time their cost (0 = off; a study "
                       "measures every step it keeps the loss of; nothing is stored)");
      CLI::Option* against =
          cmd->add_option("--against", a->against,
                          "A second backend (preset or policy .json) timed side by side with "
                          "--backend, taking turns on one thread: prints --backend's speed as a "
                          "fraction of this one's, steady on a machine whose speed moves");
      addIntegerOption(cmd, "--rounds", a->rounds, {1, 10'000},
                       "With --against: rounds of --steps steps of each backend")
          ->needs(against);
      cmd->add_flag("--json", a->json, "Print a JSON object (images_per_second, step_ms, ...)");
      cmd->callback([a] { runBench(*a); });
    }};

}  // namespace bench_command
}  // namespace paritylab::cli
