// fp32 -> narrower format rounding on the raw bits, one branch-free expression per element so
// that GCC vectorises the loops (AVX2: variable shifts, 32-bit multiplies, blends).
//
// A finite fp32 magnitude is m * 2^(ee - 150) with m = the 24-bit significand (implicit bit
// included; fp32 subnormals: ee = 1 and no implicit bit). The format's quantum at that value is
// 2^(ee - 150 + s) with s = (23 - M) + max(0, emin32 - ee), where emin32 is the fp32 biased
// exponent of the format's min normal; the second term is the format's subnormal range, where
// the quantum stays fixed. Rounding m to a multiple of 2^s and adding back ((ee - 1) << 23)
// rebuilds the fp32 pattern, carries into the next binade included.
//
// Formats without infinities (OCP E4M3, the MX FP6/FP4 elements, fnuz) differ only in constants:
// what an overflow and an infinite input become. fnuz's missing negative zero is the one extra
// step (a zero result drops its sign), compiled into its own loop so no other format pays for it.

#include "core/numerics/rounding.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/numerics/stochastic_bits.h"

namespace paritylab::numerics {
namespace {

constexpr std::uint32_t kSignMask = 0x80000000U;
constexpr std::uint32_t kInfBits = 0x7f800000U;
constexpr std::uint32_t kQuietNaNBits = 0x7fc00000U;

// Indices into Rounder::params_.
enum Param {
  kBaseShift,       // 23 - mantissaBits
  kMinExponent32,   // fp32 biased exponent of the format's min normal
  kMaxFiniteBits,   // fp32 pattern of the format's max finite
  kMinNormalBits,   // fp32 pattern of the format's min normal (flush threshold)
  kMinSubBits,      // fp32 pattern of the format's min subnormal
  kOverflowBits,    // magnitude pattern of an overflowed result (inf, NaN or max finite)
  kInfinityBits,    // magnitude pattern of an infinite input after rounding
  kFlush,           // 1: flush results below min normal to zero
  kNoNegativeZero,  // 1: a zero result is +0 (fnuz)
};

std::uint32_t fp32Bits(double exactValue) {
  return std::bit_cast<std::uint32_t>(static_cast<float>(exactValue));
}

struct KernelConstants {
  std::uint32_t baseShift, minExponent32, maxFiniteBits, minNormalBits, minSubBits, overflowBits,
      infinityBits, flush, noNegativeZero;
};

// Formats with fp32's exponent range (bf16, tf32, e8mY): the quantum is 2^(23 - M) fp32 ulps
// everywhere, fp32 subnormals included, so rounding is one add-and-mask on the pattern.
// Plain: IEEE overflow (or truncation) and infinities, no flush. Then the add-and-mask already
// gives the right answer for everything but NaN: a carry out of max finite lands exactly on the
// infinity pattern, truncation never passes max finite, and an infinity (zero mantissa) stays put.
template <RoundingMode Mode, bool Flush, bool Plain>
inline std::uint32_t roundBitsWide(std::uint32_t x, const KernelConstants& k,
                                   std::uint32_t random) {
  const std::uint32_t sign = x & kSignMask;
  const std::uint32_t a = x ^ sign;
  const std::uint32_t low = (1U << k.baseShift) - 1U;
  std::uint32_t increment = 0;
  if constexpr (Mode == RoundingMode::NearestEven) {
    increment = (low >> 1) + ((a >> k.baseShift) & low & 1U);
  } else if constexpr (Mode == RoundingMode::NearestAway) {
    increment = (low >> 1) + (low & 1U);
  } else if constexpr (Mode == RoundingMode::Stochastic) {
    increment = random & low;
  }
  std::uint32_t out = (a + increment) & ~low;
  if constexpr (Plain) return (a > kInfBits ? kQuietNaNBits : out) | sign;
  if constexpr (Flush) out = out < k.minNormalBits ? 0U : out;
  out = out > k.maxFiniteBits ? k.overflowBits : out;
  out = a >= kInfBits ? (a > kInfBits ? kQuietNaNBits : k.infinityBits) : out;
  return out | sign;
}

// NoNegativeZero (fnuz): a result of magnitude 0 is +0 whatever the input's sign. Flush: results
// below the smallest normal become zero (a compile-time choice: tested per element, the mask
// combines with the other conditions through general registers, a fifth of the loop's time).
template <RoundingMode Mode, bool NoNegativeZero, bool Flush>
inline std::uint32_t roundBits(std::uint32_t x, const KernelConstants& k, std::uint32_t random) {
  const std::uint32_t sign = x & kSignMask;
  const std::uint32_t a = x ^ sign;
  const std::uint32_t e32 = a >> 23;
  const std::uint32_t ee = e32 | (e32 == 0 ? 1U : 0U);
  std::uint32_t m = (a & 0x7fffffU) | (e32 != 0 ? 0x800000U : 0U);

  const std::int32_t below = static_cast<std::int32_t>(k.minExponent32 - ee);
  const std::uint32_t s = k.baseShift + static_cast<std::uint32_t>(below > 0 ? below : 0);
  // Shifts above 31 only happen far below the min subnormal (m < 2^24 < half a quantum): keep the
  // top bits so stochastic rounding still sees the value's first bits at 2^-31 resolution.
  const std::uint32_t shift = s < 31 ? s : 31U;
  const std::uint32_t excess = s - shift;
  m >>= (excess < 31 ? excess : 31U);
  const std::uint32_t low = (1U << shift) - 1U;

  std::uint32_t increment = 0;
  if constexpr (Mode == RoundingMode::NearestEven) {
    // Ties go to the even encoding: in the format's normal range its LSB is bit `shift` of the
    // fp32 pattern (the exponent's LSB when M = 0), in the subnormal range that of m >> shift.
    const std::uint32_t encoding = below > 0 ? m : a;
    increment = (low >> 1) + ((encoding >> shift) & low & 1U);
  } else if constexpr (Mode == RoundingMode::NearestAway) {
    increment = (low >> 1) + (low & 1U);
  } else if constexpr (Mode == RoundingMode::Stochastic) {
    increment = random & low;
  }
  const std::uint32_t r = (m + increment) & ~low;

  std::uint32_t out = ((ee - 1U) << 23) + r;
  out = r == 0 ? 0U : out;
  out = (s > 24 && r != 0) ? k.minSubBits : out;  // rounded up to the first quantum
  if constexpr (Flush) out = out < k.minNormalBits ? 0U : out;
  out = out > k.maxFiniteBits ? k.overflowBits : out;
  out = e32 == 0xffU ? (a > kInfBits ? kQuietNaNBits : k.infinityBits) : out;
  // A mask, not a select: GCC 12 does not if-convert the select here, and the loop stays scalar.
  if constexpr (NoNegativeZero) return out | (sign & (0U - static_cast<std::uint32_t>(out != 0)));
  return out | sign;
}

// Wide: 0 = general shifts; fp32 exponent range: 1 = general, 2 = with flush, 3 = plain (see
// roundBitsWide); 4 = general shifts without negative zero (fnuz); 5 and 6 = 0 and 4 flushing
// subnormal results. Compile-time choices: a per-element test of a flag costs a quarter of the
// time.
template <RoundingMode Mode, int Wide>
inline std::uint32_t roundAny(std::uint32_t x, const KernelConstants& k, std::uint32_t random) {
  if constexpr (Wide == 1) return roundBitsWide<Mode, false, false>(x, k, random);
  if constexpr (Wide == 2) return roundBitsWide<Mode, true, false>(x, k, random);
  if constexpr (Wide == 3) return roundBitsWide<Mode, false, true>(x, k, random);
  if constexpr (Wide == 4) return roundBits<Mode, true, false>(x, k, random);
  if constexpr (Wide == 5) return roundBits<Mode, false, true>(x, k, random);
  if constexpr (Wide == 6) return roundBits<Mode, true, true>(x, k, random);
  return roundBits<Mode, false, false>(x, k, random);
}

// The loops take the constants by value, a copy of their own whose fields stay in registers:
// through a reference, the one read under a condition (minSubBits in roundBits) became a masked
// load from memory, which GCC 12 does not vectorise, and the loops ran one element at a time
// (six times slower for fp8 and fp16, ten for saturating bf16).
template <RoundingMode Mode, int Wide>
inline void roundLoop(const float* __restrict src, float* __restrict dst, std::size_t n,
                      const KernelConstants k, StochasticKey key, std::uint64_t offset) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t random = 0;
    if constexpr (Mode == RoundingMode::Stochastic) random = stochasticBits(key, offset + i);
    dst[i] =
        std::bit_cast<float>(roundAny<Mode, Wide>(std::bit_cast<std::uint32_t>(src[i]), k, random));
  }
}

template <RoundingMode Mode, int Wide>
inline void roundLoopInPlace(float* values, std::size_t n, const KernelConstants k,
                             StochasticKey key, std::uint64_t offset) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t random = 0;
    if constexpr (Mode == RoundingMode::Stochastic) random = stochasticBits(key, offset + i);
    values[i] = std::bit_cast<float>(
        roundAny<Mode, Wide>(std::bit_cast<std::uint32_t>(values[i]), k, random));
  }
}

// Separate loops for in-place and disjoint buffers: with one pointer (or __restrict) GCC
// vectorises without a runtime overlap check, which would send src == dst to the scalar loop.
template <RoundingMode Mode, int Wide>
void roundSpanOf(const float* src, float* dst, std::size_t n, const KernelConstants& k,
                 std::uint64_t seed, std::uint64_t offset) {
  const StochasticKey key = stochasticKey(seed);
  if (src == dst) {
    roundLoopInPlace<Mode, Wide>(dst, n, k, key, offset);
  } else if (dst + n <= src || src + n <= dst) {
    roundLoop<Mode, Wide>(src, dst, n, k, key, offset);
  } else {  // partial overlap: element by element, in order
    for (std::size_t i = 0; i < n; ++i)
      roundLoop<Mode, Wide>(src + i, dst + i, 1, k, key, offset + i);
  }
}

// Calls kernel.template operator()<Wide>() with the kernel variant (see roundAny) for k.
template <RoundingMode Mode, typename Kernel>
void withWide(const KernelConstants& k, Kernel&& kernel) {
  const bool plainOverflow = k.infinityBits == kInfBits &&
                             (k.overflowBits == kInfBits || Mode == RoundingMode::TowardZero);
  if (k.noNegativeZero != 0 && k.flush != 0)  // fnuz (whatever its exponent range: general)
    kernel.template operator()<6>();
  else if (k.noNegativeZero != 0)
    kernel.template operator()<4>();
  else if (k.minExponent32 == 1 && k.flush == 0 && plainOverflow)  // bf16, tf32 as usually used
    kernel.template operator()<3>();
  else if (k.minExponent32 == 1 && k.flush == 0)  // fp32 exponent range: no subnormal shifts
    kernel.template operator()<1>();
  else if (k.minExponent32 == 1)
    kernel.template operator()<2>();
  else if (k.flush != 0)
    kernel.template operator()<5>();
  else
    kernel.template operator()<0>();
}

template <RoundingMode Mode>
void roundSpan(const float* src, float* dst, std::size_t n, const KernelConstants& k,
               std::uint64_t seed, std::uint64_t offset) {
  withWide<Mode>(k, [&]<int Wide>() { roundSpanOf<Mode, Wide>(src, dst, n, k, seed, offset); });
}

// Stochastic rounding in place with values[i] drawing as index offset + i x drawStride.
template <int Wide>
void roundStridedDraws(float* values, std::size_t n, const KernelConstants k, StochasticKey key,
                       std::uint64_t offset, std::uint64_t drawStride) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t random = stochasticBits(key, offset + i * drawStride);
    values[i] = std::bit_cast<float>(roundAny<RoundingMode::Stochastic, Wide>(
        std::bit_cast<std::uint32_t>(values[i]), k, random));
  }
}

}  // namespace

Rounder::Rounder(const RoundingSpec& spec) : spec_(spec) {
  const FloatFormat& f = spec.format;
  identity_ = f.isFp32() && spec.subnormals == SubnormalMode::Keep;
  // Formats with a NaN but no infinity: OCP E4M3 and fnuz. Formats with neither (the MX FP6/FP4
  // elements) can only saturate: an overflow and an infinity become max finite in every mode; a
  // NaN input stays NaN in the fp32 result (the format has no code for it).
  const bool nanNoInf =
      f.special == SpecialEncoding::FiniteOnlyE4M3 || f.special == SpecialEncoding::Fnuz;
  const bool finiteOnly = f.special == SpecialEncoding::FiniteOnly;
  const std::uint32_t maxFiniteBits = fp32Bits(f.maxFinite());
  params_[kBaseShift] = static_cast<std::uint32_t>(23 - f.mantissaBits);
  params_[kMinExponent32] = static_cast<std::uint32_t>(128 - f.bias);
  params_[kMaxFiniteBits] = maxFiniteBits;
  params_[kMinNormalBits] = fp32Bits(f.minNormal());
  params_[kMinSubBits] = fp32Bits(f.minSubnormal());
  // A finite value past max finite: toward-zero never rounds a finite value away from zero, so it
  // gives max finite in every format and overflow mode (the largest magnitude not above |x|);
  // the other modes give max finite when saturating, else infinity (NaN in E4M3 and fnuz, which
  // have none; max finite in the MX FP6/FP4 elements, which have neither).
  if (spec.overflow == OverflowMode::Saturate || spec.mode == RoundingMode::TowardZero ||
      finiteOnly) {
    params_[kOverflowBits] = maxFiniteBits;
  } else {
    params_[kOverflowBits] = nanNoInf ? kQuietNaNBits : kInfBits;
  }
  if (finiteOnly) {
    params_[kInfinityBits] = maxFiniteBits;
  } else if (nanNoInf) {
    params_[kInfinityBits] =
        spec.overflow == OverflowMode::Saturate ? maxFiniteBits : kQuietNaNBits;
  } else {
    params_[kInfinityBits] = kInfBits;
  }
  params_[kFlush] = spec.subnormals == SubnormalMode::Flush ? 1U : 0U;
  params_[kNoNegativeZero] = f.special == SpecialEncoding::Fnuz ? 1U : 0U;
}

void Rounder::applyCopy(std::span<const float> src, std::span<float> dst, std::uint64_t seed,
                        std::uint64_t offset) const {
  const std::size_t n = src.size() < dst.size() ? src.size() : dst.size();
  if (identity_) {
    if (src.data() != dst.data()) std::memmove(dst.data(), src.data(), n * sizeof(float));
    return;
  }
  const KernelConstants k{params_[0], params_[1], params_[2], params_[3], params_[4],
                          params_[5], params_[6], params_[7], params_[8]};
  switch (spec_.mode) {
    case RoundingMode::NearestEven:
      return roundSpan<RoundingMode::NearestEven>(src.data(), dst.data(), n, k, seed, offset);
    case RoundingMode::NearestAway:
      return roundSpan<RoundingMode::NearestAway>(src.data(), dst.data(), n, k, seed, offset);
    case RoundingMode::TowardZero:
      return roundSpan<RoundingMode::TowardZero>(src.data(), dst.data(), n, k, seed, offset);
    case RoundingMode::Stochastic:
      return roundSpan<RoundingMode::Stochastic>(src.data(), dst.data(), n, k, seed, offset);
  }
}

namespace {

// Nearest-even on a grid scaled by a power of two, saturating, in the format's normal range and
// below it. Above the grid's smallest normal the quantum is relative: the pattern's add-and-mask
// at the format's mantissa width (as roundBitsWide), with carries into the exponent. Below it the
// quantum is the fixed q = the grid's smallest subnormal, and (v + 2^23 q) - 2^23 q is v rounded
// to a multiple of q by fp32's own nearest-even addition: every sum lies in [2^23 q, 2^24 q),
// whose ulp is q, and the difference is exact. magic = 2^23 q.
inline std::uint32_t roundOnScaledGrid(std::uint32_t x, std::uint32_t baseShift,
                                       std::uint32_t minNormalBits, std::uint32_t maxFiniteBits,
                                       float magic) {
  const std::uint32_t low = (1U << baseShift) - 1U;
  const std::uint32_t sign = x & kSignMask;
  const std::uint32_t a = x ^ sign;
  const std::uint32_t normal = (a + (low >> 1) + ((a >> baseShift) & 1U)) & ~low;
  const float v = std::bit_cast<float>(a);
  const std::uint32_t below = std::bit_cast<std::uint32_t>((v + magic) - magic);
  std::uint32_t out = a < minNormalBits ? below : normal;
  out = out > maxFiniteBits ? maxFiniteBits : out;
  return out | sign;
}

// One block: one grid.
struct ScaledGrid {
  std::uint32_t baseShift, minNormalBits, maxFiniteBits;
  float magic;
};

template <typename Count>
void roundScaledBlock(const float* src, float* dst, Count n, const ScaledGrid& g) {
  for (std::size_t i = 0; i < n; ++i) {
    dst[i] =
        std::bit_cast<float>(roundOnScaledGrid(std::bit_cast<std::uint32_t>(src[i]), g.baseShift,
                                               g.minNormalBits, g.maxFiniteBits, g.magic));
  }
}

// A block row whose columns have their own grids (blocks down the columns), a run of
// kColumnRun columns at a time: the run's constants in local arrays of a compile-time length, so
// that the compiler keeps them in registers while it goes down the rows.
constexpr std::size_t kColumnRun = 16;

struct ScaledColumnRun {
  std::uint32_t minNormalBits[kColumnRun], maxFiniteBits[kColumnRun];
  float magic[kColumnRun];
};

// Rows of `Width` (kColumnRun, or fewer at the end of a row) values, each column on its grid;
// separate loops in place and into another row (see roundSpanOf).
template <typename Width>
void roundScaledRun(const float* __restrict src, std::size_t ldSrc, float* __restrict dst,
                    std::size_t ldDst, std::size_t rows, Width width, std::uint32_t baseShift,
                    const ScaledColumnRun& g) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* __restrict in = src + r * ldSrc;
    float* __restrict out = dst + r * ldDst;
    for (std::size_t c = 0; c < width; ++c) {
      out[c] = std::bit_cast<float>(roundOnScaledGrid(std::bit_cast<std::uint32_t>(in[c]),
                                                      baseShift, g.minNormalBits[c],
                                                      g.maxFiniteBits[c], g.magic[c]));
    }
  }
}

template <typename Width>
void roundScaledRunInPlace(float* values, std::size_t ld, std::size_t rows, Width width,
                           std::uint32_t baseShift, const ScaledColumnRun& g) {
  for (std::size_t r = 0; r < rows; ++r) {
    float* __restrict row = values + r * ld;
    for (std::size_t c = 0; c < width; ++c) {
      row[c] = std::bit_cast<float>(roundOnScaledGrid(std::bit_cast<std::uint32_t>(row[c]),
                                                      baseShift, g.minNormalBits[c],
                                                      g.maxFiniteBits[c], g.magic[c]));
    }
  }
}

// The fp32 biased exponent of a pattern's magnitude.
int biasedExponent(std::uint32_t bits) {
  return static_cast<int>((bits >> 23) & 0xffU);
}

// A normal magnitude pattern times 2^shift (the product normal too).
std::uint32_t scaledPattern(std::uint32_t bits, int shift) {
  return bits + (static_cast<std::uint32_t>(shift) << 23);
}

// Nearest-even, saturating, no flush, negative zeros kept (the MX elements' rounding), at least
// one mantissa bit (without one, a tie goes to the even exponent field, whose parity the shift
// changes), and the grid moved by 2^shift inside fp32's normal range, 2^23 q included.
Rounder::ShiftRange scaledGridShifts(const KernelConstants& k, RoundingMode mode) {
  if (mode != RoundingMode::NearestEven || k.baseShift >= 23 || k.flush != 0 ||
      k.noNegativeZero != 0 || k.overflowBits != k.maxFiniteBits ||
      biasedExponent(k.minSubBits) == 0 || biasedExponent(k.maxFiniteBits) == 0xff)
    return {1, 0};
  const int highest = std::max(biasedExponent(k.maxFiniteBits), biasedExponent(k.minSubBits) + 23);
  return {1 - biasedExponent(k.minSubBits), 254 - highest};
}

}  // namespace

Rounder::ShiftRange Rounder::scaledGridShifts() const {
  if (identity_) return {1, 0};
  const KernelConstants k{params_[0], params_[1], params_[2], params_[3], params_[4],
                          params_[5], params_[6], params_[7], params_[8]};
  return numerics::scaledGridShifts(k, spec_.mode);
}

void Rounder::applyScaledBlocks(std::span<const float> src, std::span<float> dst,
                                std::size_t blockSize, std::span<const int> shifts) const {
  const std::size_t n = src.size() < dst.size() ? src.size() : dst.size();
  if (identity_ || blockSize == 0 || shifts.size() < (n + blockSize - 1) / blockSize) return;
  const KernelConstants k{params_[0], params_[1], params_[2], params_[3], params_[4],
                          params_[5], params_[6], params_[7], params_[8]};
  const ShiftRange range = numerics::scaledGridShifts(k, spec_.mode);
  for (std::size_t b = 0, p0 = 0; p0 < n; ++b, p0 += blockSize) {
    const int shift = shifts[b];
    if (!range.contains(shift)) continue;
    const ScaledGrid grid{k.baseShift, scaledPattern(k.minNormalBits, shift),
                          scaledPattern(k.maxFiniteBits, shift),
                          std::bit_cast<float>(scaledPattern(k.minSubBits, shift + 23))};
    const std::size_t count = std::min(blockSize, n - p0);
    if (count == 32) {
      roundScaledBlock(src.data() + p0, dst.data() + p0, std::integral_constant<std::size_t, 32>{},
                       grid);
    } else {
      roundScaledBlock(src.data() + p0, dst.data() + p0, count, grid);
    }
  }
}

bool Rounder::applyScaledColumns(const float* src, std::size_t ldSrc, float* dst, std::size_t ldDst,
                                 std::size_t rows, std::span<const int> shifts) const {
  const ShiftRange range = scaledGridShifts();
  for (const int shift : shifts)
    if (!range.contains(shift)) return false;
  const KernelConstants k{params_[0], params_[1], params_[2], params_[3], params_[4],
                          params_[5], params_[6], params_[7], params_[8]};
  const bool inPlace = src == dst && ldSrc == ldDst;
  constexpr std::integral_constant<std::size_t, kColumnRun> kWholeRun;
  ScaledColumnRun run;
  for (std::size_t c0 = 0; c0 < shifts.size(); c0 += kColumnRun) {
    const std::size_t width = std::min(kColumnRun, shifts.size() - c0);
    for (std::size_t c = 0; c < width; ++c) {
      const int shift = shifts[c0 + c];
      run.minNormalBits[c] = scaledPattern(k.minNormalBits, shift);
      run.maxFiniteBits[c] = scaledPattern(k.maxFiniteBits, shift);
      run.magic[c] = std::bit_cast<float>(scaledPattern(k.minSubBits, shift + 23));
    }
    if (inPlace && width == kColumnRun)
      roundScaledRunInPlace(dst + c0, ldDst, rows, kWholeRun, k.baseShift, run);
    else if (inPlace)
      roundScaledRunInPlace(dst + c0, ldDst, rows, width, k.baseShift, run);
    else if (width == kColumnRun)
      roundScaledRun(src + c0, ldSrc, dst + c0, ldDst, rows, kWholeRun, k.baseShift, run);
    else
      roundScaledRun(src + c0, ldSrc, dst + c0, ldDst, rows, width, k.baseShift, run);
  }
  return true;
}

void Rounder::apply(std::span<float> values, std::uint64_t seed, std::uint64_t offset) const {
  applyCopy(values, values, seed, offset);
}

void Rounder::applyStridedDraws(std::span<float> values, std::uint64_t seed, std::uint64_t offset,
                                std::uint64_t drawStride) const {
  if (spec_.mode != RoundingMode::Stochastic || identity_) return apply(values, seed, offset);
  const KernelConstants k{params_[0], params_[1], params_[2], params_[3], params_[4],
                          params_[5], params_[6], params_[7], params_[8]};
  const StochasticKey key = stochasticKey(seed);
  withWide<RoundingMode::Stochastic>(k, [&]<int Wide>() {
    roundStridedDraws<Wide>(values.data(), values.size(), k, key, offset, drawStride);
  });
}

float Rounder::round(float value, std::uint64_t seed, std::uint64_t index) const {
  float out = value;
  applyCopy({&value, 1}, {&out, 1}, seed, index);
  return out;
}

bool sameRounding(const RoundingSpec& a, const RoundingSpec& b) {
  return a.format.exponentBits == b.format.exponentBits &&
         a.format.mantissaBits == b.format.mantissaBits && a.format.bias == b.format.bias &&
         a.format.special == b.format.special && a.format.hasSubnormals == b.format.hasSubnormals &&
         a.mode == b.mode && a.overflow == b.overflow && a.subnormals == b.subnormals;
}

}  // namespace paritylab::numerics
