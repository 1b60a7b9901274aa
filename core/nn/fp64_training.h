#pragma once
// The fp64 reference of a lockstep comparison (lockstep.h): a model's training step with every
// product, sum and update in binary64, from the starting weights of a TrainingSession and on the
// same batches, so that a lockstep shows how far fp32 arithmetic itself is from exact. It is not an
// emulated backend: no precision policy applies and nothing is rounded between the layers; its
// products are binary64 matrix products (Eigen), not the GEMM entry that emulates a backend's.
//
// Covers models built from flatten, linear and ReLU layers (the mlp); the constructor refuses
// any other layer.

#include <cstdint>
#include <vector>

#include "core/nn/model.h"
#include "core/nn/optimizer.h"

namespace paritylab::nn {

class Fp64Training {
 public:
  // The model's layers and its master weights as they are now (each fp32 value exactly). Throws
  // std::invalid_argument when the model has a layer the reference does not compute, naming it.
  Fp64Training(const Model& model, const OptimizerConfig& optimizer);

  // One training step on n items [n, ...] (row-major, the model's input) with labels [n]: forward,
  // the mean softmax cross-entropy over the n items, backward, clipping of the global gradient
  // norm to clipNorm (when > 0), the optimizer's update with learning rate `lr`. Returns the mean
  // loss; when it is not finite nothing is updated (a diverged step).
  double step(const float* items, const std::int32_t* labels, int n, double lr, double clipNorm);

  // [param], laid out as the model's ParamStore: the master weights, the last step's gradients.
  const std::vector<double>& master() const { return master_; }
  const std::vector<double>& grads() const { return grads_; }
  const Fp64OptimizerState& optimizerState() const { return optimizer_; }
  // The last step's output of the linear layer at GEMM call site `site` ([n, out]: its product
  // plus bias) and the gradient it passed back to its input ([n, in]; empty for a layer with no
  // linear layer before it, which passes none). Empty for a site the model does not have.
  const std::vector<double>& output(int site) const;
  const std::vector<double>& inputGradient(int site) const;

 private:
  enum class Kind { Flatten, Linear, Relu };
  struct Step {
    Kind kind = Kind::Flatten;
    int site = -1, in = 0, out = 0, weight = -1, bias = -1;
    bool passesGradient = false;
  };
  void forward(int n);
  void backward(int n);
  void update(double lr);

  std::vector<Step> steps_;  // the layers in forward order
  std::vector<ParamStore::Range> ranges_;
  OptimizerConfig config_;
  Fp64OptimizerState optimizer_;
  int inputSize_ = 0;
  std::vector<std::size_t> offsets_;  // [param id]: where its values start
  std::vector<double> master_, grads_;
  // [layer + 1]: the values entering layer i (values_[0] the input) and leaving the last
  std::vector<std::vector<double>> values_;
  std::vector<double> gradient_, nextGradient_;  // the gradient going back, per layer
  std::vector<std::size_t> outputAt_;  // [site]: the index in values_ of its output (0: none)
  std::vector<std::vector<double>> inputGradients_;  // [site]
};

}  // namespace paritylab::nn
