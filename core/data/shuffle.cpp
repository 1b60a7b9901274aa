#include "core/data/shuffle.h"

#include <numeric>
#include <stdexcept>

namespace paritylab::data {

std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t x = seed ^ (stream * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t uniformBelow(std::mt19937_64& rng, std::uint64_t bound) {
  unsigned __int128 m = static_cast<unsigned __int128>(rng()) * bound;
  auto low = std::uint64_t(m);
  if (low < bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(rng()) * bound;
      low = std::uint64_t(m);
    }
  }
  return std::uint64_t(m >> 64);
}

double uniformUnit(std::mt19937_64& rng) {
  return double(rng() >> 11) * 0x1.0p-53;
}

std::vector<std::uint32_t> shuffledIndices(std::size_t n, std::uint64_t seed) {
  if (n > std::size_t(UINT32_MAX)) throw std::invalid_argument("shuffledIndices: n > 2^32 - 1");
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(seed);
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[uniformBelow(rng, i)]);
  return order;
}

}  // namespace paritylab::data
