// Covers issue 17.2: im2col and col2im (vectorised rows for strides 1 and 2 since issue 17) give
// exactly the values of the textbook loops, over every geometry of a grid that crosses the
// 16-lane chunk edges: kernels 1, 3, 5; strides 1, 2, 3; paddings 0..2; widths 1..37. col2im adds
// each pixel's contributions in the order (c, ky, kx, n, oy, ox), as the reference does, so the
// sums match bit for bit.

#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "core/nn/im2col.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

float pixel(const ConvGeometry& g, const std::vector<float>& x, int n, int c, int iy, int ix) {
  if (iy < 0 || iy >= g.height || ix < 0 || ix >= g.width) return 0.0f;
  return x[((std::size_t(n) * g.channels + c) * g.height + iy) * g.width + ix];
}

std::vector<float> referenceIm2col(const ConvGeometry& g, const std::vector<float>& x) {
  const int oh = g.outHeight(), ow = g.outWidth();
  std::vector<float> cols(g.columnRows() * g.columnCols());
  std::size_t i = 0;
  for (int c = 0; c < g.channels; ++c)
    for (int ky = 0; ky < g.kernel; ++ky)
      for (int kx = 0; kx < g.kernel; ++kx)
        for (int n = 0; n < g.batch; ++n)
          for (int oy = 0; oy < oh; ++oy)
            for (int ox = 0; ox < ow; ++ox)
              cols[i++] =
                  pixel(g, x, n, c, oy * g.stride + ky - g.padding, ox * g.stride + kx - g.padding);
  return cols;
}

std::vector<float> referenceCol2im(const ConvGeometry& g, const std::vector<float>& cols) {
  const int oh = g.outHeight(), ow = g.outWidth();
  std::vector<float> dx(std::size_t(g.batch) * g.channels * g.height * g.width, 0.0f);
  std::size_t i = 0;
  for (int c = 0; c < g.channels; ++c)
    for (int ky = 0; ky < g.kernel; ++ky)
      for (int kx = 0; kx < g.kernel; ++kx)
        for (int n = 0; n < g.batch; ++n)
          for (int oy = 0; oy < oh; ++oy)
            for (int ox = 0; ox < ow; ++ox, ++i) {
              const int iy = oy * g.stride + ky - g.padding, ix = ox * g.stride + kx - g.padding;
              if (iy < 0 || iy >= g.height || ix < 0 || ix >= g.width) continue;
              dx[((std::size_t(n) * g.channels + c) * g.height + iy) * g.width + ix] += cols[i];
            }
  return dx;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i])) return false;
  return true;
}

TEST(Im2col, Issue17_2_EveryGeometryMatchesTheTextbookLoopsBitForBit) {
  int checked = 0;
  for (int kernel : {1, 3, 5})
    for (int stride : {1, 2, 3})
      for (int padding = 0; padding <= 2; ++padding)
        for (int side = 1; side <= 37; ++side) {
          const ConvGeometry g{2, 2, side, side + 3, kernel, stride, padding};
          if (g.outHeight() <= 0 || g.outWidth() <= 0) continue;
          const std::string what = "kernel " + std::to_string(kernel) + " stride " +
                                   std::to_string(stride) + " padding " + std::to_string(padding) +
                                   " input " + std::to_string(side) + "x" +
                                   std::to_string(side + 3);
          std::vector<float> x(std::size_t(g.batch) * g.channels * g.height * g.width);
          testing::fillUniform(x.data(), x.size(), std::uint64_t(side * 97 + kernel));
          // Poisoned: every entry must be written.
          std::vector<float> cols(g.columnRows() * g.columnCols(), 12345.0f);
          im2col(g, x.data(), cols.data());
          ASSERT_TRUE(sameBits(cols, referenceIm2col(g, x))) << what;
          std::vector<float> grads(cols.size());
          testing::fillUniform(grads.data(), grads.size(), std::uint64_t(side * 89 + stride));
          std::vector<float> dx(x.size(), 54321.0f);
          col2im(g, grads.data(), dx.data());
          ASSERT_TRUE(sameBits(dx, referenceCol2im(g, grads))) << what;
          ++checked;
        }
  EXPECT_GT(checked, 800);
}

}  // namespace
}  // namespace paritylab::nn
