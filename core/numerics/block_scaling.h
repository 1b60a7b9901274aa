#pragma once
// Block-scaled quantization, emulated by fake quantization: a matrix's values are cut into
// scaling groups along a product's reduction axis, each group gets one scale, each value becomes
// scale x element with the element in a narrow format, and the fp32 values written back are those
// products (exact in fp32 whenever the scale is a power of two). The recipes: OCP MX v1.0, NVIDIA's
// NVFP4, and the fp8 recipes with a scale per tensor ("current"), per row or per block. The exact
// equations, and every choice where a specification leaves room, are in docs/block-formats.md.
// CONTRACT (owned by core/numerics; other floors rely on these names).

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/numerics/float_format.h"
#include "core/numerics/rounding.h"
#include "core/numerics/tensor_xray.h"

namespace paritylab::numerics {

// The narrow format of a block's elements: one of the float formats, or MXINT8.
//
// MXINT8 (OCP MX v1.0 section 5.3) is 8-bit two's complement with an implicit scale of 2^-6:
// k / 64 for k in -128..127. It is not a FloatFormat (no exponent field, and -2 = code 0x80 has
// no positive twin), so it lives here, where block quantization uses it. The quantizer uses the
// symmetric range k in -127..127 (the specification allows restricting it so; -2 is never
// produced). Its magnitudes k / 64 are then exactly the grid of a sign-magnitude float with one
// exponent bit, six mantissa bits and bias 1 (subnormals k / 64 below 1, the one binade [1, 2)
// above) whose all-ones exponent is a normal binade and which has no negative zero: `grid` below,
// so the same Rounder kernel rounds it (nearest-even or stochastic, saturating at 127 / 64).
struct ElementFormat {
  // "fp8-e4m3", "fp8-e5m2", "fp6-e3m2", "fp6-e2m3", "fp4-e2m1", "fp8-e4m3fnuz", "fp8-e5m2fnuz",
  // "int8"
  std::string name;
  bool isInteger = false;  // MXINT8
  FloatFormat grid;        // the element's magnitudes as a format the Rounder rounds to

  double maxMagnitude() const { return grid.maxFinite(); }  // 448, 57344, 28, 7.5, 6, ..., 127/64
  // emax_elem of OCP MX: the exponent of the largest power of two the element holds, floor(log2
  // maxMagnitude()): E4M3 8, E5M2 15, E3M2 4, E2M3 2, E2M1 2, INT8 0 (fnuz: E4M3 7, E5M2 15).
  int maxExponent() const;
};

// Every element format a block scaling can take, in the order above.
const std::vector<ElementFormat>& blockElementFormats();
// One of blockElementFormats() by name; throws input::InputError naming the value otherwise.
ElementFormat parseBlockElement(std::string_view name);

enum class BlockScalingKind {
  MX,         // "mx": OCP MX v1.0, one E8M0 (power of two) scale per 32 elements
  NVFP4,      // "nvfp4": E2M1 elements, one E4M3 scale per 16, one fp32 scale per tensor
  PerTensor,  // "current": fp8, one scale from this tensor's amax
  Rowwise,    // "rowwise": fp8, one scale per row along the reduction axis (per row of A [m, k],
              // per column of B [k, n])
  Blockwise,  // "blockwise": fp8, 1 x blockSize tiles along the reduction axis (activations,
              // gradients) or blockSize x blockSize blocks (weights: squareBlocks)
};
enum class ScaleFormat {
  Fp32,  // "fp32": the scale as computed, rounded to fp32
  E8M0,  // "e8m0": a power of two 2^-127 .. 2^127
  E4M3,  // "e4m3": OCP E4M3 (NVFP4's block scale)
};
// Which way blocks run in a row-major matrix [rows, cols]: along a row (contiguous; the reduction
// axis of A [m, k]) or along a column (stride ld; the reduction axis of B [k, n]).
enum class BlockAxis { Row, Column };  // "row" | "column"

std::string_view toString(BlockScalingKind kind);
std::string_view toString(ScaleFormat scale);
std::string_view toString(BlockAxis axis);
std::optional<BlockScalingKind> parseBlockScalingKind(std::string_view name);
std::optional<ScaleFormat> parseScaleFormat(std::string_view name);
std::optional<BlockAxis> parseBlockAxis(std::string_view name);

struct BlockScaling {
  BlockScalingKind kind = BlockScalingKind::MX;
  ElementFormat element;  // see allowedElements(); defaultBlockScaling() fills it
  // Elements per block along the reduction axis (MX 32, NVFP4 16, blockwise 128); a block at the
  // end of a line shorter than this is a block of what remains. Unused by current and rowwise.
  int blockSize = 32;
  ScaleFormat scale = ScaleFormat::E8M0;
  // 2-D blocks of blockSize x blockSize (NVFP4's 16 x 16 and blockwise's 128 x 128 for weights).
  bool squareBlocks = false;
  // How elements round: nearest-even, or stochastic (NVFP4's gradients; draws as the Rounder's).
  RoundingMode rounding = RoundingMode::NearestEven;
};

// The recipe's defaults: MX fp8-e4m3 / 32 / e8m0; NVFP4 fp4-e2m1 / 16 / e4m3; current and
// rowwise fp8-e4m3 / fp32; blockwise fp8-e4m3 / 128 / fp32. Nearest-even, 1-D blocks.
BlockScaling defaultBlockScaling(BlockScalingKind kind);
// The element names and scale formats a recipe allows: MX any element but fnuz / e8m0; NVFP4
// fp4-e2m1 / e4m3; current, rowwise and blockwise the fp8 elements (fnuz included) / fp32, e8m0.
std::vector<std::string> allowedElements(BlockScalingKind kind);
std::vector<ScaleFormat> allowedScales(BlockScalingKind kind);
// Throws input::InputError naming the field and the value: an element or scale format the recipe
// does not allow, a block size below 1, square blocks for a recipe without them (only NVFP4 and
// blockwise have them), a rounding mode other than nearest-even or stochastic.
void validateBlockScaling(const BlockScaling& spec);
// Whether a and b quantize alike: the same recipe, element, block size, scale format, block shape
// and rounding mode.
bool sameBlockScaling(const BlockScaling& a, const BlockScaling& b);
// A spec from names (for JSON): the recipe's defaults with what is given replacing them, then
// validated. Throws input::InputError ("block scaling recipe: unknown 'x' (valid: ...)").
BlockScaling parseBlockScaling(std::string_view recipe, std::string_view element = {},
                               std::optional<int> blockSize = std::nullopt,
                               std::string_view scale = {});

// What a quantization did, over every scaling group (block, row, tile or tensor).
struct BlockScalingStats {
  std::int64_t blocks = 0;  // scaling groups
  // Decode scales (dequantized value = element x scale) over groups with a finite nonzero scale.
  double minScale = std::numeric_limits<double>::infinity();
  double maxScale = 0.0;
  double tensorScale = 0.0;  // NVFP4: the per-tensor fp32 scale s_t (0 for the other recipes)
  // Groups whose scale hit the top of its format's range (an fp32 scale past the largest fp32, an
  // E8M0 exponent past 127, an NVFP4 block scale past 448), or the bottom (an E8M0 exponent below
  // -127 with a nonzero amax; an NVFP4 block scale that rounded to 0, making its block all zeros).
  std::int64_t saturatedScales = 0;
  std::int64_t underflowedScales = 0;
  std::int64_t nanBlocks = 0;  // MX, NVFP4: a NaN or an infinity made the whole block NaN
  // Over the inputs x that are finite and whose output y is finite: sum x^2 and sum (x - y)^2.
  double signalEnergy = 0.0;
  double errorEnergy = 0.0;
  // The decode scales' binary exponents floor(log2 scale), over the groups counted in minScale
  // and maxScale, in TensorXray's bins ([e - TensorXray::kMinExponent], clamped to its range).
  std::array<std::int64_t, TensorXray::kExponentBins> scaleExponents{};

  // 10 log10(signal / error) in dB; +inf when exact, NaN without signal.
  double sqnrDb() const;
};

// The largest magnitude over a tensor's finite values (0 when there are none), and whether it
// holds an infinity or a NaN: what a tensor-wide scale is taken from (NVFP4's s_t, the per-tensor
// recipe's).
struct FiniteAmax {
  double amax = 0.0;
  bool nonFinite = false;
};
// Of the matrix [rows, cols] at x (row stride ld >= cols).
FiniteAmax finiteAmax(const float* x, std::int64_t rows, std::int64_t cols, std::int64_t ld);
// Of the union of two sets of values.
FiniteAmax combined(const FiniteAmax& a, const FiniteAmax& b);

// Quantizes the row-major matrix src [rows, cols] (row stride ld >= cols, in elements) and writes
// the dequantized values to dst (same shape and ld; may alias src; elements between cols and ld
// are not touched). Blocks run along `axis`. Stochastic rounding draws element (line, position)
// along the axis as element offset + line * lineLength + position of the Rounder under `seed`
// (line = row and lineLength = cols along rows; line = column and lineLength = rows along
// columns), so results never depend on threading, and the column case equals the row case of the
// transposed matrix. Adds to *stats when given. Returns NVFP4's per-tensor scale s_t (every
// dequantized value is element x E4M3 block scale x s_t, rounded once to fp32), 0 for the other
// recipes. Throws input::InputError for an invalid spec or spans too short for the shape.
float quantizeBlocks(std::span<const float> src, std::span<float> dst, std::int64_t rows,
                     std::int64_t cols, std::int64_t ld, BlockAxis axis, const BlockScaling& spec,
                     std::uint64_t seed = 0, std::uint64_t offset = 0,
                     BlockScalingStats* stats = nullptr);

// As above, with src and dst each of its own row stride (>= cols): a strided operand quantized
// straight into a dense buffer. dst may alias src only with the same stride.
float quantizeBlocks(std::span<const float> src, std::int64_t ldSrc, std::span<float> dst,
                     std::int64_t ldDst, std::int64_t rows, std::int64_t cols, BlockAxis axis,
                     const BlockScaling& spec, std::uint64_t seed = 0, std::uint64_t offset = 0,
                     BlockScalingStats* stats = nullptr);

// A tensor of `count` dense matrices [rows, cols] stored one after another ([count, rows, cols],
// row-major) quantized as one tensor: blocks within each matrix along `axis` (a block never spans
// two matrices), a tensor-wide scale (NVFP4's, the per-tensor recipe's) from all of them, and the
// stochastic draws of matrix i those of quantizeBlocks at offset + i * rows * cols. dst may alias
// src. A convolution's activations [N, C, H*W] with blocks along C at each pixel: count N, rows C,
// cols H*W, the column axis. srcAmax: finiteAmax of src's count * rows * cols values when the
// caller has it (the Hadamard transform returns its output's), else it is measured here. Returns
// NVFP4's per-tensor scale, as quantizeBlocks.
float quantizeBlockStack(std::span<const float> src, std::span<float> dst, std::int64_t count,
                         std::int64_t rows, std::int64_t cols, BlockAxis axis,
                         const BlockScaling& spec, std::uint64_t seed = 0, std::uint64_t offset = 0,
                         BlockScalingStats* stats = nullptr, const FiniteAmax* srcAmax = nullptr);

// The random sign vector d (entries +1 or -1) of the random Hadamard transform under `seed`.
std::array<float, 16> hadamardSigns(std::uint64_t seed);
// The random Hadamard transform NVFP4 applies to the operands of the weight-gradient product:
// along `axis`, every run of 16 consecutive elements x (positions 16j .. 16j + 15) becomes
// x' = x D H / 4, with D = diag(hadamardSigns(seed)) and H the 16 x 16 Sylvester Hadamard matrix
// (H[i][j] = (-1)^popcount(i & j), H H^T = 16 I). Each x' element is the sum computed in double,
// rounded once to fp32. Since (D H / 4)(D H / 4)^T = I, transforming A [m, k] along its rows and
// B [k, n] along its columns with the same seed leaves A B unchanged up to rounding. A tail of
// fewer than 16 elements at the end of a line is left as it is (the identity, which keeps that
// property). In place on the row-major matrix [rows, cols] with stride ld. Returns finiteAmax of
// the result, measured while it is in cache.
FiniteAmax randomHadamardTransform(std::span<float> values, std::int64_t rows, std::int64_t cols,
                                   std::int64_t ld, BlockAxis axis, std::uint64_t seed);
// The same transform from src (row stride ldSrc) into dst (row stride ldDst), which may be src
// with the same stride; what the transform leaves as it is (tails) is copied.
FiniteAmax randomHadamardTransform(std::span<const float> src, std::int64_t ldSrc,
                                   std::span<float> dst, std::int64_t ldDst, std::int64_t rows,
                                   std::int64_t cols, BlockAxis axis, std::uint64_t seed);

}  // namespace paritylab::numerics
