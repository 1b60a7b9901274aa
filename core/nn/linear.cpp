#include "core/nn/linear.h"

#include <cmath>
#include <stdexcept>

#include "core/nn/conv_product_rules.h"

namespace paritylab::nn {

using backends::LayerKind;
using backends::Product;

Linear::Linear(ModelBuilder& builder, const std::string& name, int in, int out, bool bias)
    : in_(in), out_(out), site_(builder.productSite(LayerKind::Linear)) {
  weight_ = builder.addParam(name + ".weight", {out, in});
  if (bias) bias_ = builder.addParam(name + ".bias", {out});
}

namespace {

bool lastDimIs(const Shape& s, int n) {
  return s.rank >= 2 && s[s.rank - 1] == n;
}

}  // namespace

int Linear::rows(const Shape& in) const {
  if (lastDimIs(in, in_)) return int(in.numel() / std::size_t(in_));
  if (int(in.itemSize()) != in_)
    throw std::invalid_argument("Linear: input has " + std::to_string(in.itemSize()) +
                                " features per item, expected " + std::to_string(in_));
  return in[0];
}

Shape Linear::outputShape(const Shape& in) const {
  rows(in);  // throws when the input does not fit
  if (!lastDimIs(in, in_)) return {in[0], out_};
  Shape out = in;
  out.dims[std::size_t(in.rank - 1)] = out_;
  return out;
}

void Linear::init(ParamStore& params, RandomStream& rng) {
  // torch: kaiming_uniform_(a=sqrt(5)) == U(-1/sqrt(fan_in), 1/sqrt(fan_in)); bias the same.
  const double bound = 1.0 / std::sqrt(double(in_));
  float* w = params.master(weight_);
  for (std::size_t i = 0; i < params.info(weight_).size; ++i)
    w[i] = float(rng.uniform(-bound, bound));
  if (bias_ >= 0) {
    float* b = params.master(bias_);
    for (int i = 0; i < out_; ++i) b[i] = float(rng.uniform(-bound, bound));
  }
}

Tensor& Linear::forward(const Tensor& x, StepContext& ctx) {
  x_ = &x;
  inputStoredAs_.reset();
  if (ctx.inputStoredAs) inputStoredAs_ = *ctx.inputStoredAs;
  const int n = rows(x.shape());
  y_.resize(outputShape(x.shape()));
  const float* w = ctx.params->value(weight_);
  const std::size_t nw = std::size_t(out_) * in_;
  GemmExtras extras =
      ctx.gemmExtras(site_, LayerKind::Linear, Product::Forward, x.data(), x.size(), w, nw);
  // gemm adds the bias before its one output rounding, round(XW + b) like cuBLASLt's bias
  // epilogue (first rounded where the policy's `addend` says).
  if (bias_ >= 0) extras.bias = ctx.params->value(bias_);
  const backends::GemmPolicy& policy = ctx.gemmPolicy(site_, LayerKind::Linear, Product::Forward);
  w = ctx.sharedOperand(weight_, policy, Operand::B, extras, w, nw);
  // x stored in the format the product rounds it to (autocast's bf16 activations) is read as it
  // is; otherwise rounded once for this product and the weight gradient's.
  const float* a = x.data();
  if (operandAlreadyStored(inputStoredAs_, policy, Operand::A, extras)) {
    xRounded_.clear();
    extras.roundedA = a;
  } else {
    a = useRounded(xRounded_.round(x.data(), x.size(), policy, Operand::A, extras), x.data(), 0,
                   Operand::A, extras);
  }
  gemm(policy, Trans::No, Trans::Yes, n, out_, in_, 1.0f, a, in_, w, in_, 0.0f, y_.data(), out_,
       *ctx.workspace, extras);
  ctx.probeForward(site_, y_);
  return y_;
}

const Tensor& Linear::backward(const Tensor& dy, StepContext& ctx) {
  const Tensor& x = *x_;
  const int n = rows(x.shape());
  // dW[out, in] = dY^T[out, N] * X[N, in], and db, for the batch or each replica shard of it.
  GemmExtras e = ctx.gemmExtras(site_, LayerKind::Linear, Product::BackwardWeight, dy.data(),
                                dy.size(), x.data(), x.size());
  const backends::GemmPolicy& wgrad =
      ctx.gemmPolicy(site_, LayerKind::Linear, Product::BackwardWeight);
  const float* dyRounded = dyRounded_.round(dy.data(), dy.size(), wgrad, Operand::A, e);
  const bool xStored = operandAlreadyStored(inputStoredAs_, wgrad, Operand::B, e);
  const float* xRounded = xStored ? nullptr : xRounded_.forProduct(wgrad, Operand::B, e);
  ctx.forEachGradientShard(
      std::size_t(n), x.dim(0),
      [&](std::size_t first, std::size_t count, const ParamGradients& grads) {
        GemmExtras part = e;
        const float* a =
            useRounded(dyRounded, dy.data(), first * std::size_t(out_), Operand::A, part);
        const std::size_t xOffset = first * std::size_t(in_);
        const float* b = xStored ? (part.roundedB = x.data() + xOffset)
                                 : useRounded(xRounded, x.data(), xOffset, Operand::B, part);
        float* dw = grads(weight_);
        gemm(wgrad, Trans::Yes, Trans::No, out_, in_, int(count), 1.0f, a, out_, b, in_, 0.0f, dw,
             in_, *ctx.workspace, part);
        ctx.storeGradient(dw, std::size_t(out_) * in_, site_);
        if (bias_ < 0) return;
        float* db = grads(bias_);
        // Column sums of dY [N, out], row by row: the order depends only on the values.
        std::fill_n(db, out_, 0.0f);
        for (std::size_t r = first; r < first + count; ++r) {
          const float* row = dy.data() + r * std::size_t(out_);
          for (int j = 0; j < out_; ++j) db[j] += row[j];
        }
        ctx.storeGradient(db, std::size_t(out_), site_);
      });
  if (!needInputGrad_) return dx_;
  // dX[N, in] = dY[N, out] * W[out, in]
  dx_.resize(x.shape());
  const float* w = ctx.params->value(weight_);
  const std::size_t nw = std::size_t(out_) * in_;
  e = ctx.gemmExtras(site_, LayerKind::Linear, Product::BackwardData, dy.data(), dy.size(), w, nw);
  const backends::GemmPolicy& policy =
      ctx.gemmPolicy(site_, LayerKind::Linear, Product::BackwardData);
  w = ctx.sharedOperand(weight_, policy, Operand::B, e, w, nw);
  const float* a =
      useRounded(dyRounded_.forProduct(policy, Operand::A, e), dy.data(), 0, Operand::A, e);
  gemm(policy, Trans::No, Trans::No, n, in_, out_, 1.0f, a, out_, w, in_, 0.0f, dx_.data(), in_,
       *ctx.workspace, e);
  ctx.storeGradient(dx_.data(), dx_.size(), site_);
  ctx.probeBackward(site_, dx_);
  return dx_;
}

}  // namespace paritylab::nn
