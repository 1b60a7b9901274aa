#pragma once
// A policy's per-layer overrides resolved once per model: for each GEMM call site, the three
// products it computes when an override changes them (core/backends/policy_overrides.h). Sites an
// override leaves alone keep the policy's kind-wide products (StepContext::gemmPolicy).

#include <optional>
#include <string_view>
#include <vector>

#include "core/backends/policy_overrides.h"
#include "core/backends/precision_policy.h"

namespace paritylab::nn {

struct Model;

// The model's layers with products, in call-site order, as overrides name them: "first" and
// "last" are the first and last linear or convolutional layer (attention's products multiply
// activations: they are not a layer with weights). Views into model.siteNames.
std::vector<backends::LayerPlace> productLayers(const Model& model);
// The call site of each entry of productLayers(model), in the same order.
std::vector<int> productLayerSites(const Model& model);

class SitePolicies {
 public:
  SitePolicies() = default;
  // Throws std::invalid_argument when one of the policy's overrides names no layer of the model.
  SitePolicies(const backends::PrecisionPolicy& policy, const Model& model);

  // The product `product` of call site `site` when an override gives the site its own; null when
  // the site computes the policy's kind-wide product.
  const backends::GemmPolicy* find(int site, backends::Product product) const {
    if (site < 0 || std::size_t(site) >= sites_.size() || !sites_[std::size_t(site)])
      return nullptr;
    const backends::ProductPolicy& p = *sites_[std::size_t(site)];
    return product == backends::Product::Forward        ? &p.forward
           : product == backends::Product::BackwardData ? &p.backwardData
                                                        : &p.backwardWeight;
  }
  bool empty() const { return sites_.empty(); }

 private:
  std::vector<std::optional<backends::ProductPolicy>> sites_;  // [site]
};

}  // namespace paritylab::nn
