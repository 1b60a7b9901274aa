#include "core/backends/policy_overrides.h"

#include <stdexcept>

namespace paritylab::backends {
namespace {

// '*' matches any run of characters (none included); everything else matches itself.
bool globMatches(std::string_view pattern, std::string_view name) {
  std::size_t p = 0, n = 0, starP = std::string_view::npos, starN = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      starP = p++;
      starN = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p;
      ++n;
    } else if (starP != std::string_view::npos) {
      p = starP + 1;
      n = ++starN;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

bool layerPatternMatches(std::string_view pattern, const LayerPlace& layer) {
  while (true) {
    const std::size_t bar = pattern.find('|');
    const std::string_view one = pattern.substr(0, bar);
    const bool place = one == "first" || one == "last";  // a place, never a name
    if (place ? (one == "first" ? layer.first : layer.last) : globMatches(one, layer.name))
      return true;
    if (bar == std::string_view::npos) return false;
    pattern.remove_prefix(bar + 1);
  }
}

ProductPolicy productsFor(const PrecisionPolicy& policy, const LayerPlace& layer) {
  ProductPolicy products = layer.kind == LayerKind::Linear ? policy.linear
                           : layer.kind == LayerKind::Conv ? policy.conv
                                                           : policy.attention;
  for (const ProductOverride& o : policy.overrides) {
    if (!layerPatternMatches(o.layers, layer)) continue;
    const ProductPolicy& with = o.productsFor(layer.kind);
    if (o.forward) products.forward = with.forward;
    if (o.backwardData) products.backwardData = with.backwardData;
    if (o.backwardWeight) products.backwardWeight = with.backwardWeight;
  }
  return products;
}

int decidingOverride(const PrecisionPolicy& policy, const LayerPlace& layer, Product product) {
  int deciding = -1;
  for (std::size_t i = 0; i < policy.overrides.size(); ++i)
    if (policy.overrides[i].selects(product) &&
        layerPatternMatches(policy.overrides[i].layers, layer))
      deciding = int(i);
  return deciding;
}

namespace {

std::string operandSummary(const std::optional<numerics::BlockScaling>& scaling,
                           const std::optional<numerics::RoundingSpec>& rounding) {
  if (scaling) {
    std::string name(numerics::toString(scaling->kind));
    if (scaling->kind != numerics::BlockScalingKind::NVFP4) name += " " + scaling->element.name;
    if (scaling->rounding == numerics::RoundingMode::Stochastic) name += " stochastic";
    return name;
  }
  if (!rounding) return "fp32";
  std::string name = rounding->format.name;
  if (rounding->mode == numerics::RoundingMode::Stochastic) name += " stochastic";
  return name;
}

}  // namespace

std::string productSummary(const GemmPolicy& g) {
  std::string s = operandSummary(g.scalingA, g.operands) + " x " +
                  operandSummary(g.scalingB, g.operandsB ? g.operandsB : g.operands);
  if (g.output) s += " -> " + g.output->format.name;
  if (g.passes == MultiPass::Bf16x3) s += ", bf16x3 passes";
  if (g.passes == MultiPass::Bf16x6) s += ", bf16x6 passes";
  if (g.accumulationChunk > 0)
    s += ", sums of " + std::to_string(g.accumulationChunk) + " in " +
         (g.accumulation ? g.accumulation->format.name : std::string("fp32")) +
         (g.fp32Promotion ? ", promoted to fp32" : "");
  if (g.hadamard) s += ", hadamard";
  if (g.reverseSummation) s += ", reversed sums";
  return s;
}

bool overridden(const PrecisionPolicy& policy, const LayerPlace& layer) {
  for (const ProductOverride& o : policy.overrides)
    if (layerPatternMatches(o.layers, layer)) return true;
  return false;
}

void checkOverridesMatch(const PrecisionPolicy& policy, const std::vector<LayerPlace>& layers,
                         std::string_view modelName) {
  for (std::size_t i = 0; i < policy.overrides.size(); ++i) {
    const ProductOverride& o = policy.overrides[i];
    bool any = false;
    for (const LayerPlace& layer : layers) any = any || layerPatternMatches(o.layers, layer);
    if (any) continue;
    std::string names;
    for (const LayerPlace& layer : layers)
      names += (names.empty() ? "" : ", ") + std::string(layer.name);
    throw std::invalid_argument("policy '" + policy.name + "' field 'overrides[" +
                                std::to_string(i) + "].layers': '" + o.layers +
                                "' names no layer of model '" + std::string(modelName) +
                                "' (its layers: " + names + "; or first, last)");
  }
}

}  // namespace paritylab::backends
