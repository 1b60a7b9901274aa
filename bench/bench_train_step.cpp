// One training step (forward, backward, AdamW, weight storage) of each model
// under each backend preset, on real Fashion-MNIST batches (images/s). The measuring code is the
// one `paritylab-cli bench` uses (core/study/run/training_benchmark.h).
#include <benchmark/benchmark.h>

#include <string>

#include "core/backends/precision_policy.h"
#include "core/data/dataset.h"
#include "core/study/run/training_benchmark.h"

namespace {

using namespace paritylab;

const data::Dataset& fashionMnist() {
  static const data::Dataset train = [] {
    data::DatasetSpec spec;
    spec.trainSize = 4096;
    spec.testSize = 100;
    return data::loadDataset(spec).train;
  }();
  return train;
}

const char* kModels[] = {"mlp", "small-cnn", "resnet18"};

void BM_TrainStep(benchmark::State& state) {
  const char* model = kModels[state.range(0)];
  const auto names = backends::presetNames();
  const std::string backend = names[std::size_t(state.range(1))];
  study::ThroughputConfig config;
  config.model.name = model;
  config.batchSize = 128;
  config.warmupSteps = 2;
  config.steps = model == std::string("resnet18") ? 3 : 10;
  double images = 0.0, seconds = 0.0;
  for (auto _ : state) {
    const auto r =
        study::measureTrainingThroughput(config, backends::presetPolicy(backend), fashionMnist());
    images += double(r.steps) * r.batchSize;
    seconds += r.wallSeconds;
    state.SetIterationTime(r.wallSeconds);
  }
  state.counters["images_per_second"] = images / seconds;
  state.SetLabel(std::string(model) + " " + backend);
}
BENCHMARK(BM_TrainStep)
    ->ArgsProduct({{0, 1, 2}, benchmark::CreateDenseRange(0, 8, 1)})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
