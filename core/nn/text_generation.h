#pragma once
// What a trained language model writes: the Samples view's text. Each backend's model continues
// the same prompt with the same random draws, so where two texts part is where the two models'
// predictions part, not where two random streams do.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace paritylab::nn {

class TrainingSession;

// What a language-model run writes at its end (a study's "samples").
struct SamplingConfig {
  std::string prompt = "\n";  // bytes, each in the corpus's vocabulary (nanoGPT's sample.py start)
  int length = 200;           // tokens generated after the prompt; 0 = none
  // 0: greedy, the most likely next token each time; > 0: drawn from softmax(logits / temperature),
  // the i-th token by the i-th uniform draw of `seed`'s stream. nanoGPT's sample.py draws at 0.8;
  // greedy text of a small, briefly trained model tends to repeat one symbol.
  double temperature = 0.8;
  // The draws' seed: one for every run of the study (every backend, every training seed), so two
  // texts part only where the two models' probabilities do.
  std::uint64_t seed = 0;
  bool operator==(const SamplingConfig&) const = default;
};

// One run's sample: the prompt and the text generated after it (bytes of the vocabulary).
struct TextSample {
  std::string prompt;
  std::string text;
  double temperature = 0.0;
};

// Continues `prompt` (token ids, at least one) by `length` tokens with the session's model and
// policy, in evaluation mode: each step reads the logits at the last position of the context, at
// most the model's block size of the newest tokens (nanoGPT's crop). A context shorter than the
// block size is padded after its end with token 0, which the causal mask keeps from every
// position that is read. Sampling takes softmax(logits / temperature) in double. Returns the
// generated ids only. std::invalid_argument for an empty prompt, an id outside the vocabulary or
// a model that is not a language model.
std::vector<std::int32_t> generateTokens(TrainingSession& session,
                                         std::span<const std::int32_t> prompt, int length,
                                         double temperature, std::uint64_t seed);

}  // namespace paritylab::nn
