#include "core/nn/fp64_model_layers.h"

#include <stdexcept>
#include <string>

#include "core/nn/batchnorm.h"
#include "core/nn/causal_self_attention.h"
#include "core/nn/conv2d.h"
#include "core/nn/flatten.h"
#include "core/nn/fp64_conv_layers.h"
#include "core/nn/fp64_dense_layers.h"
#include "core/nn/fp64_gpt.h"
#include "core/nn/fp64_residual_layers.h"
#include "core/nn/gelu.h"
#include "core/nn/global_avg_pool.h"
#include "core/nn/gpt_block.h"
#include "core/nn/gpt_model.h"
#include "core/nn/layer_norm.h"
#include "core/nn/linear.h"
#include "core/nn/maxpool.h"
#include "core/nn/relu.h"
#include "core/nn/residual_block.h"
#include "core/nn/token_position_embedding.h"

namespace paritylab::nn {
namespace {

// Walks the containers; `where` names the place of a layer in messages ("layer 5, main path's
// layer 2").
class LayerWalk {
 public:
  explicit LayerWalk(const Model& model) : model_(model) {}

  std::unique_ptr<Fp64Sequential> sequence(const Sequential& net, const std::string& where) {
    auto out = std::make_unique<Fp64Sequential>();
    for (std::size_t i = 0; i < net.layers().size(); ++i)
      out->add(layer(*net.layers()[i], where + "layer " + std::to_string(i + 1)));
    return out;
  }

 private:
  static std::unique_ptr<Fp64BatchNorm> batchNorm(const BatchNorm& bn) {
    return std::make_unique<Fp64BatchNorm>(
        bn.channels(), bn.fusedRelu(), bn.momentum(), bn.eps(),
        Fp64BatchNorm::Ids{bn.weightId(), bn.biasId(), bn.runningMeanId(), bn.runningVarId()});
  }

  static std::unique_ptr<Fp64Linear> linear(const Linear& l) {
    return std::make_unique<Fp64Linear>(l.site(), l.inFeatures(), l.outFeatures(), l.weightId(),
                                        l.biasId());
  }
  static std::unique_ptr<Fp64LayerNorm> layerNorm(const LayerNorm& ln) {
    return std::make_unique<Fp64LayerNorm>(ln.features(), ln.eps(), ln.weightId(), ln.biasId());
  }
  static std::unique_ptr<Fp64TokenPositionEmbedding> embedding(const TokenPositionEmbedding& e) {
    return std::make_unique<Fp64TokenPositionEmbedding>(e.vocab(), e.embd(), e.tokenWeightId(),
                                                        e.positionWeightId());
  }
  static std::unique_ptr<Fp64CausalSelfAttention> attention(const CausalSelfAttention& a) {
    const int embd = a.qkvProjection().inFeatures();
    return std::make_unique<Fp64CausalSelfAttention>(
        embd, a.heads(), Fp64CausalSelfAttention::Sites{a.qkSite(), a.pvSite()},
        linear(a.qkvProjection()), linear(a.outputProjection()));
  }
  static std::unique_ptr<Fp64GptBlock> gptBlock(const GptBlock& b) {
    Fp64GptBlock::Parts parts;
    parts.ln1 = layerNorm(b.firstNorm());
    parts.attention = attention(b.attention());
    parts.ln2 = layerNorm(b.secondNorm());
    parts.fc = linear(b.mlpIn());
    parts.proj = linear(b.mlpOut());
    return std::make_unique<Fp64GptBlock>(std::move(parts));
  }
  static std::unique_ptr<Fp64Gpt> gpt(const GptModel& g) {
    Fp64Gpt::Parts parts;
    parts.embedding = embedding(g.embedding());
    for (const auto& block : g.blocks()) parts.blocks.push_back(gptBlock(*block));
    parts.lnF = layerNorm(g.finalNorm());
    if (g.untiedHead()) parts.untiedHead = linear(*g.untiedHead());
    return std::make_unique<Fp64Gpt>(std::move(parts), g.config().vocab, g.site());
  }

  std::unique_ptr<Fp64Layer> layer(const Layer& layer, const std::string& where) {
    if (const auto* inner = dynamic_cast<const Sequential*>(&layer))
      return sequence(*inner, where + ", ");
    if (dynamic_cast<const Flatten*>(&layer)) return std::make_unique<Fp64Flatten>();
    if (dynamic_cast<const ReLU*>(&layer)) return std::make_unique<Fp64Relu>();
    if (const auto* l = dynamic_cast<const Linear*>(&layer)) return linear(*l);
    if (const auto* c = dynamic_cast<const Conv2d*>(&layer))
      return std::make_unique<Fp64Conv2d>(
          c->site(),
          Fp64Conv2d::Geometry{c->inChannels(), c->outChannels(), c->kernel(), c->stride(),
                               c->padding()},
          c->weightId(), c->biasId());
    if (const auto* bn = dynamic_cast<const BatchNorm*>(&layer)) return batchNorm(*bn);
    if (const auto* pool = dynamic_cast<const MaxPool2d*>(&layer))
      return std::make_unique<Fp64MaxPool2d>(pool->kernel());
    if (dynamic_cast<const GlobalAvgPool*>(&layer)) return std::make_unique<Fp64GlobalAvgPool>();
    if (const auto* block = dynamic_cast<const BasicBlock*>(&layer))
      return std::make_unique<Fp64BasicBlock>(
          sequence(block->mainPath(), where + ", main path's "), batchNorm(block->closingNorm()),
          block->projection() ? sequence(*block->projection(), where + ", projection's ")
                              : nullptr);
    if (const auto* g = dynamic_cast<const GptModel*>(&layer)) return gpt(*g);
    if (const auto* b = dynamic_cast<const GptBlock*>(&layer)) return gptBlock(*b);
    if (const auto* a = dynamic_cast<const CausalSelfAttention*>(&layer)) return attention(*a);
    if (const auto* ln = dynamic_cast<const LayerNorm*>(&layer)) return layerNorm(*ln);
    if (const auto* e = dynamic_cast<const TokenPositionEmbedding*>(&layer)) return embedding(*e);
    if (dynamic_cast<const Gelu*>(&layer)) return std::make_unique<Fp64Gelu>();
    throw std::invalid_argument("the fp64 reference computes " + std::string(kFp64Layers) +
                                "; model '" + model_.name + "' has another kind of layer (" +
                                where + "): compare it with a backend as the reference instead");
  }

  const Model& model_;
};

}  // namespace

std::unique_ptr<Fp64Sequential> fp64LayersOf(const Model& model) {
  std::unique_ptr<Fp64Sequential> net = LayerWalk(model).sequence(*model.net, "");
  net->setNeedInputGrad(false);
  return net;
}

}  // namespace paritylab::nn
