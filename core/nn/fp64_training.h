#pragma once
// The fp64 reference of a lockstep comparison (lockstep.h): a model's training step with every
// product, sum and update in binary64, from the starting weights of a TrainingSession and on the
// same batches, so that a lockstep shows how far fp32 arithmetic itself is from exact. It is not an
// emulated backend: no precision policy applies and nothing is rounded between the layers; its
// products are binary64 matrix products (Eigen), not the GEMM entry that emulates a backend's.
//
// The model's layers are computed by their binary64 counterparts (fp64_model_layers.h); the
// constructor refuses a model with a layer that has none, naming it.

#include <cstdint>
#include <memory>
#include <vector>

#include "core/nn/fp64_layer.h"
#include "core/nn/model.h"
#include "core/nn/optimizer.h"

namespace paritylab::nn {

class Fp64Training {
 public:
  // The model's layers and its master weights as they are now (each fp32 value exactly). Throws
  // std::invalid_argument when the model has a layer the reference does not compute, naming it.
  Fp64Training(const Model& model, const OptimizerConfig& optimizer);
  ~Fp64Training();

  // One training step on n items [n, ...] (row-major, the model's input) with labels [n,
  // targets per item] (a language model's: one per position): forward, the mean softmax
  // cross-entropy over every label, backward, clipping of the global gradient norm to clipNorm
  // (when > 0), the optimizer's update with learning rate `lr`. Returns the mean loss; when it is
  // not finite nothing is updated (a diverged step).
  double step(const float* items, const std::int32_t* labels, int n, double lr, double clipNorm);

  // [param], laid out as the model's ParamStore: the master weights (and buffers: batch norm's
  // running statistics), the last step's gradients.
  const std::vector<double>& master() const { return params_.values; }
  const std::vector<double>& grads() const { return params_.grads; }
  const Fp64OptimizerState& optimizerState() const { return optimizer_; }
  // The last step's tensors of GEMM call site `site`, as the fp32 layer's probe records them
  // (activation_probe.h): its output after its products (a linear or convolution layer's with its
  // bias, attention's probabilities and heads' output, the tied head's logits) and the gradient it
  // passed back to its input (empty for the model's first layer, which passes none). Empty for a
  // site the model does not have.
  const std::vector<double>& output(int site) const;
  const std::vector<double>& inputGradient(int site) const;

 private:
  void update(double lr);

  std::unique_ptr<Fp64Sequential> net_;
  std::vector<ParamStore::Range> ranges_;  // the weights the optimizer updates
  OptimizerConfig config_;
  Fp64OptimizerState optimizer_;
  Shape input_;         // one item: [1, ...]
  int targetsPerItem_;  // labels per item
  Fp64Params params_;
  Fp64Sites sites_;
  DoubleTensor items_, dlogits_;
};

}  // namespace paritylab::nn
