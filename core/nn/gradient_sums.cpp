#include "core/nn/gradient_sums.h"

#include <Eigen/Core>
#include <algorithm>
#include <span>

#include "core/nn/gemm.h"

namespace paritylab::nn {
namespace {

using Map = Eigen::Map<Eigen::ArrayXf>;

const numerics::Rounder* heldIn(const std::optional<numerics::RoundingSpec>& format) {
  if (!format) return nullptr;
  const numerics::Rounder& r = cachedRounder(*format);
  return r.isIdentity() ? nullptr : &r;
}

}  // namespace

void allReduceMean(std::vector<std::vector<float>>& replicas, int count, float* out, std::size_t n,
                   const backends::ReductionPolicy& reduction, std::uint64_t seed,
                   const std::vector<double>* weights) {
  const numerics::Rounder* held = heldIn(reduction.allReduce);
  const auto weigh = [&](int r, float* values, std::size_t size) {
    if (weights && (*weights)[std::size_t(r)] != 1.0)
      Map(values, Eigen::Index(size)) *= float((*weights)[std::size_t(r)]);
  };
  if (reduction.order == backends::ReduceOrder::Tree) {
    // Block by block, so that a block's partial sums stay in cache: every element sees the same
    // additions and roundings, in the same order, as a pass of the tree over whole arrays, and
    // each rounding draws from the stream it would draw from there (draw d: offsets d * n + i).
    constexpr std::size_t kBlock = 4096;
    for (std::size_t lo = 0; lo < n; lo += kBlock) {
      const std::size_t len = std::min(kBlock, n - lo);
      const auto at = [&](float* values) { return Map(values + lo, Eigen::Index(len)); };
      std::uint64_t draw = 0;
      const auto hold = [&](float* values) {
        if (held) held->apply({values + lo, len}, seed, (draw++) * n + lo);
      };
      for (int r = 0; r < count; ++r) weigh(r, replicas[std::size_t(r)].data() + lo, len);
      for (int r = 0; held && r < count; ++r) hold(replicas[std::size_t(r)].data());
      for (int stride = 1; stride < count; stride *= 2)
        for (int r = 0; r + stride < count; r += 2 * stride) {
          float* into = replicas[std::size_t(r)].data();
          at(into) += at(replicas[std::size_t(r + stride)].data());
          hold(into);
        }
      at(out) = at(replicas[0].data()) / float(count);
      hold(out);
    }
    return;
  }
  // Each rounding of the reduction draws from its own stream (stochastic formats).
  std::uint64_t draw = 0;
  const auto hold = [&](float* values, std::size_t size) {
    if (held) held->apply({values, size}, seed, (draw++) * n);
  };
  for (int r = 0; r < count; ++r) weigh(r, replicas[std::size_t(r)].data(), n);
  for (int r = 0; held && r < count; ++r) hold(replicas[std::size_t(r)].data(), n);
  for (int c = 0; c < count; ++c) {  // ring: chunk c from replica c + 1 round to replica c
    const std::size_t lo = n * std::size_t(c) / std::size_t(count);
    const std::size_t hi = n * std::size_t(c + 1) / std::size_t(count);
    const auto chunk = Eigen::Index(hi - lo);
    Map sum(out + lo, chunk);
    sum = Map(replicas[std::size_t((c + 1) % count)].data() + lo, chunk);
    for (int j = 2; j <= count; ++j) {
      sum += Map(replicas[std::size_t((c + j) % count)].data() + lo, chunk);
      hold(out + lo, hi - lo);
    }
    sum /= float(count);
    hold(out + lo, hi - lo);
  }
}

void accumulateGradient(const float* grad, float* sum, std::size_t n, float weight, bool first,
                        const std::optional<numerics::RoundingSpec>& format, std::uint64_t seed) {
  const numerics::Rounder* held = heldIn(format);
  Map acc(sum, Eigen::Index(n));
  const Eigen::Map<const Eigen::ArrayXf> g(grad, Eigen::Index(n));
  if (first || held) {
    // The weighted gradient, held in the format before it is added (a gradient of loss / K).
    if (first) {
      acc = g * weight;
      if (held) held->apply({sum, n}, seed);
      return;
    }
    thread_local std::vector<float> weighted;
    weighted.resize(n);
    Map w(weighted.data(), Eigen::Index(n));
    w = g * weight;
    held->apply({weighted.data(), n}, seed);
    acc += w;
    held->apply({sum, n}, seed, n);
    return;
  }
  acc += g * weight;
}

double heldSum(double a, double b, const std::optional<numerics::RoundingSpec>& format) {
  if (!format) return a + b;
  const numerics::Rounder& r = cachedRounder(*format);
  return double(r.round(r.round(float(a)) + r.round(float(b))));
}

}  // namespace paritylab::nn
