#include "core/nn/fp8_site_scales.h"

namespace paritylab::nn {

Fp8SiteScales::Fp8SiteScales(const backends::PrecisionPolicy& policy, int sites)
    : policy_(policy), scales_(std::size_t(sites) * 6) {}

Fp8TensorScale& Fp8SiteScales::scaleFor(std::size_t slot, const numerics::RoundingSpec& format) {
  if (!scales_[slot])  // first step only
    scales_[slot].emplace(format.format.maxFinite(), policy_.fp8.amaxHistoryLength,
                          policy_.fp8.margin);
  return *scales_[slot];
}

void Fp8SiteScales::scales(int site, const backends::GemmPolicy& gemm, backends::Product product,
                           const float* a, std::size_t na, const float* b, std::size_t nb,
                           GemmExtras& extras) {
  // Only 8-bit operands are scaled, as Transformer Engine scales its fp8 GEMMs alone: a product the
  // recipe keeps wider (its attention in bf16) rounds as it is.
  if (!policy_.fp8.enabled || !gemm.operands || gemm.operands->format.totalBits() > 8) return;
  const numerics::RoundingSpec& formatB = gemm.operandsB ? *gemm.operandsB : *gemm.operands;
  const std::size_t slot = std::size_t(site) * 6 + std::size_t(product) * 2;
  Fp8TensorScale& sa = scaleFor(slot, *gemm.operands);
  Fp8TensorScale& sb = scaleFor(slot + 1, formatB);
  extras.scaleA = sa.scale();  // from previous steps' amax
  extras.scaleB = sb.scale();
  sa.record(a, na);
  sb.record(b, nb);
}

}  // namespace paritylab::nn
