#include "core/nn/fp8_site_scales.h"

#include <algorithm>
#include <cmath>

namespace paritylab::nn {

namespace {

float amaxOf(const float* x, std::size_t n) {
  return n == 0 ? 0.0f : Eigen::Map<const Eigen::ArrayXf>(x, Eigen::Index(n)).abs().maxCoeff();
}

}  // namespace

Fp8SiteScales::Fp8SiteScales(const backends::PrecisionPolicy& policy, int sites)
    : policy_(policy), histories_(std::size_t(sites) * 6) {
  const int len = std::max(1, policy.fp8.amaxHistoryLength);
  for (History& h : histories_) h.amax.assign(std::size_t(len), 0.0f);
}

float Fp8SiteScales::History::scale(double maxFinite, double margin) const {
  const float m = *std::max_element(amax.begin(), amax.end());
  if (!(m > 0.0f) || !std::isfinite(m)) return 1.0f;
  return float(maxFinite / double(m) / std::exp2(margin));
}

void Fp8SiteScales::History::record(float value) {
  amax[std::size_t(next)] = value;
  next = (next + 1) % int(amax.size());
}

void Fp8SiteScales::scales(int site, backends::LayerKind kind, backends::Product product,
                           const float* a, std::size_t na, const float* b, std::size_t nb,
                           GemmExtras& extras) {
  const auto& operands = policy_.gemmFor(kind, product).operands;
  if (!policy_.fp8.enabled || !operands) return;
  const double maxFinite = operands->format.maxFinite();
  History& ha = histories_[std::size_t(site) * 6 + std::size_t(product) * 2];
  History& hb = histories_[std::size_t(site) * 6 + std::size_t(product) * 2 + 1];
  extras.scaleA = ha.scale(maxFinite, policy_.fp8.margin);
  extras.scaleB = hb.scale(maxFinite, policy_.fp8.margin);
  ha.record(amaxOf(a, na));
  hb.record(amaxOf(b, nb));
}

}  // namespace paritylab::nn
