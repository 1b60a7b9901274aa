// Per-class accuracy, its aggregation per backend with
// Welch + Holm over classes (SciPy ttest_ind(equal_var=False), statsmodels multipletests 'holm'),
// and the relative weight distance per layer on a hand-made pair of weight sets (NumPy norms).
#include "core/stats/per_class.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/stats/weight_divergence.h"
#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

TEST(PerClass, AccuracyPerClass) {
  const std::vector<std::int32_t> labels = {0, 0, 1, 1, 2, 2, 2, 0, 1, 2};
  const std::vector<std::int32_t> predicted = {0, 1, 1, 1, 2, 0, 2, 0, 2, 2};
  const std::vector<double> acc = perClassAccuracy(labels, predicted, 4);
  EXPECT_DOUBLE_EQ(acc[0], 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(acc[1], 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(acc[2], 3.0 / 4.0);
  EXPECT_TRUE(std::isnan(acc[3]));  // no example of class 3
  const std::vector<std::int32_t> bad = {0, 5};
  EXPECT_THROW(perClassAccuracy(bad, bad, 4), std::invalid_argument);
}

// A: 4 runs x 3 classes, reference: 3 runs. Class 0 moves (+10 points), 1 and 2 do not.
//   ttest_ind(A[:, c], R[:, c], equal_var=False).pvalue: 7.114467314235294e-05,
//   0.5889215492858177, 0.6196362109235584; multipletests(p, 0.05, 'holm') ->
//   [0.00021343401942705884, 1.0, 1.0], rejected [True, False, False].
TEST(PerClass, WelchAndHolmOverClasses) {
  const std::vector<std::vector<double>> a = {
      {0.90, 0.80, 0.70}, {0.92, 0.78, 0.72}, {0.91, 0.79, 0.69}, {0.93, 0.81, 0.70}};
  const std::vector<std::vector<double>> ref = {
      {0.80, 0.81, 0.70}, {0.82, 0.79, 0.71}, {0.81, 0.80, 0.68}};
  const std::vector<ClassDifference> d = compareClasses(a, ref);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_REL(d[0].welch.t, 12.124355652982159);
  EXPECT_REL(d[0].welch.p_value, 7.114467314235294e-05);
  EXPECT_REL(d[1].welch.p_value, 0.5889215492858177);
  EXPECT_REL(d[2].welch.p_value, 0.6196362109235584);
  EXPECT_REL(d[0].p_holm, 0.00021343401942705884);
  EXPECT_EQ(d[1].p_holm, 1.0);
  EXPECT_TRUE(d[0].beyond_seed_noise);
  EXPECT_FALSE(d[1].beyond_seed_noise);
  EXPECT_FALSE(d[2].beyond_seed_noise);
  EXPECT_NEAR(d[0].welch.mean_diff, 0.915 - 0.81, 1e-12);
  EXPECT_REL(d[2].sd_reference, 0.01527525231651942);
  const std::vector<std::vector<double>> one_run = {{0.8, 0.8, 0.7}};
  EXPECT_THROW(compareClasses(a, one_run), std::invalid_argument);
  const std::vector<std::vector<double>> ragged = {{0.8, 0.8}, {0.8, 0.8, 0.7}};
  EXPECT_THROW(compareClasses(a, ragged), std::invalid_argument);
}

// a = [3, 4, 0, -1.5, 2], b = [3, 4.5, 0.25, -1.5, 1] (float32): ||a|| = 5.5901699437494745,
// ||b - a|| = 1.14564392373896, relative 0.20493901531919195.
TEST(WeightDivergence, RelativeDistancePerLayer) {
  const std::vector<LayerWeights> a = {{"fc.weight", {3, 4, 0, -1.5f, 2}}, {"fc.bias", {0, 0}}};
  const std::vector<LayerWeights> b = {{"fc.weight", {3, 4.5f, 0.25f, -1.5f, 1}},
                                       {"fc.bias", {0, 0}}};
  const auto d = relativeWeightDistance(a, b);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].name, "fc.weight");
  EXPECT_EQ(d[0].count, 5u);
  EXPECT_REL(d[0].norm_a, 5.5901699437494745);
  EXPECT_REL(d[0].distance, 1.14564392373896);
  EXPECT_REL(d[0].relative, 0.20493901531919195);
  EXPECT_EQ(d[1].relative, 0.0);  // both zero
  const std::vector<LayerWeights> moved_bias = {b[0], {"fc.bias", {0, 1}}};
  EXPECT_TRUE(std::isinf(relativeWeightDistance(a, moved_bias)[1].relative));
  EXPECT_EQ(relativeWeightDistance(a, a)[0].relative, 0.0);
  const std::vector<LayerWeights> renamed = {{"conv.weight", {3, 4, 0, -1.5f, 2}}, b[1]};
  EXPECT_THROW(relativeWeightDistance(a, renamed), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::stats
