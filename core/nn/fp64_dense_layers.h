#pragma once
// The fp64 reference's flatten, ReLU and linear layers (fp64_layer.h), as flatten.h, relu.h and
// linear.h compute them in fp32.

#include "core/nn/fp64_layer.h"

namespace paritylab::nn {

// [N, ...] -> [N, prod(...)]: the same values.
class Fp64Flatten : public Fp64Layer {
 public:
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;
  bool onlyReshapes() const override { return true; }

 private:
  Shape inShape_;
  DoubleTensor y_, dx_;
};

// y = max(x, 0); dx = dy where y > 0.
class Fp64Relu : public Fp64Layer {
 public:
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;

 private:
  DoubleTensor y_, dx_;
};

// y[rows, out] = x[rows, in] W[out, in]^T + b[out]: an input whose last dimension is `in` has one
// row per position of its leading dimensions ([B, T, in] -> [B, T, out]), any other is flattened
// per item ([N, C, H, W] -> [N, out]). GEMM call site `site`: its output is y (the product plus
// the bias), its input gradient dx = dy W.
class Fp64Linear : public Fp64Layer {
 public:
  // bias -1: none.
  Fp64Linear(int site, int in, int out, int weight, int bias);
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;
  std::vector<int> paramIds() const override;
  void sites(Fp64Sites& into) const override;

 private:
  int site_, in_, out_, weight_, bias_;
  const DoubleTensor* x_ = nullptr;
  DoubleTensor y_, dx_;
};

}  // namespace paritylab::nn
