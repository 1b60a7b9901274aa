#include "core/nn/conv_product_rules.h"

#include <algorithm>
#include <vector>

#include "core/nn/blas_setup.h"

namespace paritylab::nn {

using backends::LayerKind;
using backends::Product;

ConvBackwardPolicies::ConvBackwardPolicies(const backends::GemmPolicy& weight,
                                           const backends::GemmPolicy& data)
    : weight(weight), data(data), partialWeight(weight) {
  partialWeight.output.reset();
}

int imagesPerGroup(std::size_t columnRows, std::size_t plane, int batch, std::size_t weightRows) {
  constexpr std::size_t kGroupFloats = std::size_t(1) << 18;
  constexpr std::size_t kMinColumnsForWideWeights = 400;
  plane = std::max<std::size_t>(plane, 1);
  std::size_t images =
      std::max<std::size_t>(kGroupFloats / std::max<std::size_t>(columnRows * plane, 1), 1);
  if (weightRows > images * plane)
    images = std::max(images, (kMinColumnsForWideWeights + plane - 1) / plane);
  return int(std::clamp<std::size_t>(images, 1, std::size_t(batch)));
}

bool dytMayBeRoundedInPlace(const backends::GemmPolicy& w, const backends::GemmPolicy& d,
                            bool needInputGrad, bool scaled) {
  if (!needInputGrad) return true;
  const std::optional<numerics::RoundingSpec>& dataB = d.operandsB ? d.operandsB : d.operands;
  // A block-scaled weight product quantizes its writable operand in place, which is not the data
  // product's rounding.
  return !scaled && !w.blockScaled() && !d.blockScaled() && w.operands && dataB &&
         numerics::sameRounding(*w.operands, *dataB) &&
         w.operands->mode != numerics::RoundingMode::Stochastic &&
         w.passes == backends::MultiPass::None && d.passes == backends::MultiPass::None;
}

bool stochasticOperands(const backends::GemmPolicy& p) {
  const auto stochastic = [](const std::optional<numerics::RoundingSpec>& s) {
    return s && s->mode == numerics::RoundingMode::Stochastic;
  };
  return stochastic(p.operands) || stochastic(p.operandsB);
}

bool operandRoundingOnly(const backends::GemmPolicy& p) {
  return !p.output && p.accumulationChunk <= 0 && p.passes == backends::MultiPass::None &&
         !stochasticOperands(p);
}

bool operandAndOutputRoundingOnly(const backends::GemmPolicy& p) {
  return p.output && p.output->mode != numerics::RoundingMode::Stochastic &&
         p.accumulationChunk <= 0 && p.passes == backends::MultiPass::None &&
         !stochasticOperands(p);
}

bool weightsMayBeRoundedOnce(const backends::GemmPolicy& p, const GemmExtras& e, int groups) {
  return groups >= 2 && p.operands && !p.blockScaled() && p.passes == backends::MultiPass::None &&
         p.operands->mode != numerics::RoundingMode::Stochastic && e.scaleA == 1.0f && !e.xray &&
         !cachedRounder(*p.operands).isIdentity();
}

float* weightsRoundedOnce(const backends::GemmPolicy& p, const GemmExtras& e, const float* w,
                          std::size_t n, int groups, LayerScratch& s) {
  if (!weightsMayBeRoundedOnce(p, e, groups)) return nullptr;
  if (s.weights.size() < n) s.weights.resize(n);
  std::copy(w, w + n, s.weights.data());
  return s.weights.data();
}

QuantizedByBatch quantizeAlongBatch(const backends::GemmPolicy& weightPolicy, const GemmExtras& e,
                                    GradientStack dy, const float* x, std::size_t xItem, int batch,
                                    LayerScratch& s) {
  QuantizedByBatch q;
  if (!weightPolicy.blockScaled()) return q;
  const std::size_t n = std::size_t(batch);
  const std::size_t dySize = dy.count * n * dy.cols;
  if (s.gradientByBatch.size() < dySize) s.gradientByBatch.resize(dySize);
  if (s.inputByBatch.size() < n * xItem) s.inputByBatch.resize(n * xItem);
  if (prequantizeOperand(weightPolicy, Operand::A, e, dy.values, s.gradientByBatch.data(),
                         std::int64_t(dy.count), batch, std::int64_t(dy.cols), 0,
                         &q.gradientTensorScale))
    q.gradient = s.gradientByBatch.data();
  if (prequantizeOperand(weightPolicy, Operand::B, e, x, s.inputByBatch.data(), 1, batch,
                         std::int64_t(xItem), 0, &q.inputTensorScale))
    q.input = s.inputByBatch.data();
  return q;
}

bool operandAlreadyStored(const std::optional<numerics::RoundingSpec>& storedAs,
                          const backends::GemmPolicy& p, Operand which, const GemmExtras& e) {
  const std::optional<numerics::RoundingSpec>& spec =
      which == Operand::A || !p.operandsB ? p.operands : p.operandsB;
  const float scale = which == Operand::A ? e.scaleA : e.scaleB;
  return storedAs && spec && scale == 1.0f && p.passes == backends::MultiPass::None &&
         storedAs->mode != numerics::RoundingMode::Stochastic &&
         spec->mode != numerics::RoundingMode::Stochastic &&
         numerics::sameRounding(*storedAs, *spec);
}

int smallKernelParts(std::size_t narrow, std::size_t multiplyAdds, std::size_t maxNarrow) {
  static const bool smallKernels = blasCoreName() == "SkylakeX";
  constexpr std::size_t kSmallProduct = 1000000;  // OpenBLAS 0.3.21, SkylakeX: M*N*K <= 1e6
  constexpr std::size_t kMaxParts = 3;
  if (!smallKernels || narrow > maxNarrow || multiplyAdds <= kSmallProduct ||
      multiplyAdds > kMaxParts * kSmallProduct)
    return 1;
  return int((multiplyAdds + kSmallProduct - 1) / kSmallProduct);
}

}  // namespace paritylab::nn
