#pragma once
// GPT-2's input: y[b, t, :] = wte[id(b, t), :] + wpe[t, :] (nanoGPT's tok_emb + pos_emb), for
// token ids x [B, T] -> y [B, T, C], row-major. wte [vocab, C] and wpe [blockSize, C] are
// registered as `name`.wte.weight and `name`.wpe.weight, both N(0, 0.02) at init as nanoGPT's.
//
// Token ids travel in the float Tensor the Layer interface passes: each value is an id in
// [0, vocab), an integer, exact in fp32 for vocab <= 2^24 (GPT-2's 50257 is far below). A value
// that is not such an integer throws std::invalid_argument. Nothing may round the ids on their
// way in: they are the model's input, which no store step touches.
//
// One layer for both tables: the position is implicit in the input's layout (column t of x), so
// a separate position layer would have no input of its own in a chain of layers, and GPT only
// ever uses the sum. The tied LM head reads wte through tokenWeightId(). backward() overwrites
// both tables' gradients (scatter-add of dy over the ids, and over the batch for wpe) and returns
// no input gradient (ids are not differentiable); with a tied head, the model adds the head's
// share of wte's gradient after this backward.

#include "core/nn/layer.h"

namespace paritylab::nn {

class TokenPositionEmbedding : public Layer {
 public:
  TokenPositionEmbedding(ModelBuilder& builder, const std::string& name, int vocab, int blockSize,
                         int embd);
  Shape outputShape(const Shape& in) const override;
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;
  void init(ParamStore& params, RandomStream& rng) override;

  int tokenWeightId() const { return wte_; }     // [vocab, C]
  int positionWeightId() const { return wpe_; }  // [blockSize, C]
  int vocab() const { return vocab_; }
  int embd() const { return embd_; }

 private:
  int vocab_, blockSize_, embd_;
  int wte_, wpe_;
  int site_;              // seeds of the stored gradients
  std::vector<int> ids_;  // [B*T] of the last forward
  Tensor y_, dx_;
};

}  // namespace paritylab::nn
