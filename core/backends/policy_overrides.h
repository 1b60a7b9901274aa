#pragma once
// Per-layer and per-product choices: a policy's `overrides` compute some products of some layers
// by another policy than the policy's own products for that layer kind ("fp8 with the first and
// last layers in bf16", "the QKV weight gradient kept in bf16"). Later overrides win over earlier
// ones. The layer names are a model's product sites as the X-ray names them ("conv1", "fc2",
// "h0.attn.qkv", "h1.attn.qk", "lm_head"); docs/precision-policy.md lists them per model.

#include <string>
#include <string_view>
#include <vector>

#include "core/backends/precision_policy.h"

namespace paritylab::backends {

// Where a layer stands among the model's layers with weights (what "first" and "last" match).
struct LayerPlace {
  std::string_view name;  // "h0.attn.qkv"
  LayerKind kind = LayerKind::Linear;
  bool first = false;  // the first layer with weights whose products the model computes
  bool last = false;   // the last one (a classifier's output layer, a language model's head)
};

// True when `pattern` names the layer: alternatives separated by '|', each "first", "last", or a
// name where '*' stands for any run of characters ("h*.attn.qkv", "conv*", "*").
bool layerPatternMatches(std::string_view pattern, const LayerPlace& layer);

// The three products of `layer` under `policy`: the policy's products for the layer's kind with
// every matching override applied in order.
ProductPolicy productsFor(const PrecisionPolicy& policy, const LayerPlace& layer);

// The index of the override that decides product `product` of `layer` (the last one naming the
// layer and selecting the product), or -1 when the policy's kind-wide product does.
int decidingOverride(const PrecisionPolicy& policy, const LayerPlace& layer, Product product);

// One line for what a product does: "bf16 x bf16 -> bf16", "mx fp8-e4m3 x mx fp8-e4m3 -> bf16",
// "fp32 x fp32" (operand A x operand B, then the output's format when it is rounded; multi-pass
// products, accumulation in chunks and the Hadamard transform are named after it).
std::string productSummary(const GemmPolicy& product);

// True when the policy's overrides change any product of `layer`.
bool overridden(const PrecisionPolicy& policy, const LayerPlace& layer);

// Checks that every override of `policy` names at least one of `layers` (a pattern that matches
// nothing is a typo, not a choice). Throws std::invalid_argument naming the override, its pattern
// and the layers there are.
void checkOverridesMatch(const PrecisionPolicy& policy, const std::vector<LayerPlace>& layers,
                         std::string_view modelName);

}  // namespace paritylab::backends
