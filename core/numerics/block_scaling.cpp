// Block-scaled fake quantization: one scaling group (block, row, tile, tensor) at a time, gathered
// in line order, scaled, rounded to the element format by the Rounder (the same kernel as every
// other rounding), scaled back and scattered. docs/block-formats.md states the equations.
//
// Scaled values x / scale are computed in double (exact for a power-of-two scale; one rounding
// otherwise) and then narrowed to fp32 with round-to-odd, so the Rounder's one rounding of that
// fp32 to the element grid equals rounding the exact quotient (round-to-odd to 24 bits followed by
// a rounding to at most 22 bits is correctly rounded). Dequantized values element x scale are
// computed in double and rounded once to fp32.

#include "core/numerics/block_scaling.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "core/input/number_input.h"
#include "core/numerics/stochastic_bits.h"

namespace paritylab::numerics {
namespace {

using input::InputError;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kFloatMax = std::numeric_limits<float>::max();
constexpr int kE8M0MinExponent = -127;  // E8M0 holds 2^-127 .. 2^127 (0xFF is NaN)
constexpr int kE8M0MaxExponent = 127;
constexpr double kE2M1Max = 6.0;    // NVFP4: largest element
constexpr double kE4M3Max = 448.0;  // NVFP4: largest block scale

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

// x narrowed to fp32 with round-to-odd: truncated toward zero, the last bit set when inexact.
float roundToOdd(double x) {
  const float nearest = static_cast<float>(x);
  if (static_cast<double>(nearest) == x || std::isnan(x)) return nearest;
  std::uint32_t bits = std::bit_cast<std::uint32_t>(nearest);
  if (std::fabs(static_cast<double>(nearest)) > std::fabs(x)) bits -= 1;  // toward zero
  return std::bit_cast<float>(bits | 1U);
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

// One scaling group: lines [line0, line1) x positions [pos0, pos1) along the axis.
struct Group {
  std::int64_t line0, line1, pos0, pos1;
};

// A group's scale: scaled = divide ? x / factor : x * factor; dequantized = the inverse.
struct GroupScale {
  bool nan = false;   // the whole group becomes NaN
  bool zero = false;  // the scale is 0: every element becomes a zero of its input's sign
  double factor = 1.0;
  bool divide = true;
  double decodeScale() const { return divide ? factor : 1.0 / factor; }
};

struct GroupAmax {
  double amax = 0.0;  // max |x| over finite x
  bool nonFinite = false;
};

GroupAmax amaxOf(std::span<const float> values) {
  float amax = 0.0f;
  bool nonFinite = false;
  for (float v : values) {
    const float a = std::fabs(v);
    nonFinite |= !(a <= std::numeric_limits<float>::max());
    amax = a <= std::numeric_limits<float>::max() && a > amax ? a : amax;
  }
  return {amax, nonFinite};
}

// OCP MX v1.0 section 6.3: X = 2^(floor(log2 amax) - emax_elem), in E8M0's range.
GroupScale mxScale(const GroupAmax& g, const ElementFormat& element, BlockScalingStats& stats) {
  GroupScale s;
  if (g.nonFinite) {  // a NaN or an infinity: the scale is NaN, so is every element
    s.nan = true;
    return s;
  }
  int exponent = kE8M0MinExponent;  // amax = 0: every element is 0 whatever X; the smallest X
  if (g.amax > 0.0) {
    exponent = std::ilogb(g.amax) - element.maxExponent();
    if (exponent < kE8M0MinExponent) {
      exponent = kE8M0MinExponent;
      ++stats.underflowedScales;
    } else if (exponent > kE8M0MaxExponent) {  // not reachable from fp32 inputs
      ++stats.saturatedScales;
      s.nan = true;
      return s;
    }
  }
  s.factor = std::ldexp(1.0, exponent);
  return s;
}

// NVFP4: block scale = e4m3(amax_block / 6 / s_t), decode scale = block scale x s_t.
GroupScale nvfp4Scale(const GroupAmax& g, double tensorScale, const Rounder& e4m3,
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
  const double raw = g.amax / (kE2M1Max * tensorScale);  // 6 x s_t is exact
  if (raw > kE4M3Max) ++stats.saturatedScales;
  const double blockScale = e4m3.round(roundToOdd(raw));
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
GroupScale fp8Scale(const GroupAmax& g, const BlockScaling& spec, BlockScalingStats& stats) {
  GroupScale s;
  s.divide = false;
  const double maxElement = spec.element.maxMagnitude();
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
  int k = std::ilogb(maxElement) - std::ilogb(g.amax);  // floor(log2(max / amax)) or one more
  if (std::ldexp(g.amax, k) > maxElement) --k;
  if (k > kE8M0MaxExponent) {
    k = kE8M0MaxExponent;
    ++stats.saturatedScales;
  } else if (k < kE8M0MinExponent) {
    k = kE8M0MinExponent;
    ++stats.underflowedScales;
  }
  s.factor = std::ldexp(1.0, k);
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

std::vector<Group> groupsOf(const AxisView& v, const BlockScaling& spec) {
  std::vector<Group> groups;
  if (v.nLines == 0 || v.lineLength == 0) return groups;
  const std::int64_t b = spec.blockSize;
  switch (spec.kind) {
    case BlockScalingKind::PerTensor:
      groups.push_back({0, v.nLines, 0, v.lineLength});
      return groups;
    case BlockScalingKind::Rowwise:
      for (std::int64_t l = 0; l < v.nLines; ++l) groups.push_back({l, l + 1, 0, v.lineLength});
      return groups;
    default:
      break;
  }
  const std::int64_t lineStep = spec.squareBlocks ? b : 1;
  for (std::int64_t l = 0; l < v.nLines; l += lineStep)
    for (std::int64_t p = 0; p < v.lineLength; p += b)
      groups.push_back({l, std::min(l + lineStep, v.nLines), p, std::min(p + b, v.lineLength)});
  return groups;
}

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
  if (signalEnergy == 0.0) return kNaN;
  if (errorEnergy == 0.0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signalEnergy / errorEnergy);
}

void quantizeBlocks(std::span<const float> src, std::span<float> dst, std::int64_t rows,
                    std::int64_t cols, std::int64_t ld, BlockAxis axis, const BlockScaling& spec,
                    std::uint64_t seed, std::uint64_t offset, BlockScalingStats* stats) {
  validateBlockScaling(spec);
  checkShape(src.size(), dst.size(), rows, cols, ld);
  const AxisView view =
      axis == BlockAxis::Row ? AxisView{rows, cols, ld, axis} : AxisView{cols, rows, ld, axis};
  BlockScalingStats local;
  const Rounder elementRounder(
      RoundingSpec{spec.element.grid, spec.rounding, OverflowMode::Saturate, SubnormalMode::Keep});
  const Rounder e4m3(
      RoundingSpec{*parseFormat("fp8-e4m3"), RoundingMode::NearestEven, OverflowMode::Saturate});

  // NVFP4's per-tensor scale s_t = amax / (448 x 6) in fp32, over the finite values (amax = 0:
  // 1; a quotient below fp32's range: its smallest subnormal, so block scales stay finite).
  double tensorScale = 0.0;
  if (spec.kind == BlockScalingKind::NVFP4) {
    double amax = 0.0;
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto row =
          src.subspan(static_cast<std::size_t>(r * ld), static_cast<std::size_t>(cols));
      amax = std::max(amax, amaxOf(row).amax);
    }
    float s = amax == 0.0 ? 1.0f : static_cast<float>(amax / (kE4M3Max * kE2M1Max));
    if (s == 0.0f) s = std::numeric_limits<float>::denorm_min();
    tensorScale = s;
    local.tensorScale = s;
  }

  std::vector<float> values;
  std::vector<float> scaled;
  for (const Group& g : groupsOf(view, spec)) {
    const std::int64_t width = g.pos1 - g.pos0;
    const auto count = static_cast<std::size_t>((g.line1 - g.line0) * width);
    values.resize(count);
    scaled.resize(count);
    std::size_t i = 0;
    for (std::int64_t l = g.line0; l < g.line1; ++l)
      for (std::int64_t p = g.pos0; p < g.pos1; ++p)
        values[i++] = src[static_cast<std::size_t>(view.address(l, p))];

    const GroupAmax amax = amaxOf(values);
    GroupScale scale;
    switch (spec.kind) {
      case BlockScalingKind::MX:
        scale = mxScale(amax, spec.element, local);
        break;
      case BlockScalingKind::NVFP4:
        scale = nvfp4Scale(amax, tensorScale, e4m3, local);
        break;
      default:
        scale = fp8Scale(amax, spec, local);
        break;
    }
    ++local.blocks;
    if (scale.nan) {
      ++local.nanBlocks;
      std::fill(scaled.begin(), scaled.end(), static_cast<float>(kNaN));
    } else if (scale.zero) {
      for (std::size_t j = 0; j < count; ++j) scaled[j] = std::signbit(values[j]) ? -0.0f : 0.0f;
    } else {
      const double decode = scale.decodeScale();
      local.minScale = std::min(local.minScale, decode);
      local.maxScale = std::max(local.maxScale, decode);
      for (std::size_t j = 0; j < count; ++j) {
        // An infinity (fp8 recipes; MX and NVFP4 made its block NaN) saturates in every element
        // format, E5M2 included, as a saturating conversion does.
        const double x = std::isinf(values[j]) ? std::copysign(kFloatMax, values[j]) : values[j];
        scaled[j] = roundToOdd(scale.divide ? x / scale.factor : x * scale.factor);
      }
      for (std::int64_t l = g.line0; l < g.line1; ++l) {
        const auto start = static_cast<std::size_t>((l - g.line0) * width);
        elementRounder.apply(
            std::span<float>(scaled).subspan(start, static_cast<std::size_t>(width)), seed,
            offset + static_cast<std::uint64_t>(l * view.lineLength + g.pos0));
      }
      for (std::size_t j = 0; j < count; ++j) {
        const double q = scaled[j];
        scaled[j] = static_cast<float>(scale.divide ? q * scale.factor : q / scale.factor);
      }
    }
    for (std::size_t j = 0; j < count; ++j) {
      const double x = values[j];
      const double y = scaled[j];
      if (std::isfinite(x) && std::isfinite(y)) {
        local.signalEnergy += x * x;
        local.errorEnergy += (x - y) * (x - y);
      }
    }
    i = 0;
    for (std::int64_t l = g.line0; l < g.line1; ++l)
      for (std::int64_t p = g.pos0; p < g.pos1; ++p)
        dst[static_cast<std::size_t>(view.address(l, p))] = scaled[i++];
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
  }
}

std::array<float, 16> hadamardSigns(std::uint64_t seed) {
  const StochasticKey key = stochasticKey(seed);
  std::array<float, 16> signs{};
  for (std::size_t i = 0; i < signs.size(); ++i)
    signs[i] = (stochasticBits(key, i) & 1U) != 0 ? -1.0f : 1.0f;
  return signs;
}

void randomHadamardTransform(std::span<float> values, std::int64_t rows, std::int64_t cols,
                             std::int64_t ld, BlockAxis axis, std::uint64_t seed) {
  checkShape(values.size(), values.size(), rows, cols, ld);
  constexpr int kSize = 16;
  const std::array<float, kSize> signs = hadamardSigns(seed);
  // M[i][j] = d_i H[i][j] / 4: x' = x M.
  double m[kSize][kSize];
  for (int i = 0; i < kSize; ++i)
    for (int j = 0; j < kSize; ++j)
      m[i][j] = signs[static_cast<std::size_t>(i)] *
                ((std::popcount(unsigned(i & j)) & 1) != 0 ? -0.25 : 0.25);
  const AxisView view =
      axis == BlockAxis::Row ? AxisView{rows, cols, ld, axis} : AxisView{cols, rows, ld, axis};
  double x[kSize];
  for (std::int64_t l = 0; l < view.nLines; ++l) {
    for (std::int64_t p = 0; p + kSize <= view.lineLength; p += kSize) {
      for (int i = 0; i < kSize; ++i)
        x[i] = values[static_cast<std::size_t>(view.address(l, p + i))];
      for (int j = 0; j < kSize; ++j) {
        double sum = 0.0;
        for (int i = 0; i < kSize; ++i) sum += x[i] * m[i][j];
        values[static_cast<std::size_t>(view.address(l, p + j))] = static_cast<float>(sum);
      }
    }
  }
}

}  // namespace paritylab::numerics
