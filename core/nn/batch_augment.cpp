#include "core/nn/batch_augment.h"

#include <algorithm>
#include <cstddef>

#include "core/nn/random.h"

namespace paritylab::nn {

void augmentBatch(float* images, int n, int channels, int height, int width, bool flip,
                  std::uint64_t seed, std::uint64_t firstIndex, float* scratch) {
  const int pad = std::max(height, width) <= 28 ? 2 : 4;
  const std::size_t plane = std::size_t(height) * width;
  const std::size_t item = plane * std::size_t(channels);
  for (int i = 0; i < n; ++i) {
    RandomStream rng(hashSeed(seed, firstIndex + std::uint64_t(i)));
    const int dy = int(rng.below(std::uint64_t(2 * pad + 1))) - pad;
    const int dx = int(rng.below(std::uint64_t(2 * pad + 1))) - pad;
    const bool mirror = flip && (rng.next() & 1u);
    float* img = images + std::size_t(i) * item;
    std::copy(img, img + item, scratch);
    for (int c = 0; c < channels; ++c) {
      const float* src = scratch + std::size_t(c) * plane;
      float* dst = img + std::size_t(c) * plane;
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
          const int sy = y + dy;
          const int sxRaw = x + dx;
          const int sx = mirror ? width - 1 - sxRaw : sxRaw;
          const bool inside = sy >= 0 && sy < height && sxRaw >= 0 && sxRaw < width;
          dst[y * width + x] = inside ? src[sy * width + sx] : 0.0f;
        }
    }
  }
}

}  // namespace paritylab::nn
