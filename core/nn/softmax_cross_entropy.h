#pragma once
// torch.nn.CrossEntropyLoss (mean over the batch) on logits [N, K] and labels [N]. Logits of
// higher rank ([B, T, K], a language model's) are read as [B * T, K], with labels [B * T]: the
// mean over every position, as F.cross_entropy(logits.view(-1, K), targets.view(-1)).
// Numerically stable: log-sum-exp with the row maximum subtracted, in fp32.

#include <cstdint>

#include "core/nn/tensor.h"

namespace paritylab::nn {

struct LossResult {
  double loss = 0.0;  // mean over the batch
  int correct = 0;    // argmax(logits) == label
};

// Returns the mean loss; writes dL/dlogits * gradScale into `dlogits` (resized to [N, K]) unless
// it is null. `gradScale` carries the loss scale (and 1 when unscaled). Unless null, `predicted`
// [N] gets each row's argmax (the class `correct` counts) and `trueClassProbability` [N] the
// softmax probability of each row's label.
LossResult softmaxCrossEntropy(const Tensor& logits, const std::int32_t* labels, Tensor* dlogits,
                               float gradScale = 1.0f, std::int32_t* predicted = nullptr,
                               float* trueClassProbability = nullptr);

}  // namespace paritylab::nn
