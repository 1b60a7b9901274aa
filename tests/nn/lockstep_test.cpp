// Lockstep comparison of a backend with a reference: the same arithmetic differs by exactly zero
// at every step and layer (not a tolerance), in both modes, for image and language models;
// tpu-bf16's one-step difference on real Fashion-MNIST is of the order of bf16's unit roundoff at
// the first layer and grows with depth; the first crossing is where the tolerance says; the
// relative RMS difference is the formula its header states.
#include "core/nn/lockstep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/backends/precision_policy.h"
#include "core/data/dataset.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

using testing::syntheticImages;

data::DataSplit syntheticSplit() {
  data::DataSplit split;
  split.train = syntheticImages(64, 1, 8, 4, 3);
  split.test = syntheticImages(16, 1, 8, 4, 4);
  return split;
}

TrainConfig smallCnn() {
  TrainConfig config;
  config.model = "small-cnn";
  config.batchSize = 16;
  config.evalBatchSize = 16;
  config.epochs = 1;
  config.seed = 5;
  return config;
}

void expectAllZero(const LockstepResult& r, const char* what) {
  ASSERT_FALSE(r.steps.empty()) << what;
  for (const LockstepStep& s : r.steps) {
    EXPECT_EQ(s.lossA, s.lossReference) << what << " step " << s.step;
    for (std::size_t l = 0; l < r.layers.size(); ++l)
      for (std::size_t q = 0; q < kLockstepQuantities; ++q) {
        const double d = s.difference[l][q];
        if (std::isnan(d)) continue;  // the layer has no such tensor
        EXPECT_EQ(d, 0.0) << what << " step " << s.step << " " << r.layers[l].name << " "
                          << toString(LockstepQuantity(q));
      }
  }
  EXPECT_FALSE(r.firstCrossing) << what;
}

TEST(Lockstep, TheSameArithmeticDiffersByExactlyZeroEverywhereInBothModes) {
  const data::DataSplit split = syntheticSplit();
  for (const char* preset : {"cpu-fp32", "tpu-bf16"}) {
    const backends::PrecisionPolicy p = backends::presetPolicy(preset);
    for (LockstepMode mode : {LockstepMode::Resynchronised, LockstepMode::FreeRunning}) {
      LockstepOptions o;
      o.steps = 3;
      o.mode = mode;
      o.tolerance = 1e-300;
      const LockstepResult r = runLockstep(smallCnn(), p, p, split, o);
      EXPECT_EQ(r.stepsTrained, 3);
      ASSERT_EQ(r.steps.size(), 3u);
      expectAllZero(r, preset);
    }
  }
  // Every layer with products, in forward order; conv1 passes no gradient back.
  const LockstepResult r = runLockstep(smallCnn(), backends::presetPolicy("cpu-fp32"),
                                       backends::presetPolicy("cpu-fp32"), split, {1});
  ASSERT_EQ(r.layers.size(), 4u);
  EXPECT_EQ(r.layers[0].name, "conv1");
  EXPECT_FALSE(r.layers[0].hasInputGradient);
  EXPECT_TRUE(std::isnan(r.steps[0].difference[0][1]));
  EXPECT_EQ(r.layers[3].name, "fc2");
  EXPECT_TRUE(r.layers[3].hasWeight);
}

// Windows of 8 characters of a repeated sentence.
data::DataSplit repeatedSentence() {
  data::DatasetSpec spec;
  std::string text;
  for (int i = 0; text.size() < 3000; ++i) text += "the cat sat on a mat. ";
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / "paritylab-lockstep-text.txt";
  {
    std::FILE* f = std::fopen(file.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  spec.source = "text:" + file.string();
  spec.blockSize = 8;
  spec.testSize = 4;
  data::DataSplit split = data::loadDataset(spec);
  std::filesystem::remove(file);
  return split;
}

// A tied gpt of `layers` blocks, 2 heads, 16 features, windows of 8 tokens, batch 4.
TrainConfig tinyGpt(int layers, std::int64_t steps) {
  TrainConfig config;
  config.model = "gpt";
  config.gpt = {layers, 2, 16, 8, true};
  config.batchSize = 4;
  config.evalBatchSize = 4;
  config.steps = steps;
  config.seed = 2;
  return config;
}

TEST(Lockstep, ALanguageModelAgainstItselfDiffersByZeroIncludingAttention) {
  const data::DataSplit split = repeatedSentence();
  const TrainConfig config = tinyGpt(1, 3);
  const backends::PrecisionPolicy p = backends::presetPolicy("gpu-amp-bf16");
  LockstepOptions o;
  o.steps = 3;
  const LockstepResult r = runLockstep(config, p, p, split, o);
  expectAllZero(r, "gpt");
  std::vector<std::string> names;
  for (const LockstepLayer& l : r.layers) names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{"h0.attn.qkv", "h0.attn.proj", "h0.attn.qk",
                                             "h0.attn.pv", "h0.mlp.fc", "h0.mlp.proj", "lm_head"}));
  // The tied head's weight is the token embedding: compared.
  EXPECT_FALSE(std::isnan(r.steps[0].difference.back()[3]));
  EXPECT_TRUE(std::isnan(r.steps[0].difference[2][3]));  // attention: no weight
}

TEST(Lockstep, TpuBf16OneStepDifferenceIsOfBf16RoundoffAtTheFirstLayerAndGrowsWithDepth) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  data::DatasetSpec spec;
  spec.source = "fashion-mnist";
  spec.trainSize = 1024;
  spec.testSize = 100;
  const data::DataSplit split = data::loadDataset(spec);
  TrainConfig config;
  config.model = "mlp";
  config.batchSize = 128;
  config.seed = 1;
  LockstepOptions o;
  o.steps = 4;
  const LockstepResult r = runLockstep(config, backends::presetPolicy("tpu-bf16"),
                                       backends::presetPolicy("cpu-fp32"), split, o);
  ASSERT_EQ(r.steps.size(), 4u);
  const double unitRoundoff = std::ldexp(1.0, -8);  // bf16: 8 significant bits
  for (const LockstepStep& s : r.steps) {
    const double first = s.difference.front()[0], last = s.difference.back()[0];
    EXPECT_GT(first, unitRoundoff / 10) << "step " << s.step;
    EXPECT_LT(first, unitRoundoff) << "step " << s.step;
    EXPECT_GT(last, first) << "step " << s.step;
  }
}

// A replica's loss is the mean over its shard, a micro-batch's over its items, and loss scaling
// multiplies the gradients: the gradients passed back are compared as the whole batch's.
TEST(Lockstep, ShardsMicroBatchesAndLossScalingCompareAsTheWholeBatchsGradient) {
  const data::DataSplit split = syntheticSplit();
  // mlp: no batch norm, whose per-shard statistics would change the outputs themselves
  TrainConfig mlp = smallCnn();
  mlp.model = "mlp";
  mlp.batchSize = 14;  // 8 shards of 1 and 2 items, 4 micro-batches of 3 and 4: unequal pieces
  const backends::PrecisionPolicy fp32 = backends::presetPolicy("cpu-fp32");
  LockstepOptions o;
  o.steps = 2;
  const nlohmann::json sharded[] = {
      {{"preset", "cpu-fp32"}, {"name", "cpu-fp32 x8"}, {"replicas", 8}},
      {{"preset", "cpu-fp32"}, {"name", "cpu-fp32 k4"}, {"gradAccumulation", {{"steps", 4}}}}};
  for (const nlohmann::json& j : sharded) {
    const LockstepResult r = runLockstep(mlp, backends::policyFromJson(j), fp32, split, o);
    for (std::size_t l = 0; l < r.layers.size(); ++l) {  // only summation orders differ
      if (l > 0) {
        EXPECT_LT(r.steps[0].difference[l][1], 1e-5) << j.dump() << " " << r.layers[l].name;
      }
      // Every item counts once in the weight gradient, whatever piece it was in.
      EXPECT_LT(r.steps[0].difference[l][2], 1e-5) << j.dump() << " " << r.layers[l].name;
    }
    EXPECT_NEAR(r.steps[0].lossA, r.steps[0].lossReference, 1e-6) << j.dump();
  }
  const LockstepResult scaled = runLockstep(
      mlp,
      backends::policyFromJson({{"preset", "cpu-fp32"},
                                {"name", "cpu-fp32 scaled"},
                                {"lossScaling", {{"kind", "static"}, {"initialScale", 1024.0}}}}),
      fp32, split, o);
  for (std::size_t l = 1; l < scaled.layers.size(); ++l)  // a power of two: exact
    EXPECT_EQ(scaled.steps[0].difference[l][1], 0.0) << scaled.layers[l].name;
}

// The language model's shards run together (one product over the batch, each shard's loss and
// gradients apart): its layers' outputs and input gradients still compare as the whole batch's.
TEST(Lockstep, ALanguageModelsShardsRunTogetherCompareAsTheWholeBatch) {
  const data::DataSplit split = repeatedSentence();
  TrainConfig config = tinyGpt(1, 2);
  config.batchSize = 7;  // 4 shards of 1 and 2 windows: unequal pieces
  const backends::PrecisionPolicy sharded =
      backends::policyFromJson({{"preset", "cpu-fp32"}, {"name", "cpu-fp32 x4"}, {"replicas", 4}});
  LockstepOptions o;
  o.steps = 2;
  const LockstepResult r =
      runLockstep(config, sharded, backends::presetPolicy("cpu-fp32"), split, o);
  ASSERT_FALSE(r.layers.empty());
  for (std::size_t l = 0; l < r.layers.size(); ++l) {  // only summation orders differ
    EXPECT_LT(r.steps[0].difference[l][0], 1e-5) << r.layers[l].name << " output";
    EXPECT_LT(r.steps[0].difference[l][1], 1e-5) << r.layers[l].name << " input gradient";
    if (!std::isnan(r.steps[0].difference[l][2])) {  // attention's products have no weight
      EXPECT_LT(r.steps[0].difference[l][2], 1e-5) << r.layers[l].name << " weight gradient";
    }
  }
  EXPECT_NEAR(r.steps[0].lossA, r.steps[0].lossReference, 1e-6);
}

TEST(Lockstep, TheFirstCrossingIsTheEarliestStepAtItsFirstLayer) {
  const data::DataSplit split = syntheticSplit();
  LockstepOptions o;
  o.steps = 3;
  o.tolerance = 1e-12;
  const LockstepResult r = runLockstep(smallCnn(), backends::presetPolicy("tpu-bf16"),
                                       backends::presetPolicy("cpu-fp32"), split, o);
  ASSERT_TRUE(r.firstCrossing);
  EXPECT_EQ(r.firstCrossing->step, 1);
  EXPECT_EQ(r.firstCrossing->layer, 0u);
  EXPECT_EQ(r.firstCrossing->quantity, LockstepQuantity::Activation);
  EXPECT_EQ(r.firstCrossing->value, r.steps[0].difference[0][0]);
  o.tolerance = 1e6;
  EXPECT_FALSE(runLockstep(smallCnn(), backends::presetPolicy("tpu-bf16"),
                           backends::presetPolicy("cpu-fp32"), split, o)
                   .firstCrossing);
  const std::string words =
      describeLockstep(r, {3, LockstepMode::Resynchronised, 1e-12}, "tpu-bf16", "cpu-fp32");
  EXPECT_NE(words.find("first exceeds"), std::string::npos) << words;
  EXPECT_NE(words.find("at step 1, in conv1's activation"), std::string::npos) << words;
}

// A backend that differs from the reference in one product only: that product carries the whole
// one-step error, every other product none, and nothing is left outside the products.
TEST(Lockstep, AttributionFindsTheOneProductThatDiffers) {
  const data::DataSplit split = syntheticSplit();
  const backends::PrecisionPolicy one = backends::policyFromJson(
      {{"preset", "cpu-fp32"},
       {"name", "fc1 wgrad in bf16"},
       {"overrides", {{{"layers", "fc1"}, {"products", "wgrad"}, {"policy", "tpu-bf16"}}}}});
  LockstepOptions o;
  o.steps = 2;
  o.tolerance = 1e-12;
  o.attribute = true;
  const LockstepResult r =
      runLockstep(smallCnn(), one, backends::presetPolicy("cpu-fp32"), split, o);
  ASSERT_TRUE(r.attribution);
  const LockstepAttribution& at = *r.attribution;
  EXPECT_EQ(at.step, 1);  // fc1's weight gradient differs at once: the first crossing
  EXPECT_GT(at.error, 0.0);
  EXPECT_EQ(at.errorOutsideProducts, 0.0);
  ASSERT_EQ(at.products.size(), 4u * 3u - 1u);  // conv1 has no data-gradient product
  EXPECT_EQ(at.products.front().product, "fc1.wgrad");
  EXPECT_EQ(at.products.front().share, 1.0);
  EXPECT_EQ(at.products.front().errorWithout, 0.0);
  for (std::size_t i = 1; i < at.products.size(); ++i)
    EXPECT_EQ(at.products[i].share, 0.0) << at.products[i].product;
  const std::string words = describeLockstep(r, o, one.name, "cpu-fp32");
  EXPECT_NE(words.find("fc1.wgrad adds 100% (computed as cpu-fp32 computes it, 0% remains)"),
            std::string::npos)
      << words;
}

TEST(Lockstep, RelativeRmsDifferenceIsTheNormOfTheDifferenceOverTheReferences) {
  const float r[] = {1.0f, 1.0f, 0.0f};
  const float a[] = {1.0f, 2.0f, 0.0f};
  EXPECT_DOUBLE_EQ(relativeRmsDifference(a, r, 3), std::sqrt(1.0 / 2.0));
  EXPECT_EQ(relativeRmsDifference(r, r, 3), 0.0);
  const float zeros[] = {0.0f, 0.0f};
  const float small[] = {0.0f, 1e-30f};
  EXPECT_EQ(relativeRmsDifference(zeros, zeros, 2), 0.0);
  EXPECT_TRUE(std::isinf(relativeRmsDifference(small, zeros, 2)));
  const float nan[] = {std::numeric_limits<float>::quiet_NaN(), 0.0f};
  EXPECT_TRUE(std::isinf(relativeRmsDifference(nan, small, 2)));
  EXPECT_TRUE(std::isnan(relativeRmsDifference(small, nan, 2)));
}

TEST(Lockstep, BadOptionsAreRefusedNamingThem) {
  const data::DataSplit split = syntheticSplit();
  const backends::PrecisionPolicy p = backends::presetPolicy("cpu-fp32");
  const auto refused = [&](LockstepOptions o, TrainConfig c, const std::string& words) {
    try {
      runLockstep(c, p, p, split, o);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused({0}, smallCnn(), "steps must be >= 1, got 0");
  refused({3, LockstepMode::FreeRunning, 0.0}, smallCnn(), "tolerance must be > 0");
  refused({3, LockstepMode::FreeRunning, 0.1, 0}, smallCnn(), "every must be >= 1");
  TrainConfig frozen = smallCnn();
  frozen.freezeEpochs = 1;
  refused({3}, frozen, "freeze_epochs");
}

}  // namespace
}  // namespace paritylab::nn

namespace paritylab::nn {
namespace {

TrainConfig syntheticMlp() {
  TrainConfig config;
  config.model = "mlp";
  config.batchSize = 16;
  config.evalBatchSize = 16;
  config.epochs = 1;
  config.seed = 2;
  return config;
}

// Against the fp64 reference, cpu-fp32 differs by fp32's rounding errors: nonzero, far below
// bf16's (every difference under 1e-5 at every step in both modes), and tpu-bf16 differs from it
// about as it differs from cpu-fp32 (fp32's own error is negligible beside bf16's).
TEST(Lockstep, Fp64ReferenceShowsFp32sOwnErrorFarBelowBf16s) {
  const data::DataSplit split = syntheticSplit();
  const backends::PrecisionPolicy fp32 = backends::presetPolicy("cpu-fp32");
  for (LockstepMode mode : {LockstepMode::Resynchronised, LockstepMode::FreeRunning}) {
    LockstepOptions o;
    o.steps = 4;
    o.mode = mode;
    const LockstepResult r = runLockstepAgainstFp64(syntheticMlp(), fp32, split, o);
    ASSERT_EQ(r.steps.size(), 4u);
    EXPECT_FALSE(r.layers.front().hasInputGradient);
    for (const LockstepStep& s : r.steps) {
      EXPECT_NEAR(s.lossA, s.lossReference, 1e-5) << "step " << s.step;
      for (std::size_t l = 0; l < r.layers.size(); ++l)
        for (std::size_t q = 0; q < kLockstepQuantities; ++q) {
          const double d = s.difference[l][q];
          if (l == 0 && q == 1) {
            EXPECT_TRUE(std::isnan(d));  // the first layer passes no gradient back
            continue;
          }
          EXPECT_GT(d, 0.0) << toString(mode) << " step " << s.step << " " << r.layers[l].name
                            << " " << toString(LockstepQuantity(q));
          EXPECT_LT(d, 1e-5) << toString(mode) << " step " << s.step << " " << r.layers[l].name
                             << " " << toString(LockstepQuantity(q));
        }
    }
  }
  LockstepOptions o;
  o.steps = 1;
  const backends::PrecisionPolicy bf16 = backends::presetPolicy("tpu-bf16");
  const LockstepResult exact = runLockstepAgainstFp64(syntheticMlp(), bf16, split, o);
  const LockstepResult single = runLockstep(syntheticMlp(), bf16, fp32, split, o);
  for (std::size_t l = 0; l < exact.layers.size(); ++l) {
    const double a = exact.steps[0].difference[l][0], b = single.steps[0].difference[l][0];
    EXPECT_GT(a, 1e-4) << exact.layers[l].name;
    EXPECT_NEAR(a, b, 0.01 * b) << exact.layers[l].name;
  }
}

TEST(Lockstep, Fp64ReferenceRefusesAttribution) {
  const data::DataSplit split = syntheticSplit();
  LockstepOptions o;
  o.steps = 1;
  o.attribute = true;
  try {
    runLockstepAgainstFp64(syntheticMlp(), backends::presetPolicy("cpu-fp32"), split, o);
    FAIL() << "an attribution against fp64 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("needs a backend as the reference, not fp64"),
              std::string::npos)
        << e.what();
  }
}

// cpu-fp32 against the fp64 reference: re-synchronised, every figure of every layer is fp32's
// one-step error (finite, nonzero, below 1e-5); free-running, the weights part further with every
// step.
void expectFp32sOwnErrorEverywhere(const TrainConfig& config, const data::DataSplit& split,
                                   std::int64_t steps) {
  const backends::PrecisionPolicy fp32 = backends::presetPolicy("cpu-fp32");
  LockstepOptions o;
  o.steps = steps;
  const LockstepResult resync = runLockstepAgainstFp64(config, fp32, split, o);
  ASSERT_EQ(resync.steps.size(), std::size_t(steps));
  double largest = 0.0, smallest = INFINITY;
  for (const LockstepStep& s : resync.steps)
    for (std::size_t l = 0; l < resync.layers.size(); ++l)
      for (std::size_t q = 0; q < kLockstepQuantities; ++q) {
        const double d = s.difference[l][q];
        const bool none = (q == 1 && !resync.layers[l].hasInputGradient) ||
                          (q >= 2 && !resync.layers[l].hasWeight);
        if (none) {
          EXPECT_TRUE(std::isnan(d)) << resync.layers[l].name << " " << q;
          continue;
        }
        EXPECT_GT(d, 0.0) << "step " << s.step << " " << resync.layers[l].name << " "
                          << toString(LockstepQuantity(q));
        EXPECT_LT(d, 1e-5) << "step " << s.step << " " << resync.layers[l].name << " "
                           << toString(LockstepQuantity(q));
        largest = std::max(largest, d);
        smallest = std::min(smallest, d);
      }
  o.mode = LockstepMode::FreeRunning;
  const LockstepResult free = runLockstepAgainstFp64(config, fp32, split, o);
  ASSERT_EQ(free.steps.size(), std::size_t(steps));
  double first = 0.0, last = 0.0;  // the weights' differences summed over the layers
  for (std::size_t l = 0; l < free.layers.size(); ++l)
    if (free.layers[l].hasWeight) {
      first += free.steps.front().difference[l][3];
      last += free.steps.back().difference[l][3];
    }
  double resynchronisedLast = 0.0;
  for (std::size_t l = 0; l < resync.layers.size(); ++l)
    if (resync.layers[l].hasWeight) resynchronisedLast += resync.steps.back().difference[l][3];
  EXPECT_GT(last, first);
  EXPECT_GT(last, resynchronisedLast);
  std::printf(
      "%s: re-synchronised %.3g..%.3g, weights %.3g at step %lld; free-running weights "
      "%.3g at step 1, %.3g at step %lld (summed over the layers)\n",
      config.model.c_str(), smallest, largest, resynchronisedLast, (long long)steps, first, last,
      (long long)steps);
}

TEST(Lockstep, Fp64ReferenceOfSmallCnnShowsFp32sOwnErrorAtEverySite) {
  TrainConfig config = smallCnn();
  config.epochs = 2;
  expectFp32sOwnErrorEverywhere(config, syntheticSplit(), 8);
}

TEST(Lockstep, Fp64ReferenceOfATinyGptShowsFp32sOwnErrorAtEverySiteIncludingAttention) {
  expectFp32sOwnErrorEverywhere(tinyGpt(2, 8), repeatedSentence(), 8);
}

}  // namespace
}  // namespace paritylab::nn
