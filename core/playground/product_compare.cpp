#include "core/playground/product_compare.h"

#include <bit>
#include <cmath>
#include <stdexcept>

#include "core/nn/fp8_scaling.h"
#include "core/nn/gemm.h"
#include "core/playground/exact_sum.h"

namespace paritylab::playground {

Matrix multiply(const backends::GemmPolicy& policy, const Matrix& a, const Matrix& b, float scaleA,
                float scaleB) {
  if (a.cols != b.rows) {
    throw std::invalid_argument("inner dimensions differ: A is " + std::to_string(a.rows) + "x" +
                                std::to_string(a.cols) + " but B is " + std::to_string(b.rows) +
                                "x" + std::to_string(b.cols));
  }
  Matrix c;
  c.rows = a.rows;
  c.cols = b.cols;
  c.values.assign(std::size_t(c.rows) * c.cols, 0.0f);
  nn::GemmWorkspace workspace;
  nn::GemmExtras extras;
  extras.scaleA = scaleA;
  extras.scaleB = scaleB;
  nn::gemm(policy, nn::Trans::No, nn::Trans::No, a.rows, b.cols, a.cols, 1.0f, a.values.data(),
           a.cols, b.values.data(), b.cols, 0.0f, c.values.data(), c.cols, workspace, extras);
  return c;
}

float currentTensorScale(const numerics::RoundingSpec& format, const float* values, std::size_t n) {
  nn::Fp8TensorScale scale(format.format.maxFinite(), 1, 0.0);
  scale.record(values, n);
  return scale.scale();
}

std::uint32_t bitsOf(float v) {
  return std::bit_cast<std::uint32_t>(v);
}

std::int64_t ulpDistance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return -1;
  // Map the sign-magnitude bits to a monotonic integer line (-0 and +0 both to 0).
  auto ordered = [](float v) {
    const auto u = std::int64_t(bitsOf(v));
    return u & 0x80000000 ? -(u & 0x7fffffff) : u;
  };
  const std::int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

ProductComparison compareProducts(const Matrix& a, const Matrix& b,
                                  const std::vector<backends::PrecisionPolicy>& policies) {
  ProductComparison cmp;
  cmp.a = a;
  cmp.b = b;
  if (a.cols != b.rows) multiply({}, a, b);  // throws naming both shapes
  const std::size_t mn = std::size_t(a.rows) * b.cols;
  cmp.exact.resize(mn);
  std::vector<float> row(std::size_t(a.cols)), col(std::size_t(a.cols));
  for (int i = 0; i < a.rows; ++i) {
    for (int j = 0; j < b.cols; ++j) {
      for (int k = 0; k < a.cols; ++k) {
        row[std::size_t(k)] = a.at(i, k);
        col[std::size_t(k)] = b.at(k, j);
      }
      cmp.exact[std::size_t(i) * b.cols + j] = exactDot(row.data(), col.data(), row.size());
    }
  }
  std::size_t ref = 0;
  for (std::size_t p = 0; p < policies.size(); ++p)
    if (policies[p].name == "cpu-fp32") ref = p;
  for (const auto& policy : policies) {
    const backends::GemmPolicy& g =
        policy.gemmFor(backends::LayerKind::Linear, backends::Product::Forward);
    float scaleA = 1.0f, scaleB = 1.0f;
    if (policy.fp8.enabled && g.operands) {
      scaleA = currentTensorScale(*g.operands, a.values.data(), a.values.size());
      scaleB = currentTensorScale(g.operandsB ? *g.operandsB : *g.operands, b.values.data(),
                                  b.values.size());
    }
    cmp.products.push_back(BackendProduct{policy.name, multiply(g, a, b, scaleA, scaleB), {}});
  }
  cmp.differs.assign(mn, false);
  if (cmp.products.empty()) return cmp;
  cmp.reference = cmp.products[ref].backend;
  const Matrix& r = cmp.products[ref].product;
  for (auto& p : cmp.products) {
    p.ulpsFromReference.resize(mn);
    for (std::size_t e = 0; e < mn; ++e) {
      p.ulpsFromReference[e] = ulpDistance(p.product.values[e], r.values[e]);
      if (bitsOf(p.product.values[e]) != bitsOf(r.values[e])) cmp.differs[e] = true;
    }
  }
  return cmp;
}

Matrix jaxExampleA() {
  return parseMatrix("[[0.3744, 0.1656], [0.4707, 0.1663]]", "jax example A");
}
Matrix jaxExampleB() {
  return parseMatrix("[[0.3946, 0.1186], [0.1569, 0.3145]]", "jax example B");
}

}  // namespace paritylab::playground
