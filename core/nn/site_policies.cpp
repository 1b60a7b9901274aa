#include "core/nn/site_policies.h"

#include "core/nn/model.h"

namespace paritylab::nn {

std::vector<int> productLayerSites(const Model& model) {
  std::vector<int> sites;
  for (std::size_t s = 0; s < model.siteKinds.size(); ++s)
    if (model.siteKinds[s]) sites.push_back(int(s));
  return sites;
}

std::vector<backends::LayerPlace> productLayers(const Model& model) {
  std::vector<backends::LayerPlace> layers;
  int first = -1, last = -1;
  for (const int s : productLayerSites(model)) {
    const backends::LayerKind kind = *model.siteKinds[std::size_t(s)];
    if (kind != backends::LayerKind::Attention) {
      if (first < 0) first = int(layers.size());
      last = int(layers.size());
    }
    layers.push_back({model.siteNames[std::size_t(s)], kind});
  }
  if (first >= 0) {
    layers[std::size_t(first)].first = true;
    layers[std::size_t(last)].last = true;
  }
  return layers;
}

SitePolicies::SitePolicies(const backends::PrecisionPolicy& policy, const Model& model) {
  if (policy.overrides.empty()) return;
  const std::vector<backends::LayerPlace> layers = productLayers(model);
  backends::checkOverridesMatch(policy, layers, model.name);
  const std::vector<int> sites = productLayerSites(model);
  sites_.resize(model.siteKinds.size());
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (backends::overridden(policy, layers[i]))
      sites_[std::size_t(sites[i])] = backends::productsFor(policy, layers[i]);
}

}  // namespace paritylab::nn
