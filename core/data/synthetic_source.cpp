#include "core/data/synthetic_source.h"

#include <cmath>
#include <random>

#include "core/data/byte_reader.h"
#include "core/data/shuffle.h"

namespace paritylab::data {
namespace {

constexpr int kSide = 28;

const char* const kNames[kSyntheticClasses] = {
    "blob centre", "blob top-left", "blob top-right", "blob bottom-left", "blob bottom-right",
    "stripes 0",   "stripes 36",    "stripes 72",     "stripes 108",      "stripes 144"};

double normal(std::mt19937_64& rng) {
  const double u1 = std::max(uniformUnit(rng), 1e-300);
  const double u2 = uniformUnit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// One [28, 28] image of pattern `kind`, pixels clamped to [0, 1].
void drawPattern(int kind, std::mt19937_64& rng, float* out) {
  const double amplitude = 0.7 + 0.3 * uniformUnit(rng);
  const double jitterX = 2.0 * (uniformUnit(rng) - 0.5) * 2.0;
  const double jitterY = 2.0 * (uniformUnit(rng) - 0.5) * 2.0;
  static const double kBlobX[5] = {13.5, 7, 20, 7, 20};
  static const double kBlobY[5] = {13.5, 7, 7, 20, 20};
  // Stripes keep a fixed phase up to a quarter period, so each orientation has a consistent mean
  // image (learnable by a linear layer, not only by phase-invariant features).
  const double phase = 6.283185307179586 * 0.5 * (uniformUnit(rng) - 0.5);
  const double angle = kind >= 5 ? (kind - 5) * 36.0 * 3.141592653589793 / 180.0 : 0.0;
  const double ca = std::cos(angle), sa = std::sin(angle);
  for (int y = 0; y < kSide; ++y)
    for (int x = 0; x < kSide; ++x) {
      double v;
      if (kind < 5) {
        const double dx = x - (kBlobX[kind] + jitterX), dy = y - (kBlobY[kind] + jitterY);
        v = amplitude * std::exp(-(dx * dx + dy * dy) / (2.0 * 3.0 * 3.0));
      } else {
        // stripes of period 8 px across direction `angle`, through the image centre
        const double t = (x - 13.5) * ca + (y - 13.5) * sa;
        v = amplitude * 0.5 * (1.0 + std::cos(6.283185307179586 * t / 8.0 + phase));
      }
      v += 0.15 * normal(rng);
      out[y * kSide + x] = float(std::min(1.0, std::max(0.0, v)));
    }
}

Dataset generate(std::int64_t n, std::uint64_t seed, const std::vector<int>& kinds) {
  Dataset d;
  d.channels = 1;
  d.height = d.width = kSide;
  d.numClasses = int(kinds.size());
  for (int k : kinds) d.classNames.emplace_back(kNames[k]);
  d.flipPreservesLabel = false;  // mirrored blobs/stripes are other classes
  d.images.resize(std::size_t(n) * kSide * kSide);
  d.labels.resize(std::size_t(n));
  std::mt19937_64 rng(seed);
  for (std::int64_t i = 0; i < n; ++i) {
    const int label = int(i % std::int64_t(kinds.size()));
    d.labels[std::size_t(i)] = label;
    drawPattern(kinds[std::size_t(label)], rng, d.images.data() + std::size_t(i) * kSide * kSide);
  }
  return d;
}

}  // namespace

SourceData generateSynthetic(std::int64_t trainSize, std::int64_t testSize, std::uint64_t seed,
                             const std::vector<int>& classes) {
  std::vector<int> kinds = classes;
  if (kinds.empty())
    for (int k = 0; k < kSyntheticClasses; ++k) kinds.push_back(k);
  for (int k : kinds)
    if (k < 0 || k >= kSyntheticClasses)
      throwDataError("synthetic", "class " + std::to_string(k) + " is out of range (10 classes)");
  const std::int64_t nTrain = trainSize > 0 ? trainSize : kSyntheticTrainSize;
  const std::int64_t nTest = testSize > 0 ? testSize : kSyntheticTestSize;
  SourceData s;
  s.train = generate(nTrain, mixSeed(seed, 1), kinds);
  s.test = generate(nTest, mixSeed(seed, 2), kinds);
  s.hasSplit = true;
  return s;
}

}  // namespace paritylab::data
