// Conv2d's backward for same convolutions (stride 1, padding (kernel-1)/2, no bias): both
// products from one gather of the output gradient per image group.
//
// With D = im2col(dY) [Cout*k*k, group*H*W], the output gradient's windows gathered as forward
// gathers the input's, and X the group's input as [Cin, group*H*W]:
//   dX  [Cin, group*H*W] = Wr [Cin, Cout*k*k] * D,  Wr[ci][co][ky][kx] = W[co][ci][k-1-ky][k-1-kx]
//   dWr [Cout*k*k, Cin] += D * X^T,                 dW[co][ci][k-1-ky][k-1-kx] =
//   dWr[co][ky][kx][ci]
// the transposed convolution a GPU's data-gradient kernels run, instead of the lowered
// dcolumns = W^T * dY, col2im(dcolumns) and dW = dY * im2col(x)^T: no [Cin*k*k, plane] column
// gradient written, zeroed and summed back, no whole-batch copy of dY, and the data product's
// reduction is Cout*k*k long instead of Cout.
//
// Fidelity: the same operands rounded the same way (the weights; the output gradient, whose
// gathered copies are its values and zeros) in the same roles (the gradient is A of the weight
// product and B of the data product, as before). The summation order changes: dX's reduction runs
// over (co, ky, kx) in one product whose one output rounding lands on dX itself, as in cuDNN's
// dgrad (the lowered path rounded each of the k*k column gradients and summed them in col2im);
// dW sums each image group's pixels in the gathered order.

#include <algorithm>

#include "core/nn/conv2d.h"
#include "core/nn/conv_product_rules.h"

namespace paritylab::nn {

using backends::LayerKind;
using backends::Product;

namespace {

template <typename T>
T* grow(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

}  // namespace

const Tensor& Conv2d::backwardGathered(const Tensor& dy, StepContext& ctx) {
  const Tensor& x = *x_;
  const ConvGeometry g = geometry(x.shape());
  const int k = kernel_;
  const std::size_t taps = std::size_t(k) * k;
  const std::size_t plane = std::size_t(g.height) * g.width;  // = the output's (same convolution)
  const std::size_t gatheredRows = std::size_t(out_) * taps;
  const std::size_t weightCount = gatheredRows * std::size_t(in_);
  const ConvBackwardPolicies policies(
      ctx.gemmPolicy(site_, LayerKind::Conv, Product::BackwardWeight),
      ctx.gemmPolicy(site_, LayerKind::Conv, Product::BackwardData));
  const backends::GemmPolicy& weightPolicy = policies.weight;
  const backends::GemmPolicy& dataPolicy = policies.data;
  const backends::GemmPolicy& partialPolicy = policies.partialWeight;
  const bool gatheredInPlace = dytMayBeRoundedInPlace(policies.weight, policies.data, true, false);
  // One image per group when the flipped weights are small against an image's gathered gradient
  // (Cin <= plane / 4: a ResNet's first stages): the products then read x and write dX where
  // they lie, with no copies, for about a quarter more packing of the (small) weights.
  const bool perImage = std::size_t(in_) * 4 <= plane;
  const int group = perImage ? 1 : imagesPerGroup(gatheredRows, plane, g.batch, std::size_t(in_));
  const int groups = (g.batch + group - 1) / group;
  const std::size_t groupCols = std::size_t(group) * plane;

  LayerScratch& s = *ctx.scratch;
  float* gathered = grow(s.columns, gatheredRows * groupCols);   // D
  float* inputs = grow(s.inputs, std::size_t(in_) * groupCols);  // X
  float* dxGroup = grow(s.product, std::size_t(in_) * groupCols);
  float* dwr = grow(s.weightGrad, weightCount);
  float* wr = grow(s.weights, weightCount);

  // Extras (stochastic streams, X-ray slots) once per product.
  const float* w = ctx.params->value(weight_);
  const GemmExtras weightExtras = ctx.gemmExtras(site_, LayerKind::Conv, Product::BackwardWeight,
                                                 dy.data(), dy.size(), x.data(), x.size());
  const GemmExtras dataExtras = ctx.gemmExtras(site_, LayerKind::Conv, Product::BackwardData, w,
                                               weightCount, dy.data(), dy.size());
  const bool wrOnce = weightsMayBeRoundedOnce(dataPolicy, dataExtras, groups);
  // Square weight blocks (16 output x 16 input channels at a tap): W quantized as the forward
  // quantizes it (the forward's own when the step shares it), before the flip below moves its
  // values.
  float wrTensorScale = 0.0f;  // NVFP4's, of the quantized weights
  const float* square =
      ctx.squareConvWeights(weight_, dataPolicy, dataExtras, w, s.squareWeights, out_, in_,
                            int(taps), numerics::BlockAxis::Column, wrTensorScale);
  const bool squareQuantized = square != nullptr;
  const float* wSource = squareQuantized ? square : w;

  // Wr [Cin, Cout*k*k]: W's kernels flipped, input and output channels swapped.
  for (int co = 0; co < out_; ++co) {
    for (int ci = 0; ci < in_; ++ci) {
      const float* src = wSource + (std::size_t(co) * in_ + ci) * taps;
      float* dst = wr + (std::size_t(ci) * out_ + co) * taps;
      for (std::size_t t = 0; t < taps; ++t) dst[t] = src[taps - 1 - t];
    }
  }

  // A block-scaled data product's operands are quantized before the gather along the output
  // channels, as its non-gathered form's (reduction over Cout alone) are: Wr [Cin, Cout, k*k] at
  // each input channel and tap, once; dY [Cout, H*W] at each pixel, gathered again after the
  // weight product, which then may quantize its own gather in place.
  const bool wrQuantized =
      squareQuantized || prequantizeOperand(dataPolicy, Operand::A, dataExtras, wr, wr, in_, out_,
                                            std::int64_t(taps), 0, &wrTensorScale);
  // x went through the store step in the format the weight product rounds it to (gpu-amp-*).
  const bool inputRounded =
      operandAlreadyStored(inputStoredAs_, weightPolicy, Operand::B, weightExtras);

  dx_.resize(x.shape());
  const std::size_t outItem = std::size_t(out_) * plane;
  const std::size_t inItem = std::size_t(in_) * plane;
  // A block-scaled weight product's operands, quantized along the batch before the groups.
  const QuantizedByBatch byBatch = quantizeAlongBatch(
      weightPolicy, weightExtras, {dy.data(), 1, outItem}, x.data(), inItem, g.batch, s);
  for (int n0 = 0; n0 < g.batch; n0 += group) {
    const int images = std::min(group, g.batch - n0);
    const int cols = int(std::size_t(images) * plane);
    const ConvGeometry windows{images, out_, g.height, g.width, k, 1, padding_};
    // dY rounded once before the gather when both products round it the same way (then D needs
    // no rounding in either), else D rounded in place by the weight product below.
    const float* dyGroup = dy.data() + std::size_t(n0) * outItem;
    const bool prerounded = gatheredInPlace && !dataExtras.xray &&
                            preroundOperand(weightPolicy, Operand::A, weightExtras, dyGroup,
                                            grow(s.rounded, std::size_t(images) * outItem),
                                            std::size_t(images) * outItem);
    // What each product gathers: dY as it is or rounded (above), or quantized, along the batch
    // for the weight product, along the channels for the data product (the data product's then
    // gathered again after the weight product's, which may quantize its own gather in place).
    float* dyByChannel = grow(s.rounded, std::size_t(images) * outItem);
    float dataTensorScale = 0.0f;  // NVFP4's, of dY quantized along the channels
    const bool dataQuantized =
        !prerounded &&
        prequantizeOperand(dataPolicy, Operand::B, dataExtras, dyGroup, dyByChannel, images, out_,
                           std::int64_t(plane), std::uint64_t(n0) * outItem, &dataTensorScale);
    const float* dySource = prerounded ? s.rounded.data() : dyGroup;
    const float* weightSource = byBatch.gradient ? byBatch.gradient + n0 * outItem : dySource;
    const float* dataSource = dataQuantized ? dyByChannel : dySource;
    im2col(windows, weightSource, gathered);
    const bool regathers = dataSource != weightSource;
    // X [Cin, images*plane]: x itself (or quantized along the batch) for one image, else a copy
    // (ours: rounded in place)
    const float* xGroup = (byBatch.input ? byBatch.input : x.data()) + std::size_t(n0) * inItem;
    GemmExtras we = weightExtras;
    if (byBatch.input) {
      we.writableB = byBatch.input + std::size_t(n0) * inItem;  // ours, read as it is
      we.writableBRounded = true;
    } else if (inputRounded) {
      we.roundedB = xGroup;  // the product reads x as stored
    }
    if (images > 1) {
      channelsFirst(xGroup, inputs, images, in_, plane);
      xGroup = inputs;
      we.writableB = inputs;
      we.writableBRounded = inputRounded || byBatch.input;
      we.roundedB = nullptr;
    }
    // dWr [Cout*k*k, Cin] (+)= D X^T
    if (gatheredInPlace || regathers || byBatch.gradient) we.writableA = gathered;
    we.writableARounded = prerounded || byBatch.gradient;
    we.tensorScaleA = byBatch.gradientTensorScale;
    we.tensorScaleB = byBatch.inputTensorScale;
    const bool last = n0 + images == g.batch;
    // One product, or two halves of D's rows for OpenBLAS's small-matrix kernels (per image).
    const std::size_t weightMacs = gatheredRows * std::size_t(in_) * std::size_t(cols);
    const int rowParts = perImage ? smallKernelParts(std::size_t(in_), weightMacs, 16) : 1;
    const int rowWidth = int((gatheredRows + std::size_t(rowParts) - 1) / std::size_t(rowParts));
    for (int r = 0; r < int(gatheredRows); r += rowWidth) {
      GemmExtras partExtras = we;
      float* rows = gathered + std::size_t(r) * std::size_t(cols);
      if (we.writableA) partExtras.writableA = rows;
      gemm(last ? weightPolicy : partialPolicy, Trans::No, Trans::Yes,
           std::min(rowWidth, int(gatheredRows) - r), in_, cols, 1.0f, rows, cols, xGroup, cols,
           n0 == 0 ? 0.0f : 1.0f, dwr + std::size_t(r) * std::size_t(in_), in_, *ctx.workspace,
           partExtras);
    }
    // dX [Cin, images*plane] = Wr D
    if (regathers) im2col(windows, dataSource, gathered);
    GemmExtras de = dataExtras;
    de.writableB = gathered;  // discarded after this product
    // rounded in place by the weight product above, the same way, or gathered quantized
    de.writableBRounded = prerounded || dataQuantized || (gatheredInPlace && !we.xray && !de.xray);
    de.tensorScaleB = dataTensorScale;
    if (wrQuantized) {
      de.writableA = wr;
      de.writableARounded = true;
      de.tensorScaleA = wrTensorScale;
    } else if (wrOnce) {
      de.writableA = wr;
      de.writableARounded = n0 > 0;
    }
    float* dxOut = images == 1 ? dx_.data() + std::size_t(n0) * inItem : dxGroup;
    // One product, or two column halves for OpenBLAS's small-matrix kernels (per image).
    const std::size_t dataMacs = std::size_t(in_) * std::size_t(cols) * gatheredRows;
    const int parts = perImage ? smallKernelParts(std::size_t(in_), dataMacs, 32) : 1;
    const int width = (cols + parts - 1) / parts;
    for (int j = 0; j < cols; j += width) {
      GemmExtras partExtras = de;
      partExtras.writableB = gathered + j;
      partExtras.writableARounded = de.writableARounded || (wrOnce && j > 0);
      gemm(dataPolicy, Trans::No, Trans::No, in_, std::min(width, cols - j), int(gatheredRows),
           1.0f, wr, int(gatheredRows), gathered + j, cols, 0.0f, dxOut + j, cols, *ctx.workspace,
           partExtras);
    }
    if (images == 1) continue;
    // [Cin, images, plane] -> [images, Cin, plane]
    for (int ci = 0; ci < in_; ++ci) {
      for (int i = 0; i < images; ++i) {
        const float* src = dxGroup + std::size_t(ci) * cols + std::size_t(i) * plane;
        std::copy(src, src + plane,
                  dx_.data() + std::size_t(n0 + i) * inItem + std::size_t(ci) * plane);
      }
    }
  }

  // dW [Cout, Cin, k, k] from dWr [Cout, k, k, Cin], the kernel flipped back.
  float* dw = ctx.params->grad(weight_);
  for (int co = 0; co < out_; ++co) {
    for (std::size_t t = 0; t < taps; ++t) {
      const float* src = dwr + (std::size_t(co) * taps + t) * in_;
      for (int ci = 0; ci < in_; ++ci) {
        dw[(std::size_t(co) * in_ + ci) * taps + (taps - 1 - t)] = src[ci];
      }
    }
  }
  ctx.storeGradient(dw, weightCount, site_);
  ctx.storeGradient(dx_.data(), dx_.size(), site_);
  ctx.probeBackward(site_, dx_);
  return dx_;
}

}  // namespace paritylab::nn
