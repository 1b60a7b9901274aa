// Summation orders of the reduction experiment and its error measure.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/nn/gemm.h"
#include "core/nn/training_session.h"
#include "core/playground/reduction.h"

namespace paritylab::playground {

std::string_view toString(SummationOrder order) {
  switch (order) {
    case SummationOrder::Sequential:
      return "sequential";
    case SummationOrder::Pairwise:
      return "pairwise";
    case SummationOrder::Blocked8:
      return "blocked-8";
  }
  return "sequential";
}

float sequentialSum(const std::vector<float>& values) {
  float s = 0.0f;
  for (float v : values) s += v;
  return s;
}

float pairwiseSum(const std::vector<float>& values) {
  if (values.empty()) return 0.0f;
  std::vector<float> level(values);
  // One tree level at a time: adjacent pairs added, an odd last element carried up unchanged.
  while (level.size() > 1) {
    const std::size_t half = level.size() / 2;
    for (std::size_t i = 0; i < half; ++i) level[i] = level[2 * i] + level[2 * i + 1];
    if (level.size() % 2 == 1) {
      level[half] = level.back();
      level.resize(half + 1);
    } else {
      level.resize(half);
    }
  }
  return level[0];
}

float blockedSum(const std::vector<float>& values, int shards) {
  if (shards < 1) throw std::invalid_argument("blockedSum: shards must be >= 1");
  const std::size_t n = values.size();
  std::vector<std::vector<float>> partial(std::size_t(shards), std::vector<float>(1, 0.0f));
  for (int r = 0; r < shards; ++r) {
    const std::size_t begin = n * std::size_t(r) / std::size_t(shards);
    const std::size_t end = n * std::size_t(r + 1) / std::size_t(shards);
    float s = 0.0f;
    for (std::size_t i = begin; i < end; ++i) s += values[i];
    partial[std::size_t(r)][0] = s;
  }
  // The replicas' all-reduce (the same fixed tree the training emulation uses): it leaves the
  // tree sum in partial[0] before averaging it into `mean`.
  float mean = 0.0f;
  nn::allReduceMean(partial, shards, &mean, 1);
  return partial[0][0];
}

float orderedSum(const std::vector<float>& values, SummationOrder order) {
  switch (order) {
    case SummationOrder::Sequential:
      return sequentialSum(values);
    case SummationOrder::Pairwise:
      return pairwiseSum(values);
    case SummationOrder::Blocked8:
      return blockedSum(values, 8);
  }
  return sequentialSum(values);
}

float lowPrecisionSequentialSum(const std::vector<float>& values,
                                const numerics::RoundingSpec& format) {
  const numerics::Rounder& rounder = nn::cachedRounder(format);
  float s = 0.0f;
  for (float v : values) s = rounder.round(s + v);
  return s;
}

double normalizedError(double computed, double exact, double magnitudeSum) {
  const double error = std::fabs(computed - exact);
  if (!std::isfinite(computed)) return computed != computed ? computed : INFINITY;
  return magnitudeSum > 0.0 ? error / magnitudeSum : error;
}

Band band(std::vector<double> errors) {
  Band b;
  if (errors.empty()) return b;
  std::sort(errors.begin(), errors.end(), [](double x, double y) {
    return std::isnan(y) ? !std::isnan(x) : (!std::isnan(x) && x < y);
  });
  b.min = errors.front();
  b.max = errors.back();
  const std::size_t n = errors.size();
  b.median = n % 2 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
  return b;
}

}  // namespace paritylab::playground
