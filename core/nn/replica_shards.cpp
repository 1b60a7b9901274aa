#include "core/nn/replica_shards.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>

#include "core/nn/conv_product_rules.h"

namespace paritylab::nn {
namespace {

using Rounding = std::optional<numerics::RoundingSpec>;

bool deterministic(const Rounding& r) {
  return !r || r->mode != numerics::RoundingMode::Stochastic;
}

bool rowByRow(const backends::GemmPolicy& p) {
  return !p.blockScaled() && !stochasticOperands(p) && deterministic(p.accumulation) &&
         deterministic(p.output) && deterministic(p.addend);
}

bool rowByRow(const backends::ProductPolicy& p) {
  return rowByRow(p.forward) && rowByRow(p.backwardData) && rowByRow(p.backwardWeight);
}

}  // namespace

int shardBegin(int items, int parts, int r) {
  return int(std::int64_t(items) * r / parts);
}

int shardGroups(int items, int replicas, std::size_t rowsPerItem) {
  const std::size_t groups = std::size_t(items) * rowsPerItem / kShardGroupRows;
  return int(std::clamp<std::size_t>(groups, 1, std::size_t(replicas)));
}

bool replicaShardsMayRunTogether(const backends::PrecisionPolicy& policy) {
  if (policy.fp8.enabled || policy.reduction.accumulationSteps != 1) return false;
  if (!rowByRow(policy.linear) || !rowByRow(policy.conv) || !rowByRow(policy.attention))
    return false;
  for (const backends::ProductOverride& o : policy.overrides)
    if (!rowByRow(o.linear) || !rowByRow(o.conv) || !rowByRow(o.attention)) return false;
  const backends::StoragePolicy& s = policy.storage;
  const backends::ElementwisePolicy& e = policy.elementwise;
  for (const Rounding* r :
       {&s.activations, &s.gradients, &e.softmax, &e.layerNormStatistics, &e.loss, &e.residual})
    if (!deterministic(*r)) return false;
  return true;
}

}  // namespace paritylab::nn
