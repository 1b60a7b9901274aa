#pragma once
// torchvision's BasicBlock: relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x)), conv 3x3 without
// bias; the shortcut is a projection (1x1 conv with the block's stride + BN) when the stride or
// the channel count changes, else the identity. bn2, the residual add and the ReLU run as one pass
// forward and backward when activations are stored unrounded.

#include <optional>

#include "core/nn/sequential.h"

namespace paritylab::nn {

class BatchNorm;

class BasicBlock : public Layer {
 public:
  BasicBlock(ModelBuilder& builder, const std::string& name, int in, int out, int stride);
  Shape outputShape(const Shape& in) const override;
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;
  void init(ParamStore& params, RandomStream& rng) override;

  bool hasProjection() const { return shortcut_ != nullptr; }
  // The main path (conv1, bn1 + ReLU, conv2), its closing batch norm and the shortcut's
  // projection (1x1 conv, batch norm; null for the identity).
  const Sequential& mainPath() const { return *main_; }
  const BatchNorm& closingNorm() const { return *bn2_; }
  const Sequential* projection() const { return shortcut_.get(); }

 private:
  // main_: conv1, bn1 + ReLU, conv2; then bn2_. Registered in torchvision's order.
  std::unique_ptr<Sequential> main_, shortcut_;
  BatchNorm* bn2_ = nullptr;  // owned by bn2Owner_
  std::unique_ptr<Layer> bn2Owner_;
  const Tensor* x_ = nullptr;
  Tensor y_, dx_;
};

}  // namespace paritylab::nn
