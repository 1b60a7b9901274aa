// Block-scaled products: the operands quantized in scaling groups along K while they are packed.

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>

#include "core/nn/gemm_impl.h"
#include "core/nn/gemm_xray.h"

namespace paritylab::nn {
namespace {

using numerics::BlockAxis;

// A stored operand [rows, cols] (leading dimension ld) and the axis its K runs along.
struct ScaledOperand {
  const float* data;
  int rows, cols, ld;
  BlockAxis kAxis;
};

// "mx fp8-e4m3", "nvfp4", "blockwise fp8-e4m3" (+ " hadamard"): what the X-ray names a format.
std::string scaledFormatName(const std::optional<numerics::BlockScaling>& scaling,
                             const std::optional<numerics::RoundingSpec>& rounding, bool hadamard) {
  std::string name;
  if (scaling) {
    name = std::string(numerics::toString(scaling->kind));
    if (scaling->kind != numerics::BlockScalingKind::NVFP4) name += " " + scaling->element.name;
  } else {
    name = rounding ? rounding->format.name : "fp32";
  }
  return hadamard ? name + " hadamard" : name;
}

// What a recipe keeps its scales in: "e8m0", "fp32", NVFP4's "e4m3 x fp32".
std::string scaleFormatName(const numerics::BlockScaling& scaling) {
  if (scaling.kind == numerics::BlockScalingKind::NVFP4) return "e4m3 x fp32";
  return std::string(numerics::toString(scaling.scale));
}

// Packs `src` densely into `buffer`, transforms and quantizes it; returns the packed values (and,
// on a measured step, adds the operand's scales to *scales).
const float* prepare(const ScaledOperand& src, const std::optional<numerics::BlockScaling>& scaling,
                     const std::optional<numerics::RoundingSpec>& rounding, bool hadamard,
                     std::uint64_t hadamardSeed, std::uint64_t seed, std::vector<float>& buffer,
                     std::vector<float>& before, numerics::TensorXray* xray,
                     std::optional<numerics::TensorXray>* scales) {
  const std::size_t cols = std::size_t(src.cols), count = std::size_t(src.rows) * cols;
  grow(buffer, count);
  if (scaling && !hadamard && !xray && !scales) {
    // Unmeasured: quantized straight from the operand into the dense buffer, without packing a
    // copy first.
    const std::size_t extent = (std::size_t(src.rows) - 1) * std::size_t(src.ld) + cols;
    numerics::quantizeBlocks({src.data, src.rows > 0 ? extent : 0}, src.ld, {buffer.data(), count},
                             src.cols, src.rows, src.cols, src.kAxis, *scaling, seed);
    return buffer.data();
  }
  const std::span<float> packed(buffer.data(), count);  // the buffer may be longer
  for (int r = 0; r < src.rows; ++r)
    std::copy_n(src.data + std::size_t(r) * std::size_t(src.ld), cols,
                packed.data() + std::size_t(r) * cols);
  if (hadamard)
    numerics::randomHadamardTransform(packed, src.rows, src.cols, src.cols, src.kAxis,
                                      hadamardSeed);
  if (xray) before.assign(packed.begin(), packed.end());
  if (scaling) {
    numerics::BlockScalingStats stats;
    numerics::quantizeBlocks(packed, packed, src.rows, src.cols, src.cols, src.kAxis, *scaling,
                             seed, 0, scales ? &stats : nullptr);
    if (scales) {  // merged over the calls of one measured product (a conv's image groups)
      const numerics::TensorXray x = blockScalesXray(stats, scaling->kind);
      if (*scales)
        (*scales)->merge(x);
      else
        *scales = x;
    }
  } else if (rounding)
    storeTensor(rounding, packed.data(), count, seed);
  if (xray) numerics::accumulateXray(before, packed, *numerics::parseFormat("fp32"), *xray);
  return packed.data();
}

}  // namespace

void gemmBlockScaled(const backends::GemmPolicy& policy, Trans transA, Trans transB, int m, int n,
                     int k, float alpha, const float* A, int lda, const float* B, int ldb,
                     float beta, float* C, int ldc, GemmWorkspace& ws, const GemmExtras& extras) {
  if (policy.passes != backends::MultiPass::None)
    throw std::invalid_argument("a block-scaled product cannot also be a multi-pass product");
  if (extras.scaleA != 1.0f || extras.scaleB != 1.0f)
    throw std::invalid_argument(
        "a block-scaled product takes no per-tensor fp8 scales (fp8.enabled with scaling)");
  const ScaledOperand sa{A, transA == Trans::No ? m : k, transA == Trans::No ? k : m, lda,
                         transA == Trans::No ? BlockAxis::Row : BlockAxis::Column};
  const ScaledOperand sb{B, transB == Trans::No ? k : n, transB == Trans::No ? n : k, ldb,
                         transB == Trans::No ? BlockAxis::Column : BlockAxis::Row};
  const std::optional<numerics::RoundingSpec>& roundingB =
      policy.operandsB ? policy.operandsB : policy.operands;
  // The same random signs for both operands (their product stays as it was), another draw per
  // product and step; stochastic element draws as gemm()'s own operand rounding streams.
  const std::uint64_t hadamardSeed = extras.seed ^ 0x48414441ull /* "HADA" */;
  const std::uint64_t seedB = extras.seed ^ 0x9e3779b97f4a7c15ull;
  GemmXraySlot* slot = extras.xray;
  const float* pa =
      prepare(sa, policy.scalingA, policy.operands, policy.hadamard, hadamardSeed, extras.seed,
              ws.scaledA, ws.before, slot ? &slot->a : nullptr, slot ? &slot->scalesA : nullptr);
  const float* pb =
      prepare(sb, policy.scalingB, roundingB, policy.hadamard, hadamardSeed, seedB, ws.scaledB,
              ws.before, slot ? &slot->b : nullptr, slot ? &slot->scalesB : nullptr);
  if (slot) {
    slot->formatA = scaledFormatName(policy.scalingA, policy.operands, policy.hadamard);
    slot->formatB = scaledFormatName(policy.scalingB, roundingB, policy.hadamard);
    if (policy.scalingA) slot->formatScalesA = scaleFormatName(*policy.scalingA);
    if (policy.scalingB) slot->formatScalesB = scaleFormatName(*policy.scalingB);
  }

  // The product of the quantized operands: what remains of the policy, on dense operands.
  backends::GemmPolicy rest = policy;
  rest.scalingA = rest.scalingB = std::nullopt;
  rest.hadamard = false;
  rest.operands = rest.operandsB = std::nullopt;
  GemmExtras plain;
  plain.seed = extras.seed;
  GemmXraySlot output;  // the inner product's measurement: only its output is this product's
  plain.xray = slot ? &output : nullptr;
  gemm(rest, transA, transB, m, n, k, alpha, pa, sa.cols, pb, sb.cols, beta, C, ldc, ws, plain);
  if (slot) {
    slot->output.merge(output.output);
    slot->formatOutput = output.formatOutput;
  }
}

}  // namespace paritylab::nn
