#include "core/numerics/block_amax.h"

#include <algorithm>
#include <bit>
#include <limits>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace paritylab::numerics {
namespace {

constexpr std::int32_t kInfinityPattern = 0x7f800000;

// |x|'s pattern as a non-negative int32: the maxima below are signed (GCC vectorises the signed
// reduction, and every magnitude pattern is below 2^31).
inline std::int32_t magnitudePattern(float x) {
  return std::bit_cast<std::int32_t>(x) & 0x7fffffff;
}

// The plain loop: groups of `width` values, the last one cut short at n. Returns the largest
// pattern of all.
std::int32_t groupAmaxLoop(const float* x, std::size_t n, std::size_t width,
                           std::uint32_t* amaxBits) {
  std::int32_t largest = 0;
  for (std::size_t p0 = 0, g = 0; p0 < n; p0 += width, ++g) {
    const std::size_t count = std::min(width, n - p0);
    std::int32_t m = 0;
    for (std::size_t i = 0; i < count; ++i) m = std::max(m, magnitudePattern(x[p0 + i]));
    amaxBits[g] = static_cast<std::uint32_t>(m);
    largest = std::max(largest, m);
  }
  return largest;
}

#if defined(__AVX512F__)
// Lane b of the result: the largest lane of v[b] (signed), for 16 vectors at once, by halving the
// vectors' width four times while pairing them up: about three instructions a vector instead of a
// horizontal maximum each. v is overwritten.
inline __m512i laneMaxima(__m512i v[16]) {
  // 16 -> 8: 128-bit lanes 0-1 hold group i's partial maxima, lanes 2-3 group i + 8's.
  for (int i = 0; i < 8; ++i)
    v[i] = _mm512_max_epi32(_mm512_shuffle_i32x4(v[i], v[i + 8], _MM_SHUFFLE(1, 0, 1, 0)),
                            _mm512_shuffle_i32x4(v[i], v[i + 8], _MM_SHUFFLE(3, 2, 3, 2)));
  // 8 -> 4: lanes hold groups i, i + 8, i + 4, i + 12.
  for (int i = 0; i < 4; ++i)
    v[i] = _mm512_max_epi32(_mm512_shuffle_i32x4(v[i], v[i + 4], _MM_SHUFFLE(2, 0, 2, 0)),
                            _mm512_shuffle_i32x4(v[i], v[i + 4], _MM_SHUFFLE(3, 1, 3, 1)));
  // 4 -> 2: each lane's two 64-bit halves hold two groups, i and i + 2 apart.
  for (int i = 0; i < 2; ++i)
    v[i] = _mm512_max_epi32(_mm512_unpacklo_epi64(v[i], v[i + 2]),
                            _mm512_unpackhi_epi64(v[i], v[i + 2]));
  // 2 -> 1: one value a group, in the order 0 2 1 3, 8 10 9 11, 4 6 5 7, 12 14 13 15.
  const __m512 a = _mm512_castsi512_ps(v[0]);
  const __m512 b = _mm512_castsi512_ps(v[1]);
  const __m512i z =
      _mm512_max_epi32(_mm512_castps_si512(_mm512_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0))),
                       _mm512_castps_si512(_mm512_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))));
  // That order is its own inverse: the same indices put group b in lane b.
  const __m512i order = _mm512_setr_epi32(0, 2, 1, 3, 8, 10, 9, 11, 4, 6, 5, 7, 12, 14, 13, 15);
  return _mm512_permutexvar_epi32(order, z);
}

// Groups of 16 or 32 values, 16 groups at a time; returns the largest pattern of those groups and
// sets *done to the values covered.
template <std::size_t Width>
std::int32_t groupAmax16(const float* x, std::size_t n, std::uint32_t* amaxBits,
                         std::size_t* done) {
  static_assert(Width == 16 || Width == 32);
  const __m512i mask = _mm512_set1_epi32(0x7fffffff);
  __m512i largest = _mm512_setzero_si512();
  std::size_t p0 = 0;
  for (; p0 + 16 * Width <= n; p0 += 16 * Width) {
    __m512i v[16];
    for (std::size_t b = 0; b < 16; ++b) {
      const float* p = x + p0 + b * Width;
      __m512i m = _mm512_and_si512(_mm512_loadu_si512(p), mask);
      if constexpr (Width == 32)
        m = _mm512_max_epi32(m, _mm512_and_si512(_mm512_loadu_si512(p + 16), mask));
      v[b] = m;
    }
    const __m512i maxima = laneMaxima(v);
    largest = _mm512_max_epi32(largest, maxima);
    _mm512_storeu_si512(amaxBits + p0 / Width, maxima);
  }
  *done = p0;
  // (not _mm512_reduce_max_epi32: GCC 12 warns inside it, a false positive of bug 105593)
  alignas(64) std::int32_t lanes[16];
  _mm512_store_si512(lanes, largest);
  return *std::max_element(lanes, lanes + 16);
}
#endif

}  // namespace

bool finiteBlockAmax(const float* x, std::size_t n, std::size_t width, std::uint32_t* amaxBits) {
  std::size_t done = 0;
  std::int32_t largest = 0;
#if defined(__AVX512F__)
  if (width == 32) largest = groupAmax16<32>(x, n, amaxBits, &done);
  if (width == 16) largest = groupAmax16<16>(x, n, amaxBits, &done);
#endif
  largest = std::max(largest, groupAmaxLoop(x + done, n - done, width, amaxBits + done / width));
  return largest < kInfinityPattern;
}

bool finiteColumnAmax(const float* x, std::size_t rows, std::size_t cols, std::size_t ld,
                      std::uint32_t* amaxBits) {
  std::int32_t* __restrict amax = reinterpret_cast<std::int32_t*>(amaxBits);
  std::fill_n(amax, cols, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* __restrict row = x + r * ld;
    for (std::size_t c = 0; c < cols; ++c) amax[c] = std::max(amax[c], magnitudePattern(row[c]));
  }
  std::int32_t largest = 0;
  for (std::size_t c = 0; c < cols; ++c) largest = std::max(largest, amax[c]);
  return largest < kInfinityPattern;
}

bool mxScaleShifts(const std::uint32_t* amaxBits, std::size_t groups, int emaxElem, int first,
                   int last, int* shifts) {
  constexpr int kE8M0MinExponent = -127;
  const int zeroShift = std::clamp(0, first, last);
  int lowest = std::numeric_limits<int>::max(), highest = std::numeric_limits<int>::min();
  for (std::size_t g = 0; g < groups; ++g) {
    const std::uint32_t a = amaxBits[g];
    // floor(log2 amax) of a normal amax; a subnormal one gives -127, below E8M0's range either way
    const int exponent = std::max(static_cast<int>(a >> 23) - 127 - emaxElem, kE8M0MinExponent);
    const int shift = a == 0 ? zeroShift : exponent;
    shifts[g] = shift;
    lowest = std::min(lowest, shift);
    highest = std::max(highest, shift);
  }
  return groups == 0 || (lowest >= first && highest <= last);
}

}  // namespace paritylab::numerics
