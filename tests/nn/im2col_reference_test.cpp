// im2col and col2im (with vectorised rows for strides 1 and 2), and im2col of bf16 values, give
// exactly the values of the textbook loops, over every geometry of a grid that crosses the
// 16-lane chunk edges: kernels 1, 3, 5; strides 1, 2, 3; paddings 0..2; widths 1..37. col2im adds
// each pixel's contributions in the order (c, ky, kx, n, oy, ox), as the reference does, so the
// sums match bit for bit.

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
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

// Column entry i's indices, in the columns' order: (c, ky, kx) row, then (n, oy, ox).
struct Entry {
  int c, ky, kx, n, oy, ox;
};
Entry entryAt(const ConvGeometry& g, std::size_t i) {
  const std::size_t ow = std::size_t(g.outWidth()), oh = std::size_t(g.outHeight());
  const std::size_t k = std::size_t(g.kernel), batch = std::size_t(g.batch);
  Entry e{};
  e.ox = int(i % ow);
  i /= ow;
  e.oy = int(i % oh);
  i /= oh;
  e.n = int(i % batch);
  i /= batch;
  e.kx = int(i % k);
  i /= k;
  e.ky = int(i % k);
  e.c = int(i / k);
  return e;
}

std::vector<float> referenceIm2col(const ConvGeometry& g, const std::vector<float>& x) {
  std::vector<float> cols(g.columnRows() * g.columnCols());
  for (std::size_t i = 0; i < cols.size(); ++i) {
    const Entry e = entryAt(g, i);
    cols[i] = pixel(g, x, e.n, e.c, e.oy * g.stride + e.ky - g.padding,
                    e.ox * g.stride + e.kx - g.padding);
  }
  return cols;
}

// Adds the entries in the columns' order, as the textbook loop nest (c, ky, kx, n, oy, ox) does.
std::vector<float> referenceCol2im(const ConvGeometry& g, const std::vector<float>& cols) {
  std::vector<float> dx(std::size_t(g.batch) * g.channels * g.height * g.width, 0.0f);
  for (std::size_t i = 0; i < cols.size(); ++i) {
    const Entry e = entryAt(g, i);
    const int iy = e.oy * g.stride + e.ky - g.padding, ix = e.ox * g.stride + e.kx - g.padding;
    if (iy < 0 || iy >= g.height || ix < 0 || ix >= g.width) continue;
    dx[((std::size_t(e.n) * g.channels + e.c) * g.height + iy) * g.width + ix] += cols[i];
  }
  return dx;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i])) return false;
  return true;
}

TEST(Im2col, EveryGeometryMatchesTheTextbookLoopsBitForBit) {
  int checked = 0;
  for (int kernel : {1, 3, 5}) {
    for (int stride : {1, 2, 3}) {
      for (int padding = 0; padding <= 2; ++padding) {
        for (int side = 1; side <= 37; ++side) {
          const ConvGeometry g{2, 2, side, side + 3, kernel, stride, padding};
          if (g.outHeight() <= 0 || g.outWidth() <= 0) continue;
          const std::string what = "kernel " + std::to_string(kernel) + " stride " +
                                   std::to_string(stride) + " padding " + std::to_string(padding) +
                                   " input " + std::to_string(side) + "x" +
                                   std::to_string(side + 3);
          std::vector<float> x(std::size_t(g.batch) * g.channels * g.height * g.width);
          testing::fillUniform(x.data(), x.size(),
                               std::uint64_t(side) * 97 + std::uint64_t(kernel));
          // Poisoned: every entry must be written.
          std::vector<float> cols(g.columnRows() * g.columnCols(), 12345.0f);
          im2col(g, x.data(), cols.data());
          ASSERT_TRUE(sameBits(cols, referenceIm2col(g, x))) << what;
          // The bf16 gather (NVFP4's columns) moves the same entries: x's top halves.
          std::vector<std::uint16_t> x16(x.size()), cols16(cols.size(), 0x3039);
          for (std::size_t i = 0; i < x.size(); ++i)
            x16[i] = std::uint16_t(std::bit_cast<std::uint32_t>(x[i]) >> 16);
          im2colBf16(g, x16.data(), cols16.data());
          for (std::size_t i = 0; i < cols.size(); ++i)
            ASSERT_EQ(cols16[i], std::bit_cast<std::uint32_t>(cols[i]) >> 16)
                << what << " entry " << i;
          std::vector<float> grads(cols.size());
          testing::fillUniform(grads.data(), grads.size(),
                               std::uint64_t(side) * 89 + std::uint64_t(stride));
          std::vector<float> dx(x.size(), 54321.0f);
          col2im(g, grads.data(), dx.data());
          ASSERT_TRUE(sameBits(dx, referenceCol2im(g, grads))) << what;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 800);
}

// channelsFirst against its definition, dst[c][n * plane + p] = src[n][c][p]: planes of one
// value (a transposition, taken tile by tile) and wider, sizes on both sides of the 16-wide tiles.
TEST(Im2col, ChannelsFirstPutsEveryImagesPlaneOfAChannelInItsRow) {
  for (std::size_t plane : {std::size_t(1), std::size_t(3), std::size_t(49)}) {
    for (int batch : {1, 15, 16, 17, 40}) {
      for (int channels : {1, 16, 33}) {
        std::vector<float> src(std::size_t(batch) * std::size_t(channels) * plane);
        testing::fillUniform(src.data(), src.size(), plane * 131 + std::size_t(batch * channels));
        std::vector<float> dst(src.size(), 12345.0f);  // poisoned: every entry must be written
        channelsFirst(src.data(), dst.data(), batch, channels, plane);
        std::vector<float> expected(src.size());
        for (int n = 0; n < batch; ++n)
          for (int c = 0; c < channels; ++c)
            for (std::size_t p = 0; p < plane; ++p)
              expected[(std::size_t(c) * std::size_t(batch) + std::size_t(n)) * plane + p] =
                  src[(std::size_t(n) * std::size_t(channels) + std::size_t(c)) * plane + p];
        ASSERT_TRUE(sameBits(dst, expected))
            << "plane " << plane << " batch " << batch << " channels " << channels;
      }
    }
  }
}

}  // namespace
}  // namespace paritylab::nn
