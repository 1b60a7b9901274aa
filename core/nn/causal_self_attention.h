#pragma once
// nanoGPT's CausalSelfAttention (GPT-2), without dropout: x [B, T, C] -> y [B, T, C], row-major.
//   qkv = c_attn(x)                       Linear C -> 3C; q, k, v each [B, nHead, T, C/nHead]
//   S = Q K^T / sqrt(C/nHead)             per (batch, head), [T, T]; causal: S[i, j>i] = -inf
//   P = softmax(S) over each row           fp32
//   O = P V                                [B, T, C] (heads side by side, as nanoGPT's
//                                           transpose(1, 2).view(B, T, C))
//   y = c_proj(O)                         Linear C -> C
// Q K^T and P V go through gemm() with the policy's Attention products; the 1/sqrt(head_dim)
// scale is gemm's alpha (exact for a power-of-4 head_dim such as GPT-2's 64). Backward, each
// product maps onto the Attention fields as a linear layer's (precision_policy.h):
//   dQ = dS K: backwardData,  dK = dS^T Q: backwardWeight,
//   dP = dO V^T: backwardData, dV = dO^T P: backwardWeight (the gradient is operand A in all four).
// Kept for backward, each through the store step: q, k, v, P and O.
// Parameters: `name`.c_attn.{weight,bias}, `name`.c_proj.{weight,bias}; init as nanoGPT's:
// N(0, 0.02) weights, zero biases, c_proj's weights N(0, 0.02 / sqrt(2 * nLayer)).

#include "core/nn/linear.h"

namespace paritylab::nn {

class CausalSelfAttention : public Layer {
 public:
  CausalSelfAttention(ModelBuilder& builder, const std::string& name, int embd, int heads,
                      int nLayer = 1);
  Shape outputShape(const Shape& in) const override;
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;
  void init(ParamStore& params, RandomStream& rng) override;

  const Linear& qkvProjection() const { return cAttn_; }
  const Linear& outputProjection() const { return cProj_; }
  int heads() const { return heads_; }
  int qkSite() const { return qkSite_; }  // the GEMM call site of Q K^T
  int pvSite() const { return pvSite_; }  // the GEMM call site of P V
  // The attention probabilities of the last forward: [B, nHead, T, T], zero above the diagonal.
  const Tensor& probabilities() const { return p_; }

 private:
  Linear cAttn_, cProj_;
  int embd_, heads_, headDim_, nLayer_;
  int qkSite_, pvSite_;      // GEMM call sites of Q K^T and P V
  std::string softmaxXray_;  // the X-ray's name of the softmax's held values: "h0.attn.softmax"
  Tensor q_, k_, v_;         // [B, nHead, T, headDim]
  Tensor p_;                 // [B, nHead, T, T]: scores, then probabilities
  Tensor o_;                 // [B, T, C]
  Tensor dp_;                // [B, nHead, T, T]: dP, then dS
  Tensor dqkv_;              // [B, T, 3C]
  // Q, K, V, P, dO and dS rounded once for the products that read them alike.
  RoundedCopy qRounded_, kRounded_, vRounded_, pRounded_, dOutRounded_, dsRounded_;
  std::vector<float> dvT_;  // one head's dV^T [headDim, T]
};

}  // namespace paritylab::nn
