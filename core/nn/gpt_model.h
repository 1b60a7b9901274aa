#pragma once
// nanoGPT's GPT (decoder-only, pre-norm GPT-2) without dropout: token ids [B, T] (as
// TokenPositionEmbedding takes them) -> logits [B, T, vocab], row-major.
//   x = wte[ids] + wpe[t]; x = block_i(x) for i < nLayer; x = ln_f(x); logits = lm_head(x)
// Parameter names as nanoGPT's state_dict: transformer.wte.weight, transformer.wpe.weight,
// transformer.h.<i>.* (gpt_block.h), transformer.ln_f.*, and lm_head.weight only when untied.
// Tied (GPT-2's choice), the head is logits = x wte^T through gemm() with the Linear products, and
// backward adds the head's share of wte's gradient after the embedding's backward overwrote it.
// Every layer output goes through the store step, the logits included (as Sequential's last); the
// embeddings' sum starts the residual stream (storeResidual).

#include <memory>
#include <optional>
#include <vector>

#include "core/nn/gpt_block.h"
#include "core/nn/token_position_embedding.h"

namespace paritylab::nn {

struct GptConfig {
  int vocab = 50304;
  int blockSize = 1024;
  int nLayer = 12;
  int nHead = 12;
  int nEmbd = 768;
  bool tieWeights = true;  // false: a separate lm_head Linear without bias
};

class GptModel : public Layer {
 public:
  GptModel(ModelBuilder& builder, const GptConfig& config);
  ~GptModel() override;
  Shape outputShape(const Shape& in) const override;
  Tensor& forward(const Tensor& ids, StepContext& ctx) override;
  // dy: dL/dlogits [B, T, vocab]. Overwrites every parameter's gradient; returns no input
  // gradient (token ids are not differentiable).
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;
  void init(ParamStore& params, RandomStream& rng) override;
  // The logits went through the store step inside forward (as every output of the model did).
  bool outputAlreadyStoredAs(const numerics::RoundingSpec& /*format*/,
                             const StepContext& /*ctx*/) const override {
    return true;
  }

  const GptConfig& config() const { return config_; }
  const TokenPositionEmbedding& embedding() const { return embedding_; }
  const std::vector<std::unique_ptr<GptBlock>>& blocks() const { return blocks_; }
  const LayerNorm& finalNorm() const { return *lnF_; }
  const Linear* untiedHead() const { return lmHead_.get(); }  // null when tied
  int site() const { return site_; }                          // the tied head's GEMM call site

 private:
  GptConfig config_;
  TokenPositionEmbedding embedding_;
  std::vector<std::unique_ptr<GptBlock>> blocks_;
  std::unique_ptr<LayerNorm> lnF_;
  std::unique_ptr<Linear> lmHead_;  // null when tied
  int site_;                        // the tied head's GEMM call site and stored-tensor seeds
  const Tensor* xF_ = nullptr;      // ln_f's output of the last forward: the head's input
  Tensor logits_;                   // [B, T, vocab] (tied)
  Tensor dxF_;                      // [B, T, C]: the tied head's input gradient
  Tensor none_;                     // the (empty) input gradient
};

}  // namespace paritylab::nn
