#pragma once
// CelebA identities: DIR/identity_CelebA.txt ("000001.jpg 2880" per line) + DIR/img_align_celeba/.
// Keeps the N identities with the most images (ties: smaller identity id first), relabelled
// 0..N-1 in that order (class names "identity <id>"). Images are centre-cropped to a square and
// resized to size x size, RGB. No split of its own: loadDataset splits per identity (stratified).
// Default size 32 (the reference experiment used 64; 32 keeps CPU studies fast).

#include <string>

#include "core/data/source_data.h"

namespace paritylab::data {

inline constexpr int kDefaultCelebaImageSize = 32;

SourceData loadCelebaIdentities(const std::string& dir, int identities, int imageSize);

}  // namespace paritylab::data
