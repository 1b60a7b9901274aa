// The default dataset (Debian dataset-fashion-mnist, IDX gz) loads completely,
// with its known sizes, class names and first labels; subsets are stratified; normalisation uses
// training statistics.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "core/data/dataset.h"
#include "core/data/idx_loader.h"
#include "core/data/stratified_split.h"

namespace paritylab::data {
namespace {

bool packageInstalled() {
  return std::filesystem::exists(std::string(kDefaultFashionMnistDir) +
                                 "/train-images-idx3-ubyte.gz");
}

TEST(FashionMnistPackage, LoadsAllImagesWithKnownLabels) {
  if (!packageInstalled()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  DatasetSpec spec;  // defaults: "fashion-mnist", everything, normalised
  spec.normalize = false;
  const auto start = std::chrono::steady_clock::now();
  const DataSplit s = loadDataset(spec);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "Fashion-MNIST 60k+10k loaded in " << seconds << " s\n";
  EXPECT_EQ(s.train.size(), 60000u);
  EXPECT_EQ(s.test.size(), 10000u);
  EXPECT_EQ(s.train.images.size(), 60000u * 784u);
  EXPECT_EQ(s.train.channels, 1);
  EXPECT_EQ(s.train.height, 28);
  EXPECT_EQ(s.train.width, 28);
  EXPECT_EQ(s.train.numClasses, 10);
  ASSERT_EQ(s.train.classNames.size(), 10u);
  EXPECT_EQ(s.train.classNames[0], "T-shirt/top");
  EXPECT_EQ(s.train.classNames[9], "Ankle boot");
  EXPECT_EQ(s.train.labels[0], 9);  // Ankle boot
  EXPECT_EQ(s.train.labels[1], 0);  // T-shirt/top
  EXPECT_EQ(s.test.labels[0], 9);
  EXPECT_EQ(s.test.labels[1], 2);  // Pullover
  EXPECT_TRUE(s.train.flipPreservesLabel);
  // Balanced: 6000 per class in train, 1000 in test.
  std::vector<int> trainCount(10), testCount(10);
  for (int l : s.train.labels) ++trainCount[std::size_t(l)];
  for (int l : s.test.labels) ++testCount[std::size_t(l)];
  for (int c = 0; c < 10; ++c) {
    EXPECT_EQ(trainCount[std::size_t(c)], 6000);
    EXPECT_EQ(testCount[std::size_t(c)], 1000);
  }
  // Pixels are bytes / 255; Fashion-MNIST's well-known training mean is 0.2860, sd 0.3530.
  std::vector<double> mean, sd;
  channelStatistics(s.train, mean, sd);
  EXPECT_NEAR(mean[0], 0.2860, 5e-4);
  EXPECT_NEAR(sd[0], 0.3530, 5e-4);
  EXPECT_EQ(s.train.channelMean, std::vector<float>{0.0f});
  EXPECT_EQ(s.train.channelStd, std::vector<float>{1.0f});
}

TEST(FashionMnistPackage, StratifiedSubsetsAreNormalisedWithTrainStatistics) {
  if (!packageInstalled()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  DatasetSpec spec;
  spec.trainSize = 10000;
  spec.testSize = 3000;
  spec.seed = 1;
  const DataSplit s = loadDataset(spec);
  ASSERT_EQ(s.train.size(), 10000u);
  ASSERT_EQ(s.test.size(), 3000u);
  std::vector<int> trainCount(10), testCount(10);
  for (int l : s.train.labels) ++trainCount[std::size_t(l)];
  for (int l : s.test.labels) ++testCount[std::size_t(l)];
  for (int c = 0; c < 10; ++c) {
    EXPECT_EQ(trainCount[std::size_t(c)], 1000);  // balanced source -> exactly balanced subset
    EXPECT_EQ(testCount[std::size_t(c)], 300);
  }
  std::vector<double> mean, sd;
  channelStatistics(s.train, mean, sd);
  EXPECT_NEAR(mean[0], 0.0, 1e-5);
  EXPECT_NEAR(sd[0], 1.0, 1e-5);
  ASSERT_EQ(s.test.channelMean.size(), 1u);
  EXPECT_EQ(s.test.channelMean, s.train.channelMean);
  EXPECT_EQ(s.test.channelStd, s.train.channelStd);
  EXPECT_NEAR(s.train.channelMean[0], 0.286, 0.01);
  // Same seed -> same subset; another seed -> another subset.
  const DataSplit again = loadDataset(spec);
  EXPECT_EQ(again.train.labels, s.train.labels);
  EXPECT_EQ(again.train.images, s.train.images);
  spec.seed = 2;
  const DataSplit other = loadDataset(spec);
  EXPECT_NE(other.train.images, s.train.images);
}

}  // namespace
}  // namespace paritylab::data
