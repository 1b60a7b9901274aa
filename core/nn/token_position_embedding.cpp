#include "core/nn/token_position_embedding.h"

#include <cmath>
#include <stdexcept>

namespace paritylab::nn {

TokenPositionEmbedding::TokenPositionEmbedding(ModelBuilder& builder, const std::string& name,
                                               int vocab, int blockSize, int embd)
    : vocab_(vocab), blockSize_(blockSize), embd_(embd) {
  wte_ = builder.addParam(name + ".wte.weight", {vocab, embd});
  wpe_ = builder.addParam(name + ".wpe.weight", {blockSize, embd});
  site_ = builder.nextSite++;
}

Shape TokenPositionEmbedding::outputShape(const Shape& in) const {
  if (in.rank != 2 || in[1] < 1 || in[1] > blockSize_)
    throw std::invalid_argument(
        "TokenPositionEmbedding: expected token ids [batch, T] with 1 <= T "
        "<= " +
        std::to_string(blockSize_));
  return {in[0], in[1], embd_};
}

void TokenPositionEmbedding::init(ParamStore& params, RandomStream& rng) {
  for (int id : {wte_, wpe_}) {
    float* w = params.master(id);
    for (std::size_t i = 0; i < params.info(id).size; ++i) w[i] = float(0.02 * rng.normal());
  }
}

Tensor& TokenPositionEmbedding::forward(const Tensor& x, StepContext& ctx) {
  y_.resize(outputShape(x.shape()));
  const int t = x.dim(1);
  const std::size_t c = std::size_t(embd_);
  ids_.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    if (!(v >= 0.0f && v < float(vocab_)) || v != std::floor(v))
      throw std::invalid_argument("TokenPositionEmbedding: token id " + std::to_string(v) + " at " +
                                  std::to_string(i) + " is not an integer in [0, " +
                                  std::to_string(vocab_) + ")");
    ids_[i] = int(v);
  }
  const float* wte = ctx.params->value(wte_);
  const float* wpe = ctx.params->value(wpe_);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float* tok = wte + std::size_t(ids_[i]) * c;
    const float* pos = wpe + std::size_t(int(i) % t) * c;
    float* out = y_.data() + i * c;
    for (std::size_t k = 0; k < c; ++k) out[k] = tok[k] + pos[k];
  }
  return y_;
}

const Tensor& TokenPositionEmbedding::backward(const Tensor& dy, StepContext& ctx) {
  const std::size_t c = std::size_t(embd_);
  const int t = dy.dim(1);
  // Scatter-add in the order of the positions (b, t): the sums depend only on the values. Over the
  // batch, or over each replica shard of it.
  ctx.forEachGradientShard(ids_.size(), dy.dim(0),
                           [&](std::size_t first, std::size_t count, const ParamGradients& grads) {
                             float* dwte = grads(wte_);
                             float* dwpe = grads(wpe_);
                             std::fill_n(dwte, std::size_t(vocab_) * c, 0.0f);
                             std::fill_n(dwpe, std::size_t(blockSize_) * c, 0.0f);
                             for (std::size_t i = first; i < first + count; ++i) {
                               const float* g = dy.data() + i * c;
                               float* tok = dwte + std::size_t(ids_[i]) * c;
                               float* pos = dwpe + std::size_t(int(i) % t) * c;
                               for (std::size_t k = 0; k < c; ++k) {
                                 tok[k] += g[k];
                                 pos[k] += g[k];
                               }
                             }
                             ctx.storeGradient(dwte, std::size_t(vocab_) * c, site_);
                             ctx.storeGradient(dwpe, std::size_t(blockSize_) * c, site_);
                           });
  return dx_;  // empty: token ids have no gradient
}

}  // namespace paritylab::nn
