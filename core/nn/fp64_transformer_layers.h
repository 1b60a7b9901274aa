#pragma once
// The fp64 reference's token and position embedding, layer norm and GELU (fp64_layer.h), as
// token_position_embedding.h, layer_norm.h and gelu.h compute them in fp32.

#include "core/nn/fp64_layer.h"

namespace paritylab::nn {

// Token ids x [B, T] (integers held as doubles) -> y [B, T, C], y[b, t] = wte[id] + wpe[t].
// backward() overwrites both tables' gradients (a sum over the positions that read each row) and
// returns no input gradient: token ids have none.
class Fp64TokenPositionEmbedding : public Fp64Layer {
 public:
  // wte [vocab, C], wpe [blockSize, C]
  Fp64TokenPositionEmbedding(int vocab, int embd, int tokenWeight, int positionWeight);
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;
  std::vector<int> paramIds() const override { return {wte_, wpe_}; }
  int tokenWeightId() const { return wte_; }

 private:
  int vocab_, embd_, wte_, wpe_;
  std::vector<std::size_t> ids_;  // [B * T] of the last forward
  int positions_ = 0;             // T of the last forward
  DoubleTensor y_, none_;
};

// Over the last dimension C of x [..., C]: y = (x - mean) / sqrt(var + eps) * weight + bias per
// row, the biased variance.
class Fp64LayerNorm : public Fp64Layer {
 public:
  Fp64LayerNorm(int features, double eps, int weight, int bias);
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;
  std::vector<int> paramIds() const override { return {weight_, bias_}; }

 private:
  int features_;
  double eps_;
  int weight_, bias_;
  const DoubleTensor* x_ = nullptr;
  std::vector<double> mean_, invStd_;  // [rows] of the last forward
  DoubleTensor y_, dx_;
};

// GELU's tanh approximation, elementwise (the formula of gelu.h):
// y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
class Fp64Gelu : public Fp64Layer {
 public:
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;

 private:
  const DoubleTensor* x_ = nullptr;
  std::vector<double> tanh_;  // of the last forward, per element
  DoubleTensor y_, dx_;
};

}  // namespace paritylab::nn
