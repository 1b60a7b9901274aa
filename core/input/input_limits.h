#pragma once
// The limits on every count and size a user can write: the study spec, the policy JSON, the
// command-line flags and the files they name. Each is far beyond what a real study on a CPU uses;
// past it, the input is refused with a message naming the field and the limit (never a
// std::bad_alloc or a wrapped integer). docs/study-spec.md lists them.

#include <cstdint>

namespace paritylab::input {

// JSON documents (study spec, policy): nesting depth and file size.
inline constexpr int kMaxJsonDepth = 64;
inline constexpr std::uint64_t kMaxJsonFileBytes = std::uint64_t(16) << 20;  // 16 MiB

// Study: seeds (count and value: a seed is stored as a 64-bit signed integer), backends, epochs.
inline constexpr std::int64_t kMaxSeeds = 10'000;
inline constexpr std::int64_t kMaxSeedValue = INT64_MAX;  // 9223372036854775807
inline constexpr std::int64_t kMaxEpochs = 10'000;
inline constexpr std::int64_t kMaxBatchSize = 65'536;
inline constexpr std::int64_t kMaxThreads = 1'024;
// A sweep (hyperparameters crossed with the backends): values per factor, and the runs of the
// whole grid (backends x cells x seeds).
inline constexpr std::int64_t kMaxSweepValues = 1'000;
inline constexpr std::int64_t kMaxStudyRuns = 100'000;

// Dataset: images per split, class indices, the side images are resized to.
inline constexpr std::int64_t kMaxDatasetImages = 10'000'000;
inline constexpr std::int64_t kMaxClasses = 100'000;
inline constexpr std::int64_t kMaxImageSide = 1'024;
// Decoded image files (folder:, celeba:): width x height before resizing (a 8000 x 5000 photo).
inline constexpr std::int64_t kMaxDecodedImagePixels = 40'000'000;

// A text corpus (`text:FILE`, language models): bytes of text after decompression. Loading holds
// the text and its 16-bit tokens at once (3 bytes a byte: 768 MiB at the limit).
inline constexpr std::uint64_t kMaxTextCorpusBytes = std::uint64_t(256) << 20;  // 256 MiB

// Model: resnet18's first-stage width (torchvision's ResNet-18 is 64).
inline constexpr std::int64_t kMaxModelWidth = 256;
// Model: gpt's shape. GPT-2 XL (48 layers, 25 heads, 1600 wide, 1024 tokens) is within them; a
// CPU study stays far below.
inline constexpr std::int64_t kMaxGptLayers = 64;
inline constexpr std::int64_t kMaxGptHeads = 64;
inline constexpr std::int64_t kMaxGptEmbedding = 4'096;
inline constexpr std::int64_t kMaxGptBlockSize = 4'096;
// A language model's sample (its prompt in bytes, the tokens it writes) and its temperature.
inline constexpr std::int64_t kMaxSamplePrompt = 4'096;
inline constexpr std::int64_t kMaxSampleLength = 10'000;
inline constexpr double kMaxSampleTemperature = 100.0;
// Training counted in steps (a run's `steps`, a schedule's warmup_steps).
inline constexpr std::int64_t kMaxSteps = 100'000'000;

// Policy: emulated replicas (TPU cores) and the fp8 amax history (Transformer Engine: 1024).
inline constexpr std::int64_t kMaxReplicas = 1'024;
inline constexpr std::int64_t kMaxAmaxHistoryLength = 16'384;
inline constexpr std::int64_t kMaxPolicyInteger = std::int64_t(1) << 30;  // chunks, intervals

// Learning rates, weight decay, loss-scale factors: finite and below this magnitude.
inline constexpr double kMaxHyperparameter = 1e6;

// `matmul`: values in the product (4096 x 4096) and bytes of each input CSV.
inline constexpr std::int64_t kMaxMatmulOutputValues = std::int64_t(1) << 24;
inline constexpr std::uint64_t kMaxMatmulCsvBytes = std::uint64_t(64) << 20;  // 64 MiB

}  // namespace paritylab::input
