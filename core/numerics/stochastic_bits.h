#pragma once
// Counter-based random bits for stochastic rounding: a pure function of (seed, element index),
// so results never depend on threading, chunking or call order. 32-bit arithmetic only, so the
// rounding loops vectorise (AVX2 has 32-bit multiplies, not 64-bit ones).

#include <cstdint>

namespace paritylab::numerics {

// Chris Wellons' "lowbias32" integer hash (an avalanching bijection on 32 bits).
constexpr std::uint32_t lowbias32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// Two 32-bit keys derived from a 64-bit seed (SplitMix64 finaliser).
struct StochasticKey {
  std::uint32_t lo;
  std::uint32_t hi;
};
constexpr StochasticKey stochasticKey(std::uint64_t seed) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return {static_cast<std::uint32_t>(z), static_cast<std::uint32_t>(z >> 32)};
}

// 32 uniformly distributed bits for element `index` under `key`.
constexpr std::uint32_t stochasticBits(StochasticKey key, std::uint64_t index) {
  const std::uint32_t h = lowbias32(static_cast<std::uint32_t>(index) ^ key.lo);
  return lowbias32(h ^ static_cast<std::uint32_t>(index >> 32) ^ key.hi);
}

}  // namespace paritylab::numerics
