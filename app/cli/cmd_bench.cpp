// `paritylab-cli bench --model M --backend B [--batch N] [--steps N] [--threads N] [--json]`:
// times training steps on real Fashion-MNIST batches after a warm-up and prints images per second,
// so users can size their studies (core/study/training_benchmark.h does the measuring).

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/cli/backend_argument.h"
#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "core/input/input_limits.h"
#include "core/nn/blas_setup.h"
#include "core/study/training_benchmark.h"

namespace paritylab::cli {
namespace {

struct BenchArgs {
  std::string model = "small-cnn", backend = "cpu-fp32", dataset = "fashion-mnist";
  std::int64_t trainSize = 10000;
  int batch = 128, steps = 50, warmup = 5, threads = 1, width = 16, xrayEvery = 0;
  std::uint64_t seed = 0;
  bool json = false;
};

data::Dataset loadTrainingImages(const BenchArgs& a) {
  data::DatasetSpec spec;
  spec.source = a.dataset;
  spec.trainSize = a.trainSize;
  spec.testSize = 100;  // unused; keep loading cheap
  spec.seed = a.seed;
  try {
    return data::loadDataset(spec).train;
  } catch (const std::exception& e) {
    throw CommandError(std::string("--dataset ") + a.dataset + ": " + e.what());
  }
}

void printText(const BenchArgs& a, const backends::PrecisionPolicy& policy,
               const study::ThroughputResult& r) {
  std::printf(
      "%s under %s (emulated on this CPU), batch %d, %d thread%s (one run each, "
      "single-threaded BLAS)\n",
      a.model.c_str(), policy.name.c_str(), r.batchSize, r.threads, r.threads == 1 ? "" : "s");
  std::printf("  %d warm-up + %d timed steps per thread on %s; OpenBLAS kernels: %s\n", a.warmup,
              r.steps, a.dataset.c_str(), nn::blasCoreName().c_str());
  if (a.xrayEvery > 0)
    std::printf("  X-ray on: every %d steps measured (records taken, not stored)\n", a.xrayEvery);
  std::printf("  images/s      %10.1f%s\n", r.imagesPerSecond,
              r.threads > 1 ? "  (all threads together)" : "");
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

void runBench(const BenchArgs& a) {
  const backends::PrecisionPolicy policy = loadBackendArgument(a.backend);
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
  const data::Dataset train = loadTrainingImages(a);
  study::ThroughputResult r;
  try {
    r = study::measureTrainingThroughput(config, policy, train);
  } catch (const std::invalid_argument& e) {
    throw CommandError(e.what());
  }
  if (!a.json) return printText(a, policy, r);
  nlohmann::json j = {{"model", a.model},
                      {"backend", policy.name},
                      {"emulated", true},
                      {"dataset", a.dataset},
                      {"batch", r.batchSize},
                      {"warmup_steps", a.warmup},
                      {"steps", r.steps},
                      {"threads", r.threads},
                      {"blas_core", nn::blasCoreName()},
                      {"images_per_second", r.imagesPerSecond},
                      {"per_thread_images_per_second", r.workerImagesPerSecond},
                      {"step_ms", r.stepMilliseconds},
                      {"wall_seconds", r.wallSeconds},
                      {"skipped_steps", r.skippedSteps},
                      {"diverged", r.diverged},
                      {"xray_every_steps", a.xrayEvery}};
  if (a.model == "resnet18") j["width"] = a.width;
  std::cout << j.dump(2) << "\n";
}

const CommandRegistration reg{
    "bench", 90, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "bench",
          "Time training steps of a model under an emulated backend on real Fashion-MNIST "
          "batches (after a warm-up) and print images per second");
      auto a = std::make_shared<BenchArgs>();
      cmd->add_option("--model,-m", a->model, "Model to train")
          ->check(CLI::IsMember({"mlp", "small-cnn", "resnet18"}))
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
      cmd->add_option("--dataset", a->dataset, "Where the batches come from")
          ->capture_default_str();
      addIntegerOption(cmd, "--train-size", a->trainSize, {0, input::kMaxDatasetImages},
                       "Training images loaded (0 = all)");
      addIntegerOption(cmd, "--seed", a->seed, {0, input::kMaxSeedValue},
                       "Seed of the weights and batch order");
      addIntegerOption(cmd, "--xray-every", a->xrayEvery, {0, 1'000'000},
                       "X-ray every N-th step, to time its cost (0 = off; nothing is stored)");
      cmd->add_flag("--json", a->json, "Print a JSON object (images_per_second, step_ms, ...)");
      cmd->callback([a] { runBench(*a); });
    }};

}  // namespace
}  // namespace paritylab::cli
