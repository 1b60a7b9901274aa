#pragma once
// torch.nn.CrossEntropyLoss (mean over the batch) on logits [N, K] and labels [N].
// Numerically stable: log-sum-exp with the row maximum subtracted, in fp32.

#include <cstdint>

#include "core/nn/tensor.h"

namespace paritylab::nn {

struct LossResult {
  double loss = 0.0;  // mean over the batch
  int correct = 0;    // argmax(logits) == label
};

// Returns the mean loss; writes dL/dlogits * gradScale into `dlogits` (resized to [N, K]) unless
// it is null. `gradScale` carries the loss scale (and 1 when unscaled).
LossResult softmaxCrossEntropy(const Tensor& logits, const std::int32_t* labels, Tensor* dlogits,
                               float gradScale = 1.0f);

}  // namespace paritylab::nn
