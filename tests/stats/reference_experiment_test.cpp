// The published TPU-vs-GPU ResNet-18 experiment (torchprime, 14 runs per
// platform). Welch's t-test on the epoch-25 top-1 accuracies reproduces the tutorial notebook:
// t = 1.4035, p = 0.17345 (SciPy: ttest_ind(xla, cuda, equal_var=False) ->
// statistic 1.403482204608231, pvalue 0.17344679058804213).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/stats/descriptive.h"
#include "core/stats/hodges_lehmann.h"
#include "core/stats/mann_whitney.h"
#include "core/stats/t_test.h"
#include "core/stats/tost.h"
#include "core/stats/verdict.h"
#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

// Splits one CSV record (RFC 4180 quoting, no embedded newlines in this file).
std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        fields.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.emplace_back();
    } else {
      fields.back() += ch;
    }
  }
  return fields;
}

// Final (epoch 25) top-1 accuracy per run, by device ('xla' or 'cuda'); a run is run_name +
// datetime, the device is inside the Python-dict `hyperparameters` column.
std::map<std::string, std::vector<double>> finalAccuracyByDevice(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::string line;
  std::getline(in, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();  // the file has CRLF line ends
  EXPECT_EQ(line, "run_name,datetime,hyperparameters,epoch,train_loss,test_loss,accuracy_top1");
  std::map<std::pair<std::string, std::string>, std::pair<std::string, double>> runs;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto f = splitCsv(line);
    if (f.size() != 7 || std::stoi(f[3]) != 25) continue;
    const std::string key = "'device': '";
    const auto at = f[2].find(key);
    EXPECT_NE(at, std::string::npos) << line;
    const auto begin = at + key.size();
    const std::string device = f[2].substr(begin, f[2].find('\'', begin) - begin);
    EXPECT_TRUE(
        runs.emplace(std::make_pair(f[0], f[1]), std::make_pair(device, std::stod(f[6]))).second)
        << "duplicate run " << f[0] << " " << f[1];
  }
  std::map<std::string, std::vector<double>> by_device;
  for (const auto& [run, result] : runs) by_device[result.first].push_back(result.second);
  return by_device;
}

class ReferenceExperiment : public ::testing::Test {
 protected:
  void SetUp() override {
    auto by_device =
        finalAccuracyByDevice(PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv");
    tpu_ = by_device["xla"];
    gpu_ = by_device["cuda"];
  }
  std::vector<double> tpu_, gpu_;
};

TEST_F(ReferenceExperiment, WelchTTestReproducesTheNotebook) {
  ASSERT_EQ(tpu_.size(), 14u);
  ASSERT_EQ(gpu_.size(), 14u);
  const TTestResult r = tTest(tpu_, gpu_, TTestKind::Welch);
  EXPECT_NEAR(r.t, 1.4035, 5e-5);
  EXPECT_REL(r.t, 1.403482204608231);
  EXPECT_REL(r.p_value, 0.17344679058804213);
  EXPECT_NEAR(r.mean_a, 0.6979, 5e-5);
  EXPECT_NEAR(r.sd_a, 0.0090, 5e-5);
  EXPECT_NEAR(r.mean_b, 0.6937, 5e-5);
  EXPECT_NEAR(r.sd_b, 0.0065, 5e-5);
  // np.mean / np.std(ddof=1) of the 14 + 14 values
  EXPECT_REL(summarize(tpu_).mean, 0.6978857142857142);
  EXPECT_REL(summarize(tpu_).sd, 0.008993233109301783);
  EXPECT_REL(summarize(gpu_).mean, 0.6937214285714285);
  EXPECT_REL(summarize(gpu_).sd, 0.006509540757927627);
}

// ttost_ind(xla, cuda, -0.01, 0.01, usevar='unequal')[0]; stats.mannwhitneyu(xla, cuda)
TEST_F(ReferenceExperiment, EquivalenceAndRankTest) {
  const TostResult e = tost(tpu_, gpu_, 0.01, 0.05, TTestKind::Welch);
  EXPECT_REL(e.p_value, 0.03051351864412416);
  EXPECT_TRUE(e.equivalent);
  const MannWhitneyResult u = mannWhitneyU(tpu_, gpu_);
  EXPECT_TRUE(u.ties);  // 0.7034 and 0.7108 appear twice: normal approximation
  EXPECT_EQ(u.method, MannWhitneyMethod::Asymptotic);
  EXPECT_EQ(u.u, 125.0);
  EXPECT_REL(u.p_value, 0.22324415728809321);
  // Hodges-Lehmann shift and CI: the brute force described in
  // hodges_lehmann_test.cpp over the 196 differences; ties, so the normal critical value, k = 55.
  const HodgesLehmannResult hl = hodgesLehmann(tpu_, gpu_);
  EXPECT_FALSE(hl.exact);
  EXPECT_EQ(hl.k, 55u);
  EXPECT_DOUBLE_EQ(hl.estimate, 0.004249999999999976);
  EXPECT_DOUBLE_EQ(hl.ci_low, -0.0017000000000000348);
  EXPECT_DOUBLE_EQ(hl.ci_high, 0.011099999999999999);
  EXPECT_NEAR(hl.achieved_confidence, 0.9544209927035509, 1e-12);
}

// The verdict for the reference experiment, word for word. What 14 vs 14 runs could
// detect (Welch, two-sided, alpha 0.05, 80% power): welch df 23.688172259897822,
// sd_w 0.007850234475395077, statsmodels
//   brentq(lambda e: TTestIndPower().power(e, 14, 0.05, ratio=1, df=welch_df) - 0.8, ...)
//   = 1.1043303501100294 -> MDD 0.008669252186658868 (0.87 points).
// TOST p (ttost_ind(xla, cuda, -m, m, usevar='unequal')[0]): m = 0.01 -> 0.0305, m = 0.005 ->
// 0.390; runs for ±0.5 points at planning sd 0.007850234475395077: 43 (the SciPy loop in
// detectable_difference_test.cpp).
TEST_F(ReferenceExperiment, VerdictInPlainWords) {
  CompareOptions options;
  options.margin = 0.01;  // one accuracy point
  const Comparison c = compareSamples("xla", tpu_, "cuda", gpu_, options);
  ASSERT_TRUE(c.enough_data);
  ASSERT_TRUE(c.tost.has_value());
  ASSERT_TRUE(c.detectable.has_value());
  EXPECT_TRUE(testing::relClose(c.detectable->difference, 0.008669252186658868, 1e-8));
  EXPECT_EQ(c.verdict,
            "No significant difference between xla and cuda (Welch p = 0.17, alpha 0.05); "
            "equivalent within ±1 point (TOST p = 0.031). With 14 runs each, this study would "
            "detect a difference of 0.87 points or more 80% of the time; smaller differences "
            "could go unnoticed.");

  options.margin = 0.005;
  const Comparison half = compareSamples("xla", tpu_, "cuda", gpu_, options);
  ASSERT_TRUE(half.runs_needed.has_value());
  EXPECT_EQ(half.runs_needed->n_per_group, 43u);
  EXPECT_EQ(half.verdict,
            "No significant difference between xla and cuda (Welch p = 0.17, alpha 0.05), and "
            "equivalence within ±0.5 points is not shown (TOST p = 0.39). With 14 runs each, this "
            "study would detect a difference of 0.87 points or more 80% of the time; smaller "
            "differences could go unnoticed. To show equivalence within ±0.5 points, about 43 "
            "runs per backend are needed (80% power if the backends truly agree).");

  const Comparison plain = compareSamples("xla", tpu_, "cuda", gpu_);
  EXPECT_EQ(plain.verdict,
            "No significant difference between xla and cuda (Welch p = 0.17, alpha 0.05). With 14 "
            "runs each, this study would detect a difference of 0.87 points or more 80% of the "
            "time; smaller differences could go unnoticed. Not significant is not the same as "
            "equivalent: give an equivalence margin to test that.");
  for (const Comparison* x : {&c, &half, &plain}) {
    EXPECT_EQ(x->verdict.find("nan"), std::string::npos) << x->verdict;
    EXPECT_EQ(x->verdict.find("underpowered"), std::string::npos) << x->verdict;
    if (std::getenv("PARITYLAB_SHOW_VERDICTS")) std::cout << x->verdict << "\n";
  }
}

}  // namespace
}  // namespace paritylab::stats
