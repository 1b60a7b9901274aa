// What a language model writes (the Samples view): greedy tokens are the most likely next token of
// the context as the model sees it (the newest block-size tokens), padding after a short context
// changes no logit that is read, the same seed draws the same text, a tiny temperature is greedy
// and a huge one is uniform, and bad requests are refused.

#include "core/nn/text_generation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/training_session.h"

namespace paritylab::nn {
namespace {

constexpr int kVocab = 7;
constexpr int kBlock = 6;

ModelSpec tinyGpt() {
  ModelSpec spec;
  spec.name = "gpt";
  spec.numClasses = kVocab;
  spec.gpt = {2, 2, 8, kBlock, true};
  return spec;
}

// The logits at the last position of `context` (its newest kBlock tokens), the window padded after
// them with `pad`.
std::vector<float> lastLogits(TrainingSession& session, const std::vector<std::int32_t>& context,
                              float pad) {
  const std::size_t used = std::min<std::size_t>(kBlock, context.size());
  std::vector<float> window(kBlock, pad);
  std::copy(context.end() - std::ptrdiff_t(used), context.end(), window.begin());
  const Tensor& logits = session.logits(window.data(), 1);
  const float* row = logits.data() + (used - 1) * kVocab;
  return {row, row + kVocab};
}

TEST(TextGeneration, PaddingAfterAShortContextChangesNoLogitThatIsRead) {
  for (const char* backend : {"cpu-fp32", "gpu-amp-bf16", "pure-bf16", "tpu-bf16"}) {
    TrainingSession session(tinyGpt(), backends::presetPolicy(backend), 3);
    for (std::size_t length = 1; length < kBlock; ++length) {
      std::vector<std::int32_t> context;
      for (std::size_t i = 0; i < length; ++i)
        context.push_back(std::int32_t((i * 3 + 1) % kVocab));
      const std::vector<float> zeros = lastLogits(session, context, 0.0f);
      const std::vector<float> sixes = lastLogits(session, context, 6.0f);
      EXPECT_EQ(std::memcmp(zeros.data(), sixes.data(), sizeof(float) * kVocab), 0)
          << backend << ", a context of " << length;
    }
  }
}

TEST(TextGeneration, GreedyTokensAreTheMostLikelyNextTokenOfTheNewestBlock) {
  TrainingSession session(tinyGpt(), backends::presetPolicy("cpu-fp32"), 11);
  const std::vector<std::int32_t> prompt = {4, 2};
  const std::vector<std::int32_t> generated = generateTokens(session, prompt, 15, 0.0, 1);
  ASSERT_EQ(generated.size(), 15u);  // past the block size: the context is cropped
  std::vector<std::int32_t> context = prompt;
  for (std::int32_t token : generated) {
    const std::vector<float> logits = lastLogits(session, context, 5.0f);
    EXPECT_EQ(token, std::int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin()))
        << "after " << context.size() << " tokens";
    context.push_back(token);
  }
}

TEST(TextGeneration, TheSameSeedDrawsTheSameTextAndTemperatureSetsHowRandom) {
  TrainingSession session(tinyGpt(), backends::presetPolicy("cpu-fp32"), 11);
  const std::vector<std::int32_t> prompt = {1};
  const auto draw = [&](double temperature, std::uint64_t seed, int length = 200) {
    return generateTokens(session, prompt, length, temperature, seed);
  };
  EXPECT_EQ(draw(0.8, 5), draw(0.8, 5));
  EXPECT_NE(draw(0.8, 5), draw(0.8, 6));
  EXPECT_EQ(draw(1e-6, 5), draw(0.0, 9));  // a tiny temperature is the argmax
  // Temperature 100 flattens the distribution: each of the 7 tokens about 1/7 of 3500 draws
  // (chi-square with 6 degrees of freedom below 27.9, p > 1e-4).
  const std::vector<std::int32_t> flat = draw(100.0, 5, 3500);
  std::vector<double> count(kVocab, 0.0);
  for (std::int32_t t : flat) count[std::size_t(t)] += 1.0;
  double chiSquare = 0.0;
  for (double c : count) chiSquare += (c - 500.0) * (c - 500.0) / 500.0;
  EXPECT_LT(chiSquare, 27.9);
}

TEST(TextGeneration, RefusesAnEmptyPromptATokenOutsideTheVocabularyAndAnImageModel) {
  TrainingSession session(tinyGpt(), backends::presetPolicy("cpu-fp32"), 1);
  EXPECT_THROW(generateTokens(session, {}, 3, 0.0, 1), std::invalid_argument);
  try {
    generateTokens(session, std::vector<std::int32_t>{1, 7}, 3, 0.0, 1);
    FAIL() << "a token outside the vocabulary was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("token 7 at position 1"), std::string::npos) << e.what();
  }
  ModelSpec mlp;
  mlp.name = "mlp";
  TrainingSession image(mlp, backends::presetPolicy("cpu-fp32"), 1);
  EXPECT_THROW(generateTokens(image, std::vector<std::int32_t>{1}, 3, 0.0, 1),
               std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::nn
