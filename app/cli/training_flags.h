#pragma once
// The flags that change a study's data and training, shared by `run` and `lockstep`: their values
// (each command's arguments derive from this struct) and the one function that applies them to a
// study, with the checks between them.

#include <cstdint>
#include <optional>
#include <string>

#include "core/study/spec/study_spec.h"

namespace paritylab::cli {

struct TrainingFlags {
  std::string dataset, model;  // "" = the study's
  std::optional<std::int64_t> trainSize, testSize;
  std::optional<int> batch, evalBatch, nLayer, nHead, nEmbd, blockSize;
  std::optional<double> lr;
};

// Sets what is given; throws study::SpecError naming the flag (an unknown model, the language
// model's shape flags on an image model, --n-embd not a multiple of --n-head). A study made a
// language model's by --model gpt evaluates in batches of its training batch (nanoGPT's
// estimate_loss does), unless --eval-batch says otherwise: the image default of 1,000 windows
// would hold 1,000 x block_size positions' activations at once.
void applyTrainingFlags(const TrainingFlags& flags, study::StudySpec& spec);

}  // namespace paritylab::cli
