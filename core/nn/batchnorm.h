#pragma once
// torch.nn.BatchNorm2d / BatchNorm1d: x [N, C, H, W] or [N, C]. Training: batch statistics
// (biased variance to normalise, unbiased for the running variance, momentum 0.1, eps 1e-5);
// evaluation: running statistics. With replicas each shard normalises with its own statistics
// and, as torch_xla saves the master ordinal's buffers, replica 0 updates the running ones.
// `fusedRelu`: applies ReLU to the output in the same pass (BN followed by ReLU).

#include "core/nn/layer.h"

namespace paritylab::nn {

class BatchNorm : public Layer {
 public:
  BatchNorm(ModelBuilder& builder, const std::string& name, int channels, bool fusedRelu = false,
            double momentum = 0.1, double eps = 1e-5);
  Shape outputShape(const Shape& in) const override;
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;
  void init(ParamStore& params, RandomStream& rng) override;

  int weightId() const { return weight_; }
  int biasId() const { return bias_; }
  int runningMeanId() const { return runningMean_; }
  int runningVarId() const { return runningVar_; }

 private:
  int channels_;
  bool relu_;
  double momentum_, eps_;
  int weight_, bias_, runningMean_, runningVar_;
  int site_;
  bool trainedForward_ = true;
  const Tensor* x_ = nullptr;
  Tensor y_, dx_;
  std::vector<float> mean_, invStd_;  // [C] of the last forward
};

}  // namespace paritylab::nn
