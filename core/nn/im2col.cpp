#include "core/nn/im2col.h"

#include <algorithm>

namespace paritylab::nn {

namespace {

// Range of output columns ox whose input column ox*stride - pad + kx lies in [0, width).
inline void validRange(int k, int stride, int pad, int in, int out, int& lo, int& hi) {
  // ox*stride + k - pad >= 0  and  < in
  lo = 0;
  while (lo < out && lo * stride + k - pad < 0) ++lo;
  hi = out;
  while (hi > lo && (hi - 1) * stride + k - pad >= in) --hi;
}

}  // namespace

void im2col(const ConvGeometry& g, const float* x, float* columns) {
  const int oh = g.outHeight(), ow = g.outWidth();
  const std::size_t plane = std::size_t(oh) * ow;
  const std::size_t cols = g.columnCols();
  const std::size_t inPlane = std::size_t(g.height) * g.width;
  for (int c = 0; c < g.channels; ++c)
    for (int ky = 0; ky < g.kernel; ++ky)
      for (int kx = 0; kx < g.kernel; ++kx) {
        float* row = columns + ((std::size_t(c) * g.kernel + ky) * g.kernel + kx) * cols;
        int xlo, xhi;
        validRange(kx, g.stride, g.padding, g.width, ow, xlo, xhi);
        for (int n = 0; n < g.batch; ++n) {
          const float* src = x + (std::size_t(n) * g.channels + c) * inPlane;
          float* dstImage = row + std::size_t(n) * plane;
          for (int oy = 0; oy < oh; ++oy) {
            float* dst = dstImage + std::size_t(oy) * ow;
            const int iy = oy * g.stride + ky - g.padding;
            if (iy < 0 || iy >= g.height) {
              std::fill(dst, dst + ow, 0.0f);
              continue;
            }
            const float* srow = src + std::size_t(iy) * g.width;
            std::fill(dst, dst + xlo, 0.0f);
            if (g.stride == 1) {
              const int off = kx - g.padding;
              std::copy(srow + xlo + off, srow + xhi + off, dst + xlo);
            } else {
              for (int ox = xlo; ox < xhi; ++ox) dst[ox] = srow[ox * g.stride + kx - g.padding];
            }
            std::fill(dst + xhi, dst + ow, 0.0f);
          }
        }
      }
}

void col2im(const ConvGeometry& g, const float* columns, float* dx) {
  const int oh = g.outHeight(), ow = g.outWidth();
  const std::size_t plane = std::size_t(oh) * ow;
  const std::size_t cols = g.columnCols();
  const std::size_t inPlane = std::size_t(g.height) * g.width;
  std::fill(dx, dx + std::size_t(g.batch) * g.channels * inPlane, 0.0f);
  for (int c = 0; c < g.channels; ++c)
    for (int ky = 0; ky < g.kernel; ++ky)
      for (int kx = 0; kx < g.kernel; ++kx) {
        const float* row = columns + ((std::size_t(c) * g.kernel + ky) * g.kernel + kx) * cols;
        int xlo, xhi;
        validRange(kx, g.stride, g.padding, g.width, ow, xlo, xhi);
        for (int n = 0; n < g.batch; ++n) {
          float* dstImage = dx + (std::size_t(n) * g.channels + c) * inPlane;
          const float* srcImage = row + std::size_t(n) * plane;
          for (int oy = 0; oy < oh; ++oy) {
            const int iy = oy * g.stride + ky - g.padding;
            if (iy < 0 || iy >= g.height) continue;
            const float* src = srcImage + std::size_t(oy) * ow;
            float* drow = dstImage + std::size_t(iy) * g.width;
            for (int ox = xlo; ox < xhi; ++ox) drow[ox * g.stride + kx - g.padding] += src[ox];
          }
        }
      }
}

}  // namespace paritylab::nn
