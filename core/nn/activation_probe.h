#pragma once
// What a lockstep comparison (core/nn/lockstep.h) sees of a training step: the output of each
// layer with products and the gradient it passes back, as the layer computes them. A layer calls
// it once per replica shard (and micro-batch) when the shards run one after another, once for the
// whole batch when they run together (replica_shards.h; its input gradient still once per shard,
// each with its own scale), so that the calls of one step concatenate to the whole batch's tensor
// in item order.

#include <cstddef>

namespace paritylab::nn {

class ActivationProbe {
 public:
  virtual ~ActivationProbe() = default;
  // GEMM call site `site`'s layer output after its forward products: values [n], item-major.
  virtual void forward(int site, const float* values, std::size_t n) = 0;
  // The same layer's gradient with respect to its input (what its data-gradient products
  // give back; none for a model's first layer): values [n], item-major. `scale` makes them the
  // whole batch's gradient: a replica shard's (or micro-batch's) loss is the mean over its own
  // items, and a loss scale multiplies them (1 for a batch in one piece without loss scaling).
  virtual void backward(int site, const float* values, std::size_t n, double scale) = 0;
};

}  // namespace paritylab::nn
