// The operand roundings of the presets and the elementwise products they form, through nn::gemm().
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/nn/gemm.h"
#include "core/nn/random.h"
#include "core/playground/product_compare.h"
#include "core/playground/reduction.h"

namespace paritylab::playground {
namespace {

std::string describe(const numerics::RoundingSpec& s) {
  std::string name = s.format.name;
  if (s.mode != numerics::RoundingMode::NearestEven)
    name += " (" + std::string(numerics::toString(s.mode)) + ")";
  return name;
}

// The operand part of a forward product policy; output and accumulation rounding belong to the
// sum, not to the elementwise products.
OperandRounding operandPart(const backends::GemmPolicy& forward, bool fp8Scaling) {
  OperandRounding r;
  r.policy.operands = forward.operands;
  r.policy.operandsB = forward.operandsB;
  r.policy.passes = forward.passes;
  r.perTensorScaling = fp8Scaling && forward.operands.has_value();
  if (forward.passes == backends::MultiPass::Bf16x3)
    r.name = "bf16x3";
  else if (forward.passes == backends::MultiPass::Bf16x6)
    r.name = "bf16x6";
  else if (forward.operands) {
    r.name = describe(*forward.operands) +
             (forward.operandsB ? " x " + describe(*forward.operandsB) : std::string());
  } else {
    r.name = "fp32";
  }
  if (r.perTensorScaling) r.name += " (scaled)";
  return r;
}

void addRounding(std::vector<OperandRounding>& out, OperandRounding r, const std::string& backend) {
  for (auto& existing : out) {
    if (existing.name == r.name) {
      if (std::find(existing.backends.begin(), existing.backends.end(), backend) ==
          existing.backends.end())
        existing.backends.push_back(backend);
      return;
    }
  }
  r.backends.push_back(backend);
  out.push_back(std::move(r));
}

}  // namespace

std::string_view toString(Distribution d) {
  switch (d) {
    case Distribution::Uniform01:
      return "uniform";
    case Distribution::Normal:
      return "normal";
    case Distribution::WideRange:
      return "wide";
  }
  return "uniform";
}

Distribution parseDistribution(std::string_view name) {
  for (Distribution d : {Distribution::Uniform01, Distribution::Normal, Distribution::WideRange})
    if (toString(d) == name) return d;
  throw std::invalid_argument("unknown distribution '" + std::string(name) +
                              "' (uniform, normal, wide)");
}

std::vector<float> randomVector(Distribution d, std::size_t n, std::uint64_t seed) {
  nn::RandomStream rng(seed);
  std::vector<float> v(n);
  for (float& x : v) {
    switch (d) {
      case Distribution::Uniform01:
        x = float(rng.uniform());
        // A double just below 1 can round up to 1.0f: keep the interval half-open.
        if (x >= 1.0f) x = std::nextafter(1.0f, 0.0f);
        break;
      case Distribution::Normal:
        x = float(rng.normal());
        break;
      case Distribution::WideRange: {
        const double sign = rng.below(2) ? -1.0 : 1.0;
        x = float(sign * std::exp2(rng.uniform(-12.0, 12.0)));
        break;
      }
    }
  }
  return v;
}

std::vector<OperandRounding> presetOperandRoundings() {
  std::vector<OperandRounding> out;
  for (const auto& policy : backends::presetPolicies()) {
    // A block-scaled operand's values depend on the other values of its block: products of single
    // values cannot show its rounding, so the block-scaled presets are not offered here.
    if (policy.linear.forward.blockScaled() || policy.conv.forward.blockScaled()) continue;
    const OperandRounding linear = operandPart(policy.linear.forward, policy.fp8.enabled);
    const OperandRounding conv = operandPart(policy.conv.forward, policy.fp8.enabled);
    addRounding(out, linear, policy.name);
    if (conv.name != linear.name) addRounding(out, conv, policy.name + " (conv)");
  }
  return out;
}

std::vector<float> roundedProducts(const OperandRounding& rounding, const std::vector<float>& a,
                                   const std::vector<float>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("roundedProducts: lengths differ");
  nn::GemmExtras extras;
  if (rounding.perTensorScaling) {
    extras.scaleA = currentTensorScale(*rounding.policy.operands, a.data(), a.size());
    extras.scaleB = currentTensorScale(
        rounding.policy.operandsB ? *rounding.policy.operandsB : *rounding.policy.operands,
        b.data(), b.size());
  }
  // Each product a_i * b_i is a depth-1 product: the diagonal of the outer product of a block of
  // a (as a column [m, 1]) and the same block of b (as a row [1, m]), formed by gemm with the
  // policy, so that operand rounding, multi-pass splitting and scaling are gemm's own.
  constexpr int kBlock = 16;
  std::vector<float> out(a.size());
  std::vector<float> block(std::size_t(kBlock) * kBlock);
  nn::GemmWorkspace workspace;
  for (std::size_t i = 0; i < a.size(); i += kBlock) {
    const int m = int(std::min<std::size_t>(kBlock, a.size() - i));
    nn::gemm(rounding.policy, nn::Trans::No, nn::Trans::No, m, m, 1, 1.0f, a.data() + i, 1,
             b.data() + i, m, 0.0f, block.data(), m, workspace, extras);
    for (int j = 0; j < m; ++j) out[i + std::size_t(j)] = block[std::size_t(j) * m + j];
  }
  return out;
}

}  // namespace paritylab::playground
