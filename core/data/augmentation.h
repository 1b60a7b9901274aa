#pragma once
// Training-time augmentation applied per batch: random crop after zero padding (the image is
// shifted by dy, dx in [-pad, pad], uncovered pixels 0) and an optional horizontal flip with
// probability 1/2. Each image's draws depend only on (seed, firstIndex + its position in the
// batch), so results do not depend on batching or threads. No allocation once a thread's scratch
// image has grown to the largest image size seen.

#include <cstdint>

#include "core/data/dataset.h"

namespace paritylab::data {

struct AugmentConfig {
  int pad = 2;                 // pixels of zero padding before the random crop (0 = no crop)
  bool horizontalFlip = true;  // mirror left-right with probability 1/2
};

// The spec's defaults for a training set: pad 2 for images up to 28x28, 4 for larger; flip only
// where it preserves the label (not for digits or synthetic patterns).
AugmentConfig defaultAugmentation(const Dataset& train);

// images: [n, c, h, w] row-major, augmented in place.
void augmentBatch(float* images, int n, int c, int h, int w, const AugmentConfig& cfg,
                  std::uint64_t seed, std::uint64_t firstIndex = 0);

}  // namespace paritylab::data
