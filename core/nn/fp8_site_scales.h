#pragma once
// Per-call-site fp8 delayed scaling for the GEMM entry (Transformer Engine's default recipe):
// each operand of each product keeps an amax history; its scale is
// maxFinite(format) / max(history) / 2^margin, from PREVIOUS steps' amax; then the current amax
// is recorded. No history yet: scale 1.
// Note: written here because core/nn/fp8_scaling.h had not landed; switch to it when it does.

#include <vector>

#include "core/nn/layer.h"

namespace paritylab::nn {

class Fp8SiteScales : public GemmScaleProvider {
 public:
  Fp8SiteScales(const backends::PrecisionPolicy& policy, int sites);
  void scales(int site, backends::LayerKind kind, backends::Product product, const float* a,
              std::size_t na, const float* b, std::size_t nb, GemmExtras& extras) override;

 private:
  struct History {
    std::vector<float> amax;  // ring buffer of the last amaxHistoryLength amax values
    int next = 0;
    float scale(double maxFinite, double margin) const;
    void record(float value);
  };
  const backends::PrecisionPolicy& policy_;
  std::vector<History> histories_;  // [site * 6 + product * 2 + operand]
};

}  // namespace paritylab::nn
