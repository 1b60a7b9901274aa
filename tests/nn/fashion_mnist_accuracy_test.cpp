// On real Fashion-MNIST (the Debian package), small-cnn in fp32 reaches at least
// 0.85 test accuracy within two epochs on 10,000 training images, and gpu-tf32 / tpu-bf16 land
// within 2 points of it. (3,000 test images keep the test within CI time.)

#include <gtest/gtest.h>

#include <filesystem>

#include "core/backends/precision_policy.h"
#include "core/data/dataset.h"
#include "core/nn/trainer.h"

namespace paritylab::nn {
namespace {

TEST(FashionMnist, SmallCnnReaches85PercentAndBackendsAgree) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  data::DatasetSpec spec;
  spec.source = "fashion-mnist";
  spec.trainSize = 10000;
  spec.testSize = 3000;
  spec.seed = 1;
  const data::DataSplit split = data::loadDataset(spec);
  ASSERT_EQ(split.train.size(), 10000u);
  TrainConfig config;
  config.model = "small-cnn";
  config.epochs = 2;
  config.batchSize = 64;
  config.evalBatchSize = 500;
  config.optimizer.lr = 2e-3;
  config.seed = 1;
  double accuracy[3] = {};
  const char* backends[3] = {"cpu-fp32", "gpu-tf32", "tpu-bf16"};
  for (int b = 0; b < 3; ++b) {
    const TrainResult r = train(config, backends::presetPolicy(backends[b]), split);
    ASSERT_EQ(r.status, RunStatus::Completed) << backends[b];
    ASSERT_EQ(r.epochs.size(), 2u);
    accuracy[b] = r.epochs.back().testAccuracy;
    std::cout << backends[b] << ": test accuracy " << accuracy[b] << ", " << r.seconds << " s\n";
  }
  EXPECT_GE(accuracy[0], 0.85);
  EXPECT_NEAR(accuracy[1], accuracy[0], 0.02);
  EXPECT_NEAR(accuracy[2], accuracy[0], 0.02);
}

}  // namespace
}  // namespace paritylab::nn
