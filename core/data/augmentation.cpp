#include "core/data/augmentation.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/data/shuffle.h"

namespace paritylab::data {

AugmentConfig defaultAugmentation(const Dataset& train) {
  AugmentConfig cfg;
  cfg.pad = std::max(train.height, train.width) <= 28 ? 2 : 4;
  cfg.horizontalFlip = train.flipPreservesLabel;
  return cfg;
}

void augmentBatch(float* images, int n, int c, int h, int w, const AugmentConfig& cfg,
                  std::uint64_t seed, std::uint64_t firstIndex) {
  const int pad = std::max(cfg.pad, 0);
  if ((pad == 0 && !cfg.horizontalFlip) || n <= 0) return;
  const std::size_t plane = std::size_t(h) * w;
  const std::size_t item = plane * std::size_t(c);
  thread_local std::vector<float> scratch;
  if (scratch.size() < item) scratch.resize(item);
  for (int i = 0; i < n; ++i) {
    // Counter-based draws: 64 bits per image are plenty (two offsets + one flip bit).
    const std::uint64_t bits = mixSeed(seed, firstIndex + std::uint64_t(i));
    const std::uint64_t span = std::uint64_t(2 * pad + 1);
    const int dy = int((bits & 0xFFFFFF) * span >> 24) - pad;
    const int dx = int(((bits >> 24) & 0xFFFFFF) * span >> 24) - pad;
    const bool mirror = cfg.horizontalFlip && ((bits >> 63) & 1u);
    float* img = images + std::size_t(i) * item;
    if (dy == 0 && dx == 0 && !mirror) continue;
    std::memcpy(scratch.data(), img, item * sizeof(float));
    // Output column x reads cropped column xs = (mirror ? w-1-x : x), i.e. source xs + dx.
    const int x0 = std::max(0, -dx), x1 = std::min(w, w - dx);  // valid cropped columns [x0, x1)
    for (int ch = 0; ch < c; ++ch) {
      const float* src = scratch.data() + std::size_t(ch) * plane;
      float* dst = img + std::size_t(ch) * plane;
      for (int y = 0; y < h; ++y) {
        float* out = dst + std::size_t(y) * w;
        const int sy = y + dy;
        if (sy < 0 || sy >= h || x0 >= x1) {
          std::fill(out, out + w, 0.0f);
          continue;
        }
        const float* row = src + std::size_t(sy) * w;
        if (!mirror) {
          std::fill(out, out + x0, 0.0f);
          std::memcpy(out + x0, row + x0 + dx, std::size_t(x1 - x0) * sizeof(float));
          std::fill(out + x1, out + w, 0.0f);
        } else {
          for (int x = 0; x < w; ++x) {
            const int xs = w - 1 - x;
            out[x] = (xs >= x0 && xs < x1) ? row[xs + dx] : 0.0f;
          }
        }
      }
    }
  }
}

}  // namespace paritylab::data
