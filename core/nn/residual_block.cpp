#include "core/nn/residual_block.h"

#include "core/nn/batchnorm.h"
#include "core/nn/conv2d.h"

namespace paritylab::nn {

BasicBlock::BasicBlock(ModelBuilder& builder, const std::string& name, int in, int out,
                       int stride) {
  main_ = std::make_unique<Sequential>(builder);
  main_->add<Conv2d>(builder, name + ".conv1", in, out, 3, stride, 1, false,
                     ConvInit::KaimingNormalOut);
  main_->add<BatchNorm>(builder, name + ".bn1", out, /*fusedRelu=*/true);
  main_->add<Conv2d>(builder, name + ".conv2", out, out, 3, 1, 1, false,
                     ConvInit::KaimingNormalOut);
  main_->add<BatchNorm>(builder, name + ".bn2", out);
  if (stride != 1 || in != out) {
    shortcut_ = std::make_unique<Sequential>(builder);
    shortcut_->add<Conv2d>(builder, name + ".downsample.0", in, out, 1, stride, 0, false,
                           ConvInit::KaimingNormalOut);
    shortcut_->add<BatchNorm>(builder, name + ".downsample.1", out);
  }
}

Shape BasicBlock::outputShape(const Shape& in) const {
  return main_->outputShape(in);
}

void BasicBlock::init(ParamStore& params, RandomStream& rng) {
  main_->init(params, rng);
  if (shortcut_) shortcut_->init(params, rng);
}

Tensor& BasicBlock::forward(const Tensor& x, StepContext& ctx) {
  x_ = &x;
  const Tensor& a = main_->forward(x, ctx);
  const Tensor& b = shortcut_ ? shortcut_->forward(x, ctx) : x;
  y_.resize(a.shape());
  y_.array() = (a.array() + b.array()).max(0.0f);
  return y_;
}

const Tensor& BasicBlock::backward(const Tensor& dy, StepContext& ctx) {
  sumGrad_.resize(dy.shape());
  sumGrad_.array() = (y_.array() > 0.0f).select(dy.array(), 0.0f);
  main_->propagateNeedInputGrad(needInputGrad_);
  const Tensor& dMain = main_->backward(sumGrad_, ctx);
  if (shortcut_) shortcut_->propagateNeedInputGrad(needInputGrad_);
  const Tensor& dShort = shortcut_ ? shortcut_->backward(sumGrad_, ctx) : sumGrad_;
  if (!needInputGrad_) return dx_;
  dx_.resize(x_->shape());
  dx_.array() = dMain.array() + dShort.array();
  ctx.storeGradient(dx_.data(), dx_.size(), 0x30000);
  return dx_;
}

}  // namespace paritylab::nn
