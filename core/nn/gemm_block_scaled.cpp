// Block-scaled products: the operands quantized in scaling groups along K while they are packed.

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/nn/gemm_impl.h"
#include "core/nn/gemm_xray.h"
#include "core/nn/im2col.h"

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

// Adds one call's block scales to a measured product's (merged over the calls of one product: a
// convolution's image groups).
void addScales(std::optional<numerics::TensorXray>& scales,
               const numerics::BlockScalingStats& stats, numerics::BlockScalingKind kind) {
  const numerics::TensorXray x = blockScalesXray(stats, kind);
  if (scales)
    scales->merge(x);
  else
    scales = x;
}

// A stored matrix's rows and columns.
struct StoredShape {
  int rows, cols;
};

// An operand as the product reads it: its values and their row stride, and NVFP4's tensor scale
// (0 for the other recipes).
struct PreparedOperand {
  const float* data;
  int ld;
  float tensorScale = 0.0f;
};

// Packs `src` densely into `buffer`, transforms and quantizes it; returns the packed values (and,
// on a measured step, adds the operand's scales to *scales). `writable`: src's own values, which
// the caller discards after the product (GemmExtras::writableA/B), quantized where they lie when
// the step is not measured.
PreparedOperand prepare(const ScaledOperand& src,
                        const std::optional<numerics::BlockScaling>& scaling,
                        const std::optional<numerics::RoundingSpec>& rounding, bool hadamard,
                        std::uint64_t hadamardSeed, std::uint64_t seed, float* writable,
                        std::vector<float>& buffer, std::vector<float>& before,
                        numerics::TensorXray* xray, std::optional<numerics::TensorXray>* scales) {
  const std::size_t cols = std::size_t(src.cols), count = std::size_t(src.rows) * cols;
  // The operand's values as they lie, rows of stride src.ld.
  const std::span<const float> values(
      src.data, src.rows > 0 ? (std::size_t(src.rows) - 1) * std::size_t(src.ld) + cols : 0);
  if (scaling && !hadamard && !xray && !scales) {
    // Unmeasured: quantized in place, or straight from the operand into the dense buffer,
    // without packing a copy first.
    if (writable == src.data) {
      const float tensorScale =
          numerics::quantizeBlocks(values, src.ld, {writable, values.size()}, src.ld, src.rows,
                                   src.cols, src.kAxis, *scaling, seed);
      return {writable, src.ld, tensorScale};
    }
    grow(buffer, count);
    const float tensorScale =
        numerics::quantizeBlocks(values, src.ld, {buffer.data(), count}, src.cols, src.rows,
                                 src.cols, src.kAxis, *scaling, seed);
    return {buffer.data(), src.cols, tensorScale};
  }
  grow(buffer, count);
  const std::span<float> packed(buffer.data(), count);  // the buffer may be longer
  std::optional<numerics::FiniteAmax> transformedAmax;
  if (hadamard) {  // transformed straight into the buffer
    transformedAmax = numerics::randomHadamardTransform(values, src.ld, packed, src.cols, src.rows,
                                                        src.cols, src.kAxis, hadamardSeed);
  } else {
    for (int r = 0; r < src.rows; ++r)
      std::copy_n(src.data + std::size_t(r) * std::size_t(src.ld), cols,
                  packed.data() + std::size_t(r) * cols);
  }
  if (xray) before.assign(packed.begin(), packed.end());
  float tensorScale = 0.0f;
  if (scaling) {
    numerics::BlockScalingStats stats;
    tensorScale = numerics::quantizeBlockStack(packed, packed, 1, src.rows, src.cols, src.kAxis,
                                               *scaling, seed, 0, scales ? &stats : nullptr,
                                               transformedAmax ? &*transformedAmax : nullptr);
    if (scales) addScales(*scales, stats, scaling->kind);
  } else if (rounding)
    storeTensor(rounding, packed.data(), count, seed);
  if (xray) numerics::accumulateXray(before, packed, *numerics::parseFormat("fp32"), *xray);
  return {packed.data(), src.cols, tensorScale};
}

// The draws of a product's operands: the Hadamard transform's signs (the same for both operands,
// so that their product stays as it was; another draw per product and step), and each operand's
// stochastic element draws (as gemm()'s own operand rounding streams).
std::uint64_t hadamardSeedOf(const GemmExtras& e) {
  return e.seed ^ 0x48414441ull; /* "HADA" */
}
std::uint64_t elementSeedOf(const GemmExtras& e, Operand which) {
  return which == Operand::A ? e.seed : e.seed ^ 0x9e3779b97f4a7c15ull;
}

// The recipe operand `which` is quantized with ahead of its gather; null when the policy does not
// block-scale it, or takes a Hadamard transform without block-scaling both operands (the
// transform keeps the product only when both operands take it along the same reduction).
const numerics::BlockScaling* scalingAheadOfGather(const backends::GemmPolicy& policy,
                                                   Operand which) {
  const std::optional<numerics::BlockScaling>& scaling =
      which == Operand::A ? policy.scalingA : policy.scalingB;
  if (!scaling || (policy.hadamard && !(policy.scalingA && policy.scalingB))) return nullptr;
  return &*scaling;
}

// quantizeBlockStack of operand `which` from `from` into `to` (may be the same values) with
// gemm()'s element draws; on a measured step the values as they were against their quantized
// values, and the scales, merged into the slot (over the calls of one product: a convolution's
// image groups). fromAmax: finiteAmax of `from` when the caller has it. Returns NVFP4's tensor
// scale (0 for the other recipes).
float quantizeStackMeasured(std::span<const float> from, std::span<float> to, std::int64_t count,
                            std::int64_t rows, std::int64_t cols, BlockAxis axis,
                            const numerics::BlockScaling& scaling, const GemmExtras& extras,
                            Operand which, std::uint64_t offset,
                            const std::optional<numerics::FiniteAmax>& fromAmax) {
  GemmXraySlot* slot = extras.xray;
  std::vector<float> before;
  if (slot) before.assign(from.begin(), from.end());
  numerics::BlockScalingStats stats;
  const float tensorScale = numerics::quantizeBlockStack(
      from, to, count, rows, cols, axis, scaling, elementSeedOf(extras, which), offset,
      slot ? &stats : nullptr, fromAmax ? &*fromAmax : nullptr);
  if (!slot) return tensorScale;
  numerics::TensorXray& xray = which == Operand::A ? slot->a : slot->b;
  numerics::accumulateXray(before, to, *numerics::parseFormat("fp32"), xray);
  addScales(which == Operand::A ? slot->scalesA : slot->scalesB, stats, scaling.kind);
  return tensorScale;
}

// Whether a product of operands quantized under `policy` runs on their bf16 values
// (Bf16ScaledOperands): both NVFP4, and no chunked accumulation (a policy that rounds its partial
// sums keeps the fp32 product of the dequantized operands, whose sums those roundings are of).
bool productOfNvfp4Elements(const backends::GemmPolicy& policy, int k) {
  const auto nvfp4 = [](const std::optional<numerics::BlockScaling>& s) {
    return s && s->kind == numerics::BlockScalingKind::NVFP4;
  };
  const bool chunked = policy.accumulationChunk > 0 && policy.accumulationChunk < k;
  return nvfp4(policy.scalingA) && nvfp4(policy.scalingB) && !chunked;
}

}  // namespace

bool prequantizeOperand(const backends::GemmPolicy& policy, Operand which, const GemmExtras& extras,
                        const float* src, float* dst, std::int64_t count, std::int64_t rows,
                        std::int64_t cols, std::uint64_t offset, float* tensorScale) {
  const numerics::BlockScaling* scaling = scalingAheadOfGather(policy, which);
  if (!scaling) return false;
  const std::size_t n = std::size_t(count * rows * cols);
  const std::span<float> values(dst, n);
  const float* from = src;  // quantized straight from src unless transformed first
  std::optional<numerics::FiniteAmax> transformedAmax;
  if (policy.hadamard) {  // transformed straight into dst
    const std::int64_t ld = std::max<std::int64_t>(cols, 1);
    transformedAmax.emplace();
    for (std::int64_t i = 0; i < count; ++i) {
      const auto at = std::size_t(i * rows * cols);
      transformedAmax = numerics::combined(
          *transformedAmax, numerics::randomHadamardTransform(
                                {src + at, std::size_t(rows * cols)}, ld,
                                values.subspan(at, std::size_t(rows * cols)), ld, rows, cols,
                                numerics::BlockAxis::Column, hadamardSeedOf(extras)));
    }
    from = dst;
  }
  const float scale = quantizeStackMeasured({from, n}, values, count, rows, cols, BlockAxis::Column,
                                            *scaling, extras, which, offset, transformedAmax);
  if (tensorScale) *tensorScale = scale;
  return true;
}

bool packOperandBf16(const backends::GemmPolicy& policy, const GemmExtras& extras, int k,
                     const float* src, std::size_t n, float tensorScale,
                     std::vector<std::uint16_t>& dst) {
  if (!productOfNvfp4Elements(policy, k) || extras.xray || !(tensorScale > 0.0f)) return false;
  packBf16(src, 1, int(n), int(n), tensorScale, grow(dst, n));
  return true;
}

bool prequantizeSquareConvWeights(const backends::GemmPolicy& policy, Operand which,
                                  const GemmExtras& extras, const float* w, std::vector<float>& dst,
                                  std::int64_t cout, std::int64_t cin, std::int64_t taps,
                                  BlockAxis reduction, float* tensorScale) {
  const numerics::BlockScaling* scaling = scalingAheadOfGather(policy, which);
  if (!scaling || !scaling->squareBlocks) return false;
  // [Cout * Cin, taps] -> [taps, Cout * Cin]: at each tap a matrix [Cout, Cin] whose square
  // blocks are the weights' (Cout, Cin) blocks.
  thread_local std::vector<float> byTap;
  const auto n = std::size_t(cout * cin * taps);
  if (byTap.size() < n) byTap.resize(n);
  const std::span<float> values(byTap.data(), n);
  channelsFirst(w, values.data(), int(cout * cin), int(taps), 1);
  std::optional<numerics::FiniteAmax> transformedAmax;
  if (policy.hadamard) {  // along the product's reduction, as the other operand's
    transformedAmax.emplace();
    for (std::int64_t t = 0; t < taps; ++t) {
      const std::span<float> tap =
          values.subspan(std::size_t(t * cout * cin), std::size_t(cout * cin));
      transformedAmax = numerics::combined(
          *transformedAmax, numerics::randomHadamardTransform(tap, cout, cin, cin, reduction,
                                                              hadamardSeedOf(extras)));
    }
  }
  const float scale = quantizeStackMeasured(values, values, taps, cout, cin, reduction, *scaling,
                                            extras, which, 0, transformedAmax);
  if (tensorScale) *tensorScale = scale;
  if (dst.size() < n) dst.resize(n);
  channelsFirst(values.data(), dst.data(), int(taps), int(cout * cin), 1);  // back to W's layout
  return true;
}

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
  const std::uint64_t hadamardSeed = hadamardSeedOf(extras);
  GemmXraySlot* slot = extras.xray;
  // An operand quantized before its gather (prequantizeOperand, which also measured it) is read
  // as it is.
  const bool quantizedA = policy.scalingA && extras.writableA == A && extras.writableARounded;
  const bool quantizedB = policy.scalingB && extras.writableB == B && extras.writableBRounded;
  const PreparedOperand pa =
      quantizedA ? PreparedOperand{A, lda, extras.tensorScaleA}
                 : prepare(sa, policy.scalingA, policy.operands, policy.hadamard, hadamardSeed,
                           elementSeedOf(extras, Operand::A), extras.writableA, ws.scaledA,
                           ws.before, slot ? &slot->a : nullptr, slot ? &slot->scalesA : nullptr);
  const PreparedOperand pb =
      quantizedB ? PreparedOperand{B, ldb, extras.tensorScaleB}
                 : prepare(sb, policy.scalingB, roundingB, policy.hadamard, hadamardSeed,
                           elementSeedOf(extras, Operand::B), extras.writableB, ws.scaledB,
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
  if (extras.bf16B && (!quantizedB || slot || !productOfNvfp4Elements(policy, k)))
    throw std::logic_error("bf16 values of operand B for a product that does not read them");
  if (productOfNvfp4Elements(policy, k)) {
    // NVFP4: the product of the elements times their block scales (exact in bf16), the two
    // tensor scales applied after the sum.
    if (!(pa.tensorScale > 0.0f) || !(pb.tensorScale > 0.0f))
      throw std::logic_error(
          "an NVFP4 operand quantized before its product lacks its tensor "
          "scale (GemmExtras::tensorScaleA/B)");
    const StoredShape a{transA == Trans::No ? m : k, transA == Trans::No ? k : m};
    const StoredShape b{transB == Trans::No ? k : n, transB == Trans::No ? n : k};
    std::uint16_t* a16 = grow(ws.bf16A, std::size_t(a.rows) * std::size_t(a.cols));
    packBf16(pa.data, a.rows, a.cols, pa.ld, pa.tensorScale, a16);
    // B gathered in bf16 by the caller (packOperandBf16, im2colBf16), or packed here.
    const std::uint16_t* b16 = quantizedB && extras.bf16B ? extras.bf16B : nullptr;
    const int ldb16 = b16 ? ldb : b.cols;
    if (!b16) {
      std::uint16_t* packed = grow(ws.bf16B, std::size_t(b.rows) * std::size_t(b.cols));
      packBf16(pb.data, b.rows, b.cols, pb.ld, pb.tensorScale, packed);
      b16 = packed;
    }
    const Bf16ScaledOperands bf16{a16, a.cols, b16, ldb16,
                                  float(double(pa.tensorScale) * double(pb.tensorScale))};
    gemmOfScaledBf16(rest, transA, transB, m, n, k, alpha, pa.data, pa.ld, pb.data, pb.ld, beta, C,
                     ldc, ws, plain, bf16);
  } else {
    gemm(rest, transA, transB, m, n, k, alpha, pa.data, pa.ld, pb.data, pb.ld, beta, C, ldc, ws,
         plain);
  }
  if (slot) {
    slot->output.merge(output.output);
    slot->formatOutput = output.formatOutput;
  }
}

}  // namespace paritylab::nn
