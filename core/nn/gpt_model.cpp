#include "core/nn/gpt_model.h"

#include "core/nn/conv_product_rules.h"

namespace paritylab::nn {

using backends::LayerKind;
using backends::Product;

GptModel::GptModel(ModelBuilder& builder, const GptConfig& config)
    : config_(config),
      embedding_(builder, "transformer", config.vocab, config.blockSize, config.nEmbd) {
  for (int i = 0; i < config.nLayer; ++i)
    blocks_.push_back(std::make_unique<GptBlock>(builder, "transformer.h." + std::to_string(i),
                                                 config.nEmbd, config.nHead, config.nLayer));
  lnF_ = std::make_unique<LayerNorm>(builder, "transformer.ln_f", config.nEmbd);
  if (!config.tieWeights)
    lmHead_ = std::make_unique<Linear>(builder, "lm_head", config.nEmbd, config.vocab, false);
  site_ = config.tieWeights ? builder.productSite(backends::LayerKind::Linear) : builder.nextSite++;
  if (config.tieWeights) {  // the X-ray names the tied head's products after nanoGPT's module
    builder.siteNames.resize(std::size_t(builder.nextSite));
    builder.siteNames[std::size_t(site_)] = "lm_head";
    builder.siteWeights.resize(std::size_t(builder.nextSite), -1);
    builder.siteWeights[std::size_t(site_)] = embedding_.tokenWeightId();
  }
}

GptModel::~GptModel() = default;

Shape GptModel::outputShape(const Shape& in) const {
  const Shape e = embedding_.outputShape(in);
  return {e[0], e[1], config_.vocab};
}

void GptModel::init(ParamStore& params, RandomStream& rng) {
  embedding_.init(params, rng);
  for (auto& block : blocks_) block->init(params, rng);
  lnF_->init(params, rng);
  if (lmHead_) {
    float* w = params.master(lmHead_->weightId());
    for (std::size_t i = 0; i < params.info(lmHead_->weightId()).size; ++i)
      w[i] = float(0.02 * rng.normal());
  }
}

Tensor& GptModel::forward(const Tensor& ids, StepContext& ctx) {
  const numerics::RoundingSpec* const inputStoredAs = ctx.inputStoredAs;
  int index = 0;
  auto store = [&](Tensor& t, const Layer& from) {
    storeLayerOutput(t, &from, site_ * 64 + index++, ctx);
  };
  Tensor* x = &embedding_.forward(ids, ctx);
  static const std::string kEmbeddingsXray = "embed.residual";
  storeResidual(*x, site_ * 64 + index++, ctx, kEmbeddingsXray, "wte+wpe");  // the stream starts
  for (auto& block : blocks_) x = &block->forward(*x, ctx);  // stores its own output
  Tensor& xf = lnF_->forward(*x, ctx);
  xF_ = &xf;
  store(xf, *lnF_);
  Tensor* logits = nullptr;
  if (lmHead_) {
    logits = &lmHead_->forward(xf, ctx);
    store(*logits, *lmHead_);
  } else {
    // logits [N, vocab] = xf [N, C] * wte[vocab, C]^T
    const int n = int(xf.size() / std::size_t(config_.nEmbd));
    logits_.resize(outputShape(ids.shape()));
    const float* wte = ctx.params->value(embedding_.tokenWeightId());
    const std::size_t nw = std::size_t(config_.vocab) * std::size_t(config_.nEmbd);
    GemmExtras e =
        ctx.gemmExtras(site_, LayerKind::Linear, Product::Forward, xf.data(), xf.size(), wte, nw);
    const backends::GemmPolicy& policy = ctx.gemmPolicy(site_, LayerKind::Linear, Product::Forward);
    wte = ctx.sharedOperand(embedding_.tokenWeightId(), policy, Operand::B, e, wte, nw);
    // xf went through the store step: read as it is when that rounded it as the product would.
    if (operandAlreadyStored(ctx.policy->storage.activations, policy, Operand::A, e))
      e.roundedA = xf.data();
    gemm(policy, Trans::No, Trans::Yes, n, config_.vocab, config_.nEmbd, 1.0f, xf.data(),
         config_.nEmbd, wte, config_.nEmbd, 0.0f, logits_.data(), config_.vocab, *ctx.workspace, e);
    logits = &logits_;
    storeLayerOutput(logits_, nullptr, site_ * 64 + index, ctx);
    ctx.probeForward(site_, logits_);
  }
  ctx.inputStoredAs = inputStoredAs;
  return *logits;
}

const Tensor& GptModel::backward(const Tensor& dy, StepContext& ctx) {
  const int c = config_.nEmbd, v = config_.vocab;
  const int n = int(dy.size() / std::size_t(v));
  const float* wte = ctx.params->value(embedding_.tokenWeightId());
  const std::size_t nw = std::size_t(v) * std::size_t(c);
  const Tensor* grad = nullptr;
  if (lmHead_) {
    grad = &lmHead_->backward(dy, ctx);
  } else {
    // dxf [N, C] = dlogits [N, vocab] * wte [vocab, C]
    dxF_.resize({dy.dim(0), dy.dim(1), c});
    GemmExtras e = ctx.gemmExtras(site_, LayerKind::Linear, Product::BackwardData, dy.data(),
                                  dy.size(), wte, nw);
    const backends::GemmPolicy& policy =
        ctx.gemmPolicy(site_, LayerKind::Linear, Product::BackwardData);
    const float* w = ctx.sharedOperand(embedding_.tokenWeightId(), policy, Operand::B, e, wte, nw);
    gemm(policy, Trans::No, Trans::No, n, c, v, 1.0f, dy.data(), v, w, c, 0.0f, dxF_.data(), c,
         *ctx.workspace, e);
    ctx.storeGradient(dxF_.data(), dxF_.size(), site_);
    ctx.probeBackward(site_, dxF_);
    grad = &dxF_;
  }
  grad = &lnF_->backward(*grad, ctx);
  for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) grad = &(*it)->backward(*grad, ctx);
  embedding_.backward(*grad, ctx);  // overwrites wte's gradient with the embedding's share
  if (!lmHead_) {
    // dwte [vocab, C] += dlogits^T [vocab, N] * xf [N, C]: beta = 1 adds the embedding's share
    // before the product's one output rounding, as torch accumulates into .grad.
    // For the batch, or each replica shard of it into that shard's gradient.
    const Tensor& xf = *xF_;
    GemmExtras e = ctx.gemmExtras(site_, LayerKind::Linear, Product::BackwardWeight, dy.data(),
                                  dy.size(), xf.data(), xf.size());
    const backends::GemmPolicy& wgrad =
        ctx.gemmPolicy(site_, LayerKind::Linear, Product::BackwardWeight);
    const bool stored = operandAlreadyStored(ctx.policy->storage.activations, wgrad, Operand::B, e);
    ctx.forEachGradientShard(
        std::size_t(n), dy.dim(0),
        [&](std::size_t first, std::size_t count, const ParamGradients& grads) {
          GemmExtras part = e;
          const float* b = xf.data() + first * std::size_t(c);
          if (stored) part.roundedB = b;
          float* dwte = grads(embedding_.tokenWeightId());
          gemm(wgrad, Trans::Yes, Trans::No, v, c, int(count), 1.0f,
               dy.data() + first * std::size_t(v), v, b, c, 1.0f, dwte, c, *ctx.workspace, part);
          ctx.storeGradient(dwte, nw, site_);
        });
  }
  return none_;
}

}  // namespace paritylab::nn
