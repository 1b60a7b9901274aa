#include "core/nn/causal_self_attention.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/nn/conv_product_rules.h"

namespace paritylab::nn {

using backends::LayerKind;
using backends::Product;

namespace {

// One (batch, head) pair's call of a product: the step's extras (fp8 scales measured over the
// whole tensors, X-ray slot) with its own stochastic-rounding stream. `a` and `b` (null: not one)
// are this call's operands that went through the activation store step (Q, K, V, P): when the
// store step rounds as the product does (autocast's bf16), gemm reads them as they are.
GemmExtras forHead(GemmExtras e, int bh, const StepContext& ctx, const backends::GemmPolicy& p,
                   const float* a = nullptr, const float* b = nullptr) {
  e.seed = hashSeed(e.seed, std::uint64_t(bh));
  const auto& stored = ctx.policy->storage.activations;
  if (a && operandAlreadyStored(stored, p, Operand::A, e)) e.roundedA = a;
  if (b && operandAlreadyStored(stored, p, Operand::B, e)) e.roundedB = b;
  return e;
}

// A stored activation (Q, K, V, P) rounded once for its products: none when the store step
// already rounded it as the product does (forHead then reads it as it is).
const float* roundedOnce(RoundedCopy& copy, const Tensor& t, const StepContext& ctx,
                         const backends::GemmPolicy& p, Operand which, const GemmExtras& e) {
  if (operandAlreadyStored(ctx.policy->storage.activations, p, which, e)) {
    copy.clear();
    return nullptr;
  }
  return copy.round(t.data(), t.size(), p, which, e);
}

}  // namespace

CausalSelfAttention::CausalSelfAttention(ModelBuilder& builder, const std::string& name, int embd,
                                         int heads, int nLayer)
    : cAttn_(builder, name + ".c_attn", embd, 3 * embd),
      cProj_(builder, name + ".c_proj", embd, embd),
      embd_(embd),
      heads_(heads),
      headDim_(heads > 0 ? embd / heads : 0),
      nLayer_(nLayer),
      softmaxXray_(xrayLayerName(name) + ".softmax") {
  if (heads < 1 || embd % heads != 0)
    throw std::invalid_argument("CausalSelfAttention: " + std::to_string(embd) +
                                " features do not split into " + std::to_string(heads) + " heads");
  qkSite_ = builder.productSite(backends::LayerKind::Attention);
  pvSite_ = builder.productSite(backends::LayerKind::Attention);
  builder.siteNames.resize(std::size_t(builder.nextSite));
  builder.siteNames[std::size_t(qkSite_)] = name + ".qk";
  builder.siteNames[std::size_t(pvSite_)] = name + ".pv";
}

Shape CausalSelfAttention::outputShape(const Shape& in) const {
  if (in.rank != 3 || in[2] != embd_)
    throw std::invalid_argument("CausalSelfAttention: expected [batch, T, " +
                                std::to_string(embd_) + "] input");
  return in;
}

void CausalSelfAttention::init(ParamStore& params, RandomStream& rng) {
  const double projStd = 0.02 / std::sqrt(2.0 * double(nLayer_));
  for (const auto& [linear, stddev] : {std::pair{&cAttn_, 0.02}, std::pair{&cProj_, projStd}}) {
    float* w = params.master(linear->weightId());
    for (std::size_t i = 0; i < params.info(linear->weightId()).size; ++i)
      w[i] = float(stddev * rng.normal());
    std::fill_n(params.master(linear->biasId()), params.info(linear->biasId()).size, 0.0f);
  }
}

Tensor& CausalSelfAttention::forward(const Tensor& x, StepContext& ctx) {
  outputShape(x.shape());
  const int b = x.dim(0), t = x.dim(1), c = embd_, h = heads_, d = headDim_;
  const Tensor& qkv = cAttn_.forward(x, ctx);  // [B, T, 3C]
  for (Tensor* part : {&q_, &k_, &v_}) part->resize({b, h, t, d});
  for (int bi = 0; bi < b; ++bi)
    for (int ti = 0; ti < t; ++ti) {
      const float* row = qkv.data() + (std::size_t(bi) * t + ti) * 3 * c;
      for (int hi = 0; hi < h; ++hi) {
        const std::size_t to = ((std::size_t(bi) * h + hi) * t + ti) * d;
        std::copy_n(row + hi * d, d, q_.data() + to);
        std::copy_n(row + c + hi * d, d, k_.data() + to);
        std::copy_n(row + 2 * c + hi * d, d, v_.data() + to);
      }
    }
  ctx.storeActivation(q_, qkSite_ * 64);
  ctx.storeActivation(k_, qkSite_ * 64 + 1);
  ctx.storeActivation(v_, qkSite_ * 64 + 2);

  const std::size_t tt = std::size_t(t) * t, td = std::size_t(t) * d;
  p_.resize({b, h, t, t});
  const float scale = float(1.0 / std::sqrt(double(d)));
  const GemmExtras scores = ctx.gemmExtras(qkSite_, LayerKind::Attention, Product::Forward,
                                           q_.data(), q_.size(), k_.data(), k_.size());
  const backends::GemmPolicy& fwd = ctx.gemmPolicy(qkSite_, LayerKind::Attention, Product::Forward);
  const float* qr = roundedOnce(qRounded_, q_, ctx, fwd, Operand::A, scores);
  const float* kr = roundedOnce(kRounded_, k_, ctx, fwd, Operand::B, scores);
  for (int bh = 0; bh < b * h; ++bh) {  // S = scale * Q K^T
    GemmExtras e = forHead(scores, bh, ctx, fwd, q_.data() + bh * td, k_.data() + bh * td);
    const float* qh = useRounded(qr, q_.data(), bh * td, Operand::A, e);
    const float* kh = useRounded(kr, k_.data(), bh * td, Operand::B, e);
    gemm(fwd, Trans::No, Trans::Yes, t, t, d, scale, qh, d, kh, d, 0.0f, p_.data() + bh * tt, t,
         *ctx.workspace, e);
  }
  // Causal softmax of each row: P[i, j] = exp(S[i, j] - max) / sum over j <= i, in fp32, or with
  // the scores, exponentials, sum and probabilities held in the policy's softmax format.
  const auto& held = ctx.policy->elementwise.softmax;
  for (std::size_t r = 0; r < std::size_t(b) * h * t; ++r) {
    float* row = p_.data() + r * t;
    const int last = int(r % std::size_t(t));  // the row's query position
    ctx.holdIn(held, row, std::size_t(last) + 1, qkSite_, r * 4, &softmaxXray_, "scores");
    float max = -std::numeric_limits<float>::infinity();
    for (int j = 0; j <= last; ++j) max = std::max(max, row[j]);
    if (ctx.stepSignals) ctx.stepSignals->noteAttentionLogit(max);
    for (int j = 0; j <= last; ++j) row[j] = std::exp(row[j] - max);
    ctx.holdIn(held, row, std::size_t(last) + 1, qkSite_, r * 4 + 1, &softmaxXray_, "exp");
    double sum = 0.0;
    for (int j = 0; j <= last; ++j) sum += row[j];
    float inv = float(1.0 / sum);
    auto heldSum = float(sum);
    ctx.holdIn(held, &heldSum, 1, qkSite_, r * 4 + 2, &softmaxXray_, "sum");
    if (held) inv = 1.0f / heldSum;
    for (int j = 0; j <= last; ++j) row[j] *= inv;
    ctx.holdIn(held, row, std::size_t(last) + 1, qkSite_, r * 4 + 3, &softmaxXray_, "probs");
    std::fill(row + last + 1, row + t, 0.0f);
  }
  ctx.storeActivation(p_, qkSite_ * 64 + 3);
  ctx.probeForward(qkSite_, p_);  // the probabilities the scores became

  o_.resize({b, t, c});
  const GemmExtras values = ctx.gemmExtras(pvSite_, LayerKind::Attention, Product::Forward,
                                           p_.data(), p_.size(), v_.data(), v_.size());
  const backends::GemmPolicy& pv = ctx.gemmPolicy(pvSite_, LayerKind::Attention, Product::Forward);
  const float* pr = roundedOnce(pRounded_, p_, ctx, pv, Operand::A, values);
  const float* vr = roundedOnce(vRounded_, v_, ctx, pv, Operand::B, values);
  for (int bh = 0; bh < b * h; ++bh) {  // O[b, :, head] = P V
    float* o = o_.data() + std::size_t(bh / h) * t * c + std::size_t(bh % h) * d;
    GemmExtras e = forHead(values, bh, ctx, pv, p_.data() + bh * tt, v_.data() + bh * td);
    const float* ph = useRounded(pr, p_.data(), bh * tt, Operand::A, e);
    const float* vh = useRounded(vr, v_.data(), bh * td, Operand::B, e);
    gemm(pv, Trans::No, Trans::No, t, d, t, 1.0f, ph, t, vh, d, 0.0f, o, c, *ctx.workspace, e);
  }
  ctx.storeActivation(o_, qkSite_ * 64 + 4);
  ctx.probeForward(pvSite_, o_);
  // O went through the store step: c_proj is told so, as a layer after a stored output is.
  const numerics::RoundingSpec* const inputStoredAs = ctx.inputStoredAs;  // of x
  const auto& stored = ctx.policy->storage.activations;
  ctx.inputStoredAs = stored ? &*stored : nullptr;
  Tensor& y = cProj_.forward(o_, ctx);
  ctx.inputStoredAs = inputStoredAs;
  return y;
}

const Tensor& CausalSelfAttention::backward(const Tensor& dy, StepContext& ctx) {
  const int b = q_.dim(0), h = heads_, t = q_.dim(2), d = headDim_, c = embd_;
  const std::size_t tt = std::size_t(t) * t, td = std::size_t(t) * d;
  const Tensor& dout = cProj_.backward(dy, ctx);  // dO [B, T, C]
  // Each product's policy at its own site (pv: through O = P V; qk: through S = Q K^T).
  const backends::GemmPolicy& data =
      ctx.gemmPolicy(pvSite_, LayerKind::Attention, Product::BackwardData);
  const backends::GemmPolicy& weight =
      ctx.gemmPolicy(pvSite_, LayerKind::Attention, Product::BackwardWeight);
  const backends::GemmPolicy& qkData =
      ctx.gemmPolicy(qkSite_, LayerKind::Attention, Product::BackwardData);
  const backends::GemmPolicy& qkWeight =
      ctx.gemmPolicy(qkSite_, LayerKind::Attention, Product::BackwardWeight);

  // Through O = P V: dP = dO V^T (backwardData), dV^T = dO^T P (backwardWeight).
  dp_.resize({b, h, t, t});
  dqkv_.resize({b, t, 3 * c});
  dvT_.resize(td);
  const GemmExtras dpExtras = ctx.gemmExtras(pvSite_, LayerKind::Attention, Product::BackwardData,
                                             dout.data(), dout.size(), v_.data(), v_.size());
  const GemmExtras dvExtras = ctx.gemmExtras(pvSite_, LayerKind::Attention, Product::BackwardWeight,
                                             dout.data(), dout.size(), p_.data(), p_.size());
  const float* dOr = dOutRounded_.round(dout.data(), dout.size(), data, Operand::A, dpExtras);
  const float* dOrForWeight = dOutRounded_.forProduct(weight, Operand::A, dvExtras);
  const float* vr = vRounded_.forProduct(data, Operand::B, dpExtras);
  const float* pr = pRounded_.forProduct(weight, Operand::B, dvExtras);
  for (int bh = 0; bh < b * h; ++bh) {
    const int bi = bh / h, hi = bh % h;
    const std::size_t at = std::size_t(bi) * t * c + std::size_t(hi) * d;
    GemmExtras e = forHead(dpExtras, bh, ctx, data, nullptr, v_.data() + bh * td);
    const float* dO = useRounded(dOr, dout.data(), at, Operand::A, e);
    const float* vh = useRounded(vr, v_.data(), bh * td, Operand::B, e);
    gemm(data, Trans::No, Trans::Yes, t, t, d, 1.0f, dO, c, vh, d, 0.0f, dp_.data() + bh * tt, t,
         *ctx.workspace, e);
    e = forHead(dvExtras, bh, ctx, weight, nullptr, p_.data() + bh * tt);
    dO = useRounded(dOrForWeight, dout.data(), at, Operand::A, e);
    const float* ph = useRounded(pr, p_.data(), bh * tt, Operand::B, e);
    gemm(weight, Trans::Yes, Trans::No, d, t, t, 1.0f, dO, c, ph, t, 0.0f, dvT_.data(), t,
         *ctx.workspace, e);
    for (int ti = 0; ti < t; ++ti) {
      float* dv = dqkv_.data() + (std::size_t(bi) * t + ti) * 3 * c + 2 * c + hi * d;
      for (int di = 0; di < d; ++di) dv[di] = dvT_[std::size_t(di) * t + ti];
    }
  }

  ctx.probeBackward(pvSite_, dp_);  // dP, the gradient P V passes back to the probabilities
  // Through the softmax and the scale, in place: dS = scale * P * (dP - sum_j dP P).
  const float scale = float(1.0 / std::sqrt(double(d)));
  for (std::size_t r = 0; r < std::size_t(b) * h * t; ++r) {
    const float* p = p_.data() + r * t;
    float* g = dp_.data() + r * t;
    const int last = int(r % std::size_t(t));
    double dot = 0.0;
    for (int j = 0; j <= last; ++j) dot += double(g[j]) * p[j];
    const float fdot = float(dot);
    for (int j = 0; j <= last; ++j) g[j] = scale * (p[j] * (g[j] - fdot));
    std::fill(g + last + 1, g + t, 0.0f);
  }
  ctx.storeGradient(dp_.data(), dp_.size(), pvSite_);

  // Through S = Q K^T: dQ = dS K (backwardData), dK = dS^T Q (backwardWeight).
  const GemmExtras dqExtras = ctx.gemmExtras(qkSite_, LayerKind::Attention, Product::BackwardData,
                                             dp_.data(), dp_.size(), k_.data(), k_.size());
  const GemmExtras dkExtras = ctx.gemmExtras(qkSite_, LayerKind::Attention, Product::BackwardWeight,
                                             dp_.data(), dp_.size(), q_.data(), q_.size());
  const float* dsr = dsRounded_.round(dp_.data(), dp_.size(), qkData, Operand::A, dqExtras);
  const float* dsrForWeight = dsRounded_.forProduct(qkWeight, Operand::A, dkExtras);
  const float* kr = kRounded_.forProduct(qkData, Operand::B, dqExtras);
  const float* qr = qRounded_.forProduct(qkWeight, Operand::B, dkExtras);
  for (int bh = 0; bh < b * h; ++bh) {
    const int bi = bh / h, hi = bh % h;
    float* dq = dqkv_.data() + std::size_t(bi) * t * 3 * c + std::size_t(hi) * d;
    GemmExtras e = forHead(dqExtras, bh, ctx, qkData, nullptr, k_.data() + bh * td);
    const float* ds = useRounded(dsr, dp_.data(), bh * tt, Operand::A, e);
    const float* kh = useRounded(kr, k_.data(), bh * td, Operand::B, e);
    gemm(qkData, Trans::No, Trans::No, t, d, t, 1.0f, ds, t, kh, d, 0.0f, dq, 3 * c, *ctx.workspace,
         e);
    e = forHead(dkExtras, bh, ctx, qkWeight, nullptr, q_.data() + bh * td);
    ds = useRounded(dsrForWeight, dp_.data(), bh * tt, Operand::A, e);
    const float* qh = useRounded(qr, q_.data(), bh * td, Operand::B, e);
    gemm(qkWeight, Trans::Yes, Trans::No, t, d, t, 1.0f, ds, t, qh, d, 0.0f, dq + c, 3 * c,
         *ctx.workspace, e);
  }
  ctx.storeGradient(dqkv_.data(), dqkv_.size(), qkSite_);
  ctx.probeBackward(qkSite_, dqkv_);  // dQ, dK and dV as the QKV projection receives them
  cAttn_.setNeedInputGrad(needInputGrad_);
  return cAttn_.backward(dqkv_, ctx);
}

}  // namespace paritylab::nn
