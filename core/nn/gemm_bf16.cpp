// Products of operands that are bf16 values times one fp32 scale each, on oneDNN's bf16 matmul
// (the CPU's bf16 dot-product instructions where it has them): see Bf16ScaledOperands.
#include <cblas.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <vector>

#include "core/nn/blas_setup.h"
#include "core/nn/gemm_impl.h"

namespace paritylab::nn {
namespace {

// bf16 bits of x, rounded to nearest-even (x is a bf16 value whenever the operand is what
// Bf16ScaledOperands says; then the rounding changes nothing); a NaN stays a NaN.
// Branch-free, so that GCC vectorises the loops calling it.
inline std::uint16_t bf16Bits(float x) {
  const auto u = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t nearest = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const std::uint32_t quietNaN = (u >> 16) | 0x40u;
  const std::uint32_t isNaN = 0u - static_cast<std::uint32_t>((u & 0x7fffffffu) > 0x7f800000u);
  return static_cast<std::uint16_t>((nearest & ~isNaN) | (quietNaN & isNaN));
}

void packRow(const float* __restrict in, std::uint16_t* __restrict out, int cols, float inverse) {
  for (int c = 0; c < cols; ++c) out[c] = bf16Bits(in[c] * inverse);
}

// The calling thread's oneDNN engine and stream, its OpenMP team set to one thread: a product runs
// on the thread that asks for it (a study's runs are its threads, each with single-threaded BLAS).
struct Bf16Engine {
  dnnl::engine engine;
  dnnl::stream stream;
  Bf16Engine() : engine(dnnl::engine::kind::cpu, 0), stream(engine) { omp_set_num_threads(1); }
};

Bf16Engine& threadEngine() {
  thread_local Bf16Engine e;
  return e;
}

// A row-major matrix [rows, cols] with row stride ld, or its transpose, as oneDNN describes it.
dnnl::memory::desc matrix(dnnl::memory::data_type type, int rows, int cols, int ld,
                          bool transposed) {
  using dims = dnnl::memory::dims;
  return transposed ? dnnl::memory::desc(dims{rows, cols}, type, dims{1, ld})
                    : dnnl::memory::desc(dims{rows, cols}, type, dims{ld, 1});
}

// Whether oneDNN has a bf16 matmul for this CPU (from AVX-512 on; not below).
bool oneDnnMultipliesBf16() {
  static const bool has = [] {
    try {
      Bf16Engine e;
      const auto d = dnnl::memory::data_type::bf16;
      const dnnl::matmul::desc desc(matrix(d, 16, 16, 16, false), matrix(d, 16, 16, 16, false),
                                    matrix(dnnl::memory::data_type::f32, 16, 16, 16, false));
      const dnnl::matmul::primitive_desc probe(desc, e.engine);
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return has;
}

// The same product where oneDNN has none: the bf16 values widened to fp32 (exactly) and OpenBLAS's
// sgemm with alpha = scale (its products exact, its sums in fp32, the scale applied once to each).
void bf16ProductOnSgemm(Trans transA, Trans transB, int m, int n, int k, float scale,
                        const std::uint16_t* A, int lda, const std::uint16_t* B, int ldb, float* C,
                        int ldc) {
  thread_local std::vector<float> a, b;
  // The stored matrix [rows, cols] with row stride ld, in the same layout (the last row ends at
  // its last value: a part of a wider matrix may end there).
  const auto widen = [](const std::uint16_t* from, int rows, int cols, int ld,
                        std::vector<float>& to) {
    const std::size_t n =
        rows > 0 ? std::size_t(rows - 1) * std::size_t(ld) + std::size_t(cols) : 0;
    float* out = grow(to, n);
    for (std::size_t i = 0; i < n; ++i) out[i] = std::bit_cast<float>(std::uint32_t(from[i]) << 16);
    return out;
  };
  const float* wa = transA == Trans::No ? widen(A, m, k, lda, a) : widen(A, k, m, lda, a);
  const float* wb = transB == Trans::No ? widen(B, k, n, ldb, b) : widen(B, n, k, ldb, b);
  configureBlas();
  cblas_sgemm(CblasRowMajor, transA == Trans::Yes ? CblasTrans : CblasNoTrans,
              transB == Trans::Yes ? CblasTrans : CblasNoTrans, m, n, k, scale, wa, lda, wb, ldb,
              0.0f, C, ldc);
}

}  // namespace

std::string bf16ProductEngine() {
  if (!oneDnnMultipliesBf16()) return "OpenBLAS sgemm";
  std::string isa = dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa());  // "cpu_isa_avx512_core_bf16"
  if (isa.starts_with("cpu_isa_")) isa.erase(0, 8);
  return "oneDNN " + isa;
}

void packBf16(const float* src, int rows, int cols, int ld, float scale, std::uint16_t* dst) {
  const float inverse = 1.0f / scale;
  const bool multiply = std::isfinite(inverse) && inverse != 0.0f;
  for (int r = 0; r < rows; ++r) {
    const float* in = src + std::size_t(r) * std::size_t(ld);
    std::uint16_t* out = dst + std::size_t(r) * std::size_t(cols);
    if (multiply)
      packRow(in, out, cols, inverse);
    else  // a scale whose reciprocal is not a normal fp32
      for (int c = 0; c < cols; ++c) out[c] = bf16Bits(in[c] / scale);
  }
}

void bf16Product(Trans transA, Trans transB, int m, int n, int k, float scale,
                 const std::uint16_t* A, int lda, const std::uint16_t* B, int ldb, float* C,
                 int ldc) {
  if (k == 0) {
    for (int i = 0; i < m; ++i) std::fill_n(C + std::size_t(i) * std::size_t(ldc), n, 0.0f);
    return;
  }
  if (!oneDnnMultipliesBf16())
    return bf16ProductOnSgemm(transA, transB, m, n, k, scale, A, lda, B, ldb, C, ldc);
  using type = dnnl::memory::data_type;
  Bf16Engine& e = threadEngine();
  const dnnl::memory::desc a = matrix(type::bf16, m, k, lda, transA == Trans::Yes);
  const dnnl::memory::desc b = matrix(type::bf16, k, n, ldb, transB == Trans::Yes);
  const dnnl::memory::desc c = matrix(type::f32, m, n, ldc, false);
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {DNNL_RUNTIME_F32_VAL});  // one scale, given at each call
  // oneDNN keeps the compiled primitive in its cache: a shape seen before costs a lookup.
  const dnnl::matmul product(
      dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), attr, e.engine));
  const dnnl::memory::desc one({1}, type::f32, dnnl::memory::dims{1});
  // oneDNN's memory objects take non-const handles; the operands are only read.
  dnnl::memory am(a, e.engine, const_cast<std::uint16_t*>(A));
  dnnl::memory bm(b, e.engine, const_cast<std::uint16_t*>(B));
  dnnl::memory cm(c, e.engine, C);
  dnnl::memory sm(one, e.engine, &scale);
  product.execute(e.stream, {{DNNL_ARG_SRC, am},
                             {DNNL_ARG_WEIGHTS, bm},
                             {DNNL_ARG_DST, cm},
                             {DNNL_ARG_ATTR_OUTPUT_SCALES, sm}});
  e.stream.wait();
}

}  // namespace paritylab::nn
