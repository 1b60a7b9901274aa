// NVFP4's products on bf16 values: an operand's values divided by its tensor scale come back as
// the bf16 values they were (element x block scale), the product sums their exact products in fp32
// and applies the two tensor scales once, after the sum. References: the values the tests build
// (exact in bf16), sums in double, and numerics::quantizeBlocks for NVFP4's operands.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/nn/blas_setup.h"
#include "core/nn/gemm.h"
#include "core/nn/gemm_impl.h"
#include "core/numerics/block_scaling.h"

namespace paritylab::nn {
namespace {

float fromBf16(std::uint16_t bits) {
  return std::bit_cast<float>(std::uint32_t(bits) << 16);
}

// Random bf16 values with at most 6 significant bits (as NVFP4's element x E4M3 block scale),
// exponents 2^-10 .. 2^11, either sign, some zeros.
std::vector<std::uint16_t> narrowBf16Values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> mantissa(0, 31), exponent(-10, 11), sign(0, 1), zero(0, 9);
  std::vector<std::uint16_t> v(n);
  for (std::uint16_t& x : v) {
    const float value =
        zero(rng) == 0 ? 0.0f : std::ldexp(1.0f + float(mantissa(rng)) / 32.0f, exponent(rng));
    x = std::uint16_t(std::bit_cast<std::uint32_t>(sign(rng) ? -value : value) >> 16);
  }
  return v;
}

TEST(Bf16Product, PackingRecoversTheBf16ValuesAScaleWasRoundedInto) {
  const std::vector<std::uint16_t> values = narrowBf16Values(4096, 1);
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  for (const int exponent : {-120, -40, -9, 0, 7, 60, 100}) {
    const float scale = std::ldexp(mantissa(rng), exponent);  // 24 significant bits
    std::vector<float> scaled(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) scaled[i] = fromBf16(values[i]) * scale;
    std::vector<std::uint16_t> packed(values.size());
    packBf16(scaled.data(), 64, 64, 64, scale, packed.data());
    for (std::size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(packed[i], values[i])
          << "scale 2^" << exponent << ", value " << fromBf16(values[i]);
  }
  // A NaN stays a NaN (a block with a NaN is NaN throughout), a zero keeps its sign, and rows
  // are read at their stride.
  const float stored[] = {std::numeric_limits<float>::quiet_NaN(), -0.0f, 99.0f, 3.0f, 0.0f, 99.0f};
  std::uint16_t packed[4];
  packBf16(stored, 2, 2, 3, 0.5f, packed);
  EXPECT_TRUE(std::isnan(fromBf16(packed[0])));
  EXPECT_EQ(packed[1], 0x8000);
  EXPECT_EQ(fromBf16(packed[2]), 6.0f);
  EXPECT_EQ(packed[3], 0x0000);
}

TEST(Bf16Product, SumsExactProductsInFp32AndAppliesTheScaleOnce) {
  // Small integers: every product and every partial sum is exact in fp32, so the result is the
  // exact sum times the scale, rounded once, whatever the order of the sum.
  const int m = 37, n = 29, k = 300, ldc = n + 3;
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> small(-8, 8);
  const auto integers = [&](std::size_t count) {
    std::vector<std::uint16_t> v(count);
    for (std::uint16_t& x : v)
      x = std::uint16_t(std::bit_cast<std::uint32_t>(float(small(rng))) >> 16);
    return v;
  };
  const float scale = std::ldexp(1.37f, -12);
  for (const Trans ta : {Trans::No, Trans::Yes}) {
    for (const Trans tb : {Trans::No, Trans::Yes}) {
      // op(A) [m, k] and op(B) [k, n] stored as each transpose implies, rows of a wider matrix
      // (stride 5 and 7 past their length) that ends with the last row's last value.
      const int rowsA = ta == Trans::No ? m : k, colsA = ta == Trans::No ? k : m;
      const int rowsB = tb == Trans::No ? k : n, colsB = tb == Trans::No ? n : k;
      const int lda = colsA + 5, ldb = colsB + 7;
      const std::vector<std::uint16_t> a = integers(std::size_t(rowsA - 1) * lda + colsA),
                                       b = integers(std::size_t(rowsB - 1) * ldb + colsB);
      std::vector<float> c(std::size_t(m) * ldc, -1.0f);
      bf16Product(ta, tb, m, n, k, scale, a.data(), lda, b.data(), ldb, c.data(), ldc);
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          double sum = 0.0;
          for (int p = 0; p < k; ++p) {
            const std::size_t ai =
                ta == Trans::No ? std::size_t(i) * lda + p : std::size_t(p) * lda + i;
            const std::size_t bi =
                tb == Trans::No ? std::size_t(p) * ldb + j : std::size_t(j) * ldb + p;
            sum += double(fromBf16(a[ai])) * fromBf16(b[bi]);
          }
          ASSERT_EQ(c[std::size_t(i) * ldc + j], float(double(scale) * sum))
              << bf16ProductEngine() << " ta " << int(ta) << " tb " << int(tb) << " (" << i << ","
              << j << ")";
        }
      for (int i = 0; i < m; ++i)  // the padding between rows is not written
        for (int j = n; j < ldc; ++j) ASSERT_EQ(c[std::size_t(i) * ldc + j], -1.0f);
    }
  }
}

TEST(Bf16Product, Nvfp4ProductsMultiplyElementsTimesBlockScalesAndThenTheTensorScales) {
  const int m = 24, n = 20, k = 160;
  backends::GemmPolicy policy;
  policy.scalingA = policy.scalingB = numerics::parseBlockScaling("nvfp4");
  std::mt19937 rng(4);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> octave(-8.0f, 8.0f);
  const auto values = [&](std::size_t count, float spread) {
    std::vector<float> v(count);
    for (float& x : v) x = spread * normal(rng) * std::exp2(octave(rng));
    return v;
  };
  // Tensor scales far from 1 on both sides, so that a scale applied twice or not at all shows.
  const std::vector<float> a = values(std::size_t(m) * k, 1e-7f),
                           b = values(std::size_t(k) * n, 3e5f);
  std::vector<float> c(std::size_t(m) * n);
  GemmWorkspace ws;
  gemm(policy, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n,
       ws);
  std::vector<float> qa(a.size()), qb(b.size());
  const float sa =
      numerics::quantizeBlocks(a, qa, m, k, k, numerics::BlockAxis::Row, *policy.scalingA);
  const float sb =
      numerics::quantizeBlocks(b, qb, k, n, n, numerics::BlockAxis::Column, *policy.scalingB);
  ASSERT_GT(sa, 0.0f);
  ASSERT_GT(sb, 0.0f);
  // Each value is element x block scale (a bf16 value) x tensor scale, rounded once: the nearest
  // value of 6 significant bits to value / tensor scale.
  const auto unscaled = [](float value, float tensorScale) {
    const double x = double(value) / tensorScale;
    if (x == 0.0) return 0.0;
    int e = 0;
    std::frexp(x, &e);
    return std::ldexp(std::nearbyint(std::ldexp(x, 6 - e)), e - 6);
  };
  const float scale = float(double(sa) * double(sb));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0, magnitude = 0.0;
      for (int p = 0; p < k; ++p) {
        const double term =
            unscaled(qa[std::size_t(i) * k + p], sa) * unscaled(qb[std::size_t(p) * n + j], sb);
        sum += term;
        magnitude += std::abs(term);
      }
      // fp32 sums of exact products: within K units of 2^-24 of the terms' magnitude; then the
      // scale, applied once.
      const double bound = double(scale) * (double(k) * 0x1p-24 * magnitude) +
                           std::abs(double(scale) * sum) * 0x1p-24;
      EXPECT_NEAR(c[std::size_t(i) * n + j], double(scale) * sum, bound)
          << "(" << i << "," << j << ")";
    }
}

}  // namespace
}  // namespace paritylab::nn
