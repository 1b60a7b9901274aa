// Covers issue #4: the published TPU-vs-GPU ResNet-18 experiment (torchprime, 14 runs per
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
}

TEST_F(ReferenceExperiment, VerdictInPlainWords) {
  CompareOptions options;
  options.margin = 0.01;  // one accuracy point
  const Comparison c = compareSamples("tpu (xla)", tpu_, "gpu (cuda)", gpu_, options);
  ASSERT_TRUE(c.enough_data);
  ASSERT_TRUE(c.tost.has_value());
  EXPECT_EQ(c.verdict.rfind("No significant difference between tpu (xla) and gpu (cuda) (Welch "
                            "p = 0.17, alpha 0.05)",
                            0),
            0u)
      << c.verdict;
  EXPECT_EQ(c.verdict.find("nan"), std::string::npos) << c.verdict;
  if (std::getenv("PARITYLAB_SHOW_VERDICTS")) std::cout << c.verdict << "\n";
}

}  // namespace
}  // namespace paritylab::stats
