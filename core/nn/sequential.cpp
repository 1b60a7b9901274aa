#include "core/nn/sequential.h"

#include "core/nn/flatten.h"

namespace paritylab::nn {

Shape Sequential::outputShape(const Shape& in) const {
  Shape s = in;
  for (const auto& layer : layers_) s = layer->outputShape(s);
  return s;
}

Tensor& Sequential::forward(const Tensor& x, StepContext& ctx) {
  const Tensor* cur = &x;
  Tensor* out = nullptr;
  int i = 0;
  const numerics::RoundingSpec* const inputStoredAs = ctx.inputStoredAs;  // of x
  for (auto& layer : layers_) {
    out = &layer->forward(*cur, ctx);
    storeLayerOutput(*out, layer.get(), site_ * 64 + i, ctx);
    ++i;
    cur = out;
  }
  ctx.inputStoredAs = inputStoredAs;
  return *out;
}

const Tensor& Sequential::backward(const Tensor& dy, StepContext& ctx) {
  const Tensor* grad = &dy;
  for (auto it = layers_.rbegin(); it != layers_.rend(); ++it) grad = &(*it)->backward(*grad, ctx);
  return *grad;
}

void Sequential::init(ParamStore& params, RandomStream& rng) {
  for (auto& layer : layers_) layer->init(params, rng);
}

void Sequential::propagateNeedInputGrad(bool need) {
  setNeedInputGrad(need);
  // Layers without parameters in front (flatten) just pass the gradient on: skip past them.
  for (auto& layer : layers_) {
    layer->setNeedInputGrad(need);
    if (!dynamic_cast<Flatten*>(layer.get())) break;
  }
}

}  // namespace paritylab::nn
