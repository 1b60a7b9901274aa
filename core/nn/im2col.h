#pragma once
// Lowering a convolution to one GEMM over the whole batch.
// columns: [C*kh*kw, N*outH*outW], row-major: row (c, ky, kx), column (n, oy, ox).

#include <cstddef>
#include <cstdint>

namespace paritylab::nn {

struct ConvGeometry {
  int batch, channels, height, width;  // input [N, C, H, W]
  int kernel, stride, padding;
  int outHeight() const { return (height + 2 * padding - kernel) / stride + 1; }
  int outWidth() const { return (width + 2 * padding - kernel) / stride + 1; }
  std::size_t columnRows() const { return std::size_t(channels) * kernel * kernel; }
  std::size_t columnCols() const { return std::size_t(batch) * outHeight() * outWidth(); }
};

// x [N, C, H, W] -> columns (zeros where the window hangs over the padding).
void im2col(const ConvGeometry& g, const float* x, float* columns);
// The same gather of bf16 values (bits): NVFP4's operands, packed to bf16 before their gather
// (GemmExtras::bf16B), which then moves a half of the bytes.
void im2colBf16(const ConvGeometry& g, const std::uint16_t* x, std::uint16_t* columns);
// Adjoint of im2col: dx [N, C, H, W] = sum of the column entries mapping to each pixel.
void col2im(const ConvGeometry& g, const float* columns, float* dx);
// [batch, channels, plane] -> [channels, batch * plane]: row c holds every image's plane c (a
// 1x1 gather; src and dst do not overlap).
void channelsFirst(const float* src, float* dst, int batch, int channels, std::size_t plane);

}  // namespace paritylab::nn
