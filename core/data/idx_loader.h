#pragma once
// MNIST-family IDX files (yann.lecun.com format): big-endian header, unsigned bytes.
//   images: magic 0x00000803, count, rows, cols, then count*rows*cols pixels
//   labels: magic 0x00000801, count, then count labels
// Files may be gzip-compressed or raw; auto-detected by name in a directory.

#include <string>
#include <vector>

#include "core/data/source_data.h"

namespace paritylab::data {

enum class IdxFlavor { Mnist, FashionMnist };

inline constexpr const char* kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// "T-shirt/top", "Trouser", ... "Ankle boot" or "0".."9".
std::vector<std::string> idxClassNames(IdxFlavor flavor);

// One images file + one labels file -> [n, 1, rows, cols] pixels / 255. Checks magic numbers,
// dimensions, equal counts, truncation, trailing bytes and labels < classNames.size().
Dataset readIdxPair(const std::string& imagesPath, const std::string& labelsPath,
                    const std::vector<std::string>& classNames);

// Finds train-images-idx3-ubyte[.gz], train-labels-idx1-ubyte[.gz], t10k-... in `dir`
// (also the "train-images.idx3-ubyte" spelling) and reads both splits.
SourceData loadIdxDirectory(const std::string& dir, IdxFlavor flavor);

}  // namespace paritylab::data
