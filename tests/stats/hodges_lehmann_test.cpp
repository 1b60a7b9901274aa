// The Hodges-Lehmann shift estimate and its distribution-free
// CI, checked against an independent brute force in Python: all m n pairwise differences sorted,
// the median, and the order statistics D_(k), D_(m n + 1 - k) with k the smallest q whose null
// P(U <= q) reaches alpha / 2 (alpha one-sided), found by a linear scan; the exact null
// distribution of U by enumerating every rank subset (itertools.combinations), the normal one as
// Phi((q + 0.5 - m n / 2) / sigma) with the tie-corrected sigma (R's wilcox.test(conf.int = TRUE)
// rules: exact without ties when both samples have fewer than 50 values).
#include "core/stats/hodges_lehmann.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

using testing::kA;
using testing::kB;

const std::vector<double> kA6 = {0.712, 0.698, 0.705, 0.721, 0.689, 0.701};
const std::vector<double> kB5 = {0.702, 0.691, 0.688, 0.695, 0.699};

// The bounds are differences of the inputs: the brute force forms the same x - y in doubles, so
// they agree exactly; the coverage is a ratio of counts (exact) or a normal cdf (1e-12).
void expectHl(const HodgesLehmannResult& r, bool exact, double estimate, double low, double high,
              std::size_t k, double confidence) {
  EXPECT_EQ(r.exact, exact);
  EXPECT_DOUBLE_EQ(r.estimate, estimate);
  EXPECT_DOUBLE_EQ(r.ci_low, low);
  EXPECT_DOUBLE_EQ(r.ci_high, high);
  EXPECT_EQ(r.k, k);
  EXPECT_NEAR(r.achieved_confidence, confidence, 1e-12);
}

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(HodgesLehmann, ExactWithoutTies) {
  expectHl(hodgesLehmann(kA6, kB5), true, 0.010000000000000009, -0.0040000000000000036,
           0.02400000000000002, 4, 0.9696969696969697);
  std::vector<double> a10(kA.begin(), kA.begin() + 9);
  a10.push_back(0.7111);
  expectHl(hodgesLehmann(a10, kB), true, 0.013000000000000012, 0.0030000000000000027,
           0.02100000000000002, 21, 0.9565264456905324);
}

TEST(HodgesLehmann, OneSidedBounds) {
  expectHl(hodgesLehmann(kA6, kB5, Tail::Greater, 0.1), true, 0.010000000000000009,
           0.0010000000000000009, kInf, 8, 0.9112554112554112);
  expectHl(hodgesLehmann(kA6, kB5, Tail::Less, 0.1), true, 0.010000000000000009, -kInf,
           0.017000000000000015, 8, 0.9112554112554112);
}

TEST(HodgesLehmann, NormalApproximationWithTiesAndForLargeSamples) {
  // kA and kB share 0.699: a tie, so the normal approximation with tie correction.
  expectHl(hodgesLehmann(kA, kB), false, 0.01150000000000001, 0.0040000000000000036,
           0.020000000000000018, 26, 0.9572418477058197);
  // 60 vs 55 values (a few ties), 99%.
  std::vector<double> a, b;
  for (int i = 0; i < 60; ++i) a.push_back(0.70 + ((i * 7919) % 1000) / 1e4);
  for (int j = 0; j < 55; ++j) b.push_back(0.699 + ((j * 104729) % 997) / 1e4);
  expectHl(hodgesLehmann(a, b, Tail::TwoSided, 0.01), false, 0.006199999999999983,
           -0.008499999999999952, 0.02189999999999992, 1190, 0.9900718068316569);
}

TEST(HodgesLehmann, ShiftEquivariantAndAntisymmetric) {
  std::vector<double> shifted = kA6;
  for (double& v : shifted) v += 0.5;  // exactly representable shift of the estimate's inputs
  const HodgesLehmannResult base = hodgesLehmann(kA6, kB5);
  const HodgesLehmannResult moved = hodgesLehmann(shifted, kB5);
  EXPECT_NEAR(moved.estimate, base.estimate + 0.5, 1e-12);
  EXPECT_NEAR(moved.ci_low, base.ci_low + 0.5, 1e-12);
  const HodgesLehmannResult swapped = hodgesLehmann(kB5, kA6);
  EXPECT_DOUBLE_EQ(swapped.estimate, -base.estimate);
  EXPECT_DOUBLE_EQ(swapped.ci_low, -base.ci_high);
  EXPECT_DOUBLE_EQ(swapped.ci_high, -base.ci_low);
}

TEST(HodgesLehmann, TinySamplesAndBadInput) {
  // 2 vs 2: no q reaches alpha / 2 below P(U <= 0) = 1/6, so k = 1 and the CI is the full range.
  const std::vector<double> a = {1.0, 2.0}, b = {0.0, 0.5};
  const HodgesLehmannResult r = hodgesLehmann(a, b);
  EXPECT_EQ(r.k, 1u);
  EXPECT_DOUBLE_EQ(r.ci_low, 0.5);
  EXPECT_DOUBLE_EQ(r.ci_high, 2.0);
  EXPECT_DOUBLE_EQ(r.estimate, 1.25);
  const std::vector<double> empty;
  EXPECT_THROW(hodgesLehmann(empty, b), std::invalid_argument);
  const std::vector<double> nan = {std::numeric_limits<double>::quiet_NaN()};
  EXPECT_THROW(hodgesLehmann(nan, b), std::invalid_argument);
  EXPECT_THROW(hodgesLehmann(a, b, Tail::TwoSided, 1.0), std::invalid_argument);
}

// Paired (the CI beside the Wilcoxon signed-rank test): the same brute force on
// the Walsh averages of the non-zero differences, the exact null distribution of R+ enumerated
// over all 2^n sign patterns (itertools.product), else the normal one with tie correction.
TEST(HodgesLehmann, PairedWalshAverages) {
  const std::vector<double> a = {0.712, 0.698, 0.705, 0.721, 0.689, 0.701, 0.715, 0.694};
  const std::vector<double> b = {0.702, 0.691, 0.708, 0.695, 0.699, 0.684, 0.693, 0.690};
  // |d| has a tie (0.010000000000000009 twice): normal critical value.
  expectHl(pairedHodgesLehmann(a, b), false, 0.009000000000000008, -0.0030000000000000027,
           0.021499999999999964, 4, 0.957937266643234);
  // A zero difference is dropped (and, as R, forces the normal critical value): the same result.
  std::vector<double> a0 = a, b0 = b;
  a0.push_back(0.7);
  b0.push_back(0.7);
  const HodgesLehmannResult zero = pairedHodgesLehmann(a0, b0);
  EXPECT_EQ(zero.n_a, 8u);
  expectHl(zero, false, 0.009000000000000008, -0.0030000000000000027, 0.021499999999999964, 4,
           0.957937266643234);
  // No ties, no zeros: exact.
  const std::vector<double> a2 = {0.712, 0.698, 0.705, 0.721,  0.689,
                                  0.701, 0.715, 0.694, 0.7031, 0.6999};
  const std::vector<double> b2 = {0.702, 0.691, 0.708, 0.695, 0.6995,
                                  0.684, 0.693, 0.690, 0.7,   0.7};
  expectHl(pairedHodgesLehmann(a2, b2), true, 0.007000000000000006, -0.000250000000000028,
           0.016000000000000014, 9, 0.951171875);
  expectHl(pairedHodgesLehmann(a2, b2, Tail::Greater, 0.1), true, 0.007000000000000006,
           0.0020000000000000018, kInf, 15, 0.9033203125);
  EXPECT_THROW(pairedHodgesLehmann(a, a), std::invalid_argument);
  EXPECT_THROW(pairedHodgesLehmann(a, a2), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::stats
