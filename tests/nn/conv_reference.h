#pragma once
// A convolution's three products summed directly in double, each from its operands as that
// product reads them (as given: rounded or block-quantized by the caller), padding's zeros left
// out: the references a Conv2d is held to. Layouts: x [n, cin, h, w], W [cout, cin, k, k],
// y and dY [n, cout, oh, ow], all row-major. Every output sums its terms in one fixed order.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/conv2d.h"
#include "core/nn/im2col.h"
#include "nn_test_support.h"

namespace paritylab::nn::testing {

// The geometry is the layer's own (core/nn/im2col.h: input [batch, channels, height, width],
// kernel, stride, padding) with `cout` output channels.

// term(o, i, wi) for every output pixel o of y, input value i of x and weight wi that meet in
// the forward product, outputs in y's order and each output's terms over (cin, ky, kx).
template <typename Term>
void forEachConvTerm(const ConvGeometry& g, int cout, Term term) {
  const int cin = g.channels, h = g.height, w = g.width, k = g.kernel;
  const int oh = g.outHeight(), ow = g.outWidth();
  for (int n = 0; n < g.batch; ++n) {
    for (int co = 0; co < cout; ++co) {
      for (int oy = 0; oy < oh; ++oy) {
        for (int ox = 0; ox < ow; ++ox) {
          const std::size_t o = ((std::size_t(n) * cout + co) * oh + oy) * ow + ox;
          for (int ci = 0; ci < cin; ++ci) {
            for (int ky = 0; ky < k; ++ky) {
              for (int kx = 0; kx < k; ++kx) {
                const int iy = oy * g.stride + ky - g.padding, ix = ox * g.stride + kx - g.padding;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                const std::size_t i = ((std::size_t(n) * cin + ci) * h + iy) * w + ix;
                const std::size_t wi = ((std::size_t(co) * cin + ci) * k + ky) * k + kx;
                term(o, i, wi);
              }
            }
          }
        }
      }
    }
  }
}

// y = W * x
inline std::vector<double> convForwardSums(const ConvGeometry& g, int cout,
                                           const std::vector<double>& w,
                                           const std::vector<double>& x) {
  std::vector<double> y(std::size_t(g.batch) * cout * g.outHeight() * g.outWidth(), 0.0);
  forEachConvTerm(g, cout,
                  [&](std::size_t o, std::size_t i, std::size_t wi) { y[o] += w[wi] * x[i]; });
  return y;
}

// dX = W^T * dY
inline std::vector<double> convInputGradientSums(const ConvGeometry& g, int cout,
                                                 const std::vector<double>& w,
                                                 const std::vector<double>& dy) {
  std::vector<double> dx(std::size_t(g.batch) * g.channels * g.height * g.width, 0.0);
  forEachConvTerm(g, cout,
                  [&](std::size_t o, std::size_t i, std::size_t wi) { dx[i] += w[wi] * dy[o]; });
  return dx;
}

// dW = dY * x^T
inline std::vector<double> convWeightGradientSums(const ConvGeometry& g, int cout,
                                                  const std::vector<double>& dy,
                                                  const std::vector<double>& x) {
  std::vector<double> dw(std::size_t(cout) * g.channels * g.kernel * g.kernel, 0.0);
  forEachConvTerm(g, cout,
                  [&](std::size_t o, std::size_t i, std::size_t wi) { dw[wi] += dy[o] * x[i]; });
  return dw;
}

// Every got[i] within relTol x the largest |want| of want[i]; `what` names the product in a
// failure.
inline void expectCloseToSums(const float* got, const std::vector<double>& want, double relTol,
                              const std::string& what) {
  double scale = 0.0;
  for (double v : want) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], relTol * scale) << what << " " << i;
}

// One forward and backward pass of a Conv2d (no bias) of geometry g with `cout` outputs under
// `policy`: weights initialised from weightSeed, x and dY uniform in [-1, 1) from xSeed and dySeed.
struct ConvPass {
  Tensor x, y, dy, dx;
  std::vector<float> w, dw;  // [cout, cin, k, k]
};
inline ConvPass convForwardBackward(const backends::PrecisionPolicy& policy, const ConvGeometry& g,
                                    int cout, std::uint64_t weightSeed, std::uint64_t xSeed,
                                    std::uint64_t dySeed) {
  Fixture f;
  f.policy = policy;
  Conv2d conv(f.builder, "conv", g.channels, cout, g.kernel, g.stride, g.padding, false);
  f.params.finalize(false);
  RandomStream rng(weightSeed);
  conv.init(f.params, rng);
  ConvPass pass;
  pass.x = randomTensor({g.batch, g.channels, g.height, g.width}, xSeed);
  StepContext ctx = f.ctx();
  pass.y = conv.forward(pass.x, ctx);
  pass.dy = randomTensor(pass.y.shape(), dySeed);
  pass.dx = conv.backward(pass.dy, ctx);
  const std::size_t weights = std::size_t(cout) * g.channels * g.kernel * g.kernel;
  const float* w = f.params.value(conv.weightId());
  const float* dw = f.params.grad(conv.weightId());
  pass.w.assign(w, w + weights);
  pass.dw.assign(dw, dw + weights);
  return pass;
}

}  // namespace paritylab::nn::testing
