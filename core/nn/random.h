#pragma once
// Counter-based random numbers: every draw is a pure function of (seed, stream, index), so runs
// are reproducible whatever else runs on other threads. No global RNG, no <random> distributions
// (their output differs between standard libraries).

#include <cmath>
#include <cstdint>

namespace paritylab::nn {

// SplitMix64 finaliser: a good 64-bit mixing function.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline std::uint64_t hashSeed(std::uint64_t a, std::uint64_t b) {
  return mix64(a ^ mix64(b));
}
inline std::uint64_t hashSeed(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return hashSeed(hashSeed(a, b), c);
}

// Sequential stream of draws from one seed.
class RandomStream {
 public:
  explicit RandomStream(std::uint64_t seed) : state_(mix64(seed)) {}
  std::uint64_t next() { return mix64(state_++); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n) (multiply-shift; deterministic everywhere).
  std::uint64_t below(std::uint64_t n) {
    return std::uint64_t((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  // Standard normal (Box-Muller).
  double normal() {
    double u1 = uniform();
    double u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

 private:
  std::uint64_t state_;
};

}  // namespace paritylab::nn
