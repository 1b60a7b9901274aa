// GEMM with emulated operand rounding (bf16, tf32, bf16x3) against plain
// single-threaded OpenBLAS sgemm on the same shapes. Goal: rounding >= 0.9x of sgemm for 256^3+.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <random>
#include <vector>

#include "core/nn/blas_setup.h"
#include "core/nn/gemm.h"

namespace {

using namespace paritylab;

struct Shape {
  int m, n, k;
};
// Cubes, then small-cnn conv products (im2col, batch 32): conv2 forward [64 x 288] x [288 x
// 14*14*32] and its weight gradient [64 x 6272] x [6272 x 288]; the 3136->128 linear at batch 128.
const Shape kShapes[] = {{128, 128, 128}, {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024},
                         {64, 6272, 288}, {64, 288, 6272}, {128, 128, 3136}};

std::vector<float> randomVector(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

backends::GemmPolicy policyFor(int kind) {
  backends::GemmPolicy p;
  numerics::RoundingSpec s;
  if (kind == 1 || kind == 2) {
    s.format = *numerics::parseFormat(kind == 1 ? "bf16" : "tf32");
    s.mode = kind == 1 ? numerics::RoundingMode::NearestEven : numerics::RoundingMode::NearestAway;
    p.operands = s;
  }
  if (kind == 3) p.passes = backends::MultiPass::Bf16x3;
  return p;
}

// kind: -1 plain cblas_sgemm, 0 gemm() fp32 policy, 1 bf16, 2 tf32 nearest-away, 3 bf16x3.
void BM_Gemm(benchmark::State& state) {
  const Shape s = kShapes[state.range(0)];
  const int kind = int(state.range(1));
  auto A = randomVector(std::size_t(s.m) * s.k, 1), B = randomVector(std::size_t(s.k) * s.n, 2);
  std::vector<float> C(std::size_t(s.m) * s.n);
  nn::configureBlas();  // the kernels gemm() uses
  const auto policy = policyFor(kind);
  nn::GemmWorkspace ws;
  for (auto _ : state) {
    if (kind < 0)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, s.n, s.k, 1.0f, A.data(), s.k,
                  B.data(), s.n, 0.0f, C.data(), s.n);
    else
      nn::gemm(policy, nn::Trans::No, nn::Trans::No, s.m, s.n, s.k, 1.0f, A.data(), s.k, B.data(),
               s.n, 0.0f, C.data(), s.n, ws);
    benchmark::DoNotOptimize(C.data());
  }
  state.SetItemsProcessed(state.iterations() * 2 * std::int64_t(s.m) * s.n * s.k);
  static const char* names[] = {"sgemm", "fp32", "bf16", "tf32", "bf16x3"};
  state.SetLabel(std::string(names[kind + 1]) + " " + std::to_string(s.m) + "x" +
                 std::to_string(s.n) + "x" + std::to_string(s.k));
}
BENCHMARK(BM_Gemm)
    ->ArgsProduct({benchmark::CreateDenseRange(0, 6, 1), {-1, 1, 2, 3}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
