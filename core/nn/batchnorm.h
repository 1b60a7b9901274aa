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

  // The tail of a residual block in one pass: out = max(bn(x) + residual, 0), the same
  // float operations as forward() followed by the add and the ReLU, without keeping bn(x).
  // residual and out: x's shape. `stored`: bn(x) goes through the store step in that
  // (deterministic) format before the add, plane by plane, as storing the whole bn(x) would.
  void forwardAddRelu(const Tensor& x, const Tensor& residual, Tensor& out, StepContext& ctx,
                      const std::optional<numerics::RoundingSpec>& stored = std::nullopt);
  // backward() of that tail: dy is the gradient of `out`, counted only where out > 0 (`reluOutput`
  // is out), as backward() would be given it masked. Returns dL/dx.
  const Tensor& backwardThroughRelu(const Tensor& dy, const Tensor& reluOutput, StepContext& ctx);

  int weightId() const { return weight_; }
  int biasId() const { return bias_; }
  int runningMeanId() const { return runningMean_; }
  int runningVarId() const { return runningVar_; }
  int channels() const { return channels_; }
  bool fusedRelu() const { return relu_; }
  double momentum() const { return momentum_; }
  double eps() const { return eps_; }

 private:
  void computeStatistics(const Tensor& x, StepContext& ctx);
  // y = bn(x) (+ residual if non-null, bn(x) stored in `stored` first if set), ReLU if `relu`,
  // written to `out`.
  void normalize(const Tensor& x, const float* residual, bool relu, Tensor& out, StepContext& ctx,
                 const std::optional<numerics::RoundingSpec>& stored = std::nullopt);
  // `mask`: the incoming gradient counts only where mask > 0 (null: everywhere); `reluOfSelf`
  // (mask null): only where this layer's own output, recomputed from x, is > 0.
  const Tensor& backwardMasked(const Tensor& dy, const float* mask, bool reluOfSelf,
                               StepContext& ctx);

  int channels_;
  bool relu_;
  double momentum_, eps_;
  int weight_, bias_, runningMean_, runningVar_;
  int site_;
  bool trainedForward_ = true;
  const Tensor* x_ = nullptr;
  Tensor y_, dx_;
  std::vector<float> mean_, invStd_;  // [C] of the last forward
  std::vector<float> plane_;          // one plane of bn(x) on its way to the store step
};

}  // namespace paritylab::nn
