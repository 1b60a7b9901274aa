#include "core/data/stratified_split.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "core/data/byte_reader.h"
#include "core/data/shuffle.h"

namespace paritylab::data {
namespace {

std::vector<std::vector<std::size_t>> indicesByClass(const Dataset& d) {
  std::vector<std::vector<std::size_t>> byClass(std::size_t(std::max(d.numClasses, 0)));
  for (std::size_t i = 0; i < d.size(); ++i) byClass[std::size_t(d.labels[i])].push_back(i);
  return byClass;
}

// For each class, the first take[c] members of a seeded permutation of its members; the union,
// sorted. `rest` receives the others, sorted.
std::vector<std::size_t> drawPerClass(const Dataset& d, const std::vector<std::size_t>& take,
                                      std::uint64_t seed, std::vector<std::size_t>& rest) {
  const auto byClass = indicesByClass(d);
  std::vector<std::size_t> chosen;
  for (std::size_t c = 0; c < byClass.size(); ++c) {
    const std::vector<std::uint32_t> order = shuffledIndices(byClass[c].size(), mixSeed(seed, c));
    for (std::size_t k = 0; k < order.size(); ++k)
      (k < take[c] ? chosen : rest).push_back(byClass[c][order[k]]);
  }
  std::sort(chosen.begin(), chosen.end());
  std::sort(rest.begin(), rest.end());
  return chosen;
}

std::vector<std::size_t> classCounts(const Dataset& d) {
  std::vector<std::size_t> counts(std::size_t(std::max(d.numClasses, 0)), 0);
  for (std::int32_t label : d.labels) ++counts[std::size_t(label)];
  return counts;
}

}  // namespace

std::vector<std::size_t> allocateStratified(const std::vector<std::size_t>& classCounts,
                                            std::size_t total) {
  const std::size_t n = std::accumulate(classCounts.begin(), classCounts.end(), std::size_t(0));
  std::vector<std::size_t> take(classCounts.size(), 0);
  if (n == 0) return take;
  std::vector<std::pair<unsigned __int128, std::size_t>> remainders;  // (remainder, class)
  std::size_t assigned = 0;
  for (std::size_t c = 0; c < classCounts.size(); ++c) {
    const unsigned __int128 q = static_cast<unsigned __int128>(total) * classCounts[c];
    take[c] = std::size_t(q / n);
    assigned += take[c];
    remainders.emplace_back(q % n, c);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; assigned < total && k < remainders.size(); ++k) {
    const std::size_t c = remainders[k].second;
    if (take[c] < classCounts[c]) ++take[c], ++assigned;
  }
  return take;
}

Dataset sameShapeEmpty(const Dataset& d) {
  Dataset out;
  out.channels = d.channels;
  out.height = d.height;
  out.width = d.width;
  out.numClasses = d.numClasses;
  out.classNames = d.classNames;
  out.channelMean = d.channelMean;
  out.channelStd = d.channelStd;
  out.flipPreservesLabel = d.flipPreservesLabel;
  return out;
}

Dataset selectImages(const Dataset& d, const std::vector<std::size_t>& indices) {
  Dataset out = sameShapeEmpty(d);
  out.images.resize(indices.size() * d.imageSize());
  out.labels.resize(indices.size());
  const std::size_t item = d.imageSize();
  for (std::size_t k = 0; k < indices.size(); ++k) {
    std::memcpy(out.images.data() + k * item, d.image(indices[k]), item * sizeof(float));
    out.labels[k] = d.labels[indices[k]];
  }
  return out;
}

Dataset stratifiedSubset(const Dataset& d, std::size_t count, std::uint64_t seed,
                         const std::string& what) {
  if (count > d.size())
    throw DataError(what + " = " + std::to_string(count) + " exceeds the " +
                    std::to_string(d.size()) + " images available");
  if (count == d.size()) return d;
  const std::vector<std::size_t> take = allocateStratified(classCounts(d), count);
  std::vector<std::size_t> rest;
  return selectImages(d, drawPerClass(d, take, seed, rest));
}

DataSplit stratifiedSplit(const Dataset& all, double testFraction, std::uint64_t seed) {
  if (!(testFraction > 0.0 && testFraction < 1.0))
    throw DataError("testFraction = " + std::to_string(testFraction) + " is not in (0, 1)");
  const auto testTotal = std::size_t(std::llround(double(all.size()) * testFraction));
  const std::vector<std::size_t> take = allocateStratified(classCounts(all), testTotal);
  std::vector<std::size_t> trainIdx;
  const std::vector<std::size_t> testIdx = drawPerClass(all, take, seed, trainIdx);
  return DataSplit{selectImages(all, trainIdx), selectImages(all, testIdx), nullptr};
}

Dataset keepClasses(const Dataset& d, const std::vector<int>& classes, const std::string& source) {
  std::vector<int> newLabel(std::size_t(d.numClasses), -1);
  std::vector<std::string> names;
  for (std::size_t k = 0; k < classes.size(); ++k) {
    const int c = classes[k];
    if (c < 0 || c >= d.numClasses)
      throw DataError(source + ": classes: " + std::to_string(c) + " is out of range (" +
                      std::to_string(d.numClasses) + " classes, 0.." +
                      std::to_string(d.numClasses - 1) + ")");
    if (newLabel[std::size_t(c)] >= 0)
      throw DataError(source + ": classes: " + std::to_string(c) + " is listed twice");
    newLabel[std::size_t(c)] = int(k);
    names.push_back(std::size_t(c) < d.classNames.size() ? d.classNames[std::size_t(c)]
                                                         : std::to_string(c));
  }
  if (classes.size() < 2) throw DataError(source + ": classes: at least 2 classes are needed");
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < d.size(); ++i)
    if (newLabel[std::size_t(d.labels[i])] >= 0) kept.push_back(i);
  Dataset out = selectImages(d, kept);
  for (std::int32_t& label : out.labels) label = newLabel[std::size_t(label)];
  out.numClasses = int(classes.size());
  out.classNames = std::move(names);
  return out;
}

Dataset concatenate(const Dataset& a, const Dataset& b) {
  if (a.imageSize() != b.imageSize() || a.numClasses != b.numClasses)
    throw DataError("cannot concatenate datasets of different image shapes or class counts");
  Dataset out = sameShapeEmpty(a);
  out.images.reserve(a.images.size() + b.images.size());
  out.images = a.images;
  out.labels = a.labels;
  out.images.insert(out.images.end(), b.images.begin(), b.images.end());
  out.labels.insert(out.labels.end(), b.labels.begin(), b.labels.end());
  return out;
}

void channelStatistics(const Dataset& d, std::vector<double>& mean, std::vector<double>& sd) {
  const std::size_t plane = std::size_t(d.height) * d.width;
  mean.assign(std::size_t(d.channels), 0.0);
  sd.assign(std::size_t(d.channels), 0.0);
  if (d.size() == 0 || plane == 0) return;
  std::vector<double> sum(std::size_t(d.channels), 0.0), sumSq(std::size_t(d.channels), 0.0);
  for (std::size_t i = 0; i < d.size(); ++i)
    for (int c = 0; c < d.channels; ++c) {
      const float* p = d.image(i) + std::size_t(c) * plane;
      double s = 0.0, s2 = 0.0;
      for (std::size_t k = 0; k < plane; ++k) {
        s += p[k];
        s2 += double(p[k]) * p[k];
      }
      sum[std::size_t(c)] += s;
      sumSq[std::size_t(c)] += s2;
    }
  const double count = double(d.size()) * double(plane);
  for (int c = 0; c < d.channels; ++c) {
    mean[std::size_t(c)] = sum[std::size_t(c)] / count;
    const double var = sumSq[std::size_t(c)] / count - mean[std::size_t(c)] * mean[std::size_t(c)];
    sd[std::size_t(c)] = std::sqrt(std::max(var, 0.0));
  }
}

void normalizeWithTrainStatistics(DataSplit& split, bool apply) {
  const int channels = split.train.channels;
  std::vector<double> mean(std::size_t(channels), 0.0), sd(std::size_t(channels), 1.0);
  if (apply) {
    channelStatistics(split.train, mean, sd);
    for (double& s : sd)
      if (!(s > 1e-12)) s = 1.0;  // a constant channel: centre only
  }
  std::vector<float> fMean(mean.begin(), mean.end()), fStd(sd.begin(), sd.end());
  for (Dataset* d : {&split.train, &split.test}) {
    d->channelMean = fMean;
    d->channelStd = fStd;
    if (!apply) continue;
    const std::size_t plane = std::size_t(d->height) * d->width;
    for (std::size_t i = 0; i < d->size(); ++i)
      for (int c = 0; c < channels; ++c) {
        float* p = d->images.data() + i * d->imageSize() + std::size_t(c) * plane;
        const float m = fMean[std::size_t(c)], inv = float(1.0 / sd[std::size_t(c)]);
        for (std::size_t k = 0; k < plane; ++k) p[k] = (p[k] - m) * inv;
      }
  }
}

}  // namespace paritylab::data
