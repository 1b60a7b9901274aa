#pragma once
// torch.nn.CrossEntropyLoss (mean over the batch) on logits [N, K] and labels [N]. Logits of
// higher rank ([B, T, K], a language model's) are read as [B * T, K], with labels [B * T]: the
// mean over every position, as F.cross_entropy(logits.view(-1, K), targets.view(-1)).
// Numerically stable: log-sum-exp with the row maximum subtracted, in fp32.

#include <cstdint>
#include <optional>

#include "core/nn/tensor.h"
#include "core/numerics/rounding.h"

namespace paritylab::nn {

class GemmXray;  // gemm_xray.h

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

// The loss as a backend computes it in training: with `held` set (the policy's
// elementwise.loss), the logits it reads, each exponential, the row's sum, its log, each
// position's loss, the probabilities, the gradient and the mean loss it returns are held in that
// format (sums accumulated in fp32 and rounded), seed stream `seed`. Unset: softmaxCrossEntropy.
// On a step `xray` measures, each of these values is measured against the format it is held in
// (fp32 when unset: computed once more for the X-ray alone) as site "loss", quantities "logits",
// "exp", "sum", "log sum", "position loss", "probs", "grad" and "mean loss". Null: no measurement.
LossResult heldSoftmaxCrossEntropy(const Tensor& logits, const std::int32_t* labels,
                                   Tensor* dlogits, float gradScale,
                                   const std::optional<numerics::RoundingSpec>& held,
                                   std::uint64_t seed, GemmXray* xray = nullptr);

}  // namespace paritylab::nn
