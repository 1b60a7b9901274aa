// The random Hadamard transform of NVFP4's weight-gradient operands (block_scaling.h states it).
// Every output is the sum over i = 0..15 of x_i M[i][j] taken in that order in double and rounded
// once to fp32. A product x_i M[i][j] is exact in double (M's entries are +-1/4), so the loops
// below may run the sixteen outputs of a run, or the outputs of many lines, side by side as
// vector lanes: each lane adds the same terms in the same order, and a fused multiply-add of an
// exact product rounds as the add alone. The results are the same bits as one output at a time.
// The sums over i are unrolled so that the lanes' running sums stay in vector registers (rolled,
// GCC keeps them in memory and a run costs four times as much).

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

// M[i][j] = d_i H[i][j] / 4, so that a run x becomes x' = x M.
using HadamardMatrix = std::array<std::array<double, kRun>, kRun>;

HadamardMatrix hadamardMatrix(std::uint64_t seed) {
  const std::array<float, kRun> signs = hadamardSigns(seed);
  HadamardMatrix m{};
  for (int i = 0; i < kRun; ++i) {
    for (int j = 0; j < kRun; ++j)
      m[std::size_t(i)][std::size_t(j)] =
          signs[std::size_t(i)] * ((std::popcount(unsigned(i & j)) & 1) != 0 ? -0.25 : 0.25);
  }
  return m;
}

// Sixteen consecutive values of a row (out may be in); the outputs are the lanes.
void transformRun(const float* in, float* out, const HadamardMatrix& m) {
  double x[kRun];
  for (int i = 0; i < kRun; ++i) x[i] = in[i];
  double sum[kRun] = {};
#pragma GCC unroll 16
  for (int i = 0; i < kRun; ++i)
    for (int j = 0; j < kRun; ++j) sum[j] += x[i] * m[std::size_t(i)][std::size_t(j)];
  for (int j = 0; j < kRun; ++j) out[j] = static_cast<float>(sum[j]);
}

// Columns [0, width) of a band of 16 rows (row strides ldIn and ldOut; out may be in), each
// column a run; the columns are the lanes. Width is kTileColumns except at the end of the rows.
template <int Width>
void transformTile(const float* in, std::int64_t ldIn, float* out, std::int64_t ldOut, int width,
                   const HadamardMatrix& m) {
  double x[kRun][Width];
  for (int i = 0; i < kRun; ++i)
    for (int c = 0; c < width; ++c) x[i][c] = in[std::size_t(i * ldIn + c)];
  for (int j = 0; j < kRun; ++j) {
    double sum[Width] = {};
#pragma GCC unroll 16
    for (int i = 0; i < kRun; ++i) {
      const double mij = m[std::size_t(i)][std::size_t(j)];
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

void randomHadamardTransform(std::span<const float> src, std::int64_t ldSrc, std::span<float> dst,
                             std::int64_t ldDst, std::int64_t rows, std::int64_t cols,
                             BlockAxis axis, std::uint64_t seed) {
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
  const HadamardMatrix m = hadamardMatrix(seed);
  const float* in = src.data();
  float* out = dst.data();
  const bool inPlace = in == out && ldSrc == ldDst;
  // What the transform leaves as it is: a line's tail, the rows past the last band.
  const auto keep = [&](std::int64_t r, std::int64_t c0) {
    if (!inPlace) std::copy(in + r * ldSrc + c0, in + r * ldSrc + cols, out + r * ldDst + c0);
  };
  if (axis == BlockAxis::Row) {
    for (std::int64_t r = 0; r < rows; ++r) {
      std::int64_t p = 0;
      for (; p + kRun <= cols; p += kRun) transformRun(in + r * ldSrc + p, out + r * ldDst + p, m);
      keep(r, p);
    }
    return;
  }
  std::int64_t r = 0;
  for (; r + kRun <= rows; r += kRun) {
    const float* band = in + r * ldSrc;
    float* bandOut = out + r * ldDst;
    std::int64_t c = 0;
    for (; c + kTileColumns <= cols; c += kTileColumns)
      transformTile<kTileColumns>(band + c, ldSrc, bandOut + c, ldDst, kTileColumns, m);
    if (c < cols)
      transformTile<kTileColumns>(band + c, ldSrc, bandOut + c, ldDst, int(cols - c), m);
  }
  for (; r < rows; ++r) keep(r, 0);
}

void randomHadamardTransform(std::span<float> values, std::int64_t rows, std::int64_t cols,
                             std::int64_t ld, BlockAxis axis, std::uint64_t seed) {
  randomHadamardTransform(values, ld, values, ld, rows, cols, axis, seed);
}

}  // namespace paritylab::numerics
