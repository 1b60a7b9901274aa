#pragma once
// The X-ray at the one GEMM entry: on sampled training steps, gemm() measures each
// product's operands as the device is handed them (scaled: loss scaling, fp8 scales) against the
// format it rounds them to, and its output against the output rounding. Off (a null pointer in
// GemmExtras) costs one test per product.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/numerics/block_scaling.h"
#include "core/numerics/tensor_xray.h"

namespace paritylab::nn {

// One product's measurement for one sampled step, filled by gemm() (merged over the calls that
// make up the product: replicas, convolution groups). Formats: the operand/output rounding
// ("fp32" when none; "bf16x3"/"bf16x6" for XLA's multi-pass products, measured as the sum of
// their bf16 parts against bf16's range).
struct GemmXraySlot {
  numerics::TensorXray a, b, output;
  std::string formatA, formatB, formatOutput;
  // A block-scaled operand's scales, one value per scaling group (blockScalesXray); recorded as
  // the operand "<role> scales" ("input scales") in the format they are kept in ("e8m0").
  std::optional<numerics::TensorXray> scalesA, scalesB;
  std::string formatScalesA, formatScalesB;
  bool used = false;
};

// One operand (or the output) of one product site in one sampled step.
struct XrayRecord {
  std::string site;     // "<layer>.<fwd|dgrad|wgrad>", e.g. "conv2.wgrad"
  std::string operand;  // "input", "weight", "grad" (the output gradient dY) or "output"
  std::string format;   // what it was rounded to (see GemmXraySlot)
  numerics::TensorXray xray;
};

struct XraySample {
  std::int64_t step = 0;  // global training step (0-based)
  int epoch = 0;          // 1-based
  std::vector<XrayRecord> records;
};

// The scales of a block-scaled operand as a TensorXray with one value per scaling group: count =
// groups, exponentBins / amax / minNonzero over the groups' decode scales, nonFinite = NaN
// groups, zeros = groups without a scale (all-zero NVFP4 blocks), overflowed = groups whose scale
// saturated, flushed = groups whose scale underflowed (docs/block-formats.md). No energies: a
// scale has no rounding error of its own to measure.
numerics::TensorXray blockScalesXray(const numerics::BlockScalingStats& stats,
                                     numerics::BlockScalingKind kind);

// "fwd", "dgrad", "wgrad".
const char* productSuffix(backends::Product product);
// The roles of operands A and B of a layer's product as the layers pass them to gemm().
std::pair<const char*, const char*> operandRoles(backends::LayerKind kind,
                                                 backends::Product product);

// Used by gemm() on measured products. Adds a stored operand [rows, cols] (leading dimension ld),
// scaled by `scale`, to `into`: against `rounder` (null: kept fp32) with the stochastic stream
// `seed` over dense indices, as gemm() packs it; for multi-pass products against the sum of its
// bf16 parts (`rounder` is then the bf16 rounder).
void xrayOperand(const float* data, int rows, int cols, int ld, float scale,
                 const numerics::Rounder* rounder, std::uint64_t seed, backends::MultiPass passes,
                 numerics::TensorXray& into);
// Adds an output [rows, cols] before and after the output rounding to `format` (may alias).
void xrayOutput(const float* before, int ldBefore, const float* after, int ldAfter, int rows,
                int cols, const numerics::FloatFormat& format, numerics::TensorXray& into);
// The X-ray's short name of a layer, as its products are spoken of: "transformer.h.0.attn" ->
// "h0.attn", "transformer.ln_f" -> "ln_f"; other names as they are.
std::string xrayLayerName(std::string name);

// "fp32" (null rounder), the rounder's format name, or "bf16x3" / "bf16x6".
std::string xrayFormatName(const numerics::Rounder* rounder,
                           backends::MultiPass passes = backends::MultiPass::None);

class GemmXray {
 public:
  // everySteps >= 1; siteNames[site]: the layer owning GEMM call site `site` ("" -> "site<k>").
  GemmXray(int everySteps, std::vector<std::string> siteNames);

  int everySteps() const { return everySteps_; }
  // Starts a training step: it is measured when step % everySteps == 0.
  void beginStep(std::uint64_t step);
  // The slot gemm() fills for this product, or null when the step is not measured.
  GemmXraySlot* slot(int site, backends::LayerKind kind, backends::Product product);
  // On a measured step, values an operation between the products holds (a softmax's scores,
  // exponentials, row sum and probabilities; a layer norm's mean, variance and 1 / std): measured
  // before they are held in `format` (nullopt: fp32, as they stay) with the store step's `seed`,
  // added to the record (site, quantity), e.g. ("h0.attn.softmax", "scores").
  bool measuring() const { return active_; }
  void addHeld(const std::string& site, const char* quantity, std::span<const float> values,
               const std::optional<numerics::RoundingSpec>& format, std::uint64_t seed);
  // The measured step's records (site order, then fwd, dgrad, wgrad; A, B, output; then the held
  // values in the order first met), emptied; no records when the step was not measured.
  std::vector<XrayRecord> takeRecords();

 private:
  struct Site {
    backends::LayerKind kind = backends::LayerKind::Linear;
    GemmXraySlot products[3];
  };
  int everySteps_;
  bool active_ = false;
  std::vector<std::string> siteNames_;
  std::vector<Site> sites_;
  std::vector<XrayRecord> held_;  // addHeld's records of the measured step
  std::vector<float> heldCopy_;
};

}  // namespace paritylab::nn
