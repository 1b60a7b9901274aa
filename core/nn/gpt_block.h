#pragma once
// One pre-norm transformer block of nanoGPT (GPT-2), without dropout: x [B, T, C] -> y [B, T, C],
// row-major.
//   x1 = x + attn(ln_1(x))
//   y  = x1 + mlp(ln_2(x1)),   mlp = c_proj(gelu(c_fc(.))), c_fc C -> 4C, c_proj 4C -> C
// Parameters as nanoGPT's state_dict: `name`.ln_1.*, `name`.attn.c_attn.*, `name`.attn.c_proj.*,
// `name`.ln_2.*, `name`.mlp.c_fc.*, `name`.mlp.c_proj.*. Init as nanoGPT's: N(0, 0.02) weights,
// zero biases, both c_proj weights N(0, 0.02 / sqrt(2 * nLayer)), LayerNorm 1 and 0.
// Every sublayer's output goes through the store step (as Sequential stores its layers' outputs),
// both residual sums through the residual stream's (storeResidual: the policy's
// elementwise.residual format); both residual gradient sums through the gradient store step.

#include "core/nn/causal_self_attention.h"
#include "core/nn/gelu.h"
#include "core/nn/layer_norm.h"
#include "core/nn/linear.h"

namespace paritylab::nn {

class GptBlock : public Layer {
 public:
  GptBlock(ModelBuilder& builder, const std::string& name, int embd, int heads, int nLayer);
  Shape outputShape(const Shape& in) const override;
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;
  void init(ParamStore& params, RandomStream& rng) override;

  const LayerNorm& firstNorm() const { return ln1_; }
  const CausalSelfAttention& attention() const { return attn_; }
  const LayerNorm& secondNorm() const { return ln2_; }
  const Linear& mlpIn() const { return fc_; }     // c_fc, C -> 4C
  const Linear& mlpOut() const { return proj_; }  // c_proj, 4C -> C

 private:
  int site_;  // seeds of the stored tensors: site_ * 64 + index
  int embd_, nLayer_;
  LayerNorm ln1_;
  CausalSelfAttention attn_;
  LayerNorm ln2_;
  Linear fc_, proj_;
  Gelu gelu_;
  std::string residualXray_;  // the X-ray's name of the residual stream: "h0.residual"
  Tensor x1_, y_;             // [B, T, C]: the residual stream after attention, after the MLP
  Tensor dx1_, dx_;           // [B, T, C]
};

}  // namespace paritylab::nn
