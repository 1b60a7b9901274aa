#pragma once
// Per-batch augmentation applied by the trainer when the config asks for it: random crop with
// zero padding (2 pixels for images up to 28x28, 4 for larger) and, if `flip`, a horizontal flip
// with probability 1/2. Draws depend only on (seed, index of the image in the epoch's order).
// Note: core/data declares augmentation in DatasetSpec but (at the time of writing) no batch
// function; this is the trainer's own, and should move behind core/data's API when it exists.

#include <cstdint>

namespace paritylab::nn {

// images [n, channels, height, width], in place; `scratch` holds at least one image.
void augmentBatch(float* images, int n, int channels, int height, int width, bool flip,
                  std::uint64_t seed, std::uint64_t firstIndex, float* scratch);

}  // namespace paritylab::nn
