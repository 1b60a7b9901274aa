#include "core/nn/text_generation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/nn/random.h"
#include "core/nn/training_session.h"

namespace paritylab::nn {

std::vector<std::int32_t> generateTokens(TrainingSession& session,
                                         std::span<const std::int32_t> prompt, int length,
                                         double temperature, std::uint64_t seed) {
  const Model& model = session.model();
  if (!model.tokenInput)
    throw std::invalid_argument("generateTokens: model '" + model.name +
                                "' is not a language model");
  if (prompt.empty()) throw std::invalid_argument("generateTokens: an empty prompt");
  const int vocab = model.numClasses;
  for (std::size_t i = 0; i < prompt.size(); ++i) {
    if (prompt[i] < 0 || prompt[i] >= vocab)
      throw std::invalid_argument("generateTokens: prompt token " + std::to_string(prompt[i]) +
                                  " at position " + std::to_string(i) +
                                  " is outside the vocabulary of " + std::to_string(vocab));
  }
  const std::size_t block = std::size_t(model.input.dims[1]);
  std::vector<std::int32_t> context(prompt.begin(), prompt.end());
  std::vector<std::int32_t> generated;
  std::vector<float> window(block);
  std::vector<double> probability(static_cast<std::size_t>(vocab));
  RandomStream draws(hashSeed(seed, 0x53414D50 /* "SAMP" */));
  for (int i = 0; i < length; ++i) {
    const std::size_t used = std::min(block, context.size());
    std::fill(window.begin(), window.end(), 0.0f);
    std::copy(context.end() - std::ptrdiff_t(used), context.end(), window.begin());
    const Tensor& logits = session.logits(window.data(), 1);
    const float* last = logits.data() + (used - 1) * std::size_t(vocab);
    std::int32_t next = 0;
    // The draw is taken whatever the temperature, so the i-th token always meets the i-th draw.
    const double u = draws.uniform();
    if (temperature <= 0.0) {
      next = std::int32_t(std::max_element(last, last + vocab) - last);
    } else {
      const double top = *std::max_element(last, last + vocab);
      double sum = 0.0;
      for (int v = 0; v < vocab; ++v) {
        probability[std::size_t(v)] = std::exp((double(last[v]) - top) / temperature);
        sum += probability[std::size_t(v)];
      }
      double cumulative = 0.0;
      next = std::int32_t(vocab - 1);  // u * sum beyond the rounded total: the last token
      for (int v = 0; v < vocab; ++v) {
        cumulative += probability[std::size_t(v)];
        if (u * sum < cumulative) {
          next = std::int32_t(v);
          break;
        }
      }
    }
    context.push_back(next);
    generated.push_back(next);
  }
  return generated;
}

}  // namespace paritylab::nn
