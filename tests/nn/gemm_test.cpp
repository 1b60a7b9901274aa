// The one GEMM entry — fp32 bit-identity with sgemm, operand rounding, XLA
// multi-pass products in their pass order, transposes, alpha/beta, chunked accumulation.
#include "core/nn/gemm.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/nn/blas_setup.h"
#include "core/nn/gemm_xray.h"

namespace {

using namespace paritylab;
using backends::GemmPolicy;
using backends::MultiPass;
using nn::Trans;

numerics::RoundingSpec spec(const char* f,
                            numerics::RoundingMode m = numerics::RoundingMode::NearestEven) {
  numerics::RoundingSpec s;
  s.format = *numerics::parseFormat(f);
  s.mode = m;
  return s;
}

std::vector<float> randomMatrix(std::size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Double-precision product of row-major A [m,k], B [k,n].
std::vector<double> exactProduct(const std::vector<float>& A, const std::vector<float>& B, int m,
                                 int n, int k) {
  std::vector<double> C(std::size_t(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += double(A[i * k + p]) * double(B[p * n + j]);
  return C;
}

double maxRelError(const std::vector<float>& got, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    num = std::max(num, std::abs(double(got[i]) - ref[i]));
    den = std::max(den, std::abs(ref[i]));
  }
  return num / den;
}

std::vector<float> run(const GemmPolicy& p, const std::vector<float>& A,
                       const std::vector<float>& B, int m, int n, int k) {
  std::vector<float> C(std::size_t(m) * n, 0.0f);
  nn::GemmWorkspace ws;
  nn::gemm(p, Trans::No, Trans::No, m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f, C.data(), n, ws);
  return C;
}

TEST(Gemm, Fp32PolicyIsBitIdenticalToSgemm) {
  const int m = 37, n = 53, k = 301;
  auto A = randomMatrix(m * k, 1), B = randomMatrix(k * n, 2);
  std::vector<float> ref(m * n, 0.5f), got(m * n, 0.5f);
  nn::configureBlas();  // the same threads and kernels as gemm()
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 0.75f, A.data(), k, B.data(), n,
              0.25f, ref.data(), n);
  nn::GemmWorkspace ws;
  GemmPolicy fp32;
  fp32.operands = spec("fp32");  // identity rounder: still the direct path
  nn::gemm(fp32, Trans::No, Trans::No, m, n, k, 0.75f, A.data(), k, B.data(), n, 0.25f, got.data(),
           n, ws);
  EXPECT_TRUE(sameBits(ref, got));
}

TEST(Gemm, OperandRoundingEqualsRoundedInputsExactly) {
  // Small integers times bf16-rounded values: every product and sum is exact in fp32 and double.
  const int m = 3, n = 2, k = 4;
  std::vector<float> A = {1.00390625f, 2.0f,  -3.0f, 0.5f, 1.0f, 1.01171875f,
                          2.0f,        -1.0f, 4.0f,  3.0f, 2.0f, 1.0f};
  std::vector<float> B = {1.0f, 2.0f, 1.00390625f, -1.0f, 3.0f, 1.0f, 0.25f, 2.0f};
  GemmPolicy bf16;
  bf16.operands = spec("bf16");
  auto got = run(bf16, A, B, m, n, k);
  // bf16(1.00390625) = 1 (tie to even), bf16(1.01171875) = 1.015625 (tie to even, up).
  auto Ar = A, Br = B;
  Ar[0] = 1.0f;
  Ar[5] = 1.015625f;
  Br[2] = 1.0f;
  auto ref = exactProduct(Ar, Br, m, n, k);
  for (int i = 0; i < m * n; ++i) EXPECT_EQ(double(got[i]), ref[i]) << i;
}

TEST(Gemm, OperandRoundingMatchesNaiveLoopWithRoundedOperands) {
  const int m = 40, n = 30, k = 200;
  auto A = randomMatrix(m * k, 3), B = randomMatrix(k * n, 4);
  for (const char* f : {"bf16", "tf32", "fp16"}) {
    GemmPolicy p;
    p.operands = spec(f, numerics::RoundingMode::NearestAway);
    numerics::Rounder r(*p.operands);
    auto Ar = A, Br = B;
    r.apply(Ar);
    r.apply(Br);
    auto ref = exactProduct(Ar, Br, m, n, k);
    auto got = run(p, A, B, m, n, k);
    // fp32 accumulation over k = 200 terms of magnitude <= 1: |err| <= k * 2^-24 * sum|a||b|.
    for (int i = 0; i < m * n; ++i) EXPECT_NEAR(got[i], ref[i], 200 * 200 * 0x1p-24) << f;
    auto plain = exactProduct(A, B, m, n, k);
    EXPECT_GT(maxRelError(got, plain), 1e-6) << f << ": rounding must change the result";
  }
}

TEST(Gemm, MultiPassErrorShrinksByOrdersOfMagnitude) {
  const int m = 64, n = 64, k = 256;
  auto A = randomMatrix(m * k, 5), B = randomMatrix(k * n, 6);
  auto exact = exactProduct(A, B, m, n, k);
  GemmPolicy one, three, six, fp32;
  one.operands = spec("bf16");
  three.passes = MultiPass::Bf16x3;
  six.passes = MultiPass::Bf16x6;
  const double e1 = maxRelError(run(one, A, B, m, n, k), exact);
  const double e3 = maxRelError(run(three, A, B, m, n, k), exact);
  const double e6 = maxRelError(run(six, A, B, m, n, k), exact);
  const double e32 = maxRelError(run(fp32, A, B, m, n, k), exact);
  // Measured: e1 ~ 3e-3, e3 ~ 1e-6..1e-5, e6 ~ fp32 (~1e-7).
  EXPECT_GT(e1, 1e-3);
  EXPECT_LT(e3, e1 / 100);
  EXPECT_LT(e6, e3);
  EXPECT_LT(e6, 4 * e32 + 1e-7);
  std::printf("max rel error: bf16 %.3g  bf16x3 %.3g  bf16x6 %.3g  fp32 %.3g\n", e1, e3, e6, e32);
}

// The exact formula, one plain sgemm per pass, passes summed smallest first.
std::vector<float> naivePasses(const std::vector<float>& A, const std::vector<float>& B, int m,
                               int n, int k, bool six) {
  numerics::Rounder bf16(spec("bf16"));
  auto split = [&](const std::vector<float>& x) {
    std::vector<std::vector<float>> parts(3, std::vector<float>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float hi = bf16.round(x[i]);
      const float mid = bf16.round(x[i] - hi);
      const float lo = bf16.round((x[i] - hi) - mid);
      parts[0][i] = hi, parts[1][i] = mid, parts[2][i] = lo;
    }
    return parts;
  };
  auto a = split(A), b = split(B);
  nn::configureBlas();  // the same kernels as gemm()
  auto mul = [&](const std::vector<float>& x, const std::vector<float>& y) {
    std::vector<float> c(std::size_t(m) * n);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, x.data(), k, y.data(), n,
                0.0f, c.data(), n);
    return c;
  };
  std::vector<std::pair<int, int>> order =
      six ? std::vector<std::pair<int, int>>{{0, 2}, {2, 0}, {1, 1}, {0, 1}, {1, 0}, {0, 0}}
          : std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {0, 0}};
  std::vector<float> sum = mul(a[order[0].first], b[order[0].second]);
  for (std::size_t p = 1; p < order.size(); ++p) {
    auto c = mul(a[order[p].first], b[order[p].second]);
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = sum[i] + c[i];
  }
  return sum;
}

TEST(Gemm, PassOrderIsHonouredBitForBit) {
  const int m = 33, n = 47, k = 129;
  auto A = randomMatrix(m * k, 7, -3, 3), B = randomMatrix(k * n, 8, -3, 3);
  GemmPolicy three, six;
  three.passes = MultiPass::Bf16x3;
  six.passes = MultiPass::Bf16x6;
  EXPECT_TRUE(sameBits(run(three, A, B, m, n, k), naivePasses(A, B, m, n, k, false)));
  EXPECT_TRUE(sameBits(run(six, A, B, m, n, k), naivePasses(A, B, m, n, k, true)));
}

TEST(Gemm, AllTransposeCombinations) {
  const int m = 19, n = 23, k = 31;
  auto A = randomMatrix(m * k, 9), B = randomMatrix(k * n, 10);
  // Transposed copies with padded leading dimensions.
  const int ldaT = m + 3, ldbT = k + 5;
  std::vector<float> At(std::size_t(k) * ldaT, 99.0f), Bt(std::size_t(n) * ldbT, 99.0f);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p) At[p * ldaT + i] = A[i * k + p];
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < n; ++j) Bt[j * ldbT + p] = B[p * n + j];
  std::vector<GemmPolicy> policies(4);
  policies[1].operands = spec("bf16");
  policies[2].passes = MultiPass::Bf16x3;
  policies[3].accumulationChunk = 8;
  policies[3].accumulation = spec("fp16");
  for (const GemmPolicy& p : policies) {
    const auto ref = run(p, A, B, m, n, k);
    for (Trans ta : {Trans::No, Trans::Yes})
      for (Trans tb : {Trans::No, Trans::Yes}) {
        std::vector<float> C(m * n);
        nn::GemmWorkspace ws;
        nn::gemm(p, ta, tb, m, n, k, 1.0f, ta == Trans::No ? A.data() : At.data(),
                 ta == Trans::No ? k : ldaT, tb == Trans::No ? B.data() : Bt.data(),
                 tb == Trans::No ? n : ldbT, 0.0f, C.data(), n, ws);
        for (int i = 0; i < m * n; ++i) ASSERT_NEAR(C[i], ref[i], 1e-5) << int(ta) << int(tb);
      }
  }
}

// beta * C (a layer's bias) is added in fp32 before the one output rounding, as in
// cuBLAS (C = round(alpha * AB + beta * C)), not after it.
TEST(Gemm, BetaTimesCIsInsideTheOutputRounding) {
  const int m = 4, n = 5, k = 6;
  auto A = randomMatrix(m * k, 11), B = randomMatrix(k * n, 12);
  GemmPolicy operandsOnly;
  operandsOnly.operands = spec("bf16");
  const auto product = run(operandsOnly, A, B, m, n, k);  // fp32 product of the bf16 operands
  GemmPolicy p = operandsOnly;
  p.output = spec("bf16");
  numerics::Rounder bf16(spec("bf16"));
  std::vector<float> C0 = randomMatrix(m * n, 13), C = C0;
  nn::GemmWorkspace ws;
  nn::gemm(p, Trans::No, Trans::No, m, n, k, 2.0f, A.data(), k, B.data(), n, 1.0f, C.data(), n, ws);
  int orderMatters = 0;
  for (int i = 0; i < m * n; ++i) {
    const float sum = 2.0f * product[i] + C0[i];  // one fp32 add (2x is exact)
    EXPECT_EQ(C[i], bf16.round(sum)) << i;
    orderMatters += bf16.round(sum) != bf16.round(bf16.round(2.0f * product[i]) + C0[i]);
  }
  EXPECT_GT(orderMatters, 0);  // the values tell round(P + C) from round(round(P) + C)
  // beta = 0 never reads C (NaN stays out).
  std::vector<float> nan(m * n, std::nanf(""));
  nn::gemm(p, Trans::No, Trans::No, m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f, nan.data(), n,
           ws);
  for (int i = 0; i < m * n; ++i) EXPECT_EQ(nan[i], bf16.round(product[i])) << i;
}

TEST(Gemm, ChunkedAccumulationMatchesNaiveReference) {
  const int m = 8, n = 9, k = 100, chunk = 32;
  auto A = randomMatrix(m * k, 14), B = randomMatrix(k * n, 15);
  GemmPolicy p;
  p.accumulationChunk = chunk;
  p.accumulation = spec("bf16");
  auto got = run(p, A, B, m, n, k);
  numerics::Rounder bf16(*p.accumulation);
  auto exact = exactProduct(A, B, m, n, k);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int k0 = 0; k0 < k; k0 += chunk) {
        double partial = 0.0;  // fp32 within a chunk: compare within fp32 tolerance below
        for (int q = k0; q < std::min(k, k0 + chunk); ++q)
          partial += double(A[i * k + q]) * B[q * n + j];
        const float c = bf16.round(float(partial));
        sum = k0 == 0 ? c : bf16.round(sum + c);
      }
      // Chunk partial sums differ from double by fp32 rounding only, which can flip a bf16 tie
      // at most: one bf16 ulp of the running sum per chunk.
      EXPECT_NEAR(got[i * n + j], sum, 4 * 0x1p-8 * std::max(1.0f, std::abs(sum)));
      EXPECT_NE(double(got[i * n + j]), exact[i * n + j]);
    }
}

// Hopper's fp8 fast accumulation (DeepSeek-V3's measurement): each run of 128 products is summed
// keeping 14 significant bits, truncated, and the runs' sums are added in fp32. Values chosen so
// that every fp32 partial sum is exact: the expected results are exact numbers.
TEST(Gemm, HopperFastAccumulationTruncatesEachRunOf128AndAddsTheRunsInFp32) {
  const int k = 256;
  const backends::AccumulationModel hopper = backends::hopperFp8FastAccumulation();
  GemmPolicy fast;
  fast.accumulationChunk = hopper.chunk;
  fast.accumulation = hopper.partialSums;
  fast.fp32Promotion = true;
  GemmPolicy unpromoted = fast;
  unpromoted.fp32Promotion = false;
  const std::vector<float> ones(k, 1.0f);

  // Run 1 sums to 128 + 2^-9 (needs 17 significant bits): truncated to 128. Run 2 sums to 0.5.
  std::vector<float> a(k, 0.0f);
  for (int i = 0; i < 128; ++i) a[std::size_t(i)] = 1.0f;
  a[5] = 1.0f + 0x1p-9f;
  for (int i = 128; i < k; ++i) a[std::size_t(i)] = 0x1p-8f;
  EXPECT_EQ(run(GemmPolicy{}, a, ones, 1, 1, k)[0], 128.5f + 0x1p-9f);  // fp32: exact
  EXPECT_EQ(run(fast, a, ones, 1, 1, k)[0], 128.5f);

  // Run 1 sums to 8192 = 2^13, run 2 to 0.5: 8192.5 needs 15 significant bits. Promoted to fp32
  // it is kept; a running sum held in the narrow accumulator truncates it to 8192.
  for (int i = 0; i < 128; ++i) a[std::size_t(i)] = 64.0f;
  EXPECT_EQ(run(fast, a, ones, 1, 1, k)[0], 8192.5f);
  EXPECT_EQ(run(unpromoted, a, ones, 1, 1, k)[0], 8192.0f);
}

TEST(Gemm, Fp8ScalingRoundTrip) {
  // Values far below E4M3's range survive thanks to the per-tensor scale, which is undone after.
  const int m = 6, n = 7, k = 8;
  auto A = randomMatrix(m * k, 16, -1e-4f, 1e-4f), B = randomMatrix(k * n, 17, -1e-4f, 1e-4f);
  GemmPolicy p;
  p.operands = spec("fp8-e4m3");
  p.operands->overflow = numerics::OverflowMode::Saturate;
  auto exact = exactProduct(A, B, m, n, k);
  auto unscaled = run(p, A, B, m, n, k);
  std::vector<float> C(m * n);
  nn::GemmWorkspace ws;
  nn::GemmExtras ex;
  ex.scaleA = ex.scaleB = 448.0f / 1e-4f;
  nn::gemm(p, Trans::No, Trans::No, m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f, C.data(), n, ws,
           ex);
  EXPECT_LT(maxRelError(C, exact), 0.15);
  EXPECT_GT(maxRelError(unscaled, exact), 0.9);  // without scaling everything flushes to ~0
}

TEST(Gemm, StoreTensorRoundsAndIdentityLeavesAlone) {
  std::vector<float> v = {1.00390625f, 3.14159265f}, w = v;
  nn::storeTensor(std::nullopt, w.data(), w.size());
  EXPECT_TRUE(sameBits(v, w));
  nn::storeTensor(spec("bf16"), w.data(), w.size());
  EXPECT_EQ(w[0], 1.0f);
  EXPECT_EQ(w[1], 3.140625f);
}

// GemmExtras::bias is C pre-filled with the bias row by row and beta 1, bit for bit, whichever
// path gemm takes: fused with the output rounding (a bf16 output with and without a rounded
// addend, chunked accumulation, a stochastic output), or by its definition (a stochastic addend,
// multi-pass, scaled operands, no rounding at all), into a dense or a strided C.
TEST(Gemm, ABiasAddsAsCPrefilledWithItAndBetaOne) {
  const int m = 7, n = 11, k = 37;
  const auto A = randomMatrix(std::size_t(m) * k, 81), B = randomMatrix(std::size_t(k) * n, 82);
  const auto bias = randomMatrix(std::size_t(n), 83);
  std::vector<GemmPolicy> policies(7);
  policies[0].operands = spec("bf16");
  policies[0].output = spec("bf16");
  policies[0].addend = spec("bf16");
  policies[1].output = spec("fp16");
  policies[2].operands = spec("tf32");
  policies[2].output = spec("bf16");
  policies[2].accumulationChunk = 16;
  policies[2].accumulation = spec("fp16");
  policies[3].output = spec("bf16", numerics::RoundingMode::Stochastic);
  policies[3].addend = spec("bf16");
  policies[4].output = spec("bf16");
  policies[4].addend = spec("bf16", numerics::RoundingMode::Stochastic);
  policies[5].passes = MultiPass::Bf16x3;
  policies[5].output = spec("bf16");
  // policies[6]: fp32, nothing rounded
  for (std::size_t p = 0; p < policies.size(); ++p)
    for (const int ldc : {n, n + 3})
      for (const float scale : {1.0f, 2.0f}) {
        nn::GemmExtras extras;
        extras.seed = 17;
        extras.scaleA = scale;
        std::vector<float> want(std::size_t(m) * ldc, -3.0f), got = want;
        for (int i = 0; i < m; ++i)
          std::copy(bias.begin(), bias.end(), want.begin() + std::ptrdiff_t(i) * ldc);
        nn::GemmWorkspace ws;
        nn::gemm(policies[p], Trans::No, Trans::No, m, n, k, 1.0f, A.data(), k, B.data(), n, 1.0f,
                 want.data(), ldc, ws, extras);
        extras.bias = bias.data();
        nn::gemm(policies[p], Trans::No, Trans::No, m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f,
                 got.data(), ldc, ws, extras);
        ASSERT_TRUE(sameBits(got, want)) << "policy " << p << " ldc " << ldc << " scale " << scale;
      }
}

}  // namespace

// A caller may hand gemm() its scratch B to round in place (conv's im2col columns)
// instead of a packed rounded copy. Same bits on every path (fast, output rounding, chunked
// accumulation), stochastic draws included, with B's leading dimension wider than its rows.
TEST(Gemm, WritableBGivesTheSameBitsAsAPackedCopy) {
  const int m = 9, n = 21, k = 40, ldb = n + 7;
  auto A = randomMatrix(m * k, 41);
  const std::vector<float> stored = randomMatrix(std::size_t(k) * ldb, 42, -3.0f, 3.0f);
  std::vector<GemmPolicy> policies(3);
  policies[0].operands = spec("tf32", numerics::RoundingMode::NearestAway);
  policies[1].operands = spec("bf16", numerics::RoundingMode::Stochastic);
  policies[1].output = spec("bf16");
  policies[2].operands = spec("fp16");
  policies[2].accumulationChunk = 8;
  policies[2].accumulation = spec("fp16");
  for (std::size_t p = 0; p < policies.size(); ++p) {
    nn::GemmExtras extras;
    extras.seed = 1234;
    extras.scaleB = p == 2 ? 0.5f : 1.0f;
    std::vector<float> packed(std::size_t(m) * n), inPlace(std::size_t(m) * n);
    std::vector<float> B = stored;
    nn::GemmWorkspace ws;
    nn::gemm(policies[p], Trans::No, Trans::No, m, n, k, 1.0f, A.data(), k, B.data(), ldb, 0.0f,
             packed.data(), n, ws, extras);
    ASSERT_EQ(B, stored) << "B is read-only unless made writable";
    extras.writableB = B.data();
    nn::gemm(policies[p], Trans::No, Trans::No, m, n, k, 1.0f, A.data(), k, B.data(), ldb, 0.0f,
             inPlace.data(), n, ws, extras);
    EXPECT_TRUE(sameBits(packed, inPlace)) << "policy " << p;
    EXPECT_NE(B, stored) << "policy " << p << ": B was rounded where it lies";
    for (int r = 0; r < k; ++r)
      for (int c = n; c < ldb; ++c)
        ASSERT_EQ(B[std::size_t(r) * ldb + c], stored[std::size_t(r) * ldb + c]) << "padding";
  }
}

// A conv's weights are rounded in place by its first image group's call and read as
// they are by the next calls (GemmExtras::writableARounded): the same bits as packing and rounding
// them on every call, for each deterministic rounding mode, A transposed or not, with and without
// output rounding.
TEST(Gemm, WeightsRoundedOnceGiveTheSameBitsOnEveryLaterCall) {
  const int m = 11, n = 19, k = 37;
  const std::vector<float> stored = randomMatrix(std::size_t(m) * k, 51, -3.0f, 3.0f);
  const auto B = randomMatrix(std::size_t(k) * n, 52);
  std::vector<GemmPolicy> policies(3);
  policies[0].operands = spec("tf32");
  policies[1].operands = spec("bf16", numerics::RoundingMode::TowardZero);
  policies[1].output = spec("bf16");
  policies[2].operands = spec("fp16", numerics::RoundingMode::NearestAway);
  for (std::size_t p = 0; p < policies.size(); ++p)
    for (Trans ta : {Trans::No, Trans::Yes}) {
      const int lda = ta == Trans::No ? k : m;  // stored [m, k] or [k, m]
      std::vector<float> packed(std::size_t(m) * n), first(packed.size()), later(packed.size());
      nn::GemmWorkspace ws;
      nn::gemm(policies[p], ta, Trans::No, m, n, k, 1.0f, stored.data(), lda, B.data(), n, 0.0f,
               packed.data(), n, ws);
      std::vector<float> A = stored;
      nn::GemmExtras extras;
      extras.writableA = A.data();
      nn::gemm(policies[p], ta, Trans::No, m, n, k, 1.0f, A.data(), lda, B.data(), n, 0.0f,
               first.data(), n, ws, extras);
      ASSERT_NE(A, stored) << "policy " << p << ": A was rounded where it lies";
      extras.writableARounded = true;
      nn::gemm(policies[p], ta, Trans::No, m, n, k, 1.0f, A.data(), lda, B.data(), n, 0.0f,
               later.data(), n, ws, extras);
      EXPECT_TRUE(sameBits(packed, first)) << "policy " << p;
      EXPECT_TRUE(sameBits(packed, later)) << "policy " << p;
    }
}

// A conv rounds its input once before im2col (nn::preroundOperand) and hands gemm the
// gathered, already rounded operand (writableBRounded / writableARounded): the same bits as gemm
// rounding the raw operand itself, for each deterministic mode and a distinct B format. It
// declines (returns false, dst untouched) where gemm must see or draw the raw values: stochastic
// rounding, fp8 scaling, multi-pass products, X-ray steps, and fp32.
TEST(Gemm, PreroundedOperandsGiveTheSameBitsAsRoundingInGemm) {
  const int m = 7, n = 23, k = 31;
  const std::vector<float> A = randomMatrix(std::size_t(m) * k, 61, -3.0f, 3.0f);
  const std::vector<float> B = randomMatrix(std::size_t(k) * n, 62, -3.0f, 3.0f);
  std::vector<GemmPolicy> policies(3);
  policies[0].operands = spec("tf32", numerics::RoundingMode::NearestAway);
  policies[1].operands = spec("bf16");
  policies[1].output = spec("bf16");
  policies[2].operands = spec("fp8-e4m3");
  policies[2].operandsB = spec("fp8-e5m2", numerics::RoundingMode::TowardZero);
  for (std::size_t p = 0; p < policies.size(); ++p) {
    const std::vector<float> reference = run(policies[p], A, B, m, n, k);
    std::vector<float> a(A.size()), b(B.size()), C(reference.size());
    ASSERT_TRUE(nn::preroundOperand(policies[p], nn::Operand::A, {}, A.data(), a.data(), a.size()));
    ASSERT_TRUE(nn::preroundOperand(policies[p], nn::Operand::B, {}, B.data(), b.data(), b.size()));
    nn::GemmExtras extras;
    extras.writableA = a.data();
    extras.writableARounded = true;
    extras.writableB = b.data();
    extras.writableBRounded = true;
    nn::GemmWorkspace ws;
    nn::gemm(policies[p], Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
             C.data(), n, ws, extras);
    EXPECT_TRUE(sameBits(reference, C)) << "policy " << p;
  }

  std::vector<float> dst(B.size(), 7.0f);
  const auto declines = [&](const GemmPolicy& policy, const nn::GemmExtras& extras) {
    return !nn::preroundOperand(policy, nn::Operand::B, extras, B.data(), dst.data(), dst.size()) &&
           dst == std::vector<float>(B.size(), 7.0f);
  };
  GemmPolicy stochastic;
  stochastic.operands = spec("bf16", numerics::RoundingMode::Stochastic);
  EXPECT_TRUE(declines(stochastic, {}));
  nn::GemmExtras scaled;
  scaled.scaleB = 4.0f;
  EXPECT_TRUE(declines(policies[2], scaled));
  GemmPolicy multiPass;
  multiPass.passes = MultiPass::Bf16x3;
  multiPass.operands = spec("bf16");
  EXPECT_TRUE(declines(multiPass, {}));
  nn::GemmXraySlot slot;
  nn::GemmExtras measured;
  measured.xray = &slot;
  EXPECT_TRUE(declines(policies[1], measured));
  EXPECT_TRUE(declines(GemmPolicy{}, {}));
}

// A product whose output is rounded lands in a strided C (a column half of a conv's
// output) straight, rounded row by row at the dense offsets: the same bits as the dense product,
// stochastic output draws included, and C's padding untouched.
TEST(Gemm, OutputRoundedIntoAStridedCMatchesTheDenseProduct) {
  const int m = 6, n = 13, k = 29, ldc = n + 5;
  const auto A = randomMatrix(std::size_t(m) * k, 71), B = randomMatrix(std::size_t(k) * n, 72);
  std::vector<GemmPolicy> policies(3);
  policies[0].operands = spec("bf16");
  policies[0].output = spec("bf16");
  policies[1].output = spec("fp16", numerics::RoundingMode::Stochastic);
  policies[2].operands = spec("tf32");
  policies[2].output = spec("bf16");
  policies[2].accumulationChunk = 64;  // >= k: one chunk, rounded to `accumulation`
  policies[2].accumulation = spec("fp16");
  for (std::size_t p = 0; p < policies.size(); ++p) {
    nn::GemmExtras extras;
    extras.seed = 99;
    std::vector<float> dense(std::size_t(m) * n), strided(std::size_t(m) * ldc, -7.0f);
    nn::GemmWorkspace ws;
    nn::gemm(policies[p], Trans::No, Trans::No, m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f,
             dense.data(), n, ws, extras);
    nn::gemm(policies[p], Trans::No, Trans::No, m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f,
             strided.data(), ldc, ws, extras);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < ldc; ++j) {
        const float got = strided[std::size_t(i) * ldc + j];
        if (j < n)
          ASSERT_EQ(std::bit_cast<std::uint32_t>(got),
                    std::bit_cast<std::uint32_t>(dense[std::size_t(i) * n + j]))
              << "policy " << p << " at " << i << "," << j;
        else
          ASSERT_EQ(got, -7.0f) << "padding";
      }
  }
}
