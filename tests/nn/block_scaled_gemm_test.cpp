// Block-scaled products through the one GEMM entry: each operand is quantized in scaling groups
// along the reduction dimension K whatever its storage (A [m,k] or its transpose, B [k,n] or its
// transpose), then the quantized operands are multiplied with fp32 sums (NVFP4's as their elements
// times block scales, the tensor scales after the sum: gemm_bf16_test.cpp). The reference
// multiplies, in double, operands quantized by numerics::quantizeBlocks on explicitly K-major
// copies.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/gemm.h"
#include "core/nn/gemm_xray.h"
#include "core/numerics/block_scaling.h"

namespace paritylab::nn {
namespace {

using numerics::BlockAxis;

std::vector<float> randomMatrix(int rows, int cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> octave(-6.0f, 6.0f);
  std::vector<float> v(std::size_t(rows) * cols);
  for (float& x : v) x = normal(rng) * std::exp2(octave(rng));  // a wide spread per block
  return v;
}

// op(X) as a dense [rows, cols] copy, from X stored as it is or transposed.
std::vector<float> dense(const std::vector<float>& x, int rows, int cols, Trans t) {
  std::vector<float> out(std::size_t(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      out[std::size_t(r) * cols + c] =
          t == Trans::No ? x[std::size_t(r) * cols + c] : x[std::size_t(c) * rows + r];
  return out;
}

TEST(BlockScaledGemm, EachOperandIsQuantizedAlongKWhateverItsStorage) {
  const int m = 9, n = 7, k = 70;  // K: two full MX blocks and a partial one
  for (const char* recipe : {"mx", "nvfp4", "blockwise", "rowwise", "current"}) {
    backends::GemmPolicy policy;
    policy.scalingA = policy.scalingB = numerics::parseBlockScaling(recipe);
    for (Trans ta : {Trans::No, Trans::Yes}) {
      for (Trans tb : {Trans::No, Trans::Yes}) {
        const std::vector<float> a = randomMatrix(m, k, 1), b = randomMatrix(k, n, 2);
        // Stored as the call reads them: A [m,k] or [k,m]; B [k,n] or [n,k].
        const std::vector<float> storedA = ta == Trans::No ? a : dense(a, k, m, Trans::Yes);
        const std::vector<float> storedB = tb == Trans::No ? b : dense(b, n, k, Trans::Yes);
        std::vector<float> c(std::size_t(m) * n);
        GemmWorkspace ws;
        gemm(policy, ta, tb, m, n, k, 1.0f, storedA.data(), ta == Trans::No ? k : m, storedB.data(),
             tb == Trans::No ? n : k, 0.0f, c.data(), n, ws);
        // Reference: A's rows and B's columns are the K runs.
        std::vector<float> qa(a.size()), qb(b.size());
        numerics::quantizeBlocks(a, qa, m, k, k, BlockAxis::Row, *policy.scalingA);
        numerics::quantizeBlocks(b, qb, k, n, n, BlockAxis::Column, *policy.scalingB);
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) {
            double sum = 0.0, magnitude = 0.0;
            for (int p = 0; p < k; ++p) {
              const double term = double(qa[std::size_t(i) * k + p]) * qb[std::size_t(p) * n + j];
              sum += term;
              magnitude += std::abs(term);
            }
            // fp32 accumulation of exact products: within K ulps of the magnitude.
            EXPECT_NEAR(c[std::size_t(i) * n + j], sum, 1e-6 * magnitude + 1e-30)
                << recipe << " ta " << int(ta) << " tb " << int(tb) << " (" << i << "," << j << ")";
          }
      }
    }
  }
}

TEST(BlockScaledGemm, TheHadamardTransformAloneKeepsTheProduct) {
  const int m = 4, n = 3, k = 64;
  std::vector<float> a = randomMatrix(m, k, 3), b = randomMatrix(k, n, 4);
  a[5] = 3000.0f;  // an outlier in A's first block
  std::vector<float> plain(std::size_t(m) * n), transformed(plain.size()), exact(plain.size());
  GemmWorkspace ws;
  backends::GemmPolicy none;
  gemm(none, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, exact.data(), n,
       ws);
  backends::GemmPolicy rotateOnly;
  rotateOnly.hadamard = true;
  gemm(rotateOnly, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
       transformed.data(), n, ws);
  for (std::size_t i = 0; i < exact.size(); ++i)
    EXPECT_NEAR(transformed[i], exact[i], 1e-4 * (1.0 + std::abs(exact[i])));
  // Under NVFP4 the transform changes what is quantized, so the product differs from the one
  // without it.
  backends::GemmPolicy fp4;
  fp4.scalingA = fp4.scalingB = numerics::parseBlockScaling("nvfp4");
  gemm(fp4, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, plain.data(), n,
       ws);
  fp4.hadamard = true;
  gemm(fp4, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, transformed.data(),
       n, ws);
  EXPECT_NE(plain, transformed);
}

TEST(BlockScaledGemm, TheXrayMeasuresEachOperandAgainstItsRecipe) {
  const int m = 8, n = 8, k = 64;
  const std::vector<float> a = randomMatrix(m, k, 5), b = randomMatrix(k, n, 6);
  backends::GemmPolicy policy = backends::presetPolicy("mxfp4").linear.forward;
  std::vector<float> measured(std::size_t(m) * n), plain(measured.size());
  GemmWorkspace ws;
  GemmXraySlot slot;
  GemmExtras extras;
  extras.xray = &slot;
  gemm(policy, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, measured.data(),
       n, ws, extras);
  gemm(policy, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, plain.data(), n,
       ws);
  EXPECT_EQ(measured, plain);  // measuring changes nothing
  EXPECT_EQ(slot.formatA, "mx fp4-e2m1");
  EXPECT_EQ(slot.formatB, "mx fp4-e2m1");
  EXPECT_EQ(slot.formatOutput, "bf16");
  EXPECT_EQ(slot.a.count, m * k);
  EXPECT_GT(slot.a.errorEnergy, 0.0);  // fp4 elements lose most of each value's bits
  EXPECT_LT(slot.a.sqnrDb(), 25.0);
  EXPECT_EQ(slot.output.count, m * n);
  // The scales of each operand: one per 32-element block along K, each a power of two.
  ASSERT_TRUE(slot.scalesA && slot.scalesB);
  EXPECT_EQ(slot.formatScalesA, "e8m0");
  EXPECT_EQ(slot.scalesA->count, m * k / 32);
  EXPECT_EQ(slot.scalesB->count, n * k / 32);
  std::int64_t binned = 0;
  for (const std::int64_t bin : slot.scalesA->exponentBins) binned += bin;
  EXPECT_EQ(binned, m * k / 32);
  EXPECT_EQ(std::exp2(std::floor(std::log2(slot.scalesA->amax))), slot.scalesA->amax);
  EXPECT_EQ(slot.scalesA->flushed + slot.scalesA->overflowed + slot.scalesA->nonFinite, 0);
}

// A block's scale worked by hand: MX FP4 keeps 2^(floor(log2 amax) - 2). Row 0 of A has amax 3
// (scale 2^-1), row 1 amax 8 (scale 2^1); an all-zero row keeps E8M0's smallest scale, 2^-127.
// NVFP4's scale that underflows leaves a nonzero block without a scale (flushed, not a zero).
TEST(BlockScaledGemm, TheXraysScalesAreEachBlocksStoredScale) {
  const int m = 3, n = 1, k = 32;
  std::vector<float> a(std::size_t(m) * k, 0.0f), b(std::size_t(k) * n, 1.0f);
  a[0] = 3.0f;
  a[std::size_t(k)] = 8.0f;
  GemmXraySlot slot;
  GemmExtras extras;
  extras.xray = &slot;
  GemmWorkspace ws;
  std::vector<float> c(std::size_t(m) * n);
  gemm(backends::presetPolicy("mxfp4").linear.forward, Trans::No, Trans::No, m, n, k, 1.0f,
       a.data(), k, b.data(), n, 0.0f, c.data(), n, ws, extras);
  ASSERT_TRUE(slot.scalesA);
  const numerics::TensorXray& s = *slot.scalesA;
  const auto bin = [&s](int e) {
    return s.exponentBins[std::size_t(e - numerics::TensorXray::kMinExponent)];
  };
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(bin(-1), 1);
  EXPECT_EQ(bin(1), 1);
  EXPECT_EQ(bin(-127), 1);
  EXPECT_EQ(s.amax, 2.0);
  EXPECT_EQ(s.minNonzero, 0x1p-127);

  // NVFP4: one block of amax 1e-30 beside one of amax 1: s_t = 1 / 2688, and the small block's
  // E4M3 scale 1e-30 x 2688 / 6 rounds to 0.
  GemmXraySlot nv;
  extras.xray = &nv;
  std::vector<float> a2(32, 0.0f), b2(32, 1.0f);
  a2[0] = 1.0f;
  a2[16] = 1e-30f;
  std::vector<float> c2(1);
  gemm(backends::presetPolicy("nvfp4").linear.forward, Trans::No, Trans::No, 1, 1, 32, 1.0f,
       a2.data(), 32, b2.data(), 1, 0.0f, c2.data(), 1, ws, extras);
  ASSERT_TRUE(nv.scalesA);
  EXPECT_EQ(nv.formatScalesA, "e4m3 x fp32");
  EXPECT_EQ(nv.scalesA->count, 2);
  EXPECT_EQ(nv.scalesA->flushed, 1);
  EXPECT_EQ(nv.scalesA->zeros, 0);
  EXPECT_EQ(nv.scalesA->nonzeroFinite(), 2);
  // The block holding the tensor's amax keeps E4M3's largest scale, 448: not a saturated one.
  EXPECT_EQ(nv.scalesA->overflowed, 0);
}

}  // namespace
}  // namespace paritylab::nn
