#pragma once
// What a source loader hands to the loadDataset pipeline: pixels in [0, 1], not yet filtered,
// subset or normalised.

#include "core/data/dataset.h"

namespace paritylab::data {

struct SourceData {
  Dataset train;         // all images when the source has no split of its own
  Dataset test;          // empty when !hasSplit
  bool hasSplit = true;  // false: folder, celeba (loadDataset splits by testFraction, default 0.2)
};

}  // namespace paritylab::data
