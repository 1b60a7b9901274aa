#include "core/nn/run_start.h"

#include <numeric>

#include "core/nn/checkpoint.h"
#include "core/nn/random.h"

namespace paritylab::nn {

ModelSpec modelSpecFor(const TrainConfig& config, const data::Dataset& trainSet) {
  ModelSpec spec;
  spec.name = config.model;
  spec.channels = trainSet.channels;
  spec.height = trainSet.height;
  spec.width = trainSet.width;
  spec.numClasses = trainSet.numClasses;
  spec.resnetWidth = config.width;
  spec.gpt = config.gpt;
  return spec;
}

void applyStartingWeights(const TrainConfig& config, TrainingSession& session) {
  ParamStore& params = session.model().params;
  if (!config.initCheckpoint.empty()) loadCheckpoint(config.initCheckpoint, params);
  if (config.nudgeFirstWeight) nudgeFirstWeight(params);
  if (!config.initCheckpoint.empty() || config.nudgeFirstWeight) session.weightsChanged(0);
}

void fillEpochOrder(std::vector<std::uint32_t>& order, std::uint64_t seed, int epoch) {
  std::iota(order.begin(), order.end(), 0u);
  RandomStream rng(hashSeed(seed, std::uint64_t(epoch), 0x53485546 /* "SHUF" */));
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
}

}  // namespace paritylab::nn
