// Verdicts speak of the metric they compare: accuracy in percent and points (unchanged), a loss in
// nats with "lower is better", perplexity as a plain number; the words are the metric's, the
// numbers the test's (t = 6.12, df = 4 for the loss samples below; CI from t(0.975, 4) = 2.776).

#include "core/stats/metric_words.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/stats/verdict.h"

namespace paritylab::stats {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(MetricWords, ValuesAndDifferencesAreWrittenInTheMetricsUnits) {
  EXPECT_EQ(accuracyWords().value(0.859), "85.90%");
  EXPECT_EQ(accuracyWords().difference(0.0012), "0.12 points");
  EXPECT_EQ(accuracyWords().difference(0.01), "1.00 point");
  EXPECT_EQ(lossWords("validation loss").value(1.52341), "1.5234 nats");
  EXPECT_EQ(lossWords("validation loss").difference(0.0123), "0.0123 nats");
  EXPECT_EQ(perplexityWords().value(38.0234), "38.023");
  EXPECT_EQ(perplexityWords().difference(1.2), "1.200");
}

TEST(MetricWords, ALossVerdictSaysNatsAndThatLowerIsBetter) {
  const std::vector<double> a{1.54, 1.55, 1.56}, b{1.49, 1.50, 1.51};
  CompareOptions options;
  options.words = lossWords("validation loss");
  options.margin = 0.01;
  const Comparison c = compareSamples("tpu-bf16", a, "cpu-fp32", b, options);
  ASSERT_TRUE(c.t_test);
  EXPECT_NEAR(c.t_test->t, 6.1237, 1e-4);
  EXPECT_TRUE(contains(c.verdict,
                       "tpu-bf16 is higher than cpu-fp32 by 0.0500 nats of validation loss (lower "
                       "is better; 1.5500 nats vs 1.5000 nats; 95% CI 0.0273 to 0.0727 nats for "
                       "tpu-bf16 - cpu-fp32; Welch p = 0.0036"))
      << c.verdict;
  EXPECT_TRUE(contains(c.verdict, "equivalence within ±0.01 nats is not shown")) << c.verdict;
}

TEST(MetricWords, APerplexityVerdictHasNoUnitAndAnAccuracyVerdictIsUnchanged) {
  const std::vector<double> a{38.0, 39.0, 40.0, 38.5}, b{38.2, 39.1, 39.6, 38.7};
  CompareOptions options;
  options.words = perplexityWords();
  const Comparison ppl = compareSamples("gpu-amp-bf16", a, "gpu-tf32", b, options);
  EXPECT_TRUE(contains(ppl.verdict, "would detect a difference of ")) << ppl.verdict;
  EXPECT_FALSE(contains(ppl.verdict, "points")) << ppl.verdict;
  const std::vector<double> x{0.80, 0.81, 0.82}, y{0.85, 0.86, 0.87};
  const Comparison accuracy = compareSamples("tpu-bf16", x, "cpu-fp32", y);
  EXPECT_TRUE(contains(accuracy.verdict,
                       "tpu-bf16 is lower than cpu-fp32 by 5.00 accuracy points (81.00% vs "
                       "86.00%; 95% CI -7.27 to -2.73 points for tpu-bf16 - cpu-fp32"))
      << accuracy.verdict;
}

}  // namespace
}  // namespace paritylab::stats
