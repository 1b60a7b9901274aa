#include "core/nn/conv2d.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/nn/conv_product_rules.h"
#include "core/nn/reductions.h"

namespace paritylab::nn {

using backends::LayerKind;
using backends::Product;

Conv2d::Conv2d(ModelBuilder& builder, const std::string& name, int in, int out, int kernel,
               int stride, int padding, bool bias, ConvInit init)
    : in_(in),
      out_(out),
      kernel_(kernel),
      stride_(stride),
      padding_(padding),
      initKind_(init),
      site_(builder.productSite(backends::LayerKind::Conv)) {
  weight_ = builder.addParam(name + ".weight", {out, in, kernel, kernel});
  if (bias) bias_ = builder.addParam(name + ".bias", {out});
}

ConvGeometry Conv2d::geometry(const Shape& in) const {
  return {in[0], in[1], in[2], in[3], kernel_, stride_, padding_};
}

Shape Conv2d::outputShape(const Shape& in) const {
  if (in.rank != 4 || in[1] != in_)
    throw std::invalid_argument("Conv2d: expected input [N, " + std::to_string(in_) +
                                ", H, W], got " + std::to_string(in.rank) + " dims with " +
                                std::to_string(in.rank > 1 ? in[1] : 0) + " channels");
  const ConvGeometry g = geometry(in);
  if (g.outHeight() <= 0 || g.outWidth() <= 0)
    throw std::invalid_argument("Conv2d: input " + std::to_string(in[2]) + "x" +
                                std::to_string(in[3]) + " too small for the kernel");
  return {in[0], out_, g.outHeight(), g.outWidth()};
}

void Conv2d::init(ParamStore& params, RandomStream& rng) {
  const int fanIn = in_ * kernel_ * kernel_;
  const int fanOut = out_ * kernel_ * kernel_;
  float* w = params.master(weight_);
  const std::size_t n = params.info(weight_).size;
  if (initKind_ == ConvInit::TorchDefault) {
    const double bound = 1.0 / std::sqrt(double(fanIn));
    for (std::size_t i = 0; i < n; ++i) w[i] = float(rng.uniform(-bound, bound));
    if (bias_ >= 0) {
      float* b = params.master(bias_);
      for (int i = 0; i < out_; ++i) b[i] = float(rng.uniform(-bound, bound));
    }
  } else {
    const double stddev = std::sqrt(2.0 / fanOut);
    for (std::size_t i = 0; i < n; ++i) w[i] = float(stddev * rng.normal());
    if (bias_ >= 0) std::fill(params.master(bias_), params.master(bias_) + out_, 0.0f);
  }
}

// Splitting a product along its output columns leaves every element's reduction as it was, so
// grouping images is exact for every policy, with two exceptions that keep the whole batch in
// one product: stochastic operand draws are indexed over the whole operand, and fp8 scales record
// each call's operand amax (computed once here from x, which has the columns' amax only when
// every pixel lands in some window: stride <= kernel).

bool Conv2d::outputAlreadyStoredAs(const numerics::RoundingSpec& format,
                                   const StepContext& ctx) const {
  const backends::GemmPolicy& p = ctx.gemmPolicy(site_, LayerKind::Conv, Product::Forward);
  return p.output && p.output->mode != numerics::RoundingMode::Stochastic &&
         format.mode != numerics::RoundingMode::Stochastic &&
         numerics::sameRounding(*p.output, format);
}

Tensor& Conv2d::forward(const Tensor& x, StepContext& ctx) {
  x_ = &x;
  inputStoredAs_.reset();
  if (ctx.inputStoredAs) inputStoredAs_ = *ctx.inputStoredAs;
  const ConvGeometry g = geometry(x.shape());
  const std::size_t k = g.columnRows();
  const int plane = g.outHeight() * g.outWidth();
  const backends::GemmPolicy& policy = ctx.gemmPolicy(site_, LayerKind::Conv, Product::Forward);
  const bool grouped = !stochasticOperands(policy) && (!ctx.scaleProvider || stride_ <= kernel_);
  // One image per product when the weights are small against an image's columns (Cout <= plane
  // / 4): the product then lands in y where it belongs, with no copy, for about a quarter more
  // packing of the (small) weights; else groups of about 1 MiB and a copy.
  const bool perImage = grouped && std::size_t(out_) * 4 <= std::size_t(plane);
  const int group = perImage  ? 1
                    : grouped ? imagesPerGroup(k, std::size_t(plane), g.batch, std::size_t(out_))
                              : g.batch;
  const std::size_t groupCols = std::size_t(group) * plane;
  LayerScratch& s = *ctx.scratch;
  if (s.columns.size() < k * groupCols) s.columns.resize(k * groupCols);
  if (s.product.size() < std::size_t(out_) * groupCols)
    s.product.resize(std::size_t(out_) * groupCols);
  const float* w = ctx.params->value(weight_);
  const float* b = bias_ >= 0 ? ctx.params->value(bias_) : nullptr;
  // One set of extras (stochastic stream, fp8 scales) for the whole product.
  const GemmExtras e = grouped ? ctx.gemmExtras(site_, LayerKind::Conv, Product::Forward, w,
                                                std::size_t(out_) * k, x.data(), x.size())
                               : GemmExtras{};
  y_.resize({g.batch, out_, g.outHeight(), g.outWidth()});
  const std::size_t itemSize = std::size_t(g.channels) * g.height * g.width;
  const int groups = (g.batch + group - 1) / group;
  float* const wOnce =
      grouped ? weightsRoundedOnce(policy, e, w, std::size_t(out_) * k, groups, s) : nullptr;
  // The input rounded once per group before im2col, instead of its k*k-fold columns (grouped
  // products only: their extras are the whole product's), unless it went through the store step
  // in the operand's format already (gpu-amp-*).
  const bool inputRounded = grouped && operandAlreadyStored(inputStoredAs_, policy, Operand::B, e);
  // Block-scaled operands are quantized before the gather, along their channels: the input's at
  // each pixel, the weights' at each tap (prequantizeOperand; the weights once, for every group).
  const bool blockScaled = policy.blockScaled();
  const std::size_t taps = std::size_t(kernel_) * kernel_;
  const std::size_t inputPlane = std::size_t(g.height) * g.width;
  float* quantizedWeights = nullptr;  // W quantized before the gather, for every group
  float weightsTensorScale = 0.0f;    // its NVFP4 tensor scale
  for (int n0 = 0; n0 < g.batch; n0 += group) {
    ConvGeometry sub = g;
    sub.batch = std::min(group, g.batch - n0);
    const int cols = int(sub.columnCols());
    const float* xGroup = x.data() + std::size_t(n0) * itemSize;
    // Ungrouped extras from the gathered columns (fp8 scales take their amax), but a block-scaled
    // product's (no fp8 scales) before its gather.
    GemmExtras groupExtras =
        grouped || !blockScaled
            ? e
            : ctx.gemmExtras(site_, LayerKind::Conv, Product::Forward, w, std::size_t(out_) * k,
                             xGroup, std::size_t(sub.batch) * itemSize);
    if (n0 == 0) {
      if (s.weights.size() < std::size_t(out_) * k) s.weights.resize(std::size_t(out_) * k);
      quantizedWeights =
          ctx.squareConvWeights(weight_, policy, groupExtras, w, s.weights, out_, in_, int(taps),
                                numerics::BlockAxis::Row, weightsTensorScale);
      if (!quantizedWeights &&
          prequantizeOperand(policy, Operand::A, groupExtras, w, s.weights.data(), out_, in_,
                             std::int64_t(taps), 0, &weightsTensorScale))
        quantizedWeights = s.weights.data();
    }
    const std::size_t groupItems = std::size_t(sub.batch) * itemSize;
    if (s.rounded.size() < groupItems) s.rounded.resize(groupItems);
    float inputTensorScale = 0.0f;
    const bool inputQuantized = prequantizeOperand(
        policy, Operand::B, groupExtras, xGroup, s.rounded.data(), sub.batch, in_,
        std::int64_t(inputPlane), std::uint64_t(n0) * itemSize, &inputTensorScale);
    const bool prerounded = inputQuantized || (grouped && !inputRounded &&
                                               preroundOperand(policy, Operand::B, e, xGroup,
                                                               s.rounded.data(), groupItems));
    // NVFP4: the quantized input as the product's bf16 values, gathered as such (half the bytes;
    // the product reads those columns, not s.columns).
    const bool bf16Columns =
        inputQuantized && packOperandBf16(policy, groupExtras, int(k), s.rounded.data(), groupItems,
                                          inputTensorScale, s.bf16Values);
    if (bf16Columns && s.bf16Columns.size() < k * std::size_t(cols))
      s.bf16Columns.resize(k * std::size_t(cols));
    if (bf16Columns)
      im2colBf16(sub, s.bf16Values.data(), s.bf16Columns.data());
    else
      im2col(sub, prerounded ? s.rounded.data() : xGroup, s.columns.data());
    if (!grouped && !blockScaled)
      groupExtras = ctx.gemmExtras(site_, LayerKind::Conv, Product::Forward, w,
                                   std::size_t(out_) * k, s.columns.data(), k * cols);
    // product [Cout, group*plane] = W [Cout, k] * columns [k, group*plane] + bias, the bias
    // pre-filled as C with beta = 1 so that gemm adds it before its one output rounding (cuDNN's
    // bias epilogue: round(conv + b); the bias first rounded where the policy's `addend` says)
    float* product = perImage ? y_.data() + std::size_t(n0) * out_ * plane : s.product.data();
    if (b)
      for (int c = 0; c < out_; ++c) std::fill_n(product + std::size_t(c) * cols, cols, b[c]);
    groupExtras.writableB = s.columns.data();  // the columns are ours and used once
    groupExtras.writableBRounded = prerounded || inputRounded;
    groupExtras.tensorScaleB = inputTensorScale;
    if (quantizedWeights) {
      groupExtras.writableA = quantizedWeights;
      groupExtras.writableARounded = true;
      groupExtras.tensorScaleA = weightsTensorScale;
    } else if (wOnce) {
      groupExtras.writableA = wOnce;
      groupExtras.writableARounded = n0 > 0;
    }
    const float* weights = quantizedWeights ? quantizedWeights : wOnce ? wOnce : w;
    // One product, or two column halves for OpenBLAS's small-matrix kernels (per image only).
    const int parts =
        perImage ? smallKernelParts(std::size_t(out_), std::size_t(out_) * cols * k, 32) : 1;
    const int width = (cols + parts - 1) / parts;
    for (int j = 0; j < cols; j += width) {
      GemmExtras partExtras = groupExtras;
      partExtras.writableB = s.columns.data() + j;
      if (bf16Columns) partExtras.bf16B = s.bf16Columns.data() + j;
      partExtras.writableARounded = groupExtras.writableARounded || (wOnce && j > 0);
      gemm(policy, Trans::No, Trans::No, out_, std::min(width, cols - j), int(k), 1.0f, weights,
           int(k), s.columns.data() + j, cols, b ? 1.0f : 0.0f, product + j, cols, *ctx.workspace,
           partExtras);
    }
    if (perImage) continue;
    // [Cout, group, plane] -> [group, Cout, plane]
    for (int c = 0; c < out_; ++c)
      for (int n = 0; n < sub.batch; ++n) {
        const float* src = s.product.data() + std::size_t(c) * cols + std::size_t(n) * plane;
        std::copy(src, src + plane, y_.data() + (std::size_t(n0 + n) * out_ + c) * plane);
      }
  }
  ctx.probeForward(site_, y_);
  return y_;
}

// Splitting the weight gradient's reduction over the batch into image groups: a policy that
// rounds operands only (fp32 accumulation) takes it in image groups accumulated into dW in fp32:
// the same product in another summation order. A policy that also rounds the output once
// (gpu-amp-*, pure-bf16) does the same, the groups' fp32 partial products summed into dW in fp32
// and the last group's call rounding the total once, as a GPU's split reduction does (the
// split changed those policies' dW summation order, not where or how often they round).
// Accumulation rounding, multi-pass products, stochastic draws and fp8 scaling of the output-
// rounded kind keep one product. (The X-ray does not change the choice, so measuring changes no
// bit; on a measured step it sees each group's call, as for the fp32 split.)
static bool splitsWeightGradient(const StepContext& ctx, int site_, bool needInputGrad, int stride,
                                 int kernel) {
  const backends::GemmPolicy& weightPolicy =
      ctx.gemmPolicy(site_, LayerKind::Conv, Product::BackwardWeight);
  const backends::GemmPolicy& dataPolicy =
      ctx.gemmPolicy(site_, LayerKind::Conv, Product::BackwardData);
  const bool dataDrawsOverBatch = needInputGrad && stochasticOperands(dataPolicy);
  return !dataDrawsOverBatch &&
         ((operandRoundingOnly(weightPolicy) && (!ctx.scaleProvider || stride <= kernel)) ||
          (operandAndOutputRoundingOnly(weightPolicy) && !ctx.scaleProvider));
}

bool Conv2d::gathersGradient(const StepContext& ctx, bool splitWeight) const {
  const backends::GemmPolicy& dataPolicy =
      ctx.gemmPolicy(site_, LayerKind::Conv, Product::BackwardData);
  return splitWeight && needInputGrad_ && bias_ < 0 && kernel_ > 1 && stride_ == 1 &&
         2 * padding_ == kernel_ - 1 && !ctx.scaleProvider && !stochasticOperands(dataPolicy);
}

const Tensor& Conv2d::backward(const Tensor& dy, StepContext& ctx) {
  const bool splitWeight = splitsWeightGradient(ctx, site_, needInputGrad_, stride_, kernel_);
  if (gathersGradient(ctx, splitWeight)) return backwardGathered(dy, ctx);
  const Tensor& x = *x_;
  const ConvGeometry g = geometry(x.shape());
  const int k = int(g.columnRows());
  const int cols = int(g.columnCols());
  const int plane = g.outHeight() * g.outWidth();
  LayerScratch& s = *ctx.scratch;
  if (s.product.size() < std::size_t(out_) * cols) s.product.resize(std::size_t(out_) * cols);
  // dY [N, Cout, plane] -> dYt [Cout, N*plane], and the bias gradient from its rows.
  channelsFirst(dy.data(), s.product.data(), g.batch, out_, std::size_t(plane));
  if (bias_ >= 0) {
    float* db = ctx.params->grad(bias_);
    for (int c = 0; c < out_; ++c)
      db[c] = sumOf(s.product.data() + std::size_t(c) * cols, std::size_t(cols));
    ctx.storeGradient(db, std::size_t(out_), site_);
  }
  // dW [Cout, k] = dYt [Cout, N*plane] * columns^T [N*plane, k], split or not (above).
  float* dw = ctx.params->grad(weight_);
  const ConvBackwardPolicies policies(
      ctx.gemmPolicy(site_, LayerKind::Conv, Product::BackwardWeight),
      ctx.gemmPolicy(site_, LayerKind::Conv, Product::BackwardData));
  const backends::GemmPolicy& weightPolicy = policies.weight;
  const backends::GemmPolicy& dataPolicy = policies.data;
  const backends::GemmPolicy& partialPolicy = policies.partialWeight;
  const bool dytInPlace = dytMayBeRoundedInPlace(policies.weight, policies.data, needInputGrad_,
                                                 ctx.scaleProvider != nullptr);
  const int group =
      stochasticOperands(dataPolicy) && needInputGrad_
          ? g.batch
          : imagesPerGroup(std::size_t(k), std::size_t(plane), g.batch, std::size_t(out_));
  const std::size_t columnFloats = std::size_t(k) * (splitWeight ? group * plane : cols);
  if (s.columns.size() < columnFloats) s.columns.resize(columnFloats);
  // The columns gather x's values and zeros: when x went through the store step in the format
  // the weight product rounds it to (gpu-amp-*), they are rounded already.
  const auto inputRoundedFor = [&](const GemmExtras& e) {
    return operandAlreadyStored(inputStoredAs_, weightPolicy, Operand::B, e);
  };
  // A block-scaled weight product reads dY and x quantized along the batch (its extras carry no
  // fp8 scales, so they are the same from the operands as they are): dYt [Cout, N, plane]
  // quantized where it lies, the columns gathered from the quantized input. Square blocks on the
  // gradient (16 lines of dY [N, Cout * plane] together) would cross a channel's edge there, so
  // they quantize dY as the layer has it, permuted to dYt after.
  const std::size_t itemSize = std::size_t(g.channels) * g.height * g.width;
  const bool gradientInDyt = !(weightPolicy.scalingA && weightPolicy.scalingA->squareBlocks);
  // A block-scaled weight product's extras, once for its quantization along the batch, its bf16
  // columns and its product (or image groups): with no fp8 scales, they are the same from any of
  // its operands.
  const GemmExtras blockScaledExtras =
      weightPolicy.blockScaled() ? ctx.gemmExtras(site_, LayerKind::Conv, Product::BackwardWeight,
                                                  dy.data(), dy.size(), x.data(), x.size())
                                 : GemmExtras{};
  const QuantizedByBatch byBatch =
      weightPolicy.blockScaled()
          ? quantizeAlongBatch(
                weightPolicy, blockScaledExtras,
                gradientInDyt
                    ? GradientStack{s.product.data(), std::size_t(out_), std::size_t(plane)}
                    : GradientStack{dy.data(), 1, std::size_t(out_) * plane},
                x.data(), itemSize, g.batch, s)
          : QuantizedByBatch{};
  float* weightRows = s.product.data();  // dYt as the weight product reads it
  if (byBatch.gradient && gradientInDyt) {
    weightRows = byBatch.gradient;
  } else if (byBatch.gradient) {
    if (s.gradientRowsByBatch.size() < std::size_t(out_) * cols)
      s.gradientRowsByBatch.resize(std::size_t(out_) * cols);
    weightRows = s.gradientRowsByBatch.data();
    channelsFirst(byBatch.gradient, weightRows, g.batch, out_, std::size_t(plane));
  }
  const float* xSource = byBatch.input ? byBatch.input : x.data();
  // NVFP4: the input quantized along the batch as the weight product's bf16 values, gathered as
  // such (the product then reads those columns, not s.columns).
  const bool bf16Input =
      byBatch.input && packOperandBf16(weightPolicy, blockScaledExtras, int(cols), byBatch.input,
                                       x.size(), byBatch.inputTensorScale, s.bf16Values);
  const std::size_t bf16ColumnCount = k * (splitWeight ? std::size_t(group) * plane : cols);
  if (bf16Input && s.bf16Columns.size() < bf16ColumnCount) s.bf16Columns.resize(bf16ColumnCount);
  // dYt rounded in place by the weight product, the way the data products round it
  // (dytMayBeRoundedInPlace): they read it as it is. Not on X-ray steps.
  bool dytRounded = false;
  if (!splitWeight) {
    if (bf16Input)
      im2colBf16(g, s.bf16Values.data(), s.bf16Columns.data());
    else
      im2col(g, xSource, s.columns.data());
    GemmExtras e =
        weightPolicy.blockScaled()
            ? blockScaledExtras
            : ctx.gemmExtras(site_, LayerKind::Conv, Product::BackwardWeight, weightRows,
                             std::size_t(out_) * cols, s.columns.data(), std::size_t(k) * cols);
    if (bf16Input) e.bf16B = s.bf16Columns.data();
    e.writableB = s.columns.data();  // rebuilt by im2col above, overwritten by dcolumns below
    e.writableBRounded = byBatch.input || inputRoundedFor(e);
    if (dytInPlace || byBatch.gradient) e.writableA = weightRows;
    e.writableARounded = byBatch.gradient != nullptr;
    e.tensorScaleA = byBatch.gradientTensorScale;
    e.tensorScaleB = byBatch.inputTensorScale;
    dytRounded = dytInPlace && !e.xray && !byBatch.gradient;
    gemm(weightPolicy, Trans::No, Trans::Yes, out_, k, cols, 1.0f, weightRows, cols,
         s.columns.data(), cols, 0.0f, dw, k, *ctx.workspace, e);
  }
  // Extras (stochastic streams, fp8 scales) once per product, from the whole operands (x has the
  // columns' amax when stride <= kernel).
  const GemmExtras weightExtras =
      !splitWeight ? GemmExtras{}
      : weightPolicy.blockScaled()
          ? blockScaledExtras
          : ctx.gemmExtras(site_, LayerKind::Conv, Product::BackwardWeight, s.product.data(),
                           std::size_t(out_) * cols, x.data(), x.size());
  const float* w = ctx.params->value(weight_);
  const GemmExtras dataExtras =
      needInputGrad_
          ? ctx.gemmExtras(site_, LayerKind::Conv, Product::BackwardData, w, std::size_t(out_) * k,
                           s.product.data(), std::size_t(out_) * cols)
          : GemmExtras{};
  if (!splitWeight && !needInputGrad_) {
    ctx.storeGradient(dw, std::size_t(out_) * k, site_);
    return dx_;
  }
  // Image group by image group: columns (for dW) and column gradients (dcolumns [k, group*plane]
  // = W^T [k, Cout] * dYt[:, group], then col2im) meet in cache.
  if (needInputGrad_) dx_.resize(x.shape());
  float* const wOnce = needInputGrad_
                           ? weightsRoundedOnce(dataPolicy, dataExtras, w, std::size_t(out_) * k,
                                                (g.batch + group - 1) / group, s)
                           : nullptr;
  // Square weight blocks: W quantized in the forward's blocks, before the groups (the forward's
  // own quantization when the step shares it: StepContext::squareConvWeights).
  float wSquareTensorScale = 0.0f;  // NVFP4's
  float* const wSquare =
      needInputGrad_ ? ctx.squareConvWeights(weight_, dataPolicy, dataExtras, w, s.squareWeights,
                                             out_, in_, kernel_ * kernel_,
                                             numerics::BlockAxis::Column, wSquareTensorScale)
                     : nullptr;
  for (int n0 = 0; n0 < g.batch; n0 += group) {
    ConvGeometry sub = g;
    sub.batch = std::min(group, g.batch - n0);
    const int subCols = int(sub.columnCols());
    float* dyt = s.product.data() + std::size_t(n0) * plane;  // [Cout, group*plane], ld cols
    if (splitWeight) {
      if (bf16Input)
        im2colBf16(sub, s.bf16Values.data() + std::size_t(n0) * itemSize, s.bf16Columns.data());
      else
        im2col(sub, xSource + std::size_t(n0) * itemSize, s.columns.data());
      float* rows = weightRows + std::size_t(n0) * plane;
      GemmExtras e = weightExtras;
      if (bf16Input) e.bf16B = s.bf16Columns.data();
      e.writableB = s.columns.data();
      e.writableBRounded = byBatch.input || inputRoundedFor(e);
      if (dytInPlace || byBatch.gradient) e.writableA = rows;
      e.writableARounded = byBatch.gradient != nullptr;
      e.tensorScaleA = byBatch.gradientTensorScale;
      e.tensorScaleB = byBatch.inputTensorScale;
      dytRounded = dytInPlace && !e.xray && !byBatch.gradient;
      const bool last = n0 + sub.batch == g.batch;
      gemm(last ? weightPolicy : partialPolicy, Trans::No, Trans::Yes, out_, k, subCols, 1.0f, rows,
           cols, s.columns.data(), subCols, n0 == 0 ? 0.0f : 1.0f, dw, k, *ctx.workspace, e);
    }
    if (!needInputGrad_) continue;
    GemmExtras de = dataExtras;
    if (wOnce) {
      de.writableA = wOnce;
      de.writableARounded = n0 > 0;
    }
    if (wSquare) {  // read as it is
      de.writableA = wSquare;
      de.writableARounded = true;
      de.tensorScaleA = wSquareTensorScale;
    }
    if (dytRounded && !de.xray) {
      de.writableB = dyt;  // read as it is, not written
      de.writableBRounded = true;
    }
    gemm(dataPolicy, Trans::Yes, Trans::No, k, subCols, out_, 1.0f,
         wSquare ? wSquare : (wOnce ? wOnce : w), k, dyt, cols, 0.0f, s.columns.data(), subCols,
         *ctx.workspace, de);
    col2im(sub, s.columns.data(), dx_.data() + std::size_t(n0) * itemSize);
  }
  ctx.storeGradient(dw, std::size_t(out_) * k, site_);
  if (!needInputGrad_) return dx_;
  ctx.storeGradient(dx_.data(), dx_.size(), site_);
  ctx.probeBackward(site_, dx_);
  return dx_;
}

}  // namespace paritylab::nn
