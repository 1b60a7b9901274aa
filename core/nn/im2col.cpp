#include "core/nn/im2col.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#if defined(__AVX2__)
#include "core/nn/avx2_lanes.h"
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

#if defined(__AVX512F__) && defined(__BMI2__)
constexpr std::size_t kChunk = 16;
#elif defined(__AVX2__) && defined(__BMI2__)
constexpr std::size_t kChunk = 8;
#endif

#if defined(__BMI2__) && (defined(__AVX512F__) || defined(__AVX2__))
// "Same" convolutions (stride 1, 2 * padding == kernel - 1: every 3x3 pad-1 layer) keep the
// image's width, so a column row is the input plane shifted by s = (ky - pad) * W + (kx - pad)
// with the pixels whose window leaves the image masked: each plane moves as one flat masked
// stream, one vector (kChunk floats: 16 with AVX-512, 8 with AVX2) at a time, whatever its width
// (the 7- and 4-wide planes of a ResNet's last stages cost no per-row work).
// masks[(ky * K + kx) * chunks + q]: lanes of kChunk-float chunk q of a plane for which the shifted
// pixel lies inside the image; `outputSide` true: indexed by the column entry (im2col reads x[p +
// s]); false: by the pixel (col2im reads column[p - s]).
bool isSameConv(const ConvGeometry& g) {
  return g.stride == 1 && 2 * g.padding == g.kernel - 1;
}

const std::uint16_t* planeMasks(const ConvGeometry& g, bool outputSide) {
  // Per side, the masks of the last geometry (a layer's forward and backward ask again and again).
  struct Cache {
    std::vector<std::uint16_t> masks;  // grows to the largest plane, then reused
    int height = -1, width = -1, kernel = -1, padding = -1;
  };
  thread_local Cache caches[2];
  Cache& cache = caches[outputSide ? 1 : 0];
  const int h = g.height, w = g.width, k = g.kernel;
  const std::size_t plane = std::size_t(h) * w, chunks = (plane + kChunk - 1) / kChunk;
  if (cache.height == h && cache.width == w && cache.kernel == k && cache.padding == g.padding)
    return cache.masks.data();
  cache.height = h;
  cache.width = w;
  cache.kernel = k;
  cache.padding = g.padding;
  std::vector<std::uint16_t>& masks = cache.masks;
  if (masks.size() < std::size_t(k) * k * chunks) masks.resize(std::size_t(k) * k * chunks);
  const int sign = outputSide ? 1 : -1;
  for (int ky = 0; ky < k; ++ky) {
    for (int kx = 0; kx < k; ++kx) {
      std::uint16_t* m = masks.data() + std::size_t(ky * k + kx) * chunks;
      std::fill_n(m, chunks, std::uint16_t(0));
      for (int y = 0; y < h; ++y) {
        const int yy = y + sign * (ky - g.padding);
        if (yy < 0 || yy >= h) continue;
        for (int x = 0; x < w; ++x) {
          const int xx = x + sign * (kx - g.padding);
          if (xx < 0 || xx >= w) continue;
          const std::size_t p = std::size_t(y) * w + x;
          m[p / kChunk] = std::uint16_t(m[p / kChunk] | (1u << (p % kChunk)));
        }
      }
    }
  }
  return masks.data();
}

#endif

#if defined(__AVX512F__) && defined(__BMI2__)
// Rows of up to 16 outputs at a time with AVX-512 masks: lanes whose input column lies outside
// the image are masked off (masked loads do not touch those addresses), so a row is one or two
// masked moves, without zero-fill calls or scalar edges. Lanes [lo, hi) of a 16-output chunk:
inline __mmask16 laneRange(int lo, int hi) {
  lo = std::clamp(lo, 0, 16);
  hi = std::clamp(hi, lo, 16);
  return __mmask16(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}
// Output lane j of a stride-2 chunk reads input lane 2j of the 32 loaded: even lanes.
inline __mmask32 evenLanes(__mmask16 outputs) {
  return __mmask32(_pdep_u32(outputs, 0x55555555u));
}

// dst[ox] = src[ox * stride + offset] for ox in [lo, hi), 0 for the other ox in [0, ow);
// stride 1 or 2. src is the input row; offset = kx - padding.
inline void im2colRow(float* dst, const float* src, int offset, int stride, int ow, int lo, int hi,
                      const float* /*end: masked stores stay inside the row*/) {
  if (stride == 1) {
    for (int o = 0; o < ow; o += 16) {
      const __m512 v = _mm512_maskz_loadu_ps(laneRange(lo - o, hi - o), src + o + offset);
      _mm512_mask_storeu_ps(dst + o, laneRange(0, ow - o), v);
    }
    return;
  }
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  for (int o = 0; o < ow; o += 16) {
    const __mmask32 in = evenLanes(laneRange(lo - o, hi - o));
    const float* p = src + 2 * o + offset;
    const __m512 a = _mm512_maskz_loadu_ps(__mmask16(in), p);
    const __m512 b = _mm512_maskz_loadu_ps(__mmask16(in >> 16), p + 16);
    _mm512_mask_storeu_ps(dst + o, laneRange(0, ow - o), _mm512_permutex2var_ps(a, even, b));
  }
}

// One 16-value chunk of a masked stream: the lanes of `load` read from src (the others zero) and
// written to dst whole, or (the plane's last chunk) only its lanes `store`. For fp32 values, and
// (below) for bf16 bits.
struct FloatChunk {
  using Value = float;
  static void move(float* dst, const float* src, __mmask16 load) {
    _mm512_storeu_ps(dst, _mm512_maskz_loadu_ps(load, src));
  }
  static void moveTail(float* dst, const float* src, __mmask16 load, __mmask16 store) {
    _mm512_mask_storeu_ps(dst, store, _mm512_maskz_loadu_ps(load, src));
  }
};

template <typename Chunk>
void im2colSameChunks(const ConvGeometry& g, const typename Chunk::Value* x,
                      typename Chunk::Value* columns) {
  const std::size_t plane = std::size_t(g.height) * g.width, chunks = (plane + 15) / 16;
  const std::size_t cols = g.columnCols();
  const int k = g.kernel;
  const std::uint16_t* masks = planeMasks(g, true);
  const __mmask16 tail = plane % 16 ? __mmask16((1u << (plane % 16)) - 1u) : __mmask16(0xffff);
  for (int c = 0; c < g.channels; ++c)
    for (int ky = 0; ky < k; ++ky)
      for (int kx = 0; kx < k; ++kx) {
        const std::ptrdiff_t shift = std::ptrdiff_t(ky - g.padding) * g.width + (kx - g.padding);
        const std::uint16_t* m = masks + std::size_t(ky * k + kx) * chunks;
        typename Chunk::Value* row = columns + ((std::size_t(c) * k + ky) * k + kx) * cols;
        for (int n = 0; n < g.batch; ++n) {
          const typename Chunk::Value* src = x + (std::size_t(n) * g.channels + c) * plane;
          typename Chunk::Value* dst = row + std::size_t(n) * plane;
          std::size_t q = 0;
          for (; q + 1 < chunks; ++q)
            Chunk::move(dst + 16 * q, src + std::ptrdiff_t(16 * q) + shift, m[q]);
          Chunk::moveTail(dst + 16 * q, src + std::ptrdiff_t(16 * q) + shift, m[q], tail);
        }
      }
}

void im2colSame(const ConvGeometry& g, const float* x, float* columns) {
  im2colSameChunks<FloatChunk>(g, x, columns);
}

// Each 16-pixel chunk of dx sums its k*k contributions in registers in the order (ky, kx), the
// order of the row-by-row loop, from the same +0 start: the same bits, one store per chunk.
void col2imSame(const ConvGeometry& g, const float* columns, float* dx) {
  const std::size_t plane = std::size_t(g.height) * g.width, chunks = (plane + 15) / 16;
  const std::size_t cols = g.columnCols();
  const int k = g.kernel;
  const std::uint16_t* masks = planeMasks(g, false);
  const __mmask16 tail = plane % 16 ? __mmask16((1u << (plane % 16)) - 1u) : __mmask16(0xffff);
  for (int n = 0; n < g.batch; ++n)
    for (int c = 0; c < g.channels; ++c) {
      float* dst = dx + (std::size_t(n) * g.channels + c) * plane;
      const float* image = columns + std::size_t(c) * k * k * cols + std::size_t(n) * plane;
      for (std::size_t q = 0; q < chunks; ++q) {
        __m512 sum = _mm512_setzero_ps();
        for (int ky = 0; ky < k; ++ky)
          for (int kx = 0; kx < k; ++kx) {
            const std::ptrdiff_t shift =
                std::ptrdiff_t(ky - g.padding) * g.width + (kx - g.padding);
            const __mmask16 m = masks[std::size_t(ky * k + kx) * chunks + q];
            const float* src = image + std::size_t(ky * k + kx) * cols;
            sum = _mm512_mask_add_ps(
                sum, m, sum, _mm512_maskz_loadu_ps(m, src + std::ptrdiff_t(16 * q) - shift));
          }
        _mm512_mask_storeu_ps(dst + 16 * q, q + 1 < chunks ? __mmask16(0xffff) : tail, sum);
      }
    }
}
constexpr bool kVectorRows = true;
constexpr bool kStride2Gather = false;  // the masked rows below do it
void im2colStride2(const ConvGeometry&, const float*, float*) {}

#if defined(__AVX512BW__) && defined(__AVX512VL__)
// im2colSame of bf16 values: the same masks over 16-value chunks, 16-bit lanes.
struct Bf16Chunk {
  using Value = std::uint16_t;
  static void move(std::uint16_t* dst, const std::uint16_t* src, __mmask16 load) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_maskz_loadu_epi16(load, src));
  }
  static void moveTail(std::uint16_t* dst, const std::uint16_t* src, __mmask16 load,
                       __mmask16 store) {
    _mm256_mask_storeu_epi16(dst, store, _mm256_maskz_loadu_epi16(load, src));
  }
};
constexpr bool kBf16Same = true;
void im2colSameBf16(const ConvGeometry& g, const std::uint16_t* x, std::uint16_t* columns) {
  im2colSameChunks<Bf16Chunk>(g, x, columns);
}
#else
constexpr bool kBf16Same = false;
void im2colSameBf16(const ConvGeometry&, const std::uint16_t*, std::uint16_t*) {}
#endif
#elif defined(__AVX2__) && defined(__BMI2__)
// The same streams with 8-lane AVX2 vectors (CPUs without AVX-512, such as AMD's Zen 2-4 as this
// project's machines expose them). vmaskmovps loads do not touch masked-off addresses, as
// AVX-512's masked loads; the last, partial chunk of a plane or row is stored as a whole vector
// that runs into what is written next (storeFirst).
const __m256i kLaneBits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);

// Lane j of the result is all ones where bit j of `bits` is set.
inline __m256i laneMask(unsigned bits) {
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(int(bits)), kLaneBits), kLaneBits);
}
inline unsigned laneRange(int lo, int hi) {
  lo = std::clamp(lo, 0, 8);
  hi = std::clamp(hi, lo, 8);
  return ((1u << hi) - 1u) & ~((1u << lo) - 1u);
}
// The first n (< 8) lanes of v to dst. Every writer here fills its buffer front to back, so a
// whole vector may run past dst + n into what it writes next, as long as it stays before `end`
// (one plain store instead of a masked one).
inline void storeFirst(float* dst, __m256 v, std::size_t n, const float* end) {
  if (dst + 8 <= end) return _mm256_storeu_ps(dst, v);
  avx2::storeFirstLanes(dst, v, int(n));
}

using avx2::evenLanes;

// dst[ox] = src[ox + offset] for ox in [lo, hi), 0 for the other ox in [0, ow): stride 1 only
// (stride 2 goes through im2colStride2 below). src is the input row; offset = kx - padding.
inline void im2colRow(float* dst, const float* src, int offset, int /*stride: 1*/, int ow, int lo,
                      int hi, const float* end) {
  for (int o = 0; o < ow; o += 8) {
    const __m256 v = _mm256_maskload_ps(src + o + offset, laneMask(laneRange(lo - o, hi - o)));
    if (o + 8 <= ow)
      _mm256_storeu_ps(dst + o, v);
    else
      storeFirst(dst + o, v, std::size_t(ow - o), end);
  }
}

void im2colSame(const ConvGeometry& g, const float* x, float* columns) {
  const std::size_t plane = std::size_t(g.height) * g.width, chunks = (plane + 7) / 8;
  const std::size_t cols = g.columnCols();
  const std::size_t full = plane / 8;  // whole chunks; a partial last one through storeFirst
  const float* const end = columns + g.columnRows() * cols;
  const int k = g.kernel;
  const std::uint16_t* masks = planeMasks(g, true);
  for (int c = 0; c < g.channels; ++c) {
    for (int ky = 0; ky < k; ++ky) {
      for (int kx = 0; kx < k; ++kx) {
        const std::ptrdiff_t shift = std::ptrdiff_t(ky - g.padding) * g.width + (kx - g.padding);
        const std::uint16_t* m = masks + std::size_t(ky * k + kx) * chunks;
        float* row = columns + ((std::size_t(c) * k + ky) * k + kx) * cols;
        for (int n = 0; n < g.batch; ++n) {
          const float* src = x + (std::size_t(n) * g.channels + c) * plane + shift;
          float* dst = row + std::size_t(n) * plane;
          for (std::size_t q = 0; q < full; ++q)
            _mm256_storeu_ps(dst + 8 * q, _mm256_maskload_ps(src + 8 * q, laneMask(m[q])));
          if (full < chunks)
            storeFirst(dst + 8 * full, _mm256_maskload_ps(src + 8 * full, laneMask(m[full])),
                       plane - 8 * full, end);
        }
      }
    }
  }
}

// Each 8-pixel chunk of dx sums its k*k contributions in registers in the order (ky, kx), the
// order of the row-by-row loop, from the same +0 start: the same bits, one store per chunk. A
// masked-off lane adds the +0 its load gives, which leaves a sum that started at +0 as it is.
void col2imSame(const ConvGeometry& g, const float* columns, float* dx) {
  const std::size_t plane = std::size_t(g.height) * g.width, chunks = (plane + 7) / 8;
  const std::size_t cols = g.columnCols();
  const int k = g.kernel;
  const std::uint16_t* masks = planeMasks(g, false);
  const float* const end = dx + std::size_t(g.batch) * g.channels * plane;
  for (int n = 0; n < g.batch; ++n) {
    for (int c = 0; c < g.channels; ++c) {
      float* dst = dx + (std::size_t(n) * g.channels + c) * plane;
      const float* image = columns + std::size_t(c) * k * k * cols + std::size_t(n) * plane;
      for (std::size_t q = 0; q < chunks; ++q) {
        __m256 sum = _mm256_setzero_ps();
        for (int ky = 0; ky < k; ++ky) {
          for (int kx = 0; kx < k; ++kx) {
            const std::ptrdiff_t shift =
                std::ptrdiff_t(ky - g.padding) * g.width + (kx - g.padding);
            const __m256i m = laneMask(masks[std::size_t(ky * k + kx) * chunks + q]);
            const float* src = image + std::size_t(ky * k + kx) * cols;
            sum = _mm256_add_ps(sum, _mm256_maskload_ps(src + std::ptrdiff_t(8 * q) - shift, m));
          }
        }
        if (8 * (q + 1) <= plane)
          _mm256_storeu_ps(dst + 8 * q, sum);
        else
          storeFirst(dst + 8 * q, sum, plane - 8 * q, end);
      }
    }
  }
}
// Stride 2 (a stage's first convolution and its 1x1 projection): output lane j of a chunk reads
// input lane 2j of 16 loaded floats. The lanes whose input column leaves the image depend only on
// kx and the chunk, so their masks are made once per kx and applied with an AND after two plain
// loads: a masked load (vmaskmovps) costs several times a plain one on AMD's cores. A load that
// would leave the tensor itself (its first or last row) is masked instead. Every stride-2
// geometry.
constexpr bool kStride2Gather = true;
void im2colStride2(const ConvGeometry& g, const float* x, float* columns) {
  const int oh = g.outHeight(), ow = g.outWidth(), chunks = (ow + 7) / 8;
  const std::size_t plane = std::size_t(oh) * ow, cols = g.columnCols();
  const std::size_t inPlane = std::size_t(g.height) * g.width;
  const auto total = std::ptrdiff_t(std::size_t(g.batch) * g.channels * inPlane);  // floats in x
  // per chunk of an output row: which lanes' input columns lie inside the image (for one kx)
  // (laneBits), and the same as 8 all-ones / zero lanes (laneOk, 8 per chunk)
  thread_local std::vector<unsigned> laneBits;
  thread_local std::vector<std::uint32_t> laneOk;
  if (laneBits.size() < std::size_t(chunks)) {
    laneBits.resize(std::size_t(chunks));
    laneOk.resize(8 * std::size_t(chunks));
  }
  std::uint32_t* const ok = laneOk.data();
  const unsigned* const bits = laneBits.data();
  const auto okAt = [ok](int q) {
    return _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ok + 8 * q)));
  };
  for (int kx = 0; kx < g.kernel; ++kx) {
    int lo = 0, hi = 0;
    validRange(kx, 2, g.padding, g.width, ow, lo, hi);
    for (int q = 0; q < chunks; ++q) {
      laneBits[std::size_t(q)] = laneRange(lo - 8 * q, hi - 8 * q);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(ok + 8 * q), laneMask(bits[q]));
    }
    const int offset = kx - g.padding;
    for (int c = 0; c < g.channels; ++c) {
      for (int ky = 0; ky < g.kernel; ++ky) {
        float* row = columns + ((std::size_t(c) * g.kernel + ky) * g.kernel + kx) * cols;
        // rows are filled kx by kx, so a vector may run on only within this one
        const float* const end = row + cols;
        for (int n = 0; n < g.batch; ++n) {
          const float* image = x + (std::size_t(n) * g.channels + c) * inPlane;
          float* dst = row + std::size_t(n) * plane;
          for (int oy = 0; oy < oh; ++oy, dst += ow) {
            const int iy = 2 * oy + ky - g.padding;
            const bool inside = iy >= 0 && iy < g.height;
            // where the row's first load starts, as an offset into x (it may precede x itself)
            const std::ptrdiff_t first = (image - x) + std::ptrdiff_t(iy) * g.width + offset;
            for (int q = 0; q < chunks; ++q) {
              __m256 v = _mm256_setzero_ps();
              const std::ptrdiff_t at = first + 16 * q;
              if (inside && at >= 0 && at + 16 <= total) {
                const float* p = x + at;
                v = _mm256_and_ps(evenLanes(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)), okAt(q));
              } else if (inside) {  // masked loads never touch the lanes outside the image
                const float* p = x + at;
                const unsigned even = _pdep_u32(bits[q], 0x5555u);
                v = evenLanes(_mm256_maskload_ps(p, laneMask(even & 0xffu)),
                              _mm256_maskload_ps(p + 8, laneMask(even >> 8)));
              }
              if (8 * q + 8 <= ow)
                _mm256_storeu_ps(dst + 8 * q, v);
              else
                storeFirst(dst + 8 * q, v, std::size_t(ow - 8 * q), end);
            }
          }
        }
      }
    }
  }
}

constexpr bool kVectorRows = true;
constexpr bool kBf16Same = false;
void im2colSameBf16(const ConvGeometry&, const std::uint16_t*, std::uint16_t*) {}
#else
constexpr bool kBf16Same = false;
void im2colSameBf16(const ConvGeometry&, const std::uint16_t*, std::uint16_t*) {}
inline void im2colRow(float*, const float*, int, int, int, int, int, const float*) {}
bool isSameConv(const ConvGeometry&) {
  return false;
}
void im2colSame(const ConvGeometry&, const float*, float*) {}
void col2imSame(const ConvGeometry&, const float*, float*) {}
constexpr bool kStride2Gather = false;
void im2colStride2(const ConvGeometry&, const float*, float*) {}
constexpr bool kVectorRows = false;
#endif

inline void zeroRow(float* dst, int n) {
  for (int i = 0; i < n; ++i) dst[i] = 0.0f;
}

// dst[ox] = src[ox * stride + offset] for ox in [lo, hi), 0 for the other ox in [0, ow).
inline void scalarIm2colRow(float* dst, const float* src, int offset, int stride, int ow, int lo,
                            int hi) {
  zeroRow(dst, lo);
  for (int ox = lo; ox < hi; ++ox) dst[ox] = src[ox * stride + offset];
  zeroRow(dst + hi, ow - hi);
}

}  // namespace

void im2col(const ConvGeometry& g, const float* x, float* columns) {
  if (kVectorRows && isSameConv(g)) return im2colSame(g, x, columns);
  if (kStride2Gather && g.stride == 2) return im2colStride2(g, x, columns);
  const int oh = g.outHeight(), ow = g.outWidth();
  const std::size_t plane = std::size_t(oh) * ow;
  const std::size_t cols = g.columnCols();
  const std::size_t inPlane = std::size_t(g.height) * g.width;
  const bool vector = kVectorRows && (g.stride == 1 || g.stride == 2);
  const float* const end = columns + g.columnRows() * cols;
  for (int c = 0; c < g.channels; ++c) {
    for (int ky = 0; ky < g.kernel; ++ky) {
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
            if (iy < 0 || iy >= g.height) {  // all padding: nothing in range
              if (vector)
                im2colRow(dst, src, 0, g.stride, ow, 0, 0, end);
              else
                zeroRow(dst, ow);
              continue;
            }
            const float* srow = src + std::size_t(iy) * g.width;
            if (vector)
              im2colRow(dst, srow, kx - g.padding, g.stride, ow, xlo, xhi, end);
            else
              scalarIm2colRow(dst, srow, kx - g.padding, g.stride, ow, xlo, xhi);
          }
        }
      }
    }
  }
}

void im2colBf16(const ConvGeometry& g, const std::uint16_t* x, std::uint16_t* columns) {
  if (kBf16Same && isSameConv(g)) return im2colSameBf16(g, x, columns);
  const int oh = g.outHeight(), ow = g.outWidth();
  const std::size_t plane = std::size_t(oh) * ow;
  const std::size_t cols = g.columnCols();
  const std::size_t inPlane = std::size_t(g.height) * g.width;
  for (int c = 0; c < g.channels; ++c)
    for (int ky = 0; ky < g.kernel; ++ky)
      for (int kx = 0; kx < g.kernel; ++kx) {
        std::uint16_t* row = columns + ((std::size_t(c) * g.kernel + ky) * g.kernel + kx) * cols;
        int xlo, xhi;
        validRange(kx, g.stride, g.padding, g.width, ow, xlo, xhi);
        for (int n = 0; n < g.batch; ++n) {
          const std::uint16_t* src = x + (std::size_t(n) * g.channels + c) * inPlane;
          for (int oy = 0; oy < oh; ++oy) {
            std::uint16_t* dst = row + std::size_t(n) * plane + std::size_t(oy) * ow;
            const int iy = oy * g.stride + ky - g.padding;
            std::fill_n(dst, ow, std::uint16_t(0));
            if (iy < 0 || iy >= g.height) continue;
            const std::uint16_t* srow = src + std::size_t(iy) * g.width + (kx - g.padding);
            for (int ox = xlo; ox < xhi; ++ox) dst[ox] = srow[ox * g.stride];
          }
        }
      }
}

void col2im(const ConvGeometry& g, const float* columns, float* dx) {
  const int oh = g.outHeight(), ow = g.outWidth();
  const std::size_t plane = std::size_t(oh) * ow;
  const std::size_t cols = g.columnCols();
  const std::size_t inPlane = std::size_t(g.height) * g.width;
  if (kVectorRows && isSameConv(g)) return col2imSame(g, columns, dx);
  std::fill(dx, dx + std::size_t(g.batch) * g.channels * inPlane, 0.0f);
  for (int c = 0; c < g.channels; ++c) {
    for (int ky = 0; ky < g.kernel; ++ky) {
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
  }
}

void channelsFirst(const float* src, float* dst, int batch, int channels, std::size_t plane) {
  if (plane == 1) {  // a transposition [batch, channels] -> [channels, batch], tile by tile
    constexpr int kTile = 16;
    for (int n0 = 0; n0 < batch; n0 += kTile) {
      for (int c0 = 0; c0 < channels; c0 += kTile) {
        const int nEnd = std::min(batch, n0 + kTile), cEnd = std::min(channels, c0 + kTile);
        for (int c = c0; c < cEnd; ++c) {
          for (int n = n0; n < nEnd; ++n)
            dst[std::size_t(c) * std::size_t(batch) + std::size_t(n)] =
                src[std::size_t(n) * std::size_t(channels) + std::size_t(c)];
        }
      }
    }
    return;
  }
  const std::size_t cols = std::size_t(batch) * plane;
  for (int c = 0; c < channels; ++c)
    for (int n = 0; n < batch; ++n) {
      const float* from = src + (std::size_t(n) * channels + c) * plane;
      std::copy(from, from + plane, dst + std::size_t(c) * cols + std::size_t(n) * plane);
    }
}

}  // namespace paritylab::nn
