#pragma once
// The fp64 reference's batch norm and ResNet's basic block (fp64_layer.h), as batchnorm.h and
// residual_block.h compute them in fp32, in training mode.

#include "core/nn/fp64_layer.h"

namespace paritylab::nn {

// Batch norm of x [N, C, H, W] or [N, C] per channel with the batch's statistics: the biased
// variance to normalise, y = gamma (x - mean) / sqrt(var + eps) + beta (then the ReLU when
// `fusedRelu`). Each forward updates the running statistics as the fp32 layer does:
// mean <- (1 - momentum) mean + momentum batch mean, var likewise with the unbiased batch variance.
class Fp64BatchNorm : public Fp64Layer {
 public:
  struct Ids {
    int weight = -1, bias = -1, runningMean = -1, runningVar = -1;
  };
  Fp64BatchNorm(int channels, bool fusedRelu, double momentum, double eps, const Ids& ids);
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;
  std::vector<int> paramIds() const override;

  // The residual block's tail: out = max(bn(x) + residual, 0) (the layer's own ReLU is not
  // applied first). residual: x's shape.
  const DoubleTensor& forwardAddRelu(const DoubleTensor& x, const DoubleTensor& residual,
                                     Fp64Params& params);
  // backward() of the layer (without its own ReLU) given dy already counted only where the
  // block's output is positive.
  const DoubleTensor& backwardUnmasked(const DoubleTensor& dy, Fp64Params& params);

 private:
  // The batch statistics of x (and the running statistics' update); y = bn(x), ReLU if `relu`.
  void normalize(const DoubleTensor& x, bool relu, Fp64Params& params);
  const DoubleTensor& backwardOf(const DoubleTensor& dy, bool masked, Fp64Params& params);

  int channels_;
  bool relu_;
  double momentum_, eps_;
  Ids ids_;
  const DoubleTensor* x_ = nullptr;
  std::vector<double> mean_, invStd_;  // [C] of the last forward
  DoubleTensor y_, dx_;
};

// torchvision's BasicBlock: y = relu(bn2(main(x)) + shortcut(x)), main = conv1, bn1 + ReLU,
// conv2; shortcut = a projection (1x1 conv with the block's stride, batch norm) or the identity.
class Fp64BasicBlock : public Fp64Layer {
 public:
  // projection: null for the identity shortcut.
  Fp64BasicBlock(std::unique_ptr<Fp64Sequential> mainPath, std::unique_ptr<Fp64BatchNorm> bn2,
                 std::unique_ptr<Fp64Sequential> projection);
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;
  std::vector<int> paramIds() const override;
  void sites(Fp64Sites& into) const override;
  void setNeedInputGrad(bool need) override;

 private:
  std::unique_ptr<Fp64Sequential> main_;
  std::unique_ptr<Fp64BatchNorm> bn2_;
  std::unique_ptr<Fp64Sequential> projection_;
  const DoubleTensor* x_ = nullptr;
  const DoubleTensor* y_ = nullptr;  // bn2's output: the block's
  DoubleTensor masked_, dx_;         // dy where y > 0; dL/dx
};

}  // namespace paritylab::nn
