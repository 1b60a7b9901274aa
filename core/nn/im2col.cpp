#include "core/nn/im2col.h"

#include <algorithm>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

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

// dst[0, n) = src[0, n) for the short rows of a convolution (n = output width, 7 to 32 here):
// inline vector moves, where a library call per row would cost more than the copy.
inline void copyRow(float* dst, const float* src, int n) {
#if defined(__AVX512F__)
  for (; n >= 16; n -= 16, dst += 16, src += 16) _mm512_storeu_ps(dst, _mm512_loadu_ps(src));
  if (n > 0) {
    const __mmask16 m = __mmask16((1u << n) - 1u);
    _mm512_mask_storeu_ps(dst, m, _mm512_maskz_loadu_ps(m, src));
  }
#else
  std::copy(src, src + n, dst);
#endif
}

inline void zeroRow(float* dst, int n) {
  for (int i = 0; i < n; ++i) dst[i] = 0.0f;
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
              zeroRow(dst, ow);
              continue;
            }
            const float* srow = src + std::size_t(iy) * g.width;
            zeroRow(dst, xlo);
            if (g.stride == 1) {
              copyRow(dst + xlo, srow + xlo + kx - g.padding, xhi - xlo);
            } else {
              for (int ox = xlo; ox < xhi; ++ox) dst[ox] = srow[ox * g.stride + kx - g.padding];
            }
            zeroRow(dst + xhi, ow - xhi);
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
            if (g.stride == 1) {  // contiguous: vectorises
              float* d = drow + kx - g.padding;
              for (int ox = xlo; ox < xhi; ++ox) d[ox] += src[ox];
            } else {
              for (int ox = xlo; ox < xhi; ++ox) drow[ox * g.stride + kx - g.padding] += src[ox];
            }
          }
        }
      }
}

}  // namespace paritylab::nn
