#pragma once
// A slow, direct reference for block-scaled quantization: the specifications' equations in double
// arithmetic, one value at a time, written from the documents (OCP MX v1.0 section 6.3; NVIDIA's
// NVFP4 recipe; the fp8 recipes of docs/block-formats.md), not from core/numerics. Element rounding
// goes through FormatReference (an enumerated grid) or, for MXINT8, integer rounding; nothing here
// calls the Rounder or block_scaling.cpp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/numerics/float_format.h"
#include "tests/numerics/format_reference.h"

namespace paritylab::numerics::testing {

constexpr double kRefNaN = std::numeric_limits<double>::quiet_NaN();

// A row-major matrix of doubles (the test's copy of the fp32 values), ld = cols.
struct RefMatrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> v;
  double& at(std::int64_t r, std::int64_t c) { return v[static_cast<std::size_t>(r * cols + c)]; }
  double at(std::int64_t r, std::int64_t c) const {
    return v[static_cast<std::size_t>(r * cols + c)];
  }
};

// An element format as the specifications define it.
struct RefElement {
  std::string name;
  double max;  // largest magnitude
  int emax;    // OCP MX emax_elem: exponent of the largest power of two in the format
};

inline RefElement refElement(const std::string& name) {
  if (name == "fp8-e4m3") return {name, 448.0, 8};
  if (name == "fp8-e5m2") return {name, 57344.0, 15};
  if (name == "fp6-e3m2") return {name, 28.0, 4};
  if (name == "fp6-e2m3") return {name, 7.5, 2};
  if (name == "fp4-e2m1") return {name, 6.0, 2};
  if (name == "int8") return {name, 127.0 / 64.0, 0};
  if (name == "fp8-e4m3fnuz") return {name, 240.0, 7};
  if (name == "fp8-e5m2fnuz") return {name, 57344.0, 15};
  return {name, kRefNaN, 0};
}

// Round-to-nearest-even of the exact double x to the element, saturating at its max. MXINT8: the
// integer k nearest to 64 x (ties to even), clamped to -127..127, over 64.
inline double refRoundElement(const std::string& name, double x) {
  if (std::isnan(x)) return kRefNaN;
  if (name == "int8") {
    double k = std::nearbyint(std::clamp(x * 64.0, -1e6, 1e6));  // default mode: ties to even
    k = std::clamp(k, -127.0, 127.0);
    const double r = k / 64.0;
    return r == 0.0 ? 0.0 : r;  // two's complement: no negative zero
  }
  static thread_local std::map<std::string, FormatReference> grids;
  const FloatFormat format = *parseFormat(name);
  auto it = grids.find(name);
  if (it == grids.end()) it = grids.emplace(name, FormatReference(format)).first;
  return it->second.round(x,
                          RoundingSpec{format, RoundingMode::NearestEven, OverflowMode::Saturate});
}

inline bool refBlockNonFinite(const std::vector<double>& xs) {
  for (double x : xs)
    if (!std::isfinite(x)) return true;
  return false;
}

inline double refAmax(const std::vector<double>& xs) {
  double a = 0.0;
  for (double x : xs)
    if (std::isfinite(x)) a = std::max(a, std::fabs(x));
  return a;
}

// floor(log2 a) for a > 0, from frexp (a = m 2^e with m in [0.5, 1)).
inline int refFloorLog2(double a) {
  int e = 0;
  std::frexp(a, &e);
  return e - 1;
}

// OCP MX v1.0 section 6.3 on one block: X = 2^(floor(log2 max|V|) - emax_elem) (clamped to
// E8M0's 2^-127 at the bottom), P_i = quantize(V_i / X) with saturation; the output V_i' = X P_i.
// A NaN or an infinity in the block: X = NaN, the whole block NaN. amax = 0: every P_i = 0.
inline std::vector<double> refMxBlock(const std::vector<double>& xs, const std::string& element) {
  if (refBlockNonFinite(xs)) return std::vector<double>(xs.size(), kRefNaN);
  const RefElement e = refElement(element);
  const double amax = refAmax(xs);
  const int shared = amax == 0.0 ? -127 : std::max(-127, refFloorLog2(amax) - e.emax);
  const double X = std::ldexp(1.0, shared);
  std::vector<double> out;
  for (double x : xs) out.push_back(X * refRoundElement(element, x / X));
  return out;
}

// NVIDIA's NVFP4: s_t = fp32(amax_tensor / (448 x 6)) (1 when amax is 0), block scale
// s_b = e4m3(amax_block / 6 / s_t) (nearest-even, saturating), x' = fp32(s_b s_t e2m1(x / (s_b
// s_t))). A non-finite value makes its block NaN and is left out of the tensor amax; a block scale
// of 0 makes its block zeros.
inline float refNvfp4TensorScale(const RefMatrix& m) {
  const double amax = refAmax(m.v);
  if (amax == 0.0) return 1.0f;
  const float s = static_cast<float>(amax / (448.0 * 6.0));
  return s == 0.0f ? std::numeric_limits<float>::denorm_min() : s;
}

inline std::vector<double> refNvfp4Block(const std::vector<double>& xs, double st) {
  if (refBlockNonFinite(xs)) return std::vector<double>(xs.size(), kRefNaN);
  const double amax = refAmax(xs);
  const double sb = amax == 0.0 ? 0.0 : refRoundElement("fp8-e4m3", amax / 6.0 / st);
  std::vector<double> out;
  for (double x : xs) {
    if (sb == 0.0) {
      out.push_back(std::copysign(0.0, x));
      continue;
    }
    const double d = sb * st;
    out.push_back(static_cast<float>(d * refRoundElement("fp4-e2m1", x / d)));
  }
  return out;
}

// fp8 recipes on one group: scale s = fp32(max / amax) (fp32; the largest fp32 if that is
// infinite) or the largest 2^k with amax 2^k <= max, k in -127..127 (e8m0); amax over the finite
// values, 0 giving s = 1. x' = fp32(e(x s) / s); NaN stays NaN, an infinity saturates.
inline std::vector<double> refFp8Group(const std::vector<double>& xs, const std::string& element,
                                       bool powerOfTwo) {
  const double max = refElement(element).max;
  const double amax = refAmax(xs);
  double s = 1.0;
  if (amax > 0.0 && !powerOfTwo) {
    float f = static_cast<float>(max / amax);
    if (std::isinf(f)) f = std::numeric_limits<float>::max();
    s = f;
  } else if (amax > 0.0) {
    int k = 127;
    while (k > -127 && std::ldexp(amax, k) > max) --k;
    s = std::ldexp(1.0, k);
  }
  std::vector<double> out;
  for (double x : xs) {
    const double e = std::isinf(x) ? std::copysign(max, x) : refRoundElement(element, x * s);
    out.push_back(static_cast<float>(e / s));
  }
  return out;
}

// Equal as values with the same sign (so -0 differs from +0); NaN equals NaN.
inline bool sameValue(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

// fp32 values: normal(0, 1) x magnitude, and with `spread`, x 2^uniform(-spread, spread) each.
inline RefMatrix randomMatrix(std::int64_t rows, std::int64_t cols, unsigned seed, double magnitude,
                              int spread) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> exponent(-spread, spread);
  RefMatrix m{rows, cols, std::vector<double>(static_cast<std::size_t>(rows * cols))};
  for (double& x : m.v)
    x = static_cast<float>(normal(gen) * magnitude * std::ldexp(1.0, spread ? exponent(gen) : 0));
  return m;
}

}  // namespace paritylab::numerics::testing
