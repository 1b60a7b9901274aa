#pragma once
// Early warnings: what large-model teams watch during training, measured on the training steps a
// run samples (TrainConfig::signalsEverySteps). All are of the step as the backend computed it.

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "core/nn/param_store.h"

namespace paritylab::nn {

struct StepSignals {
  // L2 norm over every trained parameter's gradient, as the optimizer receives it: averaged over
  // the replicas, unscaled (loss scaling), before clipping.
  double gradNorm = std::numeric_limits<double>::quiet_NaN();
  // The largest scaled score q.k / sqrt(d) that any attention row of the step's forward held
  // before its softmax (causal positions only). NaN: the model has no attention.
  double attentionLogitMax = std::numeric_limits<double>::quiet_NaN();
  // The mean, over the step's predictions (an image; a language model's position), of the L2
  // norm of the output-logit vector.
  double outputLogitNorm = std::numeric_limits<double>::quiet_NaN();
  // Per matrix-shaped trained parameter (updateRatioParameters' order): ||W_after - W_before|| /
  // ||W_before|| of this step's update, on the master weights (0 for a frozen parameter; NaN
  // where ||W_before|| is 0).
  std::vector<float> updateRatios;

  void noteAttentionLogit(float rowMax) {
    if (!(double(rowMax) <= attentionLogitMax)) attentionLogitMax = double(rowMax);
  }
};

// The trained parameters an update ratio is measured for: those of rank 2 or more (weight
// matrices, convolution kernels, embeddings); biases and normalisation gains are left out (their
// norms start at 0 or 1 and say little about the step size). Ids in ParamStore order.
std::vector<int> updateRatioParameters(const ParamStore& params);
std::vector<std::string> updateRatioNames(const ParamStore& params);

// Measures StepSignals::updateRatios around one optimizer step: before() keeps the weights,
// after() compares. Reuses its buffer from step to step.
class UpdateRatioMeter {
 public:
  void before(const ParamStore& params);
  void after(const ParamStore& params, std::vector<float>& ratios) const;

 private:
  std::vector<int> ids_;
  std::vector<float> kept_;  // the parameters' master values before the step, concatenated
};

// The mean L2 norm of the rows of `logits` [rows, classes] (rows: items, or items x positions).
double meanRowNorm(const float* logits, std::size_t rows, std::size_t classes);

}  // namespace paritylab::nn
