// In-place rounding throughput per format and mode, against memcpy of the same buffer
// (the goal: bf16/tf32 nearest modes at least half of memcpy bandwidth; the formats with their own
// exponent range, fp16, fp8 and fnuz, pay for the subnormal shifts, but in whole vectors too).

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/numerics/rounding.h"

namespace {

using namespace paritylab::numerics;

std::vector<float> randomBuffer(std::size_t bytes) {
  std::mt19937 gen(1);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(bytes / sizeof(float));
  for (auto& x : v) x = dist(gen);
  return v;
}

void BM_Round(benchmark::State& state, const char* format, RoundingMode mode) {
  const Rounder rounder(RoundingSpec{*parseFormat(format), mode});
  std::vector<float> buffer = randomBuffer(static_cast<std::size_t>(state.range(0)));
  std::uint64_t offset = 0;
  for (auto _ : state) {
    rounder.apply(buffer, 7, offset);
    offset += buffer.size();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

void BM_Memcpy(benchmark::State& state) {
  std::vector<float> src = randomBuffer(static_cast<std::size_t>(state.range(0)));
  std::vector<float> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size() * sizeof(float));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

constexpr std::int64_t kSmall = 4 << 20;   // 4 MiB: L3-ish
constexpr std::int64_t kLarge = 16 << 20;  // 16 MiB: memory

BENCHMARK(BM_Memcpy)->Arg(kSmall)->Arg(kLarge);
#define PARITYLAB_ROUND_BENCH(name, format, mode) \
  BENCHMARK_CAPTURE(BM_Round, name, format, RoundingMode::mode)->Arg(kSmall)->Arg(kLarge)
PARITYLAB_ROUND_BENCH(bf16_nearest_even, "bf16", NearestEven);
PARITYLAB_ROUND_BENCH(bf16_nearest_away, "bf16", NearestAway);
PARITYLAB_ROUND_BENCH(bf16_toward_zero, "bf16", TowardZero);
PARITYLAB_ROUND_BENCH(bf16_stochastic, "bf16", Stochastic);
PARITYLAB_ROUND_BENCH(tf32_nearest_even, "tf32", NearestEven);
PARITYLAB_ROUND_BENCH(tf32_nearest_away, "tf32", NearestAway);
PARITYLAB_ROUND_BENCH(fp16_nearest_even, "fp16", NearestEven);
PARITYLAB_ROUND_BENCH(fp16_stochastic, "fp16", Stochastic);
PARITYLAB_ROUND_BENCH(fp8_e4m3_nearest_even, "fp8-e4m3", NearestEven);
PARITYLAB_ROUND_BENCH(fp8_e4m3_stochastic, "fp8-e4m3", Stochastic);
PARITYLAB_ROUND_BENCH(fp8_e4m3fnuz_nearest_even, "fp8-e4m3fnuz", NearestEven);

}  // namespace
