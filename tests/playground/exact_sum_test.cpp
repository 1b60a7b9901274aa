// The exact-sum reference of the reduction experiment.
#include "core/playground/exact_sum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/nn/random.h"

namespace paritylab::playground {
namespace {

double naiveSum(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  return s;
}

// Exact on catastrophic cancellation, where the naive sum loses everything.
TEST(ExactSum, CatastrophicCancellation) {
  const std::vector<double> a = {1e100, 1.0, -1e100};
  EXPECT_EQ(naiveSum(a), 0.0);
  EXPECT_EQ(exactSum(a.data(), a.size()), 1.0);

  const std::vector<double> b = {0x1p53, 1.0, -0x1p53};  // 2^53 + 1 is not a double
  EXPECT_EQ(naiveSum(b), 0.0);
  EXPECT_EQ(exactSum(b.data(), b.size()), 1.0);

  const std::vector<double> c = {1e16, 1.0, 1e-16, -1e16};  // 1 + 1e-16 rounds to 1
  EXPECT_EQ(exactSum(c.data(), c.size()), 1.0);

  // Ten 0.1s: the exact sum of those doubles is 1.000000000000000055511151231257827, nearest
  // double 1.0 (math.fsum gives 1.0; the naive sum 0.9999999999999999).
  const std::vector<double> d(10, 0.1);
  EXPECT_NE(naiveSum(d), 1.0);
  EXPECT_EQ(exactSum(d.data(), d.size()), 1.0);
}

// The half-way case: 1 + 2^-53 is exactly between 1 and 1 + 2^-52 (ties to even: 1), but a
// further 2^-106 puts the exact sum above the midpoint, so it rounds up.
TEST(ExactSum, CorrectRoundingAtTheHalfwayPoint) {
  const std::vector<double> tie = {1.0, 0x1p-53};
  EXPECT_EQ(exactSum(tie.data(), tie.size()), 1.0);
  const std::vector<double> above = {1.0, 0x1p-53, 0x1p-106};
  EXPECT_EQ(naiveSum(above), 1.0);
  EXPECT_EQ(exactSum(above.data(), above.size()), 1.0 + 0x1p-52);
  const std::vector<double> below = {1.0, 0x1p-53, -0x1p-106};
  EXPECT_EQ(exactSum(below.data(), below.size()), 1.0);
}

// Against an independent exact method: values k * 2^-30 with |k| < 2^52 summed as 128-bit
// integers (exact), converted once. Values and their negatives shuffled in, plus a small value
// that survives only if nothing is lost.
TEST(ExactSum, EqualsA128BitIntegerAccumulatorOnCancellingSums) {
  nn::RandomStream rng(16);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::int64_t> ks;
    for (int i = 0; i < 500; ++i) {
      const auto k = std::int64_t(rng.below(std::uint64_t(1) << 52)) * (rng.below(2) ? 1 : -1) >>
                     int(rng.below(40));
      ks.push_back(k);
      if (i % 3 == 0) ks.push_back(-k);
    }
    ks.push_back(std::int64_t(trial) + 1);  // (trial + 1) * 2^-30
    __int128 total = 0;
    std::vector<double> values;
    for (std::int64_t k : ks) {
      total += k;
      values.push_back(std::ldexp(double(k), -30));
    }
    const double reference = std::ldexp(double(total), -30);
    EXPECT_EQ(exactSum(values.data(), values.size()), reference) << "trial " << trial;
  }
}

TEST(ExactSum, DotOfFp32VectorsIsExact) {
  // 2^48 + 1 - 2^48 = 1: each product is exact in fp64 and nothing is lost in the sum.
  const std::vector<float> a = {16777216.0f, 1.0f, -16777216.0f};
  const std::vector<float> b = {16777216.0f, 1.0f, 16777216.0f};
  EXPECT_EQ(exactDot(a.data(), b.data(), 3), 1.0);
}

}  // namespace
}  // namespace paritylab::playground

namespace paritylab::playground {
namespace {

// The long accumulator (used by the reduction experiment) against ExactSum: the two exact
// methods agree bit for bit on cancelling fp32 sums and products, subnormals included.
TEST(LongAccumulator, AgreesWithTheExpansionOnCancellingSumsAndProducts) {
  nn::RandomStream rng(9973);
  for (int trial = 0; trial < 20; ++trial) {
    LongAccumulator sum, dot;
    ExactSum sumReference, dotReference;
    for (int i = 0; i < 2000; ++i) {
      const float a = float((rng.below(2) ? -1.0 : 1.0) * std::exp2(rng.uniform(-140.0, 100.0)));
      const float b = float((rng.below(2) ? -1.0 : 1.0) * std::exp2(rng.uniform(-60.0, 60.0)));
      for (float v : {a, -a * (i % 2 == 0 ? 1.0f : 0.0f)}) {
        sum.add(v);
        sumReference.add(v);
      }
      dot.addProduct(a, b);
      dotReference.add(double(a) * double(b));
    }
    sum.add(0x1p-149f);  // survives only if nothing is lost
    sumReference.add(0x1p-149);
    EXPECT_EQ(sum.value(), sumReference.value()) << trial;
    EXPECT_EQ(dot.value(), dotReference.value()) << trial;
  }
  LongAccumulator cancel;
  for (float v : {1e30f, 1.0f, -1e30f}) cancel.add(v);
  EXPECT_EQ(cancel.value(), 1.0);
  cancel.add(INFINITY);
  EXPECT_TRUE(std::isnan(cancel.value()));
}

}  // namespace
}  // namespace paritylab::playground
