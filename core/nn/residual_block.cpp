#include "core/nn/residual_block.h"

#include "core/nn/batchnorm.h"
#include "core/nn/conv2d.h"
#include "core/nn/tensor_array.h"

namespace paritylab::nn {

BasicBlock::BasicBlock(ModelBuilder& builder, const std::string& name, int in, int out,
                       int stride) {
  main_ = std::make_unique<Sequential>(builder);
  main_->add<Conv2d>(builder, name + ".conv1", in, out, 3, stride, 1, false,
                     ConvInit::KaimingNormalOut);
  main_->add<BatchNorm>(builder, name + ".bn1", out, /*fusedRelu=*/true);
  main_->add<Conv2d>(builder, name + ".conv2", out, out, 3, 1, 1, false,
                     ConvInit::KaimingNormalOut);
  auto bn2 = std::make_unique<BatchNorm>(builder, name + ".bn2", out);
  bn2_ = bn2.get();
  bn2Owner_ = std::move(bn2);
  if (stride != 1 || in != out) {
    shortcut_ = std::make_unique<Sequential>(builder);
    shortcut_->add<Conv2d>(builder, name + ".downsample.0", in, out, 1, stride, 0, false,
                           ConvInit::KaimingNormalOut);
    shortcut_->add<BatchNorm>(builder, name + ".downsample.1", out);
  }
}

Shape BasicBlock::outputShape(const Shape& in) const {
  return bn2_->outputShape(main_->outputShape(in));
}

void BasicBlock::init(ParamStore& params, RandomStream& rng) {
  main_->init(params, rng);
  bn2_->init(params, rng);
  if (shortcut_) shortcut_->init(params, rng);
}

Tensor& BasicBlock::forward(const Tensor& x, StepContext& ctx) {
  x_ = &x;
  const Tensor& h = main_->forward(x, ctx);
  // Unrounded activations: bn2, the add and the ReLU in one pass (the same float operations).
  if (!ctx.policy->storage.activations) {
    const Tensor& b = shortcut_ ? shortcut_->forward(x, ctx) : x;
    bn2_->forwardAddRelu(h, b, y_, ctx);
    return y_;
  }
  // Else bn2's output is stored (rounded) as main_'s fourth layer output was, then added: in the
  // same pass for a deterministic format (rounding is elementwise: the same bits, without writing
  // and reading back the whole stored output, which nothing else reads).
  const auto& stored = ctx.policy->storage.activations;
  if (stored->mode != numerics::RoundingMode::Stochastic) {
    const Tensor& b = shortcut_ ? shortcut_->forward(x, ctx) : x;
    bn2_->forwardAddRelu(h, b, y_, ctx, stored);
    return y_;
  }
  Tensor& a = bn2_->forward(h, ctx);
  ctx.storeActivation(a, main_->site() * 64 + 3);
  const Tensor& b = shortcut_ ? shortcut_->forward(x, ctx) : x;
  y_.resize(a.shape());
  asArray(y_) = (asArray(a) + asArray(b)).max(0.0f);
  return y_;
}

const Tensor& BasicBlock::backward(const Tensor& dy, StepContext& ctx) {
  // The block's gradient counts where its output is positive: bn2 masks it on the fly.
  const Tensor& dh = bn2_->backwardThroughRelu(dy, y_, ctx);
  main_->propagateNeedInputGrad(needInputGrad_);
  const Tensor& dMain = main_->backward(dh, ctx);
  const float* mask = y_.data();
  if (shortcut_) {
    // The projection's batch norm takes the masked gradient too.
    shortcut_->propagateNeedInputGrad(needInputGrad_);
    auto& bnDown = static_cast<BatchNorm&>(*shortcut_->layers()[1]);
    const Tensor& dDown = bnDown.backwardThroughRelu(dy, y_, ctx);
    const Tensor& dShort = shortcut_->layers()[0]->backward(dDown, ctx);
    if (!needInputGrad_) return dx_;
    dx_.resize(x_->shape());
    asArray(dx_) = asArray(dMain) + asArray(dShort);
  } else {
    if (!needInputGrad_) return dx_;
    // dx = dMain + (dy where y > 0): the identity's share masked in the same pass.
    dx_.resize(x_->shape());
    Eigen::Map<const Eigen::ArrayXf> y(mask, Eigen::Index(y_.size()));
    asArray(dx_) = asArray(dMain) + (y > 0.0f).select(asArray(dy), 0.0f);
  }
  ctx.storeGradient(dx_.data(), dx_.size(), 0x30000);
  return dx_;
}

}  // namespace paritylab::nn
