#pragma once
// In-memory image classification datasets.
// CONTRACT (owned by core/data; core/nn and core/study rely on these names).

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/input/error.h"

namespace paritylab::data {

// Every loading failure: the message names the file (or the spec field/value) and what is wrong,
// e.g. "/d/train-labels-idx1-ubyte.gz: truncated: header says 60000 labels, file ends after 12
// bytes".
class DataError : public ErrorOf<std::runtime_error> {
 public:
  using ErrorOf::ErrorOf;
};

// N images, each [channels, height, width]; pixels as float, normalised (see normalize()).
struct Dataset {
  int channels = 1;
  int height = 28;
  int width = 28;
  int numClasses = 10;
  std::vector<float> images;         // [n, channels, height, width], row-major
  std::vector<std::int32_t> labels;  // [n], each in [0, numClasses)
  std::vector<std::string> classNames;
  // Per-channel normalisation applied to `images`: stored = (pixel - mean) / std, where pixel is
  // the source value scaled to [0, 1]. Identical in train and test (training-split statistics);
  // mean 0 / std 1 when DatasetSpec::normalize is false. [channels] each.
  std::vector<float> channelMean;
  std::vector<float> channelStd;
  // False where a mirror image may change the class (digits, synthetic patterns): augmentation
  // must not flip horizontally.
  bool flipPreservesLabel = true;

  std::size_t size() const { return labels.size(); }
  std::size_t imageSize() const { return std::size_t(channels) * height * width; }
  const float* image(std::size_t i) const { return images.data() + i * imageSize(); }
};

struct TextSplit;  // core/data/text_split.h

struct DataSplit {
  Dataset train;
  Dataset test;
  // A text source's corpus and windows (a language model's data); null for images. With text,
  // neither split holds images: `train` only names the vocabulary (numClasses, classNames) and
  // `test` holds the validation windows' targets as its labels, one per position, so everything
  // that reads a test set's labels (the divergence analysis) sees one example per predicted token.
  std::shared_ptr<const TextSplit> text;
};

// What a study asks for. `source` is "KIND", "KIND:DIR" or "KIND:FILE", KIND one of
// kDatasetKinds (core/data/dataset_kinds.h, which says what each reads and what may follow ':').
struct DatasetSpec {
  std::string source = "fashion-mnist";
  std::int64_t trainSize = 0;  // 0 = all available; otherwise a stratified subset by `seed`
  std::int64_t testSize = 0;   // 0 = all available
  double testFraction = 0.0;   // > 0: ignore the source's own split, re-split stratified by `seed`
  std::uint64_t seed = 0;
  int imageSize = 0;  // folder/celeba: resize to imageSize x imageSize (0 = source default: 32;
                      // CelebA's 64 of the reference experiment is too slow for CPU studies)
  int celebaIdentities = 10;  // celeba: the N most frequent identities
  std::vector<int> classes;   // non-empty: keep only these classes, relabelled 0..k-1 in order
  bool normalize = true;      // per-channel mean/std of the training split applied to both
  bool augment = false;       // random crop (pad 2 for 28x28, 4 for 32x32) + horizontal flip
                              // (flip not for digits); applied by the trainer per batch
  // text: the language model's block size (a window is blockSize + 1 tokens); the study sets it
  // from the model. testSize then caps the validation windows (0: kMaxValidationWindows).
  int blockSize = 0;
};

// Loads and splits. Pipeline: read the source -> keep `classes` -> re-split by testFraction (when
// > 0, or 0.2 when the source has no split of its own: folder, celeba) -> stratified subsets of
// trainSize/testSize -> per-channel normalisation. Deterministic in `seed`.
// synthetic: trainSize/testSize (defaults 2000/500) say how many images to generate. text: the
// corpus and its windows (loadTextSplit, core/data/text_split.h); classes, testFraction and
// trainSize do not apply and are refused. Throws
// DataError naming the file and what is wrong (missing, truncated, bad magic number, label out of
// range, unknown source).
DataSplit loadDataset(const DatasetSpec& spec);

}  // namespace paritylab::data
