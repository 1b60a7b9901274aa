// measureRelativeThroughput: two policies timed side by side on one thread, taking turns. What is
// checked is the bookkeeping (rounds, steps, the ratios and their median, the refusals), not a
// speed: timings are not asserted in tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/backends/precision_policy.h"
#include "core/data/dataset.h"
#include "core/study/run/training_benchmark.h"

namespace paritylab::study {
namespace {

// 64 images of the synthetic source (core/data/dataset.h).
data::DataSplit tinyImages() {
  data::DatasetSpec spec;
  spec.source = "synthetic";
  spec.trainSize = 64;
  spec.testSize = 16;
  return data::loadDataset(spec);
}

ThroughputConfig tinyConfig() {
  ThroughputConfig c;
  c.model.name = "mlp";
  c.batchSize = 16;
  c.warmupSteps = 1;
  c.steps = 2;
  return c;
}

TEST(RelativeThroughput, EachRoundGivesOneRatioAndTheMedianIsTheMiddleOne) {
  const RelativeThroughput r =
      measureRelativeThroughput(tinyConfig(), 3, backends::presetPolicy("tpu-bf16"),
                                backends::presetPolicy("cpu-fp32"), tinyImages());
  ASSERT_EQ(r.ratios.size(), 3U);
  for (const double ratio : r.ratios) EXPECT_GT(ratio, 0.0);
  std::vector<double> sorted = r.ratios;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(r.medianRatio, sorted[1]);
  for (const ThroughputResult* side : {&r.policy, &r.reference}) {
    EXPECT_EQ(side->threads, 1);
    EXPECT_EQ(side->steps, 6);  // 3 rounds of 2 steps
    EXPECT_EQ(side->batchSize, 16);
    EXPECT_GT(side->wallSeconds, 0.0);
    EXPECT_DOUBLE_EQ(side->imagesPerSecond, 6 * 16 / side->wallSeconds);
    EXPECT_DOUBLE_EQ(side->stepMilliseconds, 1000.0 * side->wallSeconds / 6);
    EXPECT_EQ(side->tokensPerSecond, 0.0);  // images, not text
  }
}

TEST(RelativeThroughput, RefusesMoreThanOneThreadAndNoRounds) {
  ThroughputConfig twoThreads = tinyConfig();
  twoThreads.threads = 2;
  const auto cpu = backends::presetPolicy("cpu-fp32");
  const data::DataSplit data = tinyImages();
  try {
    measureRelativeThroughput(twoThreads, 3, cpu, cpu, data);
    FAIL() << "two threads accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("threads must be 1"), std::string::npos) << e.what();
  }
  try {
    measureRelativeThroughput(tinyConfig(), 0, cpu, cpu, data);
    FAIL() << "zero rounds accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rounds must be >= 1, got 0"), std::string::npos)
        << e.what();
  }
  ThroughputConfig bigBatch = tinyConfig();
  bigBatch.batchSize = 65;
  EXPECT_THROW(measureRelativeThroughput(bigBatch, 1, cpu, cpu, data), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::study
