// The loadDataset pipeline on the synthetic source (deterministic in seed,
// learnable patterns), source parsing errors, class filtering, stratified allocation/subsets and
// splits, and normalisation with training statistics.

#include <gtest/gtest.h>

#include <map>

#include "core/data/dataset.h"
#include "core/data/stratified_split.h"
#include "core/data/synthetic_source.h"
#include "data_test_support.h"

namespace paritylab::data {
namespace {

using testing::expectDataError;

std::vector<std::size_t> countsOf(const Dataset& d) {
  std::vector<std::size_t> c(std::size_t(d.numClasses), 0);
  for (int l : d.labels) ++c[std::size_t(l)];
  return c;
}

TEST(Synthetic, DefaultsDeterministicInSeed) {
  DatasetSpec spec;
  spec.source = "synthetic";
  spec.seed = 5;
  const DataSplit a = loadDataset(spec);
  EXPECT_EQ(a.train.size(), 2000u);
  EXPECT_EQ(a.test.size(), 500u);
  EXPECT_EQ(a.train.channels, 1);
  EXPECT_EQ(a.train.height, 28);
  EXPECT_EQ(a.train.numClasses, 10);
  EXPECT_FALSE(a.train.flipPreservesLabel);
  EXPECT_EQ(countsOf(a.train), std::vector<std::size_t>(10, 200));
  const DataSplit b = loadDataset(spec);
  EXPECT_EQ(a.train.images, b.train.images);
  EXPECT_EQ(a.test.images, b.test.images);
  spec.seed = 6;
  EXPECT_NE(loadDataset(spec).train.images, a.train.images);
  EXPECT_NE(a.train.images, std::vector<float>(a.train.images.size(), 0.0f));
}

// Independent evidence that the classes are learnable: a nearest-class-mean classifier (far
// weaker than the mlp) already separates them.
TEST(Synthetic, NearestMeanClassifierSeparatesTheClasses) {
  const SourceData s = generateSynthetic(1000, 500, 11);
  const std::size_t item = s.train.imageSize();
  std::vector<std::vector<double>> means(10, std::vector<double>(item, 0.0));
  for (std::size_t i = 0; i < s.train.size(); ++i)
    for (std::size_t k = 0; k < item; ++k)
      means[std::size_t(s.train.labels[i])][k] += s.train.image(i)[k] / 100.0;
  int correct = 0;
  for (std::size_t i = 0; i < s.test.size(); ++i) {
    int best = 0;
    double bestDistance = 1e300;
    for (int c = 0; c < 10; ++c) {
      double d = 0;
      for (std::size_t k = 0; k < item; ++k) {
        const double diff = s.test.image(i)[k] - means[std::size_t(c)][k];
        d += diff * diff;
      }
      if (d < bestDistance) bestDistance = d, best = c;
    }
    correct += best == s.test.labels[i];
  }
  EXPECT_GT(double(correct) / double(s.test.size()), 0.9);
}

TEST(Synthetic, SizesAndClassesFromTheSpec) {
  DatasetSpec spec;
  spec.source = "synthetic";
  spec.trainSize = 300;
  spec.testSize = 90;
  spec.classes = {7, 2, 4};
  const DataSplit s = loadDataset(spec);
  EXPECT_EQ(s.train.size(), 300u);
  EXPECT_EQ(s.test.size(), 90u);
  EXPECT_EQ(s.train.numClasses, 3);
  EXPECT_EQ(s.train.classNames,
            (std::vector<std::string>{"stripes 72", "blob top-right", "blob bottom-right"}));
  EXPECT_EQ(countsOf(s.test), (std::vector<std::size_t>{30, 30, 30}));
}

TEST(Sources, UnknownAndMalformedSourcesAreNamed) {
  DatasetSpec spec;
  spec.source = "imagenet:/data";
  expectDataError([&] { loadDataset(spec); },
                  {"imagenet:/data", "fashion-mnist", "cifar10:DIR", "celeba:DIR", "synthetic"});
  spec.source = "cifar10";
  expectDataError([&] { loadDataset(spec); }, {"cifar10", "needs a directory"});
  spec.source = "folder:";
  expectDataError([&] { loadDataset(spec); }, {"folder:", "empty"});
  spec.source = "synthetic";
  spec.testFraction = 1.5;
  expectDataError([&] { loadDataset(spec); }, {"testFraction"});
  spec.testFraction = 0.0;
  spec.classes = {1, 12};
  expectDataError([&] { loadDataset(spec); }, {"class 12", "out of range"});
}

TEST(Sources, ClassesFilterRelabelsInGivenOrder) {
  Dataset d;
  d.numClasses = 4;
  d.height = d.width = 1;
  d.classNames = {"a", "b", "c", "d"};
  d.labels = {0, 1, 2, 3, 2, 1, 3};
  d.images = {0, 1, 2, 3, 4, 5, 6};
  const Dataset k = keepClasses(d, {3, 1}, "test");
  EXPECT_EQ(k.numClasses, 2);
  EXPECT_EQ(k.classNames, (std::vector<std::string>{"d", "b"}));
  EXPECT_EQ(k.labels, (std::vector<std::int32_t>{1, 0, 1, 0}));
  EXPECT_EQ(k.images, (std::vector<float>{1, 3, 5, 6}));
  expectDataError([&] { keepClasses(d, {1, 1}, "src"); }, {"src", "listed twice"});
}

TEST(Stratified, LargestRemainderAllocation) {
  EXPECT_EQ(allocateStratified({50, 30, 20}, 10), (std::vector<std::size_t>{5, 3, 2}));
  EXPECT_EQ(allocateStratified({1, 1, 1}, 2), (std::vector<std::size_t>{1, 1, 0}));
  EXPECT_EQ(allocateStratified({7, 3}, 5), (std::vector<std::size_t>{4, 1}));  // 3.5, 1.5 -> tie
  EXPECT_EQ(allocateStratified({7, 3}, 10), (std::vector<std::size_t>{7, 3}));
  EXPECT_EQ(allocateStratified({0, 4}, 2), (std::vector<std::size_t>{0, 2}));
}

TEST(Stratified, SplitAndSubsetKeepProportionsAndAreDeterministic) {
  Dataset d;
  d.numClasses = 3;
  d.height = d.width = 1;
  for (int i = 0; i < 1000; ++i) {
    const int label = i % 10 < 6 ? 0 : (i % 10 < 9 ? 1 : 2);  // 60% / 30% / 10%
    d.labels.push_back(label);
    d.images.push_back(float(i));  // image value = source index, to trace selections
  }
  const DataSplit s = stratifiedSplit(d, 0.25, 42);
  EXPECT_EQ(countsOf(s.test), (std::vector<std::size_t>{150, 75, 25}));
  EXPECT_EQ(countsOf(s.train), (std::vector<std::size_t>{450, 225, 75}));
  // Disjoint, complete, each in source order.
  std::map<float, int> seen;
  for (float v : s.train.images) ++seen[v];
  for (float v : s.test.images) ++seen[v];
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(s.test.images.begin(), s.test.images.end()));
  EXPECT_EQ(stratifiedSplit(d, 0.25, 42).test.images, s.test.images);
  EXPECT_NE(stratifiedSplit(d, 0.25, 43).test.images, s.test.images);

  const Dataset sub = stratifiedSubset(d, 101, 9);
  EXPECT_EQ(countsOf(sub), (std::vector<std::size_t>{61, 30, 10}));  // 60.6, 30.3, 10.1
  EXPECT_EQ(stratifiedSubset(d, 101, 9).images, sub.images);
  expectDataError([&] { stratifiedSubset(d, 1001, 9, "trainSize"); },
                  {"trainSize = 1001", "1000 images available"});
}

TEST(Stratified, LoadDatasetResplitsSyntheticAfterGenerating) {
  DatasetSpec spec;
  spec.source = "synthetic";
  spec.trainSize = 400;
  spec.testSize = 100;
  spec.testFraction = 0.5;  // generate 400 + 100, merge and re-split 250 / 250
  const DataSplit s = loadDataset(spec);
  EXPECT_EQ(s.train.size(), 250u);
  EXPECT_EQ(s.test.size(), 250u);
  EXPECT_EQ(countsOf(s.test), std::vector<std::size_t>(10, 25));
}

TEST(Normalisation, TrainStatisticsGiveZeroMeanUnitSdOnTrain) {
  DatasetSpec spec;
  spec.source = "synthetic";
  spec.seed = 3;
  const DataSplit raw = [&] {
    DatasetSpec r = spec;
    r.normalize = false;
    return loadDataset(r);
  }();
  const DataSplit s = loadDataset(spec);
  std::vector<double> rawMean, rawSd, mean, sd, testMean, testSd;
  channelStatistics(raw.train, rawMean, rawSd);
  channelStatistics(s.train, mean, sd);
  EXPECT_NEAR(mean[0], 0.0, 1e-5);
  EXPECT_NEAR(sd[0], 1.0, 1e-5);
  EXPECT_NEAR(s.train.channelMean[0], rawMean[0], 1e-6);
  EXPECT_NEAR(s.train.channelStd[0], rawSd[0], 1e-6);
  EXPECT_EQ(raw.train.channelMean, std::vector<float>{0.0f});
  // The test split uses the training statistics: pixel-for-pixel the same affine map.
  const float m = s.test.channelMean[0], sdv = s.test.channelStd[0];
  for (std::size_t k = 0; k < 100; ++k)
    EXPECT_NEAR(s.test.images[k], (raw.test.images[k] - m) / sdv, 1e-5);
}

}  // namespace
}  // namespace paritylab::data
