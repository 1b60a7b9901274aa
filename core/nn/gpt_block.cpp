#include "core/nn/gpt_block.h"

#include <cmath>

#include "core/nn/gemm_xray.h"
#include "core/nn/tensor_array.h"

namespace paritylab::nn {

GptBlock::GptBlock(ModelBuilder& builder, const std::string& name, int embd, int heads, int nLayer)
    : site_(builder.nextSite++),
      embd_(embd),
      nLayer_(nLayer),
      ln1_(builder, name + ".ln_1", embd),
      attn_(builder, name + ".attn", embd, heads, nLayer),
      ln2_(builder, name + ".ln_2", embd),
      fc_(builder, name + ".mlp.c_fc", embd, 4 * embd),
      proj_(builder, name + ".mlp.c_proj", 4 * embd, embd),
      residualXray_(xrayLayerName(name) + ".residual") {}

Shape GptBlock::outputShape(const Shape& in) const {
  return attn_.outputShape(ln1_.outputShape(in));
}

void GptBlock::init(ParamStore& params, RandomStream& rng) {
  ln1_.init(params, rng);
  attn_.init(params, rng);
  ln2_.init(params, rng);
  const double projStd = 0.02 / std::sqrt(2.0 * nLayer_);
  for (const Linear* l : {&fc_, &proj_}) {
    const double stddev = l == &proj_ ? projStd : 0.02;
    float* w = params.master(l->weightId());
    for (std::size_t i = 0; i < params.info(l->weightId()).size; ++i)
      w[i] = float(stddev * rng.normal());
    float* b = params.master(l->biasId());
    std::fill_n(b, params.info(l->biasId()).size, 0.0f);
  }
}

Tensor& GptBlock::forward(const Tensor& x, StepContext& ctx) {
  const numerics::RoundingSpec* const inputStoredAs = ctx.inputStoredAs;  // of x
  Tensor& h1 = ln1_.forward(x, ctx);
  storeLayerOutput(h1, &ln1_, site_ * 64, ctx);
  Tensor& a = attn_.forward(h1, ctx);
  storeLayerOutput(a, &attn_, site_ * 64 + 1, ctx);
  x1_.resize(x.shape());
  asArray(x1_) = asArray(x) + asArray(a);
  storeResidual(x1_, site_ * 64 + 2, ctx, residualXray_, "attn");
  Tensor& h2 = ln2_.forward(x1_, ctx);
  storeLayerOutput(h2, &ln2_, site_ * 64 + 3, ctx);
  Tensor& f = fc_.forward(h2, ctx);
  storeLayerOutput(f, &fc_, site_ * 64 + 4, ctx);
  Tensor& g = gelu_.forward(f, ctx);
  storeLayerOutput(g, &gelu_, site_ * 64 + 5, ctx);
  Tensor& m = proj_.forward(g, ctx);
  storeLayerOutput(m, &proj_, site_ * 64 + 6, ctx);
  y_.resize(x.shape());
  asArray(y_) = asArray(x1_) + asArray(m);
  storeResidual(y_, site_ * 64 + 7, ctx, residualXray_, "mlp");
  ctx.inputStoredAs = inputStoredAs;
  return y_;
}

const Tensor& GptBlock::backward(const Tensor& dy, StepContext& ctx) {
  // MLP branch; the residual passes dy on unchanged.
  const Tensor& dg = proj_.backward(dy, ctx);
  const Tensor& df = gelu_.backward(dg, ctx);
  const Tensor& dh2 = fc_.backward(df, ctx);
  const Tensor& dMlp = ln2_.backward(dh2, ctx);
  dx1_.resize(dy.shape());
  asArray(dx1_) = asArray(dy) + asArray(dMlp);
  ctx.storeGradient(dx1_.data(), dx1_.size(), site_ * 64 + 2);
  // Attention branch.
  const Tensor& dh1 = attn_.backward(dx1_, ctx);
  ln1_.setNeedInputGrad(needInputGrad_);
  const Tensor& dAttn = ln1_.backward(dh1, ctx);
  if (!needInputGrad_) return dx_;
  dx_.resize(dy.shape());
  asArray(dx_) = asArray(dx1_) + asArray(dAttn);
  ctx.storeGradient(dx_.data(), dx_.size(), site_ * 64);
  return dx_;
}

}  // namespace paritylab::nn
