// Holm adjustment agrees with statsmodels 0.13 multipletests(method='holm'), and
// pairwise tests against a reference backend adjust their p-values with it.
#include "core/stats/multiple_comparisons.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

using testing::kA;
using testing::kB;

// from statsmodels.stats.multitest import multipletests
// multipletests([0.01, 0.04, 0.03, 0.005, 0.2, 0.04, 0.6], alpha=0.05, method='holm')
// multipletests([0.3, 0.0125, 0.6, 0.02], alpha=0.05, method='holm')
TEST(Holm, MatchesStatsmodelsMultipletests) {
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005, 0.2, 0.04, 0.6};
  const HolmResult r = holm(p, 0.05);
  const std::vector<double> adjusted = {0.06, 0.16, 0.15, 0.035, 0.4, 0.16, 0.6};
  const std::vector<bool> rejected = {false, false, false, true, false, false, false};
  for (std::size_t i = 0; i < p.size(); ++i) EXPECT_REL(r.adjusted[i], adjusted[i]);
  EXPECT_EQ(r.rejected, rejected);

  // Boundary: 0.0125 * 4 = alpha exactly is rejected (p <= alpha / m), as statsmodels does.
  const std::vector<double> p2 = {0.3, 0.0125, 0.6, 0.02};
  const HolmResult r2 = holm(p2, 0.05);
  const std::vector<double> adjusted2 = {0.6, 0.05, 0.6, 0.06};
  for (std::size_t i = 0; i < p2.size(); ++i) EXPECT_REL(r2.adjusted[i], adjusted2[i]);
  EXPECT_EQ(r2.rejected, (std::vector<bool>{false, true, false, false}));
}

TEST(Holm, CapsAtOneAndHandlesEmpty) {
  const std::vector<double> p = {0.9, 0.8};
  const HolmResult r = holm(p);
  EXPECT_EQ(r.adjusted[0], 1.0);
  EXPECT_EQ(r.adjusted[1], 1.0);
  EXPECT_TRUE(holm(std::vector<double>{}).adjusted.empty());
  EXPECT_THROW(holm(std::vector<double>{0.1, 1.5}), std::invalid_argument);
}

TEST(Pairwise, EveryGroupAgainstTheReferenceWithHolm) {
  const std::vector<double> c = {0.700, 0.671, 0.722, 0.690, 0.659, 0.710, 0.685};
  const std::vector<NamedSample> groups = {{"tpu-bf16", kA}, {"cpu-fp32", kB}, {"gpu-tf32", c}};
  const auto cmp = compareAgainstReference(groups, "cpu-fp32");
  ASSERT_EQ(cmp.size(), 2u);
  EXPECT_EQ(cmp[0].name, "tpu-bf16");
  EXPECT_EQ(cmp[0].reference, "cpu-fp32");
  EXPECT_EQ(cmp[1].name, "gpu-tf32");
  // The tpu-bf16 vs cpu-fp32 test is the Welch test of A vs B (p = 0.0023569102710784343).
  EXPECT_REL(cmp[0].test.p_value, 0.0023569102710784343);
  const std::vector<double> raw = {cmp[0].test.p_value, cmp[1].test.p_value};
  const HolmResult h = holm(raw);
  EXPECT_EQ(cmp[0].p_adjusted, h.adjusted[0]);
  EXPECT_EQ(cmp[1].p_adjusted, h.adjusted[1]);
  EXPECT_REL(cmp[0].p_adjusted, 2.0 * 0.0023569102710784343);  // smallest of 2: times 2
  EXPECT_TRUE(cmp[0].rejected);
}

TEST(Pairwise, UnknownReferenceIsNamed) {
  const std::vector<NamedSample> groups = {{"tpu-bf16", kA}, {"cpu-fp32", kB}};
  try {
    compareAgainstReference(groups, "gpu-fp16");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'gpu-fp16'"), std::string::npos) << e.what();
  }
  const std::vector<NamedSample> short_group = {{"tpu-bf16", {0.7}}, {"cpu-fp32", kB}};
  EXPECT_THROW(compareAgainstReference(short_group, "cpu-fp32"), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::stats
