#pragma once
// Per-call-site fp8 delayed scaling for the GEMM entry (Transformer Engine's default recipe):
// one Fp8TensorScale (amax history, scale from previous steps) for each operand of each product
// of each layer; operand B may have its own format (E5M2 gradients x E4M3 in backward products).

#include <optional>
#include <vector>

#include "core/nn/fp8_scaling.h"
#include "core/nn/layer.h"

namespace paritylab::nn {

class Fp8SiteScales : public GemmScaleProvider {
 public:
  Fp8SiteScales(const backends::PrecisionPolicy& policy, int sites);
  void scales(int site, const backends::GemmPolicy& gemm, backends::Product product, const float* a,
              std::size_t na, const float* b, std::size_t nb, GemmExtras& extras) override;

 private:
  Fp8TensorScale& scaleFor(std::size_t slot, const numerics::RoundingSpec& format);
  const backends::PrecisionPolicy& policy_;
  std::vector<std::optional<Fp8TensorScale>> scales_;  // [site * 6 + product * 2 + operand]
};

}  // namespace paritylab::nn
