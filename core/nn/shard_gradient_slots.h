#pragma once
// While every replica's shard of a step runs in one batch (replica_shards.h), each parameter's
// per-shard gradients live in slots of a scratch that every parameter shares, and are all-reduced
// as soon as the last layer that writes them is done (a tied token embedding: the head, after the
// embedding), while they are still in cache; the next layer's gradients take the same slots. With
// a gradient of the whole model per shard instead, the shards' zeroing, writing and summing of
// 8 x 3.2 MB per step of the GPT came to a tenth of a tpu-bf16 step (docs/performance.md).
//
// Which layer writes a parameter last is learned from the first step: its reductions all wait for
// the end of the backward pass. Every element sees the same operations either way
// (ReplicaAllReduce::reduceRange), so the bits do not depend on when a parameter is reduced.

#include <cstddef>
#include <span>
#include <vector>

#include "core/nn/gradient_sums.h"
#include "core/nn/param_store.h"

namespace paritylab::nn {

class ShardGradientSlots {
 public:
  // Starts a step of `shards` shards whose gradients `reduce` sums into params' gradients, shard s
  // weighted by weights[s] (kept by reference for the step). Keeps its scratch from one step to
  // the next (no allocation in a training step's steady state).
  void begin(ParamStore& params, int shards, const ReplicaAllReduce& reduce,
             std::span<const double> weights);
  // Shard s's gradient of parameter id [size]: a slot the layer overwrites (it is not zeroed).
  // Throws std::logic_error for a parameter already reduced in this step.
  float* slot(int shard, int id);
  // A layer has written its parameters' gradients for every shard: those whose last writer it is
  // are reduced and their slots freed.
  void layerDone();
  // The backward pass is over: every parameter still held is reduced, one that no layer wrote has
  // gradient 0 (the mean of gradients no shard has), and from the first step on it is known which
  // layer writes each parameter last.
  void finish();

 private:
  void reduce(int id);

  static constexpr std::size_t kNone = ~std::size_t(0);
  ParamStore* params_ = nullptr;
  const ReplicaAllReduce* reduce_ = nullptr;
  std::span<const double> weights_;
  int shards_ = 0;
  std::vector<float> scratch_;       // [shard][params' total size]
  std::vector<std::size_t> slot_;    // [param]: its place in a shard's scratch; kNone: none now
  std::vector<int> writes_;          // [param]: the layers that wrote it in this step
  std::vector<int> writers_;         // [param]: the layers that write it in a step (learned)
  std::vector<bool> reduced_;        // [param]: reduced in this step
  std::vector<int> layerWrote_;      // the parameters the current layer wrote
  std::vector<float*> shardValues_;  // [shard]: one parameter's slots, for the reduction
  std::size_t used_ = 0;             // the slots taken in each shard's scratch
  int held_ = 0;                     // parameters with slots
  bool learned_ = false;
};

}  // namespace paritylab::nn
