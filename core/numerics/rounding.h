#pragma once
// Rounding fp32 values to a narrower format, in place. The hot path of every emulated matmul.
// CONTRACT (owned by core/numerics; other floors rely on these names).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/numerics/float_format.h"

namespace paritylab::numerics {

enum class RoundingMode {
  NearestEven,  // "nearest-even": IEEE default; XLA f32->bf16, Hopper cvt.rn.tf32
  NearestAway,  // "nearest-away": ties away from zero; TF32 conversion on Ampere/Ada
  TowardZero,   // "toward-zero": truncation
  Stochastic,   // "stochastic": round up with probability proportional to the distance
};
// "inf" | "saturate". Past max finite, "inf" gives infinity, or NaN in formats without one (OCP
// E4M3, fnuz); the MX FP6/FP4 elements have neither, so they saturate (and an infinite input gives
// max finite) in either mode, while a NaN input stays NaN in the fp32 result. fnuz has no negative
// zero: every zero result is +0.
enum class OverflowMode { Ieee, Saturate };
enum class SubnormalMode { Keep, Flush };  // "keep" | "flush"

std::string_view toString(RoundingMode mode);
std::optional<RoundingMode> parseRoundingMode(std::string_view name);
std::string_view toString(OverflowMode mode);
std::optional<OverflowMode> parseOverflowMode(std::string_view name);
std::string_view toString(SubnormalMode mode);
std::optional<SubnormalMode> parseSubnormalMode(std::string_view name);

struct RoundingSpec {
  FloatFormat format;
  RoundingMode mode = RoundingMode::NearestEven;
  OverflowMode overflow = OverflowMode::Ieee;
  SubnormalMode subnormals = SubnormalMode::Keep;
};

// True when a and b round every fp32 value identically (same format fields and modes; the
// format's display name does not matter).
bool sameRounding(const RoundingSpec& a, const RoundingSpec& b);

// Precomputes the constants of a RoundingSpec once; apply() is then allocation-free, vectorised
// and branch-free in the common case. Thread-safe (const).
class Rounder {
 public:
  explicit Rounder(const RoundingSpec& spec);

  const RoundingSpec& spec() const { return spec_; }
  // True when rounding cannot change any fp32 value (fp32 format, keep subnormals, IEEE overflow).
  bool isIdentity() const { return identity_; }

  // Rounds values[i] in place. For stochastic rounding, the random draw for values[i] depends
  // only on (seed, offset + i): reproducible and independent of how work is split over threads.
  void apply(std::span<float> values, std::uint64_t seed = 0, std::uint64_t offset = 0) const;
  // Rounds src into dst (same length; may alias): lets GEMM packing round while copying.
  void applyCopy(std::span<const float> src, std::span<float> dst, std::uint64_t seed = 0,
                 std::uint64_t offset = 0) const;
  float round(float value, std::uint64_t seed = 0, std::uint64_t index = 0) const;
  // apply() with values[i] drawing as index offset + i x drawStride: a row of a matrix whose
  // lines are its columns (blocks down the columns) takes the draws of its elements' places on
  // their lines. The same as apply() for a deterministic rounding.
  void applyStridedDraws(std::span<float> values, std::uint64_t seed, std::uint64_t offset,
                         std::uint64_t drawStride) const;

  // Power-of-two block scaling without the scaling passes. Rounding x to this format's grid
  // scaled by 2^shift, 2^shift x round(x / 2^shift), is the same rounding on the fp32 pattern
  // with the format's exponent constants moved by shift, as long as the moved grid lies in fp32's
  // normal range (its smallest subnormal and its largest finite value normal fp32 numbers), for
  // the MX elements' rounding (nearest-even, saturating, subnormals kept, a mantissa bit at
  // least): scaledGridShifts says for which shifts (none for any other rounding).
  struct ShiftRange {
    int first, last;  // empty when first > last
    bool contains(int shift) const { return shift >= first && shift <= last; }
  };
  ShiftRange scaledGridShifts() const;
  // Block b of src, values [b * blockSize, min(n, (b + 1) * blockSize)), rounded to the grid
  // scaled by 2^shifts[b] into dst (same length; may alias src), for every block whose shift
  // scaledGridShifts contains; the other blocks of dst are not touched. shifts: one per block. The
  // values are finite (block scaling makes a block holding a NaN or an infinity NaN before
  // rounding; here one would saturate).
  void applyScaledBlocks(std::span<const float> src, std::span<float> dst, std::size_t blockSize,
                         std::span<const int> shifts) const;
  // The same with blocks down the columns: the row-major [rows, cols] block row at src (row
  // stride ldSrc) rounded into dst (stride ldDst; may be src), column c on the grid moved by
  // 2^shifts[c]. Every shift must fit: false, and nothing written, when one does not.
  bool applyScaledColumns(const float* src, std::size_t ldSrc, float* dst, std::size_t ldDst,
                          std::size_t rows, std::span<const int> shifts) const;

 private:
  RoundingSpec spec_;
  bool identity_ = false;
  // Implementation constants (masks, thresholds) are private to rounding.cpp's choice.
  std::uint32_t params_[9] = {};
};

}  // namespace paritylab::numerics
