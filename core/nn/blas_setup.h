#pragma once
// How ParityLab uses OpenBLAS: one thread per run (parallelism is across runs), and the fastest
// kernels this CPU has; and what runs NVFP4's bf16 products. Called once by gemm() before its first
// product; benchmarks and tests that call BLAS directly call it too, so that they measure the same
// kernels.

#include <string>

namespace paritylab::nn {

// Idempotent and thread-safe; executables call it first thing in main(), since re-selecting the
// kernels sets OPENBLAS_CORETYPE with setenv. Sets OpenBLAS to one thread. When OpenBLAS's runtime
// CPU detection does not know this CPU and fell back to a generic SSE kernel set (0.3.21 takes
// Emerald Rapids, family 6 model 207, for a Prescott) although the CPU has AVX-512 or AVX2+FMA, it
// re-selects the SkylakeX or Haswell kernels. An OPENBLAS_CORETYPE set by the user is always
// respected.
void configureBlas();

// OpenBLAS's kernel set in use after configureBlas(), e.g. "SkylakeX" (for bench output).
std::string blasCoreName();

// What runs NVFP4's products of bf16 values (gemm_impl.h's bf16Product): oneDNN's bf16 matmul
// with the instruction set it chose, e.g. "oneDNN avx512_core_bf16", or "OpenBLAS sgemm" on a CPU
// without AVX-512, where oneDNN 2.6 has none. Their sums run in different orders, so NVFP4's bits
// differ between the two (as the other presets' differ between OpenBLAS's kernel sets).
std::string bf16ProductEngine();

}  // namespace paritylab::nn
