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

void ReplicaAllReduce::begin(int count, std::size_t n, const backends::ReductionPolicy& reduction,
                             std::uint64_t seed) {
  count_ = count;
  n_ = n;
  order_ = reduction.order;
  held_ = heldIn(reduction.allReduce);
  seed_ = seed;
  nodes_.assign(std::size_t(std::max(count, 0)), nullptr);
  arrived_ = 0;
  released_.clear();
}

void ReplicaAllReduce::hold(float* values, std::size_t draw) const {
  if (held_) held_->apply({values, n_}, seed_, draw * n_);
}

std::size_t ReplicaAllReduce::treeDraw(int stride, int left) const {
  std::size_t draw = std::size_t(count_);  // after every replica's own rounding
  for (int s = 1; s < stride; s *= 2)      // the additions at the narrower strides
    if (s < count_) draw += std::size_t((count_ - s - 1) / (2 * s) + 1);
  return draw + std::size_t(left / (2 * stride));
}

int ReplicaAllReduce::mergesOnArrival(int r, int (&lefts)[32], int (&rights)[32]) const {
  int merges = 0;
  for (int stride = 1; order_ == backends::ReduceOrder::Tree && stride < count_; stride *= 2) {
    const int left = r / (2 * stride) * (2 * stride);
    const int right = left + stride;
    if (right > r || std::min(left + 2 * stride, count_) - 1 != r) continue;
    lefts[merges] = left;
    rights[merges] = right;
    ++merges;
  }
  return merges;
}

void ReplicaAllReduce::add(std::span<float* const> gradients, std::span<const double> weights) {
  released_.clear();
  merges_.clear();
  arrivals_.clear();
  for (std::size_t g = 0; g < gradients.size(); ++g) {
    const int r = arrived_++;
    nodes_[std::size_t(r)] = gradients[g];
    Arrival arrival{gradients[g],  float(weights[g]), weights[g] != 1.0, std::size_t(r), 0,
                    merges_.size()};
    int lefts[32], rights[32];
    const int merges = mergesOnArrival(r, lefts, rights);
    for (int m = 0; m < merges; ++m) {
      const auto left = std::size_t(lefts[m]), right = std::size_t(rights[m]);
      merges_.push_back({nodes_[left], nodes_[right], treeDraw(rights[m] - lefts[m], lefts[m])});
      released_.push_back(nodes_[right]);
      nodes_[right] = nullptr;
    }
    arrival.merges = std::size_t(merges);
    arrivals_.push_back(arrival);
  }
  // Block by block, so that the new gradients' blocks and their partial sums stay in cache: each
  // element sees the same operations in the same order as a pass of each over whole arrays, and
  // each rounding draws what it would draw there (draw d: offsets d * n + i).
  constexpr std::size_t kBlock = 4096;
  const auto holdBlock = [&](float* values, std::size_t lo, std::size_t len, std::size_t draw) {
    if (held_) held_->apply({values + lo, len}, seed_, draw * n_ + lo);
  };
  for (std::size_t lo = 0; lo < n_; lo += kBlock) {
    const std::size_t len = std::min(kBlock, n_ - lo);
    for (const Arrival& a : arrivals_) {
      if (a.weighted) Map(a.gradient + lo, Eigen::Index(len)) *= a.weight;
      holdBlock(a.gradient, lo, len, a.draw);
      for (std::size_t m = a.mergesBegin; m < a.mergesBegin + a.merges; ++m) {
        Map(merges_[m].into + lo, Eigen::Index(len)) +=
            Eigen::Map<const Eigen::ArrayXf>(merges_[m].from + lo, Eigen::Index(len));
        holdBlock(merges_[m].into, lo, len, merges_[m].draw);
      }
    }
  }
}

void ReplicaAllReduce::finish(float* out) {
  released_.clear();
  if (order_ == backends::ReduceOrder::Tree) {
    Map(out, Eigen::Index(n_)) = Map(nodes_[0], Eigen::Index(n_)) / float(count_);
    hold(out, treeDraw(count_, 0));
    released_.push_back(nodes_[0]);
    nodes_[0] = nullptr;
    return;
  }
  ringMean(nodes_, 0, 0, n_, out);
  for (float*& node : nodes_) {
    released_.push_back(node);
    node = nullptr;
  }
}

void ReplicaAllReduce::reduceRange(std::span<float* const> replicas,
                                   std::span<const double> weights, std::size_t lo, std::size_t len,
                                   float* out) const {
  // draw d of element i: offset d * n + i.
  const auto hold = [&](float* values, std::size_t at, std::size_t count, std::size_t draw) {
    if (held_) held_->apply({values, count}, seed_, draw * n_ + at);
  };
  constexpr std::size_t kBlock = 4096;  // a block of every replica stays in cache
  for (std::size_t b = 0; b < len; b += kBlock) {
    const std::size_t blockLen = std::min(kBlock, len - b);
    const auto values = [&](int r) { return replicas[std::size_t(r)] + b; };
    // Replica by replica, as add() takes them: its weight and hold, then the additions it
    // completes (every element's operations and draws those of add() and finish()).
    for (int r = 0; r < count_; ++r) {
      if (weights[std::size_t(r)] != 1.0)
        Map(values(r), Eigen::Index(blockLen)) *= float(weights[std::size_t(r)]);
      hold(values(r), lo + b, blockLen, std::size_t(r));
      int lefts[32], rights[32];
      const int merges = mergesOnArrival(r, lefts, rights);
      for (int m = 0; m < merges; ++m) {
        Map(values(lefts[m]), Eigen::Index(blockLen)) +=
            Map(values(rights[m]), Eigen::Index(blockLen));
        hold(values(lefts[m]), lo + b, blockLen, treeDraw(rights[m] - lefts[m], lefts[m]));
      }
    }
    if (order_ == backends::ReduceOrder::Tree) {
      Map(out + b, Eigen::Index(blockLen)) = Map(values(0), Eigen::Index(blockLen)) / float(count_);
      hold(out + b, lo + b, blockLen, treeDraw(count_, 0));
      continue;
    }
    ringMean(replicas, b, lo + b, blockLen, out + b);
  }
}

// Ring: chunk c (elements [n c / count, n (c + 1) / count)) summed from replica c + 1 round to
// replica c, each addition's rounding its own draw (chunk c's: count (c + 1) onwards, offsets from
// the chunk's first element), then the mean.
void ReplicaAllReduce::ringMean(std::span<float* const> replicas, std::size_t first, std::size_t lo,
                                std::size_t len, float* out) const {
  const auto replicaCount = std::size_t(count_);
  for (std::size_t i = lo; i < lo + len;) {
    const std::size_t chunk = ((i + 1) * replicaCount - 1) / n_;  // the last one starting <= i
    const std::size_t from = n_ * chunk / replicaCount;
    const std::size_t to = std::min(n_ * (chunk + 1) / replicaCount, lo + len);
    const std::size_t k = i - lo;  // out's index of element i
    const auto piece = Eigen::Index(to - i);
    const auto at = [&](std::size_t r) { return replicas[r % replicaCount] + first + k; };
    std::size_t draw = replicaCount * (chunk + 1);
    const auto holdPiece = [&] {
      if (held_) held_->apply({out + k, to - i}, seed_, (draw++) * n_ + (i - from));
    };
    Map sum(out + k, piece);
    sum = Map(at(chunk + 1), piece);
    for (std::size_t j = 2; j <= replicaCount; ++j) {
      sum += Map(at(chunk + j), piece);
      holdPiece();
    }
    sum /= float(count_);
    holdPiece();
    i = to;
  }
}

void allReduceMean(std::vector<std::vector<float>>& replicas, int count, float* out, std::size_t n,
                   const backends::ReductionPolicy& reduction, std::uint64_t seed,
                   const std::vector<double>* weights) {
  ReplicaAllReduce reduce;
  reduce.begin(count, n, reduction, seed);
  for (int r = 0; r < count; ++r)
    reduce.add(replicas[std::size_t(r)].data(), weights ? (*weights)[std::size_t(r)] : 1.0);
  reduce.finish(out);
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
