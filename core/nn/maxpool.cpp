#include "core/nn/maxpool.h"

#include <cmath>
#include <stdexcept>

// The 2x2 rows use AVX-512 (byte-masked loads need BW and VL too), else AVX2 (8 windows at a
// time: CPUs without AVX-512); others take the scalar loop.
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define PARITYLAB_POOL_AVX512 1
#include <immintrin.h>
#elif defined(__AVX2__)
#define PARITYLAB_POOL_AVX2 1
#include "core/nn/avx2_lanes.h"
#endif

#include <algorithm>

namespace paritylab::nn {

Shape MaxPool2d::outputShape(const Shape& in) const {
  if (in.rank != 4 || in[2] < kernel_ || in[3] < kernel_)
    throw std::invalid_argument("MaxPool2d: expected [N, C, H, W] input of at least the kernel");
  return {in[0], in[1], in[2] / kernel_, in[3] / kernel_};
}

namespace {

// First maximum in window order; NaN wins (as torch). Compare/select, no branches: random data
// defeats branch prediction, and the 2x2 loop below vectorises.
inline void take(float v, std::uint8_t at, float& best, std::uint8_t& code) {
  const bool t = (v > best) | ((v != v) & (best == best));
  best = t ? v : best;
  code = t ? at : code;
}

#ifdef PARITYLAB_POOL_AVX512
// Lane masks for up to 16 windows from `remaining`: outputs, and the 2x as many inputs of a row
// as two vectors of 16.
struct Lanes {
  __mmask16 out, in0, in1;
  explicit Lanes(int remaining) {
    const int n = remaining < 16 ? remaining : 16;
    out = __mmask16((1u << n) - 1u);
    in0 = __mmask16(n >= 8 ? 0xFFFFu : (1u << (2 * n)) - 1u);
    in1 = __mmask16(n > 8 ? (1u << (2 * (n - 8))) - 1u : 0u);
  }
};

// Sixteen windows at once: even/odd columns of 32 inputs, the same compare/select chain.
inline void take16(__m512 v, int at, __m512& best, __m512i& code) {
  const __mmask16 t =
      _mm512_cmp_ps_mask(v, best, _CMP_GT_OQ) |
      (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) & _mm512_cmp_ps_mask(best, best, _CMP_ORD_Q));
  best = _mm512_mask_blend_ps(t, best, v);
  code = _mm512_mask_blend_epi32(t, code, _mm512_set1_epi32(at));
}
#endif

#ifdef PARITYLAB_POOL_AVX2
using avx2::evenLanes;
using avx2::firstLanes;
using avx2::oddLanes;
using avx2::storeFirstLanes;
// Eight windows at once, the scalar take()'s compare/select chain.
inline void take8(__m256 v, int at, __m256& best, __m256i& code) {
  const __m256 t = _mm256_or_ps(
      _mm256_cmp_ps(v, best, _CMP_GT_OQ),
      _mm256_and_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q), _mm256_cmp_ps(best, best, _CMP_ORD_Q)));
  best = _mm256_blendv_ps(best, v, t);
  code = _mm256_castps_si256(
      _mm256_blendv_ps(_mm256_castsi256_ps(code), _mm256_castsi256_ps(_mm256_set1_epi32(at)), t));
}
#endif

// 2x2, stride 2: rows r0, r1 of the input -> one output row and its window codes.
void pool2x2Row(const float* r0, const float* r1, int ow, float* out, std::uint8_t* codes) {
  int ox = 0;
#ifdef PARITYLAB_POOL_AVX512
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  for (; ox < ow; ox += 16) {  // masked: small-cnn's rows are 14 and 7 windows wide
    const Lanes m(ow - ox);
    const __m512 a0 = _mm512_maskz_loadu_ps(m.in0, r0 + 2 * ox);
    const __m512 a1 = _mm512_maskz_loadu_ps(m.in1, r0 + 2 * ox + 16);
    const __m512 b0 = _mm512_maskz_loadu_ps(m.in0, r1 + 2 * ox);
    const __m512 b1 = _mm512_maskz_loadu_ps(m.in1, r1 + 2 * ox + 16);
    __m512 best = _mm512_permutex2var_ps(a0, even, a1);
    __m512i code = _mm512_setzero_si512();
    take16(_mm512_permutex2var_ps(a0, odd, a1), 1, best, code);
    take16(_mm512_permutex2var_ps(b0, even, b1), 2, best, code);
    take16(_mm512_permutex2var_ps(b0, odd, b1), 3, best, code);
    _mm512_mask_storeu_ps(out + ox, m.out, best);
    _mm512_mask_cvtepi32_storeu_epi8(codes + ox, m.out, code);
  }
#endif
#ifdef PARITYLAB_POOL_AVX2
  for (; ox < ow; ox += 8) {  // masked loads: small-cnn's rows are 14 and 7 windows wide
    const int n = std::min(ow - ox, 8);
    const __m256i in0 = firstLanes(2 * n), in1 = firstLanes(2 * n - 8);
    const __m256 a0 = _mm256_maskload_ps(r0 + 2 * ox, in0);
    const __m256 a1 = _mm256_maskload_ps(r0 + 2 * ox + 8, in1);
    const __m256 b0 = _mm256_maskload_ps(r1 + 2 * ox, in0);
    const __m256 b1 = _mm256_maskload_ps(r1 + 2 * ox + 8, in1);
    __m256 best = evenLanes(a0, a1);
    __m256i code = _mm256_setzero_si256();
    take8(oddLanes(a0, a1), 1, best, code);
    take8(evenLanes(b0, b1), 2, best, code);
    take8(oddLanes(b0, b1), 3, best, code);
    storeFirstLanes(out + ox, best, n);
    alignas(32) std::int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), code);
    for (int j = 0; j < n; ++j) codes[ox + j] = std::uint8_t(lanes[j]);
  }
#endif
  for (; ox < ow; ++ox) {
    float best = r0[2 * ox];
    std::uint8_t code = 0;
    take(r0[2 * ox + 1], 1, best, code);
    take(r1[2 * ox], 2, best, code);
    take(r1[2 * ox + 1], 3, best, code);
    out[ox] = best;
    codes[ox] = code;
  }
}

// The gradient of one output row back to its two input rows (every element written).
void unpool2x2Row(const float* g, const std::uint8_t* codes, int ow, float* d0, float* d1) {
  int ox = 0;
#ifdef PARITYLAB_POOL_AVX512
  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi = _mm512_add_epi32(lo, _mm512_set1_epi32(8));
  for (; ox < ow; ox += 16) {
    const Lanes m(ow - ox);
    const __m512 v = _mm512_maskz_loadu_ps(m.out, g + ox);
    const __m512i c = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m.out, codes + ox));
    auto at = [&](int k) {
      return _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(c, _mm512_set1_epi32(k)), v);
    };
    const __m512 v0 = at(0), v1 = at(1), v2 = at(2), v3 = at(3);
    _mm512_mask_storeu_ps(d0 + 2 * ox, m.in0, _mm512_permutex2var_ps(v0, lo, v1));
    _mm512_mask_storeu_ps(d0 + 2 * ox + 16, m.in1, _mm512_permutex2var_ps(v0, hi, v1));
    _mm512_mask_storeu_ps(d1 + 2 * ox, m.in0, _mm512_permutex2var_ps(v2, lo, v3));
    _mm512_mask_storeu_ps(d1 + 2 * ox + 16, m.in1, _mm512_permutex2var_ps(v2, hi, v3));
  }
#endif
#ifdef PARITYLAB_POOL_AVX2
  for (; ox < ow; ox += 8) {
    const int n = std::min(ow - ox, 8);
    const __m256 v = _mm256_maskload_ps(g + ox, firstLanes(n));
    alignas(32) std::int32_t lanes[8] = {};
    for (int j = 0; j < n; ++j) lanes[j] = codes[ox + j];
    const __m256i c = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
    auto at = [&](int k) {
      return _mm256_and_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(c, _mm256_set1_epi32(k))), v);
    };
    const __m256 v0 = at(0), v1 = at(1), v2 = at(2), v3 = at(3);
    // interleave: [v0_0 v1_0 v0_1 v1_1 ...] is d0's 16 inputs, [v2_0 v3_0 ...] d1's
    const __m256 l01 = _mm256_unpacklo_ps(v0, v1), h01 = _mm256_unpackhi_ps(v0, v1);
    const __m256 l23 = _mm256_unpacklo_ps(v2, v3), h23 = _mm256_unpackhi_ps(v2, v3);
    storeFirstLanes(d0 + 2 * ox, _mm256_permute2f128_ps(l01, h01, 0x20), 2 * n);
    storeFirstLanes(d0 + 2 * ox + 8, _mm256_permute2f128_ps(l01, h01, 0x31), 2 * n - 8);
    storeFirstLanes(d1 + 2 * ox, _mm256_permute2f128_ps(l23, h23, 0x20), 2 * n);
    storeFirstLanes(d1 + 2 * ox + 8, _mm256_permute2f128_ps(l23, h23, 0x31), 2 * n - 8);
  }
#endif
  for (; ox < ow; ++ox) {
    const float v = g[ox];
    const std::uint8_t c = codes[ox];
    d0[2 * ox] = c == 0 ? v : 0.0f;
    d0[2 * ox + 1] = c == 1 ? v : 0.0f;
    d1[2 * ox] = c == 2 ? v : 0.0f;
    d1[2 * ox + 1] = c == 3 ? v : 0.0f;
  }
}

}  // namespace

MaxPool2d::MaxPool2d(int kernel) : kernel_(kernel) {
  if (kernel < 1 || kernel > 16)
    throw std::invalid_argument("MaxPool2d: kernel must be in [1, 16], got " +
                                std::to_string(kernel));
}

Tensor& MaxPool2d::forward(const Tensor& x, StepContext& /*ctx*/) {
  inShape_ = x.shape();
  const Shape out = outputShape(x.shape());
  y_.resize(out);
  window_.resize(out.numel());
  const int h = x.dim(2), w = x.dim(3), oh = out[2], ow = out[3];
  const std::size_t planes = std::size_t(out[0]) * out[1];
  for (std::size_t p = 0; p < planes; ++p) {
    const float* src = x.data() + p * std::size_t(h) * w;
    float* dst = y_.data() + p * std::size_t(oh) * ow;
    std::uint8_t* codes = window_.data() + p * std::size_t(oh) * ow;
    if (kernel_ == 2) {  // the hot case
      for (int oy = 0; oy < oh; ++oy) {
        const float* r0 = src + std::size_t(2 * oy) * w;
        pool2x2Row(r0, r0 + w, ow, dst + std::size_t(oy) * ow, codes + std::size_t(oy) * ow);
      }
      continue;
    }
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        const float* corner = src + std::size_t(oy * kernel_) * w + std::size_t(ox * kernel_);
        float best = corner[0];
        std::uint8_t code = 0;
        for (int ky = 0; ky < kernel_; ++ky) {
          for (int kx = 0; kx < kernel_; ++kx) {
            if (ky | kx)
              take(corner[std::size_t(ky) * w + kx], std::uint8_t(ky * kernel_ + kx), best, code);
          }
        }
        dst[oy * ow + ox] = best;
        codes[oy * ow + ox] = code;
      }
    }
  }
  return y_;
}

const Tensor& MaxPool2d::backward(const Tensor& dy, StepContext& /*ctx*/) {
  dx_.resize(inShape_);
  const int h = inShape_[2], w = inShape_[3], oh = dy.dim(2), ow = dy.dim(3);
  const std::size_t inPlane = std::size_t(h) * w;
  const std::size_t outPlane = std::size_t(oh) * ow;
  const std::size_t planes = std::size_t(dy.dim(0)) * dy.dim(1);
  const bool covered = kernel_ == 2 && h == 2 * oh && w == 2 * ow;  // every input in one window
  if (!covered) dx_.setZero();
  for (std::size_t p = 0; p < planes; ++p) {
    float* dst = dx_.data() + p * inPlane;
    const float* g = dy.data() + p * outPlane;
    const std::uint8_t* codes = window_.data() + p * outPlane;
    if (kernel_ == 2) {
      for (int oy = 0; oy < oh; ++oy) {
        float* d0 = dst + std::size_t(2 * oy) * w;
        unpool2x2Row(g + std::size_t(oy) * ow, codes + std::size_t(oy) * ow, ow, d0, d0 + w);
      }
      continue;
    }
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        const int c = codes[oy * ow + ox];
        const int y = oy * kernel_ + c / kernel_, x = ox * kernel_ + c % kernel_;
        dst[std::size_t(y) * w + x] += g[oy * ow + ox];
      }
    }
  }
  return dx_;
}

}  // namespace paritylab::nn
