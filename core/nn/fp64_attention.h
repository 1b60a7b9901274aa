#pragma once
// The fp64 reference's causal multi-head self-attention (fp64_layer.h), as causal_self_attention.h
// computes it in fp32: x [B, T, C] -> y [B, T, C], row-major,
//   qkv = c_attn(x) [B, T, 3C]; per (batch, head) Q, K, V [T, C/heads] (the heads side by side)
//   S = Q K^T / sqrt(C/heads), causal; P = softmax(S) over j <= i, 0 above the diagonal
//   O = P V [B, T, C]; y = c_proj(O)
// Its GEMM call sites as the fp32 layer's probe records them: the Q K^T site's output is P
// [B, heads, T, T] and its input gradient dQ, dK, dV side by side as [B, T, 3C]; the P V site's
// output is O and its input gradient dP = dO V^T [B, heads, T, T] (every entry, above the
// diagonal too); the two projections are linear layers with their own sites.

#include <memory>

#include "core/nn/fp64_dense_layers.h"

namespace paritylab::nn {

class Fp64CausalSelfAttention : public Fp64Layer {
 public:
  struct Sites {
    int qk = -1, pv = -1;  // the GEMM call sites of Q K^T and P V
  };
  // qkv: C -> 3C, projection: C -> C.
  Fp64CausalSelfAttention(int embd, int heads, const Sites& sites, std::unique_ptr<Fp64Linear> qkv,
                          std::unique_ptr<Fp64Linear> projection);
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;
  std::vector<int> paramIds() const override;
  void sites(Fp64Sites& into) const override;

 private:
  int embd_, heads_, headDim_;
  Sites sites_;
  std::unique_ptr<Fp64Linear> qkv_, projection_;
  const DoubleTensor* qkvOut_ = nullptr;  // [B, T, 3C]: Q, K, V of the last forward
  DoubleTensor p_;                        // [B, heads, T, T]
  DoubleTensor o_;                        // [B, T, C]
  DoubleTensor dp_;                       // [B, heads, T, T]: dP
  DoubleTensor dqkv_;                     // [B, T, 3C]
  std::vector<double> ds_;                // [T, T]: one head's dS
};

}  // namespace paritylab::nn
