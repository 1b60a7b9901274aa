#include "core/nn/gemm_xray.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/nn/gemm.h"

namespace paritylab::nn {

using backends::LayerKind;
using backends::Product;

const char* productSuffix(Product product) {
  switch (product) {
    case Product::Forward:
      return "fwd";
    case Product::BackwardData:
      return "dgrad";
    case Product::BackwardWeight:
      return "wgrad";
  }
  return "?";
}

std::pair<const char*, const char*> operandRoles(LayerKind kind, Product product) {
  // As linear.cpp and conv2d.cpp call gemm(): linear Y = X W^T, dW = dY^T X, dX = dY W;
  // conv (im2col) Y = W cols, dW = dY cols^T, dcols = W^T dY. Attention (causal_self_attention)
  // multiplies a left and a right activation (Q K^T, P V) as a linear layer does X and W.
  if (kind == LayerKind::Attention) {
    switch (product) {
      case Product::Forward:
        return {"left", "right"};
      case Product::BackwardWeight:
        return {"grad", "left"};
      case Product::BackwardData:
        return {"grad", "right"};
    }
  }
  switch (product) {
    case Product::Forward:
      return kind == LayerKind::Linear ? std::pair{"input", "weight"}
                                       : std::pair{"weight", "input"};
    case Product::BackwardWeight:
      return {"grad", "input"};
    case Product::BackwardData:
      return kind == LayerKind::Linear ? std::pair{"grad", "weight"} : std::pair{"weight", "grad"};
  }
  return {"a", "b"};
}

namespace {

const numerics::FloatFormat& fp32Format() {
  static const numerics::FloatFormat format = *numerics::parseFormat("fp32");
  return format;
}

}  // namespace

void xrayOperand(const float* data, int rows, int cols, int ld, float scale,
                 const numerics::Rounder* rounder, std::uint64_t seed, backends::MultiPass passes,
                 numerics::TensorXray& into) {
  thread_local std::vector<float> original, rounded, part, residual;
  const std::size_t n = std::size_t(std::max(cols, 0));
  original.resize(n);
  rounded.resize(n);
  part.resize(n);
  residual.resize(n);
  const bool multiPass = passes != backends::MultiPass::None && rounder;
  for (int r = 0; r < rows; ++r) {
    const float* in = data + std::size_t(r) * std::size_t(ld);
    for (std::size_t c = 0; c < n; ++c) original[c] = in[c] * scale;
    if (multiPass) {
      // hi = bf16(x), mid = bf16(x - hi), lo = bf16(x - hi - mid), as gemm splits them.
      rounder->applyCopy(original, rounded);
      for (std::size_t c = 0; c < n; ++c) part[c] = original[c] - rounded[c];
      rounder->apply(part);
      for (std::size_t c = 0; c < n; ++c) residual[c] = (original[c] - rounded[c]) - part[c];
      if (passes == backends::MultiPass::Bf16x6) rounder->apply(residual);
      for (std::size_t c = 0; c < n; ++c)
        rounded[c] = passes == backends::MultiPass::Bf16x6 ? (rounded[c] + part[c]) + residual[c]
                                                           : rounded[c] + part[c];
    } else if (rounder) {
      rounder->applyCopy(original, rounded, seed, std::uint64_t(r) * n);
    } else {
      rounded = original;
    }
    numerics::accumulateXray(original, rounded, rounder ? rounder->spec().format : fp32Format(),
                             into);
  }
}

void xrayOutput(const float* before, int ldBefore, const float* after, int ldAfter, int rows,
                int cols, const numerics::FloatFormat& format, numerics::TensorXray& into) {
  for (int r = 0; r < rows; ++r) {
    numerics::accumulateXray({before + std::size_t(r) * std::size_t(ldBefore), std::size_t(cols)},
                             {after + std::size_t(r) * std::size_t(ldAfter), std::size_t(cols)},
                             format, into);
  }
}

std::string xrayLayerName(std::string name) {
  if (name.rfind("transformer.", 0) == 0) name.erase(0, 12);
  if (name.rfind("h.", 0) == 0) name.erase(1, 1);  // "h.0.attn" -> "h0.attn"
  return name;
}

std::string xrayFormatName(const numerics::Rounder* rounder, backends::MultiPass passes) {
  if (passes == backends::MultiPass::Bf16x3) return "bf16x3";
  if (passes == backends::MultiPass::Bf16x6) return "bf16x6";
  return rounder ? rounder->spec().format.name : "fp32";
}

GemmXray::GemmXray(int everySteps, std::vector<std::string> siteNames)
    : everySteps_(everySteps), siteNames_(std::move(siteNames)), sites_(siteNames_.size()) {
  if (everySteps_ < 1)
    throw std::invalid_argument("xray: every_steps must be >= 1, got " +
                                std::to_string(everySteps_));
}

void GemmXray::beginStep(std::uint64_t step) {
  if (active_) takeRecords();  // a measured step nobody took: start clean
  active_ = step % std::uint64_t(everySteps_) == 0;
}

GemmXraySlot* GemmXray::slot(int site, LayerKind kind, Product product) {
  if (!active_ || site < 0) return nullptr;
  if (std::size_t(site) >= sites_.size()) {
    sites_.resize(std::size_t(site) + 1);
    siteNames_.resize(sites_.size());
  }
  Site& s = sites_[std::size_t(site)];
  s.kind = kind;
  GemmXraySlot& slot = s.products[int(product)];
  slot.used = true;
  return &slot;
}

void GemmXray::addHeld(const std::string& site, const char* quantity, std::span<const float> values,
                       const std::optional<numerics::RoundingSpec>& format, std::uint64_t seed) {
  if (!active_) return;
  auto record = std::find_if(held_.rbegin(), held_.rend(), [&](const XrayRecord& r) {
    return r.operand == quantity && r.site == site;
  });
  if (record == held_.rend()) {
    held_.push_back({site, quantity, format ? format->format.name : "fp32", {}});
    record = held_.rbegin();
  }
  heldCopy_.assign(values.begin(), values.end());
  if (format) storeTensor(format, heldCopy_.data(), heldCopy_.size(), seed);
  numerics::accumulateXray(values, heldCopy_, format ? format->format : fp32Format(), record->xray);
}

numerics::TensorXray blockScalesXray(const numerics::BlockScalingStats& stats,
                                     numerics::BlockScalingKind kind) {
  numerics::TensorXray x;
  x.count = stats.blocks;
  x.nonFinite = stats.nanBlocks;
  x.exponentBins = stats.scaleExponents;
  std::int64_t scaled = 0;
  for (const std::int64_t bin : stats.scaleExponents) scaled += bin;
  // An NVFP4 block whose E4M3 scale underflowed keeps no scale (its elements are zeros): it is a
  // nonzero group without a scale, not a group of zeros. Other recipes clamp an underflowing
  // scale to their smallest, which is counted among the scales.
  const std::int64_t unscaled =
      kind == numerics::BlockScalingKind::NVFP4 ? stats.underflowedScales : 0;
  x.zeros = stats.blocks - stats.nanBlocks - scaled - unscaled;
  x.flushed = stats.underflowedScales;
  x.overflowed = stats.saturatedScales;
  if (scaled > 0) {
    x.amax = stats.maxScale;
    x.minNonzero = stats.minScale;
  }
  return x;
}

std::vector<XrayRecord> GemmXray::takeRecords() {
  std::vector<XrayRecord> records;
  if (!active_) return records;
  active_ = false;
  for (std::size_t i = 0; i < sites_.size(); ++i) {
    Site& s = sites_[i];
    const std::string layer = siteNames_[i].empty() ? "site" + std::to_string(i) : siteNames_[i];
    for (Product product : {Product::Forward, Product::BackwardData, Product::BackwardWeight}) {
      GemmXraySlot& slot = s.products[int(product)];
      if (!slot.used) continue;
      const std::string site = layer + "." + productSuffix(product);
      const auto [roleA, roleB] = operandRoles(s.kind, product);
      records.push_back({site, roleA, slot.formatA, slot.a});
      records.push_back({site, roleB, slot.formatB, slot.b});
      if (slot.scalesA)
        records.push_back(
            {site, std::string(roleA) + " scales", slot.formatScalesA, *slot.scalesA});
      if (slot.scalesB)
        records.push_back(
            {site, std::string(roleB) + " scales", slot.formatScalesB, *slot.scalesB});
      records.push_back({site, "output", slot.formatOutput, slot.output});
      slot = GemmXraySlot{};
    }
  }
  for (XrayRecord& r : held_) records.push_back(std::move(r));
  held_.clear();
  return records;
}

}  // namespace paritylab::nn
