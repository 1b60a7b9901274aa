#pragma once
// A small generated dataset for smoke tests and quick studies: 10 classes of 1x28x28 patterns,
// five Gaussian blobs (centre and four off-centre positions) and five stripe orientations
// (0, 36, 72, 108, 144 degrees, period 8 px), jittered in position/phase (up to a quarter period)
// and amplitude, with Gaussian pixel noise (sd 0.15). Linearly separable: a nearest-class-mean
// classifier already exceeds 90%, so the mlp does too. Labels cycle through the classes;
// deterministic in seed (train and test drawn from different streams).

#include <cstdint>
#include <vector>

#include "core/data/source_data.h"

namespace paritylab::data {

inline constexpr int kSyntheticClasses = 10;
inline constexpr std::int64_t kSyntheticTrainSize = 2000;
inline constexpr std::int64_t kSyntheticTestSize = 500;

// `classes` (empty = all 10) selects which patterns are used; labels are 0..k-1 in that order.
SourceData generateSynthetic(std::int64_t trainSize, std::int64_t testSize, std::uint64_t seed,
                             const std::vector<int>& classes = {});

}  // namespace paritylab::data
