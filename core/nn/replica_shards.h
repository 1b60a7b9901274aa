#pragma once
// A TPU's replicas each run the step on their own shard of the batch and the all-reduce sums their
// gradients. Most of what a layer computes is row by row (a linear layer's forward and
// data-gradient products, a layer norm, GELU, attention within one sequence), so consecutive
// shards run as one batch (TrainingSession, in groups: kShardGroupRows): the products once over
// every shard's rows, and only the parameter gradients, which sum over rows, once per shard into
// that shard's own arrays, which the all-reduce then sums as before. Every value is the one the
// shard alone gives in exact arithmetic; a product's fp32 sums are taken in OpenBLAS's order for
// the batch's product (which differs from its order for a shard's product in some elements' last
// bits: OpenBLAS's tiling of a product depends on its size), as they were in its order for the
// shard's, neither of them a TPU core's. The products see fewer, larger calls (each packs its
// weight once).

#include <cstddef>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/param_store.h"
#include "core/nn/shard_gradient_slots.h"

namespace paritylab::nn {

struct ReplicaShards {
  std::vector<int> items;  // [count + 1]: shard s holds the batch's items [items[s], items[s+1])
  // Where shard s's parameter gradients go: slots that are all-reduced parameter by parameter as
  // soon as they are final, when every shard of the step is in the group; else
  // gradients[s], an array in ParamStore's layout, all-reduced after the backward pass.
  ShardGradientSlots* gradientSlots = nullptr;
  std::vector<float*> gradients;  // [count], without slots
  // [count]: what makes shard s's input gradients the whole batch's (ActivationProbe::backward).
  std::vector<double> probeGradientScales;
  int count() const { return int(items.size()) - 1; }
  // Shard s's rows of a batch tensor with perItem rows per item: [first, first + count).
  struct Rows {
    std::size_t first, count;
  };
  Rows rows(int s, std::size_t perItem) const {
    const auto first = std::size_t(items[std::size_t(s)]) * perItem;
    return {first, std::size_t(items[std::size_t(s) + 1]) * perItem - first};
  }
};

// The gradient arrays one part of a batch writes: the ParamStore's own, or a shard's (an array in
// ParamStore's layout, or its slots). A layer overwrites every element of each one it asks for.
struct ParamGradients {
  ParamStore* params = nullptr;
  float* base = nullptr;                        // null: the ParamStore's
  ShardGradientSlots* gradientSlots = nullptr;  // set: shard `shard`'s slots
  int shard = 0;
  float* operator()(int id) const {
    if (gradientSlots) return gradientSlots->slot(shard, id);
    return base ? base + params->info(id).offset : params->grad(id);
  }
};

// The first item of part r of `items` items cut into `parts` parts (r = parts: the end), as even as
// they come, the larger ones last: a replica's shard of a batch, or a group's first shard.
int shardBegin(int items, int parts, int r);

// The rows per group of consecutive shards that run as one batch. OpenBLAS packs both operands of
// every product, so a product over few rows spends a large share of its time packing the weight
// (OpenBLAS's sgemm_itcopy and incopy: 10.7% of a tpu-bf16 step for the GPT's 8 shards of 64-128
// tokens at batch 12, 3.4% with the 8 as one batch). Larger groups gain little there, and their
// activations leave the cache: at batch 128 (shards of 1,024 tokens) the 8 shards as one batch ran
// 12% slower than one after another (docs/performance.md).
inline constexpr std::size_t kShardGroupRows = 512;

// How many groups of consecutive shards a step of `items` items (rowsPerItem rows each) runs: as
// many as the batch holds kShardGroupRows, at least 1 and at most one per shard. Group g holds
// shards [shardBegin(replicas, groups, g), shardBegin(replicas, groups, g + 1)).
int shardGroups(int items, int replicas, std::size_t rowsPerItem);

// True when, under `policy`, what a shard computes does not depend on the other shards' values or
// on where its rows lie in the batch, so that its shard may run in one batch with the others:
// every rounding deterministic (a stochastic draw is indexed by the value's place in its tensor),
// no operand scaled by its tensor's or block's amax (fp8 scaling, block scaling: the amax would be
// the batch's, not the shard's), no gradient accumulation over micro-batches (they split each
// shard again).
bool replicaShardsMayRunTogether(const backends::PrecisionPolicy& policy);

}  // namespace paritylab::nn
