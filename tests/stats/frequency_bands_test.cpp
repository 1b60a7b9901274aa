// Token-frequency bands: a language model's per-class table cuts its symbols into bands of about a
// third of the target positions each, counted by hand on small label sets.
#include "core/stats/frequency_bands.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace paritylab::stats {
namespace {

// 12 targets: symbol 3 x5, 1 x3, 0 x2, 4 x1, 2 x1, 5 never. Cumulative targets before each
// symbol, most frequent first: 3 at 0 (< 4: frequent), 1 at 5 (< 8: medium), 0 at 8 (rare), then
// 2 and 4 (one target each: ties in id order), rare too.
TEST(FrequencyBands, CutsSymbolsIntoThirdsOfThePositions) {
  const std::vector<std::int32_t> labels = {3, 1, 3, 0, 3, 1, 4, 3, 0, 3, 1, 2};
  const FrequencyBands bands = frequencyBands(labels, 6);
  ASSERT_EQ(bands.names, (std::vector<std::string>{"frequent", "medium", "rare"}));
  EXPECT_EQ(bands.symbols[0], (std::vector<int>{3}));
  EXPECT_EQ(bands.symbols[1], (std::vector<int>{1}));
  EXPECT_EQ(bands.symbols[2], (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(bands.positions, (std::vector<std::size_t>{5, 3, 4}));
  EXPECT_EQ(bands.bandOfSymbol, (std::vector<int>{2, 1, 2, 0, 2, -1}));
}

TEST(FrequencyBands, AccuracyCountsTheTargetsOfEachBand) {
  const std::vector<std::int32_t> labels = {3, 1, 3, 0, 3, 1, 4, 3, 0, 3, 1, 2};
  const std::vector<std::int32_t> predicted = {3, 1, 0, 0, 3, 3, 4, 3, 1, 3, 1, 5};
  const FrequencyBands bands = frequencyBands(labels, 6);
  const std::vector<double> accuracy = perBandAccuracy(labels, predicted, bands);
  ASSERT_EQ(accuracy.size(), 3u);
  EXPECT_DOUBLE_EQ(accuracy[0], 4.0 / 5.0);  // symbol 3: one of five wrong
  EXPECT_DOUBLE_EQ(accuracy[1], 2.0 / 3.0);  // symbol 1: one of three wrong
  EXPECT_DOUBLE_EQ(accuracy[2], 2.0 / 4.0);  // 0 right, 0 wrong, 4 right, 2 wrong
}

// One symbol holding over two thirds of the targets swallows the medium band: the band left
// empty is dropped rather than reported as NaN.
TEST(FrequencyBands, ADominantSymbolLeavesNoEmptyBand) {
  const std::vector<std::int32_t> labels = {0, 0, 0, 0, 0, 0, 0, 1, 2, 0};
  const FrequencyBands bands = frequencyBands(labels, 3);
  ASSERT_EQ(bands.names, (std::vector<std::string>{"frequent", "rare"}));
  EXPECT_EQ(bands.symbols[1], (std::vector<int>{1, 2}));
  EXPECT_EQ(bands.bandOfSymbol, (std::vector<int>{0, 1, 1}));
}

TEST(FrequencyBands, RefusesLabelsOutsideTheVocabularyNamingThePosition) {
  const std::vector<std::int32_t> labels = {0, 1, 7};
  try {
    frequencyBands(labels, 3);
    FAIL() << "a label outside the vocabulary was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("label 7 at position 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(frequencyBands(std::vector<std::int32_t>{}, 3), std::invalid_argument);
  const FrequencyBands bands = frequencyBands(std::vector<std::int32_t>{0, 1}, 3);
  EXPECT_THROW(perBandAccuracy(std::vector<std::int32_t>{2}, std::vector<std::int32_t>{2}, bands),
               std::invalid_argument);  // symbol 2 was never a target: in no band
}

}  // namespace
}  // namespace paritylab::stats
