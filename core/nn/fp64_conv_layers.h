#pragma once
// The fp64 reference's convolution and pooling layers (fp64_layer.h), as conv2d.h, maxpool.h and
// global_avg_pool.h compute them in fp32. Images are [N, C, H, W], row-major.

#include <cstdint>

#include "core/nn/fp64_layer.h"

namespace paritylab::nn {

// A square-kernel convolution with stride and zero padding: x [N, Cin, H, W] -> y [N, Cout, outH,
// outW], y = W * im2col(x) + b per image (binary64 products). GEMM call site `site`: its output is
// y (the product plus the bias), its input gradient dx.
class Fp64Conv2d : public Fp64Layer {
 public:
  struct Geometry {
    int in = 0, out = 0, kernel = 1, stride = 1, padding = 0;
  };
  // weight [out, in, kernel, kernel]; bias [out] or -1 for none.
  Fp64Conv2d(int site, const Geometry& geometry, int weight, int bias);
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;
  std::vector<int> paramIds() const override;
  void sites(Fp64Sites& into) const override;

 private:
  // One image's columns [in * kernel^2, outH * outW] from x's image `n`.
  void gather(const DoubleTensor& x, int n);
  // Adds one image's column gradient back onto dx's image `n` (the adjoint of gather).
  void scatter(int n);

  int site_;
  Geometry g_;
  int weight_, bias_;
  const DoubleTensor* x_ = nullptr;
  int outH_ = 0, outW_ = 0;
  std::vector<double> columns_;  // [in * kernel^2, outH * outW]: one image's
  DoubleTensor y_, dx_;
};

// Max pooling over kernel x kernel windows with stride kernel, no padding, floor mode: [N, C, H,
// W] -> [N, C, H/k, W/k]. Ties as the fp32 layer's: the first maximum in row-major window order
// takes the window (and its gradient); a NaN wins.
class Fp64MaxPool2d : public Fp64Layer {
 public:
  explicit Fp64MaxPool2d(int kernel);
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;

 private:
  int kernel_;
  Shape inShape_;
  std::vector<std::size_t> taken_;  // [N, C, outH, outW]: the input index each output took
  DoubleTensor y_, dx_;
};

// The mean of each plane: [N, C, H, W] -> [N, C].
class Fp64GlobalAvgPool : public Fp64Layer {
 public:
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;

 private:
  Shape inShape_;
  DoubleTensor y_, dx_;
};

}  // namespace paritylab::nn
