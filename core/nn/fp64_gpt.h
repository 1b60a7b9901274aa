#pragma once
// The fp64 reference's transformer block and language model (fp64_layer.h), as gpt_block.h and
// gpt_model.h compute them in fp32:
//   block: x1 = x + attn(ln_1(x)); y = x1 + c_proj(gelu(c_fc(ln_2(x1))))
//   model: token ids [B, T] -> x = wte[ids] + wpe[t]; the blocks; ln_f; logits [B, T, vocab] by
//          the untied head (a linear layer) or the tied one, logits = x wte^T, whose GEMM call
//          site shows the logits and the gradient it passes back to ln_f's output ([B, T, C]).
// Tied, wte's gradient is the embedding's share plus the head's, dlogits^T x.

#include <memory>
#include <vector>

#include "core/nn/fp64_attention.h"
#include "core/nn/fp64_transformer_layers.h"

namespace paritylab::nn {

class Fp64GptBlock : public Fp64Layer {
 public:
  struct Parts {
    std::unique_ptr<Fp64LayerNorm> ln1;
    std::unique_ptr<Fp64CausalSelfAttention> attention;
    std::unique_ptr<Fp64LayerNorm> ln2;
    std::unique_ptr<Fp64Linear> fc, proj;  // C -> 4C, 4C -> C
  };
  explicit Fp64GptBlock(Parts parts);
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;
  std::vector<int> paramIds() const override;
  void sites(Fp64Sites& into) const override;
  void setNeedInputGrad(bool need) override;

 private:
  Parts p_;
  Fp64Gelu gelu_;
  DoubleTensor x1_, y_;  // [B, T, C]: the residual stream after attention, after the MLP
  DoubleTensor dx1_, dx_;
};

class Fp64Gpt : public Fp64Layer {
 public:
  struct Parts {
    std::unique_ptr<Fp64TokenPositionEmbedding> embedding;
    std::vector<std::unique_ptr<Fp64GptBlock>> blocks;
    std::unique_ptr<Fp64LayerNorm> lnF;
    std::unique_ptr<Fp64Linear> untiedHead;  // null: tied to the token embedding
  };
  // tiedSite: the tied head's GEMM call site (unused when untied).
  Fp64Gpt(Parts parts, int vocab, int tiedSite);
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  // Returns no input gradient (token ids have none).
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;
  std::vector<int> paramIds() const override;
  void sites(Fp64Sites& into) const override;

 private:
  Parts p_;
  int vocab_, site_;
  const DoubleTensor* xF_ = nullptr;  // ln_f's output: the head's input [B, T, C]
  DoubleTensor logits_, dxF_, none_;  // tied: [B, T, vocab], [B, T, C]
};

}  // namespace paritylab::nn
