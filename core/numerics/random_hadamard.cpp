// The random Hadamard transform of NVFP4's weight-gradient operands (block_scaling.h states it).
// Every output is the sum over i = 0..15 of x_i M[i][j] taken in that order in double and rounded
// once to fp32. A product x_i M[i][j] is exact in double (M's entries are +-1/4), so the loops
// below may run the sixteen outputs of a run, or the outputs of many lines, side by side as
// vector lanes: each lane adds the same terms in the same order, and a fused multiply-add of an
// exact product rounds as the add alone. The results are the same bits as one output at a time.
// The sums over i are unrolled so that the lanes' running sums stay in vector registers (rolled,
// GCC keeps them in memory and a run costs four times as much).
//
// Most runs take a shorter road to the same bits. When a run's nonzero finite values span at
// most kExactSpan binades, every sum of its terms is exact in double (see exactInDouble), so the
// order of the additions cannot matter: the fast Walsh-Hadamard transform's four butterfly stages
// (64 additions a run instead of 256 multiply-adds) give the exact sums, which the ordered sum
// also reaches. Only runs with a wider span, an infinity or a NaN take the ordered sum.
#include <algorithm>
#include <bit>
#include <string>
#include <tuple>

#include "core/input/number_input.h"
#include "core/numerics/block_scaling.h"
#include "core/numerics/stochastic_bits.h"

namespace paritylab::numerics {
namespace {

constexpr int kRun = 16;
// Columns of a band of 16 rows transformed together on the column axis: a [16, 32] tile of
// doubles (4 KiB) stays in L1 while its sixteen output rows are summed.
constexpr int kTileColumns = 32;
// The widest span of binades (largest biased exponent minus smallest) a run's nonzero finite
// values may have for every sum of its terms to be exact in double. A value of biased exponent
// e (1 for subnormals) is an integer multiple of 2^(e - 150) below 2^(e - 126) in magnitude; a
// term x_i M[i][j] is a quarter of that, so the sum of any of a run's sixteen terms is a
// multiple of 2^(e_min - 152) below 2^(e_max - 124): fewer than 2^(e_max - e_min + 28) units,
// exact in double's 53 bits when e_max - e_min <= 25.
constexpr std::uint32_t kExactSpan = 25;

// M[i][j] = d_i H[i][j] / 4, so that a run x becomes x' = x M.
using HadamardMatrix = std::array<std::array<double, kRun>, kRun>;

struct Hadamard {
  HadamardMatrix m;               // for the ordered sums
  std::array<double, kRun> sign;  // d, for the butterflies
};

Hadamard hadamard(std::uint64_t seed) {
  const std::array<float, kRun> signs = hadamardSigns(seed);
  Hadamard h{};
  for (int i = 0; i < kRun; ++i) {
    h.sign[std::size_t(i)] = signs[std::size_t(i)];
    for (int j = 0; j < kRun; ++j)
      h.m[std::size_t(i)][std::size_t(j)] =
          signs[std::size_t(i)] * ((std::popcount(unsigned(i & j)) & 1) != 0 ? -0.25 : 0.25);
  }
  return h;
}

// What exactInDouble reads of a value: the largest biased exponent of a run's values (255 for an
// infinity or a NaN), and the smallest of its nonzero values (1 for subnormals; a zero adds
// nothing to any sum and counts as 255 here).
inline std::uint32_t highKey(float x) {
  return (std::bit_cast<std::uint32_t>(x) >> 23) & 0xffU;
}
inline std::uint32_t lowKey(float x) {
  const std::uint32_t magnitude = std::bit_cast<std::uint32_t>(x) & 0x7fffffffU;
  return magnitude == 0 ? 255U : std::max(magnitude >> 23, 1U);
}
inline bool exactInDouble(std::uint32_t high, std::uint32_t low) {
  return high < 255 && high <= low + kExactSpan;
}

// The fast Walsh-Hadamard transform of lanes y[0..15][c] (signs applied) in place: afterwards
// y[j][c] = sum_i y_i H[i][j], each sum exact when the run's span allows (see kExactSpan).
template <int Width>
void butterflies(double (&y)[kRun][Width], int width) {
#pragma GCC unroll 4
  for (int h = 1; h < kRun; h *= 2) {
#pragma GCC unroll 16
    for (int i = 0; i < kRun; ++i) {
      if ((i & h) != 0) continue;
      for (int c = 0; c < width; ++c) {
        const double a = y[i][c], b = y[i + h][c];
        y[i][c] = a + b;
        y[i + h][c] = a - b;
      }
    }
  }
}

// An exact sum as the ordered sum leaves it: a quarter of it (exact), and a zero always +0 (the
// ordered sum starts from +0, so it never ends at -0; the butterflies may).
inline float quarterOfExactSum(double sum) {
  return static_cast<float>(sum * 0.25 + 0.0);
}

// Sixteen consecutive values of a row (out may be in); the outputs are the lanes.
void transformRun(const float* in, float* out, const Hadamard& h) {
  std::uint32_t high = 0, low = 255;
  for (int i = 0; i < kRun; ++i) {
    high = std::max(high, highKey(in[i]));
    low = std::min(low, lowKey(in[i]));
  }
  if (exactInDouble(high, low)) {
    double y[kRun][1];
    for (int i = 0; i < kRun; ++i) y[i][0] = in[i] * h.sign[std::size_t(i)];
    butterflies<1>(y, 1);
    for (int j = 0; j < kRun; ++j) out[j] = quarterOfExactSum(y[j][0]);
    return;
  }
  double x[kRun];
  for (int i = 0; i < kRun; ++i) x[i] = in[i];
  double sum[kRun] = {};
#pragma GCC unroll 16
  for (int i = 0; i < kRun; ++i)
    for (int j = 0; j < kRun; ++j) sum[j] += x[i] * h.m[std::size_t(i)][std::size_t(j)];
  for (int j = 0; j < kRun; ++j) out[j] = static_cast<float>(sum[j]);
}

// Columns [0, width) of a band of 16 rows (row strides ldIn and ldOut; out may be in), each
// column a run; the columns are the lanes. Width is kTileColumns except at the end of the rows.
// The butterflies when every column's span allows, else the ordered sums.
template <int Width>
void transformTile(const float* in, std::int64_t ldIn, float* out, std::int64_t ldOut, int width,
                   const Hadamard& h) {
  std::uint32_t high[Width], low[Width];
  std::fill_n(high, Width, 0U);
  std::fill_n(low, Width, 255U);
  double x[kRun][Width];
  for (int i = 0; i < kRun; ++i) {
    const float* row = in + i * ldIn;
    for (int c = 0; c < width; ++c) {
      high[c] = std::max(high[c], highKey(row[c]));
      low[c] = std::min(low[c], lowKey(row[c]));
      x[i][c] = row[c];
    }
  }
  bool exact = true;
  for (int c = 0; c < width; ++c) exact &= exactInDouble(high[c], low[c]);
  if (exact) {
    for (int i = 0; i < kRun; ++i)
      for (int c = 0; c < width; ++c) x[i][c] *= h.sign[std::size_t(i)];
    butterflies<Width>(x, width);
    for (int j = 0; j < kRun; ++j)
      for (int c = 0; c < width; ++c) out[std::size_t(j * ldOut + c)] = quarterOfExactSum(x[j][c]);
    return;
  }
  for (int j = 0; j < kRun; ++j) {
    double sum[Width] = {};
#pragma GCC unroll 16
    for (int i = 0; i < kRun; ++i) {
      const double mij = h.m[std::size_t(i)][std::size_t(j)];
      for (int c = 0; c < width; ++c) sum[c] += x[i][c] * mij;
    }
    for (int c = 0; c < width; ++c) out[std::size_t(j * ldOut + c)] = static_cast<float>(sum[c]);
  }
}

}  // namespace

std::array<float, 16> hadamardSigns(std::uint64_t seed) {
  const StochasticKey key = stochasticKey(seed);
  std::array<float, 16> signs{};
  for (std::size_t i = 0; i < signs.size(); ++i)
    signs[i] = (stochasticBits(key, i) & 1U) != 0 ? -1.0f : 1.0f;
  return signs;
}

FiniteAmax randomHadamardTransform(std::span<const float> src, std::int64_t ldSrc,
                                   std::span<float> dst, std::int64_t ldDst, std::int64_t rows,
                                   std::int64_t cols, BlockAxis axis, std::uint64_t seed) {
  for (const auto& [size, ld, name] :
       {std::tuple{src.size(), ldSrc, "source"}, std::tuple{dst.size(), ldDst, "destination"}}) {
    const std::int64_t needed = rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
    if (rows < 0 || cols < 0 || ld < std::max<std::int64_t>(cols, 1) ||
        std::int64_t(size) < needed) {
      throw input::InputError("Hadamard transform: matrix [" + std::to_string(rows) + ", " +
                              std::to_string(cols) + "] with row stride " + std::to_string(ld) +
                              " does not fit the " + name + "'s " + std::to_string(size) +
                              " values");
    }
  }
  const Hadamard h = hadamard(seed);
  const float* in = src.data();
  float* out = dst.data();
  const bool inPlace = in == out && ldSrc == ldDst;
  // The output's amax, a row or a band of rows at a time once written (read again from cache).
  FiniteAmax amax;
  const auto measure = [&](const float* at, std::int64_t nRows, std::int64_t nCols) {
    amax = combined(amax, finiteAmax(at, nRows, nCols, ldDst));
  };
  // What the transform leaves as it is: a line's tail, the rows past the last band.
  const auto keep = [&](std::int64_t r, std::int64_t c0) {
    if (!inPlace) std::copy(in + r * ldSrc + c0, in + r * ldSrc + cols, out + r * ldDst + c0);
  };
  if (axis == BlockAxis::Row) {
    for (std::int64_t r = 0; r < rows; ++r) {
      std::int64_t p = 0;
      for (; p + kRun <= cols; p += kRun) transformRun(in + r * ldSrc + p, out + r * ldDst + p, h);
      keep(r, p);
      measure(out + r * ldDst, 1, cols);
    }
    return amax;
  }
  std::int64_t r = 0;
  for (; r + kRun <= rows; r += kRun) {
    const float* band = in + r * ldSrc;
    float* bandOut = out + r * ldDst;
    std::int64_t c = 0;
    for (; c + kTileColumns <= cols; c += kTileColumns)
      transformTile<kTileColumns>(band + c, ldSrc, bandOut + c, ldDst, kTileColumns, h);
    if (c < cols)
      transformTile<kTileColumns>(band + c, ldSrc, bandOut + c, ldDst, int(cols - c), h);
    measure(bandOut, kRun, cols);
  }
  for (; r < rows; ++r) {
    keep(r, 0);
    measure(out + r * ldDst, 1, cols);
  }
  return amax;
}

FiniteAmax randomHadamardTransform(std::span<float> values, std::int64_t rows, std::int64_t cols,
                                   std::int64_t ld, BlockAxis axis, std::uint64_t seed) {
  return randomHadamardTransform(values, ld, values, ld, rows, cols, axis, seed);
}

}  // namespace paritylab::numerics
