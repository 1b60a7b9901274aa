// Block-scaled fake quantization, a line at a time: the scales of the line's groups (block, row,
// tile, tensor) from their amax, every value scaled into a buffer, the buffer rounded to the
// element format by one Rounder call (the same kernel as every other rounding), scaled back.
// Lines are rows; the column axis is transposed into lines in tiles. docs/block-formats.md states
// the equations.
//
// Scaled values x / scale are computed in double (exact for a power-of-two scale; one rounding
// otherwise) and then narrowed to fp32 with round-to-odd, so the Rounder's one rounding of that
// fp32 to the element grid equals rounding the exact quotient (round-to-odd to 24 bits followed by
// a rounding to at most 22 bits is correctly rounded). Dequantized values element x scale are
// computed in double and rounded once to fp32. With a power-of-two scale both are the fp32
// products whenever the scaled value is a normal fp32 (encodePowerOfTwo), which is what runs then.

#include "core/numerics/block_scaling.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "core/input/number_input.h"
#include "core/numerics/block_amax.h"
#include "core/numerics/fp32_narrowing.h"
#include "core/numerics/stochastic_bits.h"

namespace paritylab::numerics {
namespace {

using input::InputError;

constexpr double kQuietNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kFloatMax = std::numeric_limits<float>::max();
constexpr int kE8M0MinExponent = -127;  // E8M0 holds 2^-127 .. 2^127 (0xFF is NaN)
constexpr int kE8M0MaxExponent = 127;
constexpr double kE2M1Max = 6.0;    // NVFP4: largest element
constexpr double kE4M3Max = 448.0;  // NVFP4: largest block scale
// fp32 patterns
constexpr std::uint32_t kSignBit = 0x80000000U;
constexpr std::uint32_t kMagnitudeBits = 0x7fffffffU;
constexpr std::uint32_t kMinNormalBits = 0x00800000U;  // 2^-126, fp32's smallest normal
constexpr std::uint32_t kInfBits = 0x7f800000U;

// MXINT8's magnitudes k / 64, k = 0..127, as a format (see ElementFormat in the header).
FloatFormat int8Grid() {
  FloatFormat f;
  f.name = "int8";
  f.exponentBits = 1;
  f.mantissaBits = 6;
  f.bias = 1;
  f.special = SpecialEncoding::Fnuz;  // every magnitude finite, no negative zero (saturating)
  f.hasSubnormals = true;
  return f;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

// A group's scale: scaled = divide ? x / factor : x * factor; dequantized = the inverse.
struct GroupScale {
  bool nan = false;   // the whole group becomes NaN
  bool zero = false;  // the scale is 0: every element becomes a zero of its input's sign
  double factor = 1.0;
  bool divide = true;
  double decodeScale() const { return divide ? factor : 1.0 / factor; }
};

using GroupAmax = FiniteAmax;  // of a scaling group

// On the magnitude bits: finite magnitudes order as their patterns, so the maximum vectorises as
// an integer one (signed: GCC 12 vectorises that reduction, not the unsigned one).
// Count: std::size_t, or a std::integral_constant for the common block widths (see withWidth).
template <typename Count>
GroupAmax amaxOf(const float* values, Count n) {
  constexpr auto kInf = static_cast<std::int32_t>(kInfBits);
  std::int32_t amax = 0;     // over finite magnitudes
  std::int32_t largest = 0;  // over all: an infinity or NaN is above every finite pattern
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t a = std::bit_cast<std::int32_t>(values[i]) & 0x7fffffff;
    largest = largest > a ? largest : a;
    const std::int32_t finite = a < kInf ? a : 0;
    amax = amax > finite ? amax : finite;
  }
  return {std::bit_cast<float>(amax), largest >= kInf};
}

// floor(log2 |x|) of a normal double (every nonzero fp32 value is one): std::ilogb without the
// library call.
int exponentOf(double x) {
  return static_cast<int>((std::bit_cast<std::uint64_t>(x) >> 52) & 0x7ffU) - 1023;
}

// 2^e for e in double's normal range: std::ldexp(1.0, e) without the library call.
double powerOfTwo(int e) {
  return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
}

// OCP MX v1.0 section 6.3: X = 2^(floor(log2 amax) - emax_elem), in E8M0's range.
// emaxElem: the element's ElementFormat::maxExponent().
GroupScale mxScale(const GroupAmax& g, int emaxElem, BlockScalingStats& stats) {
  GroupScale s;
  if (g.nonFinite) {  // a NaN or an infinity: the scale is NaN, so is every element
    s.nan = true;
    return s;
  }
  int exponent = kE8M0MinExponent;  // amax = 0: every element is 0 whatever X; the smallest X
  if (g.amax > 0.0) {
    exponent = exponentOf(g.amax) - emaxElem;
    if (exponent < kE8M0MinExponent) {
      exponent = kE8M0MinExponent;
      ++stats.underflowedScales;
    } else if (exponent > kE8M0MaxExponent) {  // not reachable from fp32 inputs
      ++stats.saturatedScales;
      s.nan = true;
      return s;
    }
  }
  s.factor = powerOfTwo(exponent);
  return s;
}

// NVFP4: block scale = e4m3(amax_block / 6 / s_t), decode scale = block scale x s_t.
// nvfp4Quotient is amax_block / 6 / s_t (0 for a block of zeros or with a NaN or an infinity);
// its rounding to e4m3 (round-to-odd to fp32, then the Rounder) is done for a line's blocks at
// once, and nvfp4Scale makes the block's scale from both.
double nvfp4Quotient(const GroupAmax& g, double tensorScale) {
  if (g.nonFinite || g.amax == 0.0) return 0.0;
  return g.amax / (kE2M1Max * tensorScale);  // 6 x s_t is exact
}

GroupScale nvfp4Scale(const GroupAmax& g, double tensorScale, double quotient, double blockScale,
                      BlockScalingStats& stats) {
  GroupScale s;
  if (g.nonFinite) {
    s.nan = true;
    return s;
  }
  if (g.amax == 0.0) {
    s.zero = true;
    return s;
  }
  // Saturated: past where E4M3's nearest rounding would overflow (448 + half its ulp of 32). The
  // block holding the tensor's amax has a quotient of 448 up to the fp32 rounding of s_t: its
  // scale is E4M3's largest, not clipped.
  if (quotient >= kE4M3Max + 16.0) ++stats.saturatedScales;
  if (blockScale == 0.0) {
    ++stats.underflowedScales;
    s.zero = true;
    return s;
  }
  s.factor = blockScale * tensorScale;  // exact: 4 and 24 significant bits
  return s;
}

// fp8 recipes: the encode scale s = max_elem / amax (fp32), or the largest power of two 2^k with
// amax x 2^k <= max_elem (E8M0); amax = 0 gives 1. Non-finite values do not count in amax.
// maxElement: the element's ElementFormat::maxMagnitude().
GroupScale fp8Scale(const GroupAmax& g, const BlockScaling& spec, double maxElement,
                    BlockScalingStats& stats) {
  GroupScale s;
  s.divide = false;
  if (g.amax == 0.0) return s;
  if (spec.scale == ScaleFormat::Fp32) {
    float scale = static_cast<float>(maxElement / g.amax);
    if (std::isinf(scale)) {
      scale = std::numeric_limits<float>::max();
      ++stats.saturatedScales;
    }
    s.factor = scale;
    return s;
  }
  int k = exponentOf(maxElement) - exponentOf(g.amax);  // floor(log2(max / amax)) or one more
  if (g.amax * powerOfTwo(k) > maxElement) --k;
  if (k > kE8M0MaxExponent) {
    k = kE8M0MaxExponent;
    ++stats.saturatedScales;
  } else if (k < kE8M0MinExponent) {
    k = kE8M0MinExponent;
    ++stats.underflowedScales;
  }
  s.factor = powerOfTwo(k);
  return s;
}

// The matrix seen along the axis: nLines lines of lineLength positions.
struct AxisView {
  std::int64_t nLines, lineLength, ld;
  BlockAxis axis;
  std::int64_t address(std::int64_t line, std::int64_t pos) const {
    return axis == BlockAxis::Row ? line * ld + pos : pos * ld + line;
  }
};

void checkShape(std::size_t srcSize, std::size_t dstSize, std::int64_t rows, std::int64_t cols,
                std::int64_t ld) {
  if (rows < 0 || cols < 0 || ld < cols || ld < 1) {
    throw InputError("block scaling: matrix [" + std::to_string(rows) + ", " +
                     std::to_string(cols) + "] with row stride " + std::to_string(ld) +
                     " is not a shape (need rows, cols >= 0 and ld >= max(cols, 1))");
  }
  const std::int64_t needed = rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
  if (static_cast<std::int64_t>(srcSize) < needed || static_cast<std::int64_t>(dstSize) < needed) {
    throw InputError("block scaling: matrix [" + std::to_string(rows) + ", " +
                     std::to_string(cols) + "] with row stride " + std::to_string(ld) + " needs " +
                     std::to_string(needed) + " values, got " + std::to_string(srcSize) +
                     " (source) and " + std::to_string(dstSize) + " (destination)");
  }
}

}  // namespace

int ElementFormat::maxExponent() const {
  return std::ilogb(maxMagnitude());
}

const std::vector<ElementFormat>& blockElementFormats() {
  static const std::vector<ElementFormat> formats = [] {
    std::vector<ElementFormat> list;
    for (const char* name : {"fp8-e4m3", "fp8-e5m2", "fp6-e3m2", "fp6-e2m3", "fp4-e2m1",
                             "fp8-e4m3fnuz", "fp8-e5m2fnuz"})
      list.push_back({name, false, *parseFormat(name)});
    list.push_back({"int8", true, int8Grid()});
    return list;
  }();
  return formats;
}

ElementFormat parseBlockElement(std::string_view name) {
  std::vector<std::string> valid;
  for (const auto& e : blockElementFormats()) {
    if (e.name == name) return e;
    valid.push_back(e.name);
  }
  throw InputError("block scaling element: unknown format '" + input::excerpt(name) +
                   "' (valid: " + joined(valid) + ")");
}

std::string_view toString(BlockScalingKind kind) {
  switch (kind) {
    case BlockScalingKind::MX:
      return "mx";
    case BlockScalingKind::NVFP4:
      return "nvfp4";
    case BlockScalingKind::PerTensor:
      return "current";
    case BlockScalingKind::Rowwise:
      return "rowwise";
    case BlockScalingKind::Blockwise:
      return "blockwise";
  }
  return "?";
}

std::string_view toString(ScaleFormat scale) {
  switch (scale) {
    case ScaleFormat::Fp32:
      return "fp32";
    case ScaleFormat::E8M0:
      return "e8m0";
    case ScaleFormat::E4M3:
      return "e4m3";
  }
  return "?";
}

std::string_view toString(BlockAxis axis) {
  return axis == BlockAxis::Row ? "row" : "column";
}

std::optional<BlockScalingKind> parseBlockScalingKind(std::string_view name) {
  for (auto kind : {BlockScalingKind::MX, BlockScalingKind::NVFP4, BlockScalingKind::PerTensor,
                    BlockScalingKind::Rowwise, BlockScalingKind::Blockwise})
    if (toString(kind) == name) return kind;
  return std::nullopt;
}

std::optional<ScaleFormat> parseScaleFormat(std::string_view name) {
  for (auto scale : {ScaleFormat::Fp32, ScaleFormat::E8M0, ScaleFormat::E4M3})
    if (toString(scale) == name) return scale;
  return std::nullopt;
}

std::optional<BlockAxis> parseBlockAxis(std::string_view name) {
  for (auto axis : {BlockAxis::Row, BlockAxis::Column})
    if (toString(axis) == name) return axis;
  return std::nullopt;
}

BlockScaling defaultBlockScaling(BlockScalingKind kind) {
  BlockScaling spec;
  spec.kind = kind;
  spec.element = parseBlockElement("fp8-e4m3");
  switch (kind) {
    case BlockScalingKind::MX:
      spec.blockSize = 32;
      spec.scale = ScaleFormat::E8M0;
      break;
    case BlockScalingKind::NVFP4:
      spec.element = parseBlockElement("fp4-e2m1");
      spec.blockSize = 16;
      spec.scale = ScaleFormat::E4M3;
      break;
    case BlockScalingKind::PerTensor:
    case BlockScalingKind::Rowwise:
      spec.scale = ScaleFormat::Fp32;
      break;
    case BlockScalingKind::Blockwise:
      spec.blockSize = 128;
      spec.scale = ScaleFormat::Fp32;
      break;
  }
  return spec;
}

std::vector<std::string> allowedElements(BlockScalingKind kind) {
  switch (kind) {
    case BlockScalingKind::MX:
      return {"fp8-e4m3", "fp8-e5m2", "fp6-e3m2", "fp6-e2m3", "fp4-e2m1", "int8"};
    case BlockScalingKind::NVFP4:
      return {"fp4-e2m1"};
    default:
      return {"fp8-e4m3", "fp8-e5m2", "fp8-e4m3fnuz", "fp8-e5m2fnuz"};
  }
}

std::vector<ScaleFormat> allowedScales(BlockScalingKind kind) {
  switch (kind) {
    case BlockScalingKind::MX:
      return {ScaleFormat::E8M0};
    case BlockScalingKind::NVFP4:
      return {ScaleFormat::E4M3};
    default:
      return {ScaleFormat::Fp32, ScaleFormat::E8M0};
  }
}

void validateBlockScaling(const BlockScaling& spec) {
  const std::string recipe(toString(spec.kind));
  const auto elements = allowedElements(spec.kind);
  if (std::find(elements.begin(), elements.end(), spec.element.name) == elements.end()) {
    throw InputError("block scaling element: '" + input::excerpt(spec.element.name) +
                     "' is not allowed for recipe '" + recipe + "' (allowed: " + joined(elements) +
                     ")");
  }
  const auto scales = allowedScales(spec.kind);
  if (std::find(scales.begin(), scales.end(), spec.scale) == scales.end()) {
    std::vector<std::string> names;
    names.reserve(scales.size());
    for (ScaleFormat s : scales) names.emplace_back(toString(s));
    throw InputError("block scaling scale: '" + std::string(toString(spec.scale)) +
                     "' is not allowed for recipe '" + recipe + "' (allowed: " + joined(names) +
                     ")");
  }
  if (spec.blockSize < 1) {
    throw InputError("block scaling blockSize: must be a positive number of elements, got " +
                     std::to_string(spec.blockSize));
  }
  if (spec.squareBlocks && spec.kind != BlockScalingKind::NVFP4 &&
      spec.kind != BlockScalingKind::Blockwise) {
    throw InputError("block scaling squareBlocks: recipe '" + recipe +
                     "' has no square blocks (only nvfp4 and blockwise do)");
  }
  if (spec.rounding != RoundingMode::NearestEven && spec.rounding != RoundingMode::Stochastic) {
    throw InputError("block scaling rounding: '" + std::string(toString(spec.rounding)) +
                     "' is not allowed (allowed: nearest-even, stochastic)");
  }
}

bool sameBlockScaling(const BlockScaling& a, const BlockScaling& b) {
  return a.kind == b.kind && a.element.name == b.element.name && a.blockSize == b.blockSize &&
         a.scale == b.scale && a.squareBlocks == b.squareBlocks && a.rounding == b.rounding;
}

BlockScaling parseBlockScaling(std::string_view recipe, std::string_view element,
                               std::optional<int> blockSize, std::string_view scale) {
  const auto kind = parseBlockScalingKind(recipe);
  if (!kind) {
    throw InputError("block scaling recipe: unknown '" + input::excerpt(recipe) +
                     "' (valid: mx, nvfp4, current, rowwise, blockwise)");
  }
  BlockScaling spec = defaultBlockScaling(*kind);
  if (!element.empty()) spec.element = parseBlockElement(element);
  if (blockSize) spec.blockSize = *blockSize;
  if (!scale.empty()) {
    const auto parsed = parseScaleFormat(scale);
    if (!parsed) {
      throw InputError("block scaling scale: unknown '" + input::excerpt(scale) +
                       "' (valid: fp32, e8m0, e4m3)");
    }
    spec.scale = *parsed;
  }
  validateBlockScaling(spec);
  return spec;
}

double BlockScalingStats::sqnrDb() const {
  if (signalEnergy == 0.0) return kQuietNaN;
  if (errorEnergy == 0.0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signalEnergy / errorEnergy);
}

namespace {

std::uint32_t bitsOf(float x) {
  return std::bit_cast<std::uint32_t>(x);
}

// The scaled values x / factor (divide) or x x factor as the equations define them: in double, an
// infinity first replaced by the largest fp32 of its sign (it saturates in every element format,
// E5M2 included, as a saturating conversion does), then narrowed with round-to-odd.
template <typename Count>
void encodeExact(const float* x, float* out, Count n, double factor, bool divide) {
  const auto finite = [](float v) {
    const double d = v;
    return std::fabs(d) == std::numeric_limits<double>::infinity() ? std::copysign(kFloatMax, d)
                                                                   : d;
  };
  if (divide) {
    for (std::size_t i = 0; i < n; ++i) out[i] = roundToOdd(finite(x[i]) / factor);
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = roundToOdd(finite(x[i]) * factor);
  }
}

// Dequantized values q x factor (divide) or q / factor, in double and rounded once to fp32.
template <typename Count>
void decodeExact(const float* q, float* out, Count n, double factor, bool divide) {
  if (divide) {
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(double(q[i]) * factor);
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(double(q[i]) / factor);
  }
}

// A power-of-two scale in fp32: x x multiplier (the multiplier 2^-127 .. 2^127, a subnormal at
// the bottom) is exact whenever its magnitude is a normal fp32 above 2^-126, and is then what
// encodeExact gives. False when some nonzero x's product is not (an fp32 subnormal or zero, which
// fp32's multiply may have rounded, 2^-126 which it may have rounded up to, an infinity or NaN):
// the caller then uses encodeExact for these values.
template <typename Count>
bool encodePowerOfTwo(const float* x, float* out, Count n, float multiplier) {
  std::uint32_t outside = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i] * multiplier;
    out[i] = v;
    const std::uint32_t ax = bitsOf(x[i]) & kMagnitudeBits;
    const std::uint32_t av = bitsOf(v) & kMagnitudeBits;
    // av - (2^-126 + 1 ulp) wraps for av <= 2^-126; normal magnitudes above 2^-126 stay below.
    outside |= ax != 0 && av - (kMinNormalBits + 1U) >= kInfBits - (kMinNormalBits + 1U) ? 1U : 0U;
  }
  return outside == 0;
}

// q x multiplier for a power of two: one correctly rounded product of exact values, as
// decodeExact's double product rounded once.
template <typename Count>
void decodePowerOfTwo(const float* q, float* out, Count n, float multiplier) {
  for (std::size_t i = 0; i < n; ++i) out[i] = q[i] * multiplier;
}

// NVFP4 elements, nearest-even, without the division: the E2M1 value nearest x / scale (scale =
// blockScale x tensorScale, exact in double) is found by comparing |x| with the midpoints between
// E2M1's values times the scale (products exact in double: 3 and 28 significant bits), a tie
// going to the even code (down at the midpoints after an even code, up after an odd one); past
// 6 x scale, 6 (E2M1 saturates). Each midpoint is narrowed to the fp32 bound that answers its
// comparison as the double would (below it for '>', above it for '>='), so the comparisons run in
// fp32. The value is the sum of the steps passed; value x blockScale is exact in fp32 (2 and 4
// significant bits), so one fp32 product by tensorScale rounds value x scale once, as decodeExact
// does: the bits of encodeExact, the Rounder and decodeExact. A block scale of 0 (a block of
// zeros, or a scale below E4M3's smallest) gives zeros of the inputs' signs, as signedZeros does.
// The midpoints between E2M1's values; those after an even code (the even k) compare with '>'.
constexpr double kE2M1Midpoints[7] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0};

// The fp32 bound of midpoint k for a block's scale (blockScale x tensorScale, exact in double).
inline float nvfp4Bound(int k, double scale) {
  const double t = kE2M1Midpoints[k] * scale;
  return k % 2 == 0 ? floatBelow(t) : floatAbove(t);
}

struct Nvfp4Bounds {
  float b[7];
};

inline Nvfp4Bounds nvfp4Bounds(float blockScale, float tensorScale) {
  const double scale = double(blockScale) * tensorScale;
  Nvfp4Bounds t;
  for (int k = 0; k < 7; ++k) t.b[k] = nvfp4Bound(k, scale);
  return t;
}

// Every block's bounds at once (vectorised): bounds[k x count + g] = bound k of block g, whose
// block scale is blockScales[g] (a line's blocks, or a block row's columns).
void nvfp4BlockBounds(const float* __restrict blockScales, std::int64_t count, float tensorScale,
                      float* __restrict bounds) {
  for (int k = 0; k < 7; ++k) {
    float* __restrict out = bounds + k * count;
    for (std::int64_t g = 0; g < count; ++g)
      out[g] = nvfp4Bound(k, double(blockScales[g]) * tensorScale);
  }
}

// codes 0 1 2 3 4 5 6 7 = 0 0.5 1 1.5 2 3 4 6
inline float nvfp4NearestValue(float x, float b0, float b1, float b2, float b3, float b4, float b5,
                               float b6, float blockScale, float tensorScale) {
  const float a = std::fabs(x);
  float q = a > b0 ? 0.5f : 0.0f;
  q += a >= b1 ? 0.5f : 0.0f;
  q += a > b2 ? 0.5f : 0.0f;
  q += a >= b3 ? 0.5f : 0.0f;
  q += a > b4 ? 1.0f : 0.0f;
  q += a >= b5 ? 1.0f : 0.0f;
  q += a > b6 ? 2.0f : 0.0f;
  return std::copysign(q * blockScale * tensorScale, x);
}

template <typename Count>
void nvfp4Nearest(const float* x, float* y, Count n, const Nvfp4Bounds& t, float blockScale,
                  float tensorScale) {
  for (std::size_t i = 0; i < n; ++i) {
    y[i] = nvfp4NearestValue(x[i], t.b[0], t.b[1], t.b[2], t.b[3], t.b[4], t.b[5], t.b[6],
                             blockScale, tensorScale);
  }
}

// Every element a zero of its input's sign (a group whose scale is 0).
template <typename Count>
void signedZeros(const float* x, float* out, Count n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::bit_cast<float>(bitsOf(x[i]) & kSignBit);
}

// nvfp4Nearest down the columns: the block row [n, cols] at x (row stride ldx) into y (stride
// ldy), column c's block scaled by blockScales[c] x tensorScale, its bounds (nvfp4Bounds) at
// b[k x cols + c], k < 7.
void nvfp4NearestColumns(const float* x, std::int64_t ldx, float* y, std::int64_t ldy,
                         std::int64_t n, std::int64_t cols, const float* __restrict b,
                         const float* __restrict blockScales, float tensorScale) {
  for (std::int64_t r = 0; r < n; ++r) {
    const float* xr = x + r * ldx;
    float* yr = y + r * ldy;
    for (std::int64_t c = 0; c < cols; ++c) {
      yr[c] = nvfp4NearestValue(xr[c], b[c], b[cols + c], b[2 * cols + c], b[3 * cols + c],
                                b[4 * cols + c], b[5 * cols + c], b[6 * cols + c], blockScales[c],
                                tensorScale);
    }
  }
}

// NVFP4's stochastic rounding of finite values, in three steps as scaledLine takes them: the
// scaled value x / factor (factor = block scale x s_t) rounded to odd (quotientToOdd, given its
// reciprocal), 0 for a factor of 0 (scaledLine's buffer for a zero scale); the Rounder's draws;
// q x block scale x s_t rounded once (the first product exact in fp32, as in nvfp4NearestValue),
// a zero of x's sign for a block scale of 0. Masks rather than selects: the loops vectorise.
inline float nvfp4Scaled(float x, double factor, double reciprocal) {
  const float v = quotientToOdd(x, factor, reciprocal);
  return std::bit_cast<float>(bitsOf(v) & (0U - static_cast<std::uint32_t>(factor != 0.0)));
}

inline float nvfp4Unscaled(float x, float q, float blockScale, float tensorScale) {
  const std::uint32_t scaled = 0U - static_cast<std::uint32_t>(blockScale != 0.0f);
  const float v = q * blockScale * tensorScale;
  return std::bit_cast<float>((bitsOf(v) & scaled) | (bitsOf(x) & kSignBit & ~scaled));
}

// One block's elements.
template <typename Count>
void nvfp4ScaledBlock(const float* x, float* __restrict out, Count n, double factor,
                      double reciprocal) {
  for (std::size_t i = 0; i < n; ++i) out[i] = nvfp4Scaled(x[i], factor, reciprocal);
}

// A block whose scale is not 0 (q carries x's sign, zeros included). Without x, which y may
// overwrite: with it, GCC could not vectorise the unrolled block.
template <typename Count>
void nvfp4UnscaledBlock(const float* __restrict q, float* __restrict y, Count n, float blockScale,
                        float tensorScale) {
  for (std::size_t i = 0; i < n; ++i) y[i] = q[i] * blockScale * tensorScale;
}

// One row of a block row down the columns, column c's block with its own scale.
void nvfp4ScaledColumns(const float* x, float* __restrict out, std::int64_t cols,
                        const double* __restrict factors, const double* __restrict reciprocals) {
  for (std::int64_t c = 0; c < cols; ++c) out[c] = nvfp4Scaled(x[c], factors[c], reciprocals[c]);
}

void nvfp4UnscaledColumns(const float* x, const float* __restrict q, float* y, std::int64_t cols,
                          const float* __restrict blockScales, float tensorScale) {
  for (std::int64_t c = 0; c < cols; ++c)
    y[c] = nvfp4Unscaled(x[c], q[c], blockScales[c], tensorScale);
}

// Adds sum x^2 and sum (x - y)^2 over the pairs with x and y finite, in order.
void addEnergy(const float* x, const float* y, std::size_t n, BlockScalingStats& stats) {
  for (std::size_t i = 0; i < n; ++i) {
    const double xv = x[i];
    const double yv = y[i];
    if (std::isfinite(xv) && std::isfinite(yv)) {
      stats.signalEnergy += xv * xv;
      stats.errorEnergy += (xv - yv) * (xv - yv);
    }
  }
}

// Per thread, reused across calls: no allocation once the largest shape has been seen.
struct Scratch {
  std::vector<float> line;              // one line's scaled, then rounded values
  std::vector<float> original;          // stats with 2-D groups: a strip's inputs
  std::vector<GroupAmax> amax;          // per group of a strip
  std::vector<std::uint32_t> amaxBits;  // the fast paths: per group of a line, or per column
  std::vector<double> quotients;        // NVFP4: a line's amax_block / 6 / s_t
  std::vector<double> factors;          // NVFP4 down the columns: each column's decode scale
  std::vector<double> reciprocals;      // and its reciprocal
  std::vector<float> bounds;            // NVFP4 nearest: [7, blocks] (nvfp4BlockBounds)
  std::vector<float> blockScales;
  std::vector<GroupScale> scales;
  std::vector<unsigned char> exact;  // per group of a line: scaled by encodeExact
  std::vector<int> shifts;           // per group of a line: its scale's exponent, or kNoShift
};

// A group not rounded on its scaled grid (see LineQuantizer::line).
constexpr int kNoShift = std::numeric_limits<int>::min();

// Calls f(n) with n a compile-time constant for the common block widths (MX 32, NVFP4 16), so
// that the per-block loops become a few whole vectors, without loop control or remainders.
template <typename F>
void withWidth(std::size_t n, F&& f) {
  if (n == 32) {
    f(std::integral_constant<std::size_t, 32>{});
  } else if (n == 16) {
    f(std::integral_constant<std::size_t, 16>{});
  } else {
    f(n);
  }
}

template <typename T>
T* sized(std::vector<T>& v, std::int64_t n) {
  if (v.size() < static_cast<std::size_t>(n)) v.resize(static_cast<std::size_t>(n));
  return v.data();
}

// The element Rounder of a spec, built once per thread and element rounding.
Rounder elementRounder(const BlockScaling& spec) {
  const RoundingSpec want{spec.element.grid, spec.rounding, OverflowMode::Saturate,
                          SubnormalMode::Keep};
  thread_local std::vector<Rounder> cache;
  for (const Rounder& r : cache)
    if (sameRounding(r.spec(), want)) return r;
  if (cache.size() >= 16) cache.clear();
  cache.emplace_back(want);
  return cache.back();
}

const Rounder& e4m3Rounder() {
  static const Rounder rounder(
      RoundingSpec{*parseFormat("fp8-e4m3"), RoundingMode::NearestEven, OverflowMode::Saturate});
  return rounder;
}

// validateBlockScaling without building the lists of names when the spec is valid (every call).
void validateQuickly(const BlockScaling& spec) {
  constexpr BlockScalingKind kKinds[] = {BlockScalingKind::MX, BlockScalingKind::NVFP4,
                                         BlockScalingKind::PerTensor, BlockScalingKind::Rowwise,
                                         BlockScalingKind::Blockwise};
  static const auto allowed = [&] {
    std::vector<std::pair<std::vector<std::string>, std::vector<ScaleFormat>>> lists;
    for (BlockScalingKind kind : kKinds)
      lists.emplace_back(allowedElements(kind), allowedScales(kind));
    return lists;
  }();
  const auto k = static_cast<std::size_t>(spec.kind);
  const bool valid =
      k < allowed.size() &&
      std::find(allowed[k].first.begin(), allowed[k].first.end(), spec.element.name) !=
          allowed[k].first.end() &&
      std::find(allowed[k].second.begin(), allowed[k].second.end(), spec.scale) !=
          allowed[k].second.end() &&
      spec.blockSize >= 1 &&
      (!spec.squareBlocks || spec.kind == BlockScalingKind::NVFP4 ||
       spec.kind == BlockScalingKind::Blockwise) &&
      (spec.rounding == RoundingMode::NearestEven || spec.rounding == RoundingMode::Stochastic);
  if (!valid) validateBlockScaling(spec);  // throws, naming the field
}

// Every column's amax (out[c], c < cols), vectorised along the rows.
void columnAmax(const float* x, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                GroupAmax* out) {
  constexpr auto kInf = static_cast<std::int32_t>(kInfBits);
  thread_local std::vector<std::int32_t> amaxBuffer, largestBuffer;
  std::int32_t* __restrict amax = sized(amaxBuffer, cols);
  std::int32_t* __restrict largest = sized(largestBuffer, cols);
  std::fill_n(amax, cols, 0);
  std::fill_n(largest, cols, 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * ld;
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::int32_t a = std::bit_cast<std::int32_t>(row[c]) & 0x7fffffff;
      largest[c] = largest[c] > a ? largest[c] : a;
      const std::int32_t finite = a < kInf ? a : 0;
      amax[c] = amax[c] > finite ? amax[c] : finite;
    }
  }
  for (std::int64_t c = 0; c < cols; ++c)
    out[c] = {std::bit_cast<float>(amax[c]), largest[c] >= kInf};
}

// One call's quantization of lines stored as rows (line l's position p at row l, column p), a
// window of positions [pos0, pos0 + count) at a time: the whole line, or (column axis) a run of
// whole blocks. A strip is the lines one row of groups covers: one line, or blockSize lines
// (square blocks).
class LineQuantizer {
 public:
  LineQuantizer(const BlockScaling& spec, std::int64_t lineLength, std::uint64_t seed,
                std::uint64_t offset, double tensorScale, bool energy, BlockScalingStats& stats)
      : spec_(spec),
        element_(elementRounder(spec)),
        lineLength_(lineLength),
        seed_(seed),
        offset_(offset),
        tensorScale_(tensorScale),
        energy_(energy),
        stats_(stats),
        maxElement_(spec.element.maxMagnitude()),
        emaxElem_(spec.element.maxExponent()) {
    wholeLine_ = spec.kind == BlockScalingKind::PerTensor || spec.kind == BlockScalingKind::Rowwise;
    scaledGrid_ = spec.kind == BlockScalingKind::MX && spec.rounding != RoundingMode::Stochastic;
    shiftRange_ = element_.scaledGridShifts();
    nvfp4_ = spec.kind == BlockScalingKind::NVFP4;
    nvfp4Nearest_ = nvfp4_ && spec.rounding == RoundingMode::NearestEven;
    linesPerStrip_ = spec.squareBlocks ? spec.blockSize : 1;
    powerOfTwo_ = spec.kind == BlockScalingKind::MX ||
                  (spec.kind != BlockScalingKind::NVFP4 && spec.scale == ScaleFormat::E8M0);
  }

  std::int64_t linesPerStrip() const { return linesPerStrip_; }
  // MX, deterministic, without statistics: blocks rounded on their moved grids where they fit.
  bool roundsOnScaledGrids() const { return scaledGrid_ && !energy_; }

  // Blocks down the columns, rounded on their moved grids straight from x: the block row
  // [n, cols] at x (row stride ldx) into y (row stride ldy). False, and nothing written, when a
  // block cannot be (the caller then quantizes these rows the long way).
  bool scaledColumns(const float* x, std::int64_t ldx, float* y, std::int64_t ldy, std::int64_t n,
                     std::int64_t cols) {
    if (!roundsOnScaledGrids() || shiftRange_.first > shiftRange_.last) return false;
    std::uint32_t* amax = sized(scratch_.amaxBits, cols);
    int* shifts = sized(scratch_.shifts, cols);
    if (!finiteColumnAmax(x, std::size_t(n), std::size_t(cols), std::size_t(ldx), amax) ||
        !mxScaleShifts(amax, std::size_t(cols), emaxElem_, shiftRange_.first, shiftRange_.last,
                       shifts))
      return false;
    return element_.applyScaledColumns(x, std::size_t(ldx), y, std::size_t(ldy), std::size_t(n),
                                       {shifts, std::size_t(cols)});
  }

  // Whether quantizeColumns may quantize a block row straight down the columns.
  bool quantizesColumns() const {
    return roundsOnScaledGrids() || (nvfp4_ && !energy_ && linesPerStrip_ == 1);
  }

  // A block row [n, cols] at x (row stride ldx) into y (stride ldy; may be x), without
  // transposing it: column c's block is positions [pos0, pos0 + n) of line c. The bits of strip()
  // on the transposed lines; false, and nothing written, when the block row cannot be (the caller
  // then quantizes these rows the long way).
  bool quantizeColumns(const float* x, std::int64_t ldx, float* y, std::int64_t ldy, std::int64_t n,
                       std::int64_t cols, std::int64_t pos0) {
    if (scaledGrid_) return scaledColumns(x, ldx, y, ldy, n, cols);
    return nvfp4Columns(x, ldx, y, ldy, n, cols, pos0);
  }

  // One group per line (rowwise, per tensor): its scale comes from the whole line.
  bool wholeLine() const { return wholeLine_; }

  // The scale of a group whose amax is known (a line's, the tensor's), counted in the stats.
  GroupScale wholeLineScale(const GroupAmax& amax) {
    const GroupScale scale = fp8Scale(amax, spec_, maxElement_, stats_);
    count(scale);
    return scale;
  }

  // Lines [line0, line0 + nLines) (nLines up to linesPerStrip()), positions [pos0, pos0 + n),
  // read at x with row stride ldx and written at y with stride ldy (y may be x). `preset`: the
  // scale of a whole-line group, known (and counted) beforehand; null: from these values.
  // Stats' sums need whole lines (pos0 = 0, n = lineLength).
  void strip(const float* x, std::int64_t ldx, float* y, std::int64_t ldy, std::int64_t line0,
             std::int64_t nLines, std::int64_t pos0, std::int64_t n, const GroupScale* preset) {
    if (nLines == 1 && !wholeLine_ && !energy_ && fastLine(x, y, line0, pos0, n)) return;
    const std::int64_t width = wholeLine_ ? n : spec_.blockSize;
    const std::int64_t groups = (n + width - 1) / width;
    GroupScale* scales = sized(scratch_.scales, groups);
    if (preset) {
      scales[0] = *preset;
    } else {
      groupScales(x, ldx, nLines, n, width, groups, scales);
    }
    const bool twoDimensional = nLines > 1;
    float* original = nullptr;
    if (energy_ && twoDimensional) {
      original = sized(scratch_.original, nLines * n);
      for (std::int64_t l = 0; l < nLines; ++l) std::copy_n(x + l * ldx, n, original + l * n);
    }
    for (std::int64_t l = 0; l < nLines; ++l)
      line(x + l * ldx, y + l * ldy, line0 + l, pos0, n, width, groups, scales,
           energy_ && !twoDimensional);
    if (original) {  // in the groups' order, as the equations sum them
      for (std::int64_t g = 0; g < groups; ++g) {
        const std::int64_t p0 = g * width;
        const std::int64_t count = std::min(width, n - p0);
        for (std::int64_t l = 0; l < nLines; ++l)
          addEnergy(original + l * n + p0, y + l * ldy + p0, std::size_t(count), stats_);
      }
    }
  }

 private:
  // One line of blocks without statistics, in whole vectors: the blocks' amax sixteen at a time
  // (finiteBlockAmax), their scales in SoA loops, then MX's rounding on the moved grids, NVFP4's
  // comparisons with the midpoints, or (NVFP4, stochastic) scaledLine's steps without its
  // division (nvfp4Scaled, the draws, nvfp4Unscaled). The bits of the general path below; false,
  // and nothing written, when it does not apply (a NaN or an infinity, a grid outside fp32's normal
  // range), and the general path quantizes the line.
  bool fastLine(const float* x, float* y, std::int64_t lineIndex, std::int64_t pos0,
                std::int64_t n) {
    const auto width = std::size_t(spec_.blockSize);
    const std::size_t groups = (std::size_t(n) + width - 1) / width;
    if (scaledGrid_) {
      if (shiftRange_.first > shiftRange_.last) return false;
      std::uint32_t* amax = sized(scratch_.amaxBits, std::int64_t(groups));
      int* shifts = sized(scratch_.shifts, std::int64_t(groups));
      if (!finiteBlockAmax(x, std::size_t(n), width, amax) ||
          !mxScaleShifts(amax, groups, emaxElem_, shiftRange_.first, shiftRange_.last, shifts))
        return false;
      element_.applyScaledBlocks({x, std::size_t(n)}, {y, std::size_t(n)}, width, {shifts, groups});
      return true;
    }
    if (!nvfp4_) return false;
    std::uint32_t* amax = sized(scratch_.amaxBits, std::int64_t(groups));
    if (!finiteBlockAmax(x, std::size_t(n), width, amax)) return false;
    // The block scales as groupScales computes them: nvfp4Quotient of a finite amax (written
    // without its branch, so that the loop vectorises; an amax of 0 gives 0 either way), rounded
    // to E4M3.
    float* blockScales = sized(scratch_.blockScales, std::int64_t(groups));
    const double sixTimesTensorScale = kE2M1Max * tensorScale_;  // exact
    for (std::size_t g = 0; g < groups; ++g)
      blockScales[g] = roundToOdd(double(std::bit_cast<float>(amax[g])) / sixTimesTensorScale);
    e4m3Rounder().apply({blockScales, groups});
    const auto tensorScale = float(tensorScale_);
    if (!nvfp4Nearest_) {  // stochastic: scaledLine's steps and draws, the window at once
      float* buffer = sized(scratch_.line, n);
      for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t p0 = g * width;
        const double factor = double(blockScales[g]) * tensorScale;
        withWidth(std::min(width, std::size_t(n) - p0), [&](auto count) {
          nvfp4ScaledBlock(x + p0, buffer + p0, count, factor, 1.0 / factor);
        });
      }
      element_.apply({buffer, std::size_t(n)}, seed_,
                     offset_ + std::uint64_t(lineIndex * lineLength_ + pos0));
      for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t p0 = g * width;
        withWidth(std::min(width, std::size_t(n) - p0), [&](auto count) {
          if (blockScales[g] == 0.0f)
            signedZeros(x + p0, y + p0, count);
          else
            nvfp4UnscaledBlock(buffer + p0, y + p0, count, blockScales[g], tensorScale);
        });
      }
      return true;
    }
    const auto blocks = std::int64_t(groups);
    float* bounds = sized(scratch_.bounds, 7 * blocks);
    nvfp4BlockBounds(blockScales, blocks, tensorScale, bounds);
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t p0 = g * width;
      Nvfp4Bounds t;
      for (std::size_t k = 0; k < 7; ++k) t.b[k] = bounds[k * groups + g];
      withWidth(std::min(width, std::size_t(n) - p0), [&](auto count) {
        nvfp4Nearest(x + p0, y + p0, count, t, blockScales[g], tensorScale);
      });
    }
    return true;
  }

  // NVFP4 with 1 x 16 blocks, without statistics (none is counted), a block row down the columns
  // (see quantizeColumns): fastLine's steps with the columns side by side, every column's amax,
  // block scale and decode factor at once, then nvfp4Nearest's comparisons, or scaledLine's
  // encoding, draws (those of the column's line) and decoding a row at a time.
  bool nvfp4Columns(const float* x, std::int64_t ldx, float* y, std::int64_t ldy, std::int64_t n,
                    std::int64_t cols, std::int64_t pos0) {
    if (!nvfp4_ || energy_ || linesPerStrip_ != 1) return false;
    std::uint32_t* amax = sized(scratch_.amaxBits, cols);
    if (!finiteColumnAmax(x, std::size_t(n), std::size_t(cols), std::size_t(ldx), amax))
      return false;
    float* blockScales = sized(scratch_.blockScales, cols);
    const double sixTimesTensorScale = kE2M1Max * tensorScale_;  // exact
    for (std::int64_t c = 0; c < cols; ++c)
      blockScales[c] = roundToOdd(double(std::bit_cast<float>(amax[c])) / sixTimesTensorScale);
    e4m3Rounder().apply({blockScales, std::size_t(cols)});
    const auto tensorScale = float(tensorScale_);
    if (nvfp4Nearest_) {
      float* bounds = sized(scratch_.bounds, 7 * cols);
      nvfp4BlockBounds(blockScales, cols, tensorScale, bounds);
      nvfp4NearestColumns(x, ldx, y, ldy, n, cols, bounds, blockScales, tensorScale);
      return true;
    }
    double* factors = sized(scratch_.factors, cols);
    double* reciprocals = sized(scratch_.reciprocals, cols);
    for (std::int64_t c = 0; c < cols; ++c) {
      factors[c] = double(blockScales[c]) * tensorScale;
      reciprocals[c] = 1.0 / factors[c];  // infinity for 0: nvfp4Scaled masks those
    }
    float* buffer = sized(scratch_.line, cols);
    const auto lineLength = std::uint64_t(lineLength_);
    for (std::int64_t r = 0; r < n; ++r) {
      nvfp4ScaledColumns(x + r * ldx, buffer, cols, factors, reciprocals);
      element_.applyStridedDraws({buffer, std::size_t(cols)}, seed_,
                                 offset_ + std::uint64_t(pos0 + r), lineLength);
      nvfp4UnscaledColumns(x + r * ldx, buffer, y + r * ldy, cols, blockScales, tensorScale);
    }
    return true;
  }

  void count(const GroupScale& scale) {
    ++stats_.blocks;
    if (scale.nan) {
      ++stats_.nanBlocks;
    } else if (!scale.zero) {
      const double decode = scale.decodeScale();
      stats_.minScale = std::min(stats_.minScale, decode);
      stats_.maxScale = std::max(stats_.maxScale, decode);
      if (energy_) {  // only when the caller asked for statistics
        const int e =
            std::clamp(exponentOf(decode), TensorXray::kMinExponent, TensorXray::kMaxExponent);
        ++stats_.scaleExponents[std::size_t(e - TensorXray::kMinExponent)];
      }
    }
  }

  void groupScales(const float* x, std::int64_t ldx, std::int64_t nLines, std::int64_t n,
                   std::int64_t width, std::int64_t groups, GroupScale* scales) {
    GroupAmax* amax = sized(scratch_.amax, groups);
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::int64_t p0 = g * width;
      withWidth(std::size_t(std::min(width, n - p0)), [&](auto count) {
        amax[g] = amaxOf(x + p0, count);
        for (std::int64_t l = 1; l < nLines; ++l)
          amax[g] = combined(amax[g], amaxOf(x + l * ldx + p0, count));
      });
    }
    if (spec_.kind == BlockScalingKind::NVFP4) {
      double* quotients = sized(scratch_.quotients, groups);
      float* blockScales = sized(scratch_.blockScales, groups);
      for (std::int64_t g = 0; g < groups; ++g) {
        quotients[g] = nvfp4Quotient(amax[g], tensorScale_);
        blockScales[g] = roundToOdd(quotients[g]);
      }
      e4m3Rounder().apply({blockScales, static_cast<std::size_t>(groups)});
      for (std::int64_t g = 0; g < groups; ++g)
        scales[g] = nvfp4Scale(amax[g], tensorScale_, quotients[g], blockScales[g], stats_);
    } else if (spec_.kind == BlockScalingKind::MX) {
      for (std::int64_t g = 0; g < groups; ++g) scales[g] = mxScale(amax[g], emaxElem_, stats_);
    } else {
      for (std::int64_t g = 0; g < groups; ++g)
        scales[g] = fp8Scale(amax[g], spec_, maxElement_, stats_);
    }
    countAll(scales, groups);
  }

  // count() over a row of groups, the running figures kept in locals (the stats may alias what
  // the loop reads, so the compiler would keep them in memory).
  void countAll(const GroupScale* scales, std::int64_t groups) {
    if (energy_) {
      for (std::int64_t g = 0; g < groups; ++g) count(scales[g]);
      return;
    }
    std::int64_t nanBlocks = 0;
    double lo = stats_.minScale, hi = stats_.maxScale;
    for (std::int64_t g = 0; g < groups; ++g) {
      const GroupScale& scale = scales[g];
      nanBlocks += scale.nan ? 1 : 0;
      if (!scale.nan && !scale.zero) {
        const double decode = scale.decodeScale();
        lo = std::min(lo, decode);
        hi = std::max(hi, decode);
      }
    }
    stats_.blocks += groups;
    stats_.nanBlocks += nanBlocks;
    stats_.minScale = lo;
    stats_.maxScale = hi;
  }

  // MX, deterministic, without statistics: the exponent of a group's scale when its elements can
  // be rounded on the element grid moved by it (Rounder::applyScaledBlocks), else kNoShift. An
  // all-zero group keeps its zeros (and their signs) on any grid: the first that fits.
  int scaledGridShift(const GroupAmax& amax, const GroupScale& scale) const {
    if (!scaledGrid_ || scale.nan || scale.zero || shiftRange_.first > shiftRange_.last)
      return kNoShift;
    if (amax.amax == 0.0) return std::clamp(0, shiftRange_.first, shiftRange_.last);
    const int shift = exponentOf(scale.decodeScale());
    return shiftRange_.contains(shift) ? shift : kNoShift;
  }

  // One line's window. MX without statistics: the groups whose scaled element grid lies in
  // fp32's normal range are rounded on that grid straight from x (Rounder::applyScaledBlocks: the
  // bits of scaling, rounding and scaling back), the others as below.
  void line(const float* x, float* y, std::int64_t lineIndex, std::int64_t pos0, std::int64_t n,
            std::int64_t width, std::int64_t groups, const GroupScale* scales, bool energy) {
    if (nvfp4Nearest_ && !energy) {
      const auto tensorScale = float(tensorScale_);
      for (std::int64_t g = 0; g < groups; ++g) {
        const std::int64_t p0 = g * width;
        const GroupScale& s = scales[g];
        // factor = block scale x s_t exactly, so the quotient is the block scale
        const auto blockScale = float(s.factor / tensorScale_);
        withWidth(std::size_t(std::min(width, n - p0)), [&](auto count) {
          if (s.nan)
            std::fill_n(y + p0, count, static_cast<float>(kQuietNaN));
          else if (s.zero)
            signedZeros(x + p0, y + p0, count);
          else
            nvfp4Nearest(x + p0, y + p0, count, nvfp4Bounds(blockScale, tensorScale), blockScale,
                         tensorScale);
        });
      }
      return;
    }
    if (!scaledGrid_ || energy) {
      scaledLine(x, y, lineIndex, pos0, n, width, groups, scales, energy, nullptr);
      return;
    }
    int* shifts = sized(scratch_.shifts, groups);
    const GroupAmax* amax = scratch_.amax.data();  // groupScales' (MX: one line per strip)
    bool every = true;
    for (std::int64_t g = 0; g < groups; ++g) {
      shifts[g] = scaledGridShift(amax[g], scales[g]);
      every = every && shifts[g] != kNoShift;
    }
    element_.applyScaledBlocks({x, std::size_t(n)}, {y, std::size_t(n)}, std::size_t(width),
                               {shifts, std::size_t(groups)});
    if (!every) scaledLine(x, y, lineIndex, pos0, n, width, groups, scales, false, shifts);
  }

  // One line's window: every group's values scaled into the buffer, the window rounded by one
  // Rounder call (its draws are those of element offset + line x lineLength + position), scaled
  // back. With `skip`, only the groups g with skip[g] == kNoShift, each rounded by its own call
  // (the same draws).
  void scaledLine(const float* x, float* y, std::int64_t lineIndex, std::int64_t pos0,
                  std::int64_t n, std::int64_t width, std::int64_t groups, const GroupScale* scales,
                  bool energy, const int* skip) {
    float* buffer = sized(scratch_.line, n);
    unsigned char* exact = sized(scratch_.exact, groups);
    const auto skipped = [&](std::int64_t g) { return skip && skip[g] != kNoShift; };
    const std::uint64_t lineOffset =
        offset_ + static_cast<std::uint64_t>(lineIndex * lineLength_ + pos0);
    for (std::int64_t g = 0; g < groups; ++g) {
      if (skipped(g)) continue;
      const std::int64_t p0 = g * width;
      const GroupScale& s = scales[g];
      withWidth(std::size_t(std::min(width, n - p0)), [&](auto count) {
        exact[g] = 0;
        if (s.nan || s.zero) {
          std::fill_n(buffer + p0, count, 0.0f);
        } else if (!powerOfTwo_ ||
                   !encodePowerOfTwo(x + p0, buffer + p0, count,
                                     static_cast<float>(s.divide ? 1.0 / s.factor : s.factor))) {
          encodeExact(x + p0, buffer + p0, count, s.factor, s.divide);
          exact[g] = 1;
        }
      });
    }
    if (skip) {
      for (std::int64_t g = 0; g < groups; ++g) {
        if (skipped(g)) continue;
        const std::int64_t p0 = g * width;
        element_.apply({buffer + p0, static_cast<std::size_t>(std::min(width, n - p0))}, seed_,
                       lineOffset + static_cast<std::uint64_t>(p0));
      }
    } else {
      element_.apply({buffer, static_cast<std::size_t>(n)}, seed_, lineOffset);
    }
    // With stats the results go to the buffer first: y may be x, whose values the sums need.
    float* out = energy ? buffer : y;
    for (std::int64_t g = 0; g < groups; ++g) {
      if (skipped(g)) continue;
      const std::int64_t p0 = g * width;
      const GroupScale& s = scales[g];
      withWidth(std::size_t(std::min(width, n - p0)), [&](auto count) {
        if (s.nan) {
          std::fill_n(out + p0, count, static_cast<float>(kQuietNaN));
        } else if (s.zero) {
          signedZeros(x + p0, out + p0, count);
        } else if (exact[g] != 0) {
          decodeExact(buffer + p0, out + p0, count, s.factor, s.divide);
        } else {
          decodePowerOfTwo(buffer + p0, out + p0, count,
                           static_cast<float>(s.divide ? s.factor : 1.0 / s.factor));
        }
      });
    }
    if (energy) {
      addEnergy(x, buffer, static_cast<std::size_t>(n), stats_);
      std::copy_n(buffer, n, y);
    }
  }

  const BlockScaling& spec_;
  Rounder element_;
  std::int64_t lineLength_;
  std::uint64_t seed_, offset_;
  double tensorScale_;
  bool energy_;
  BlockScalingStats& stats_;
  double maxElement_;
  int emaxElem_;
  bool wholeLine_ = false;   // one group per line (rowwise, per tensor)
  bool powerOfTwo_ = false;  // every decode scale a power of two (MX, E8M0)
  bool scaledGrid_ = false;  // MX, deterministic: rounded on the scaled grid where it fits
  Rounder::ShiftRange shiftRange_{1, 0};  // the scale exponents whose grid fits
  bool nvfp4_ = false;
  bool nvfp4Nearest_ = false;  // NVFP4, nearest-even: by comparisons (nvfp4Nearest)
  std::int64_t linesPerStrip_ = 1;
  Scratch& scratch_ = scratch();

  static Scratch& scratch() {
    thread_local Scratch s;
    return s;
  }
};

#if defined(__AVX__)
// The 8 x 8 block at in (row stride ldIn) transposed to out (row stride ldOut).
inline void transpose8x8(const float* in, std::int64_t ldIn, float* out, std::int64_t ldOut) {
  __m256 r[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(in + i * ldIn);
  __m256 t[8];
  for (int i = 0; i < 8; i += 2) {  // pairs of rows interleaved
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {  // quadruples within each 128-bit half
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {  // halves: rows 0-3 and 4-7
    _mm256_storeu_ps(out + i * ldOut, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(out + (i + 4) * ldOut, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}
#endif

// out[c x ldOut + r] = in[r x ldIn + c] for r < rows, c < cols.
void transpose(const float* in, std::int64_t ldIn, float* out, std::int64_t ldOut,
               std::int64_t rows, std::int64_t cols) {
  std::int64_t r0 = 0;
#if defined(__AVX__)
  for (; r0 + 8 <= rows; r0 += 8) {
    std::int64_t c = 0;
    for (; c + 8 <= cols; c += 8)
      transpose8x8(in + r0 * ldIn + c, ldIn, out + c * ldOut + r0, ldOut);
    for (; c < cols; ++c)
      for (std::int64_t r = r0; r < r0 + 8; ++r) out[c * ldOut + r] = in[r * ldIn + c];
  }
#endif
  for (std::int64_t r = r0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) out[c * ldOut + r] = in[r * ldIn + c];
}

// Column axis. With stats: tiles of 16 whole columns (one 64-byte cache line of each row); the
// tile's rows padded by as much. Without: windows of about kWindow rows (whole blocks;
// kWholeLineWindow for rowwise and per-tensor groups) across as many columns as make a tile of
// about kTileValues floats (128 KiB, within a core's L2), staged through as many again.
constexpr std::int64_t kColumnTile = 16;
constexpr std::int64_t kWindow = 128;
constexpr std::int64_t kWholeLineWindow = 256;
constexpr std::int64_t kTileValues = 32768;

std::vector<float>& tileBuffer() {
  thread_local std::vector<float> buffer;
  return buffer;
}

std::vector<float>& stageBuffer() {
  thread_local std::vector<float> buffer;
  return buffer;
}

std::vector<GroupAmax>& lineAmaxBuffer() {
  thread_local std::vector<GroupAmax> buffer;
  return buffer;
}

std::vector<GroupScale>& lineScaleBuffer() {
  thread_local std::vector<GroupScale> buffer;
  return buffer;
}

}  // namespace

namespace {

// Whether the recipe has a scale over the whole tensor (NVFP4's s_t, the per-tensor recipe).
bool tensorWide(const BlockScaling& spec) {
  return spec.kind == BlockScalingKind::NVFP4 || spec.kind == BlockScalingKind::PerTensor;
}

// NVFP4's per-tensor scale s_t = amax / (448 x 6) in fp32, over the finite values (amax = 0: 1;
// a quotient below fp32's range: its smallest subnormal, so block scales stay finite).
float nvfp4TensorScale(const GroupAmax& tensorAmax) {
  const double amax = tensorAmax.amax;
  const float s = amax == 0.0 ? 1.0f : static_cast<float>(amax / (kE4M3Max * kE2M1Max));
  return s == 0.0f ? std::numeric_limits<float>::denorm_min() : s;
}

// What a quantization of a tensor whose amax is tensorAmax returns: NVFP4's s_t, else 0.
float returnedTensorScale(const BlockScaling& spec, const GroupAmax& tensorAmax) {
  return spec.kind == BlockScalingKind::NVFP4 ? nvfp4TensorScale(tensorAmax) : 0.0f;
}

// quantizeBlocks of one matrix of a tensor whose amax (over its finite values) is tensorAmax.
void quantizeMatrix(std::span<const float> src, std::int64_t ldSrc, std::span<float> dst,
                    std::int64_t ldDst, std::int64_t rows, std::int64_t cols, BlockAxis axis,
                    const BlockScaling& spec, std::uint64_t seed, std::uint64_t offset,
                    BlockScalingStats* stats, const GroupAmax& tensorAmax) {
  BlockScalingStats local;
  double tensorScale = 0.0;
  if (spec.kind == BlockScalingKind::NVFP4) {
    tensorScale = nvfp4TensorScale(tensorAmax);
    local.tensorScale = tensorScale;
  }

  const std::int64_t nLines = axis == BlockAxis::Row ? rows : cols;
  const std::int64_t lineLength = axis == BlockAxis::Row ? cols : rows;
  if (nLines > 0 && lineLength > 0) {
    LineQuantizer q(spec, lineLength, seed, offset, tensorScale, stats != nullptr, local);
    GroupScale tensorGroup;
    if (spec.kind == BlockScalingKind::PerTensor) tensorGroup = q.wholeLineScale(tensorAmax);
    const GroupScale* preset = spec.kind == BlockScalingKind::PerTensor ? &tensorGroup : nullptr;
    const std::int64_t step = q.linesPerStrip();
    if (axis == BlockAxis::Row) {
      for (std::int64_t l = 0; l < nLines; l += step)
        q.strip(src.data() + l * ldSrc, ldSrc, dst.data() + l * ldDst, ldDst, l,
                std::min(step, nLines - l), 0, lineLength, preset);
    } else if (stats) {
      // The sums run in the groups' order, a whole line after another: tiles of whole columns
      // transposed into rows (stride padded by a cache line, so that the rows of a tile do not
      // share cache sets), quantized as rows, transposed back.
      const std::int64_t tileLines = (kColumnTile + step - 1) / step * step;
      const std::int64_t stride = lineLength + kColumnTile;
      float* tile = sized(tileBuffer(), tileLines * stride);
      for (std::int64_t c0 = 0; c0 < nLines; c0 += tileLines) {
        const std::int64_t width = std::min(tileLines, nLines - c0);
        transpose(src.data() + c0, ldSrc, tile, stride, rows, width);
        for (std::int64_t t = 0; t < width; t += step)
          q.strip(tile + t * stride, stride, tile + t * stride, stride, c0 + t,
                  std::min(step, width - t), 0, lineLength, preset);
        transpose(tile, stride, dst.data() + c0, ldDst, width, rows);
      }
    } else {
      // Windows of whole blocks of rows across runs of columns, transposed into lines: every
      // read and write runs along rows (a column at a time would touch a cache line and a page per
      // row). Rowwise scales come first, from every column's amax.
      GroupScale* lineScales = nullptr;
      if (spec.kind == BlockScalingKind::Rowwise) {
        GroupAmax* amax = sized(lineAmaxBuffer(), nLines);
        columnAmax(src.data(), rows, cols, ldSrc, amax);
        lineScales = sized(lineScaleBuffer(), nLines);
        for (std::int64_t c = 0; c < cols; ++c) lineScales[c] = q.wholeLineScale(amax[c]);
      }
      const std::int64_t block = spec.blockSize;
      const std::int64_t window =
          q.wholeLine() ? kWholeLineWindow : block * std::max<std::int64_t>(1, kWindow / block);
      const std::int64_t stride = window + kColumnTile;
      const std::int64_t tileLines =
          std::max(step, kTileValues / stride / step * step);  // a multiple of the strip
      float* tile = sized(tileBuffer(), tileLines * stride);
      float* stage = sized(stageBuffer(), window * (tileLines + kColumnTile));
      // Rows [p0, p0 + n) of every column, through the tiles.
      const auto quantizeWindow = [&](std::int64_t p0, std::int64_t n) {
        for (std::int64_t c0 = 0; c0 < nLines; c0 += tileLines) {
          const std::int64_t width = std::min(tileLines, nLines - c0);
          // Through rows of a padded stride: transposing straight from rows whose stride is a
          // multiple of 4 KiB (a stride of 1024, 2048, ...) maps a block's 8 rows to one cache set.
          const std::int64_t stageStride = width + kColumnTile;
          for (std::int64_t r = 0; r < n; ++r)
            std::copy_n(src.data() + (p0 + r) * ldSrc + c0, width, stage + r * stageStride);
          transpose(stage, stageStride, tile, stride, n, width);
          for (std::int64_t t = 0; t < width; t += step)
            q.strip(tile + t * stride, stride, tile + t * stride, stride, c0 + t,
                    std::min(step, width - t), p0, n, lineScales ? lineScales + c0 + t : preset);
          transpose(tile, stride, stage, stageStride, width, n);
          for (std::int64_t r = 0; r < n; ++r)
            std::copy_n(stage + r * stageStride, width, dst.data() + (p0 + r) * ldDst + c0);
        }
      };
      // MX (where every block's grid fits) and NVFP4 (where every value is finite): a block row
      // at a time straight down the columns.
      const std::int64_t rowsAtOnce = q.quantizesColumns() ? block : window;
      for (std::int64_t p0 = 0; p0 < lineLength; p0 += rowsAtOnce) {
        const std::int64_t n = std::min(rowsAtOnce, lineLength - p0);
        if (!q.quantizeColumns(src.data() + p0 * ldSrc, ldSrc, dst.data() + p0 * ldDst, ldDst, n,
                               cols, p0))
          quantizeWindow(p0, n);
      }
    }
  }

  if (stats) {
    stats->blocks += local.blocks;
    stats->minScale = std::min(stats->minScale, local.minScale);
    stats->maxScale = std::max(stats->maxScale, local.maxScale);
    if (local.tensorScale != 0.0) stats->tensorScale = local.tensorScale;
    stats->saturatedScales += local.saturatedScales;
    stats->underflowedScales += local.underflowedScales;
    stats->nanBlocks += local.nanBlocks;
    stats->signalEnergy += local.signalEnergy;
    stats->errorEnergy += local.errorEnergy;
    for (std::size_t i = 0; i < local.scaleExponents.size(); ++i)
      stats->scaleExponents[i] += local.scaleExponents[i];
  }
}

}  // namespace

FiniteAmax combined(const FiniteAmax& a, const FiniteAmax& b) {
  return {std::max(a.amax, b.amax), a.nonFinite || b.nonFinite};
}

FiniteAmax finiteAmax(const float* x, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  FiniteAmax amax;
  for (std::int64_t r = 0; r < rows && cols > 0; ++r)
    amax = combined(amax, amaxOf(x + r * ld, std::size_t(cols)));
  return amax;
}

float quantizeBlocks(std::span<const float> src, std::int64_t ldSrc, std::span<float> dst,
                     std::int64_t ldDst, std::int64_t rows, std::int64_t cols, BlockAxis axis,
                     const BlockScaling& spec, std::uint64_t seed, std::uint64_t offset,
                     BlockScalingStats* stats) {
  validateQuickly(spec);
  checkShape(src.size(), src.size(), rows, cols, ldSrc);
  checkShape(dst.size(), dst.size(), rows, cols, ldDst);
  if (src.data() == dst.data() && ldSrc != ldDst)
    throw InputError("block scaling: in place needs one row stride (got " + std::to_string(ldSrc) +
                     " and " + std::to_string(ldDst) + ")");
  const GroupAmax tensorAmax =
      tensorWide(spec) ? finiteAmax(src.data(), rows, cols, ldSrc) : GroupAmax{};
  quantizeMatrix(src, ldSrc, dst, ldDst, rows, cols, axis, spec, seed, offset, stats, tensorAmax);
  return returnedTensorScale(spec, tensorAmax);
}

float quantizeBlockStack(std::span<const float> src, std::span<float> dst, std::int64_t count,
                         std::int64_t rows, std::int64_t cols, BlockAxis axis,
                         const BlockScaling& spec, std::uint64_t seed, std::uint64_t offset,
                         BlockScalingStats* stats, const FiniteAmax* srcAmax) {
  validateQuickly(spec);
  if (count < 0) throw InputError("block scaling: a negative count of matrices");
  const std::int64_t size = rows * cols;
  const std::int64_t ld = std::max<std::int64_t>(cols, 1);
  checkShape(src.size(), src.size(), count * rows, cols, ld);
  checkShape(dst.size(), dst.size(), count * rows, cols, ld);
  const GroupAmax tensorAmax = !tensorWide(spec) ? GroupAmax{}
                               : srcAmax         ? *srcAmax
                                                 : finiteAmax(src.data(), count * rows, cols, cols);
  for (std::int64_t i = 0; i < count; ++i) {
    quantizeMatrix(src.subspan(std::size_t(i * size), std::size_t(size)), cols,
                   dst.subspan(std::size_t(i * size), std::size_t(size)), cols, rows, cols, axis,
                   spec, seed, offset + std::uint64_t(i * size), stats, tensorAmax);
  }
  return returnedTensorScale(spec, tensorAmax);
}

float quantizeBlocks(std::span<const float> src, std::span<float> dst, std::int64_t rows,
                     std::int64_t cols, std::int64_t ld, BlockAxis axis, const BlockScaling& spec,
                     std::uint64_t seed, std::uint64_t offset, BlockScalingStats* stats) {
  return quantizeBlocks(src, ld, dst, ld, rows, cols, axis, spec, seed, offset, stats);
}

}  // namespace paritylab::numerics
