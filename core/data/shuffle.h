#pragma once
// Portable deterministic randomness for data handling: std::mt19937_64 (its sequence is fixed by
// the standard) with our own mappings, never <random> distributions (implementation-defined).

#include <cstdint>
#include <random>
#include <vector>

namespace paritylab::data {

// SplitMix64 finaliser, for deriving independent seeds: mixSeed(seed, stream).
std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t stream);

// Uniform integer in [0, bound), bound > 0: Lemire's multiply-shift with rejection (unbiased).
std::uint64_t uniformBelow(std::mt19937_64& rng, std::uint64_t bound);

// Uniform double in [0, 1) with 53 random bits.
double uniformUnit(std::mt19937_64& rng);

// A permutation of 0..n-1 (Fisher-Yates), the same on every platform for the same (n, seed).
std::vector<std::uint32_t> shuffledIndices(std::size_t n, std::uint64_t seed);

}  // namespace paritylab::data
