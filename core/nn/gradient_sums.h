#pragma once
// The sums of gradients a backend computes outside the products: the replicas' all-reduce and the
// accumulation of micro-batches' gradients, each held in the format a policy's `reduction` names
// (backends::ReductionPolicy; fp32 and a tree order when it names none).

#include <cstdint>
#include <span>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/numerics/rounding.h"

namespace paritylab::nn {

// The mean of the replicas' gradients [count][n], written to out [n]. With the default reduction
// (fp32, tree): summed in a fixed binary-tree order ((0+1)+(2+3))+... in fp32 and divided by the
// count. With a format: each replica's gradient, every partial sum and the mean are held in it.
// Ring order: out is cut into `count` chunks as even as they come, chunk c summed from replica c+1
// round the ring to replica c (a ring reduce-scatter's order). `seed`: the stream of a stochastic
// format. `weights` [count] (null: all 1): replica r's gradient is first multiplied by
// float(weights[r]) in fp32 (shards of unequal size, TrainingSession). The replicas' buffers are
// overwritten (weighted, rounded, partial sums); in the tree order replicas[0] is left holding the
// tree's sum (before the division).
void allReduceMean(std::vector<std::vector<float>>& replicas, int count, float* out, std::size_t n,
                   const backends::ReductionPolicy& reduction = {}, std::uint64_t seed = 0,
                   const std::vector<double>* weights = nullptr);

// allReduceMean taken replica by replica as each gradient is ready: in the tree order each partial
// sum is formed as soon as both of its halves are, and a gradient summed into a partial sum is
// handed back, so at most floor(log2(count)) + 1 are held at once instead of count (a TPU's 8
// replicas: 4 gradients of the model instead of 8). Every element sees the same additions and
// roundings, in the same order, drawing from the same streams, as allReduceMean's: the same bits.
// The ring order needs every replica's gradient and reduces them in finish().
class ReplicaAllReduce {
 public:
  // Starts the reduction of `count` replicas' gradients of n values each. Keeps its own buffers
  // from one reduction to the next (no allocation in a training step's steady state).
  void begin(int count, std::size_t n, const backends::ReductionPolicy& reduction,
             std::uint64_t seed);
  // The next replica's gradient [n] (replicas 0, 1, ..., count - 1 in order), multiplied first by
  // float(weight) unless weight is 1. The reduction writes it until it is handed back.
  void add(float* gradient, double weight = 1.0) { add({&gradient, 1}, {&weight, 1}); }
  // The next replicas' gradients at once (weights: one per gradient), as add() of each in turn:
  // every element sees the same operations in the same order, taken a block of every gradient at
  // a time, so that each gradient is read once and the partial sums stay in cache.
  void add(std::span<float* const> gradients, std::span<const double> weights);
  // The buffers given to add() that the last add() handed back: merged into a partial sum, the
  // reduction no longer reads them.
  const std::vector<float*>& released() const { return released_; }
  // After the count-th add(): the mean into out [n] (not a buffer the reduction still holds).
  // Every buffer is then handed back.
  void finish(float* out);
  // The whole reduction of elements [lo, lo + len) at once, every replica's values at hand
  // (replicas[r] [len]: replica r's elements lo..; weights [count]) and none given to add() for
  // them: each element sees the operations add() of every replica and finish() give it, in the
  // same order, drawing the same; the mean into out [len] (element lo's place). The replicas'
  // values are overwritten.
  void reduceRange(std::span<float* const> replicas, std::span<const double> weights,
                   std::size_t lo, std::size_t len, float* out) const;

 private:
  void hold(float* values, std::size_t draw) const;
  // The ring's sums and mean of elements [lo, lo + len) into out [len] (element lo's place), the
  // replicas' values weighted and held: replicas[r] + first is replica r's element lo.
  void ringMean(std::span<float* const> replicas, std::size_t first, std::size_t lo,
                std::size_t len, float* out) const;
  // The tree's additions that replica r's arrival completes (replicas 0 .. r - 1 arrived before),
  // narrowest first: node lefts[m] adds node rights[m], whose replicas end at r. Returns how many
  // (none in the ring order, which reduces all at once).
  int mergesOnArrival(int r, int (&lefts)[32], int (&rights)[32]) const;
  // The draw of the tree's addition into node `left` at `stride` (allReduceMean's order: every
  // replica's own rounding, then the additions stride by stride, left to right, then the mean).
  std::size_t treeDraw(int stride, int left) const;

  int count_ = 0;
  std::size_t n_ = 0;
  backends::ReduceOrder order_ = backends::ReduceOrder::Tree;
  const numerics::Rounder* held_ = nullptr;  // null: fp32
  std::uint64_t seed_ = 0;
  std::vector<float*> nodes_;  // [replica]: its gradient, then the partial sum it heads
  int arrived_ = 0;
  std::vector<float*> released_;
  // What add() does with each gradient it is given, kept between calls (no allocation).
  struct Merge {
    float* into;
    const float* from;
    std::size_t draw;
  };
  struct Arrival {
    float* gradient;
    float weight;
    bool weighted;
    std::size_t draw;
    std::size_t merges;  // merges_[mergesBegin, mergesBegin + merges)
    std::size_t mergesBegin;
  };
  std::vector<Merge> merges_;
  std::vector<Arrival> arrivals_;
};

// Adds one micro-batch's gradient [n], multiplied by `weight` (1 / micro-batches, as a loss divided
// by their count), into the accumulator sum [n]: sum = grad * weight for the first micro-batch,
// else sum + grad * weight; in `format` (nullopt: fp32) the weighted gradient and every sum are
// rounded to it.
void accumulateGradient(const float* grad, float* sum, std::size_t n, float weight, bool first,
                        const std::optional<numerics::RoundingSpec>& format, std::uint64_t seed);

// a + b held in `format` (nullopt: as it is, in double): a running sum of reported losses.
double heldSum(double a, double b, const std::optional<numerics::RoundingSpec>& format);

}  // namespace paritylab::nn
