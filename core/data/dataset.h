#pragma once
// In-memory image classification datasets.
// CONTRACT (owned by core/data; core/nn and core/study rely on these names).

#include <cstdint>
#include <string>
#include <vector>

namespace paritylab::data {

// N images, each [channels, height, width]; pixels as float, normalised (see normalize()).
struct Dataset {
  int channels = 1;
  int height = 28;
  int width = 28;
  int numClasses = 10;
  std::vector<float> images;         // [n, channels, height, width], row-major
  std::vector<std::int32_t> labels;  // [n], each in [0, numClasses)
  std::vector<std::string> classNames;

  std::size_t size() const { return labels.size(); }
  std::size_t imageSize() const { return std::size_t(channels) * height * width; }
  const float* image(std::size_t i) const { return images.data() + i * imageSize(); }
};

struct DataSplit {
  Dataset train;
  Dataset test;
};

// What a study asks for. `source` is one of:
//   "fashion-mnist"        the Debian package's files (/usr/share/datasets/fashion-mnist)
//   "fashion-mnist:DIR"    Fashion-MNIST IDX files (gz or raw) in DIR
//   "mnist:DIR"            MNIST IDX files in DIR
//   "cifar10:DIR"          CIFAR-10 binary batches in DIR
//   "celeba:DIR"           DIR/img_align_celeba/ + DIR/identity_CelebA.txt
//   "folder:DIR"           one subfolder per class, images decoded and resized with OpenCV
//   "synthetic"            a small generated set (deterministic in `seed`)
struct DatasetSpec {
  std::string source = "fashion-mnist";
  std::int64_t trainSize = 0;  // 0 = all available; otherwise a stratified subset by `seed`
  std::int64_t testSize = 0;   // 0 = all available
  double testFraction = 0.0;   // > 0: ignore the source's own split, re-split stratified by `seed`
  std::uint64_t seed = 0;
  int imageSize = 0;           // folder/celeba: resize to imageSize x imageSize (0 = source default)
  int celebaIdentities = 10;   // celeba: the N most frequent identities
  std::vector<int> classes;    // non-empty: keep only these classes, relabelled 0..k-1 in order
  bool normalize = true;       // per-channel mean/std of the training split applied to both
  bool augment = false;        // random crop (pad 2 for 28x28, 4 for 32x32) + horizontal flip
                               // (flip not for digits); applied by the trainer per batch
};

// Loads and splits. Throws DataError naming the file and what is wrong (missing, truncated,
// bad magic number, label out of range, unknown source).
DataSplit loadDataset(const DatasetSpec& spec);

}  // namespace paritylab::data
