// Block quantization throughput (MX, NVFP4, blockwise fp8) along rows and along columns, against
// bf16 rounding of the same buffer: what a block-scaled product pays per operand element on top
// of the rounding an autocast product pays.

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "core/numerics/block_scaling.h"
#include "core/numerics/rounding.h"

namespace {

using namespace paritylab::numerics;

// An im2col-sized operand: [288, 6272] (small-cnn's second conv, batch 32).
constexpr std::int64_t kRows = 288, kCols = 6272;

std::vector<float> normalBuffer(std::size_t n) {
  std::mt19937 gen(3);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

void BM_Quantize(benchmark::State& state, BlockScalingKind kind, BlockAxis axis,
                 std::int64_t rows = kRows, std::int64_t cols = kCols, bool stochastic = false) {
  BlockScaling spec = defaultBlockScaling(kind);
  if (stochastic) spec.rounding = RoundingMode::Stochastic;
  const std::vector<float> src = normalBuffer(std::size_t(rows * cols));
  std::vector<float> dst(src.size());
  for (auto _ : state) {
    quantizeBlocks(src, dst, rows, cols, cols, axis, spec);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetItemsProcessed(state.iterations() * rows * cols);
}

void BM_RoundBf16(benchmark::State& state) {
  const Rounder bf16(RoundingSpec{*parseFormat("bf16"), RoundingMode::NearestEven});
  const std::vector<float> src = normalBuffer(std::size_t(kRows * kCols));
  std::vector<float> dst(src.size());
  for (auto _ : state) {
    bf16.applyCopy(src, dst);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetItemsProcessed(state.iterations() * kRows * kCols);
}

// NVFP4's random Hadamard transform of a weight-gradient operand, in place.
void BM_RandomHadamard(benchmark::State& state, BlockAxis axis, std::int64_t rows = kRows,
                       std::int64_t cols = kCols) {
  std::vector<float> values = normalBuffer(std::size_t(rows * cols));
  for (auto _ : state) {
    randomHadamardTransform(values, rows, cols, cols, axis, 7);
    benchmark::DoNotOptimize(values.data());
  }
  state.SetItemsProcessed(state.iterations() * rows * cols);
}

BENCHMARK(BM_RoundBf16)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Quantize, mx_rows, BlockScalingKind::MX, BlockAxis::Row)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Quantize, mx_columns, BlockScalingKind::MX, BlockAxis::Column)
    ->Unit(benchmark::kMicrosecond);
// ResNet-18's first stage on 28 x 28 images: one image's im2col columns [16 x 9, 784], a size
// that stays in a core's second-level cache.
BENCHMARK_CAPTURE(BM_Quantize, mx_columns_144x784, BlockScalingKind::MX, BlockAxis::Column, 144,
                  784)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Quantize, mx_rows_144x784, BlockScalingKind::MX, BlockAxis::Row, 144, 784)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Quantize, nvfp4_rows, BlockScalingKind::NVFP4, BlockAxis::Row)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Quantize, nvfp4_columns, BlockScalingKind::NVFP4, BlockAxis::Column)
    ->Unit(benchmark::kMicrosecond);
// Gradients as NVIDIA's recipe rounds them: stochastically.
BENCHMARK_CAPTURE(BM_Quantize, nvfp4_stochastic_rows, BlockScalingKind::NVFP4, BlockAxis::Row,
                  kRows, kCols, true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Quantize, nvfp4_stochastic_columns, BlockScalingKind::NVFP4, BlockAxis::Column,
                  kRows, kCols, true)
    ->Unit(benchmark::kMicrosecond);
// small-cnn's first convolution's output gradient at batch 128, [N, C x H x W] = [128, 32 x 784],
// as its weight-gradient product reads it: blocks along the batch, down the columns.
BENCHMARK_CAPTURE(BM_Quantize, nvfp4_stochastic_columns_128x25088, BlockScalingKind::NVFP4,
                  BlockAxis::Column, 128, 25088, true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_RandomHadamard, columns_128x25088, BlockAxis::Column, 128, 25088)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_RandomHadamard, rows, BlockAxis::Row)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_RandomHadamard, columns, BlockAxis::Column)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Quantize, blockwise_rows, BlockScalingKind::Blockwise, BlockAxis::Row)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
