#pragma once
// The sums of gradients a backend computes outside the products: the replicas' all-reduce and the
// accumulation of micro-batches' gradients, each held in the format a policy's `reduction` names
// (backends::ReductionPolicy; fp32 and a tree order when it names none).

#include <cstdint>
#include <vector>

#include "core/backends/precision_policy.h"

namespace paritylab::nn {

// The mean of the replicas' gradients [count][n], written to out [n]. With the default reduction
// (fp32, tree): summed in a fixed binary-tree order ((0+1)+(2+3))+... in fp32 and divided by the
// count, the result left in replicas[0] too. With a format: each replica's gradient, every partial
// sum and the mean are held in it (replicas are rounded in place). Ring order: out is cut into
// `count` chunks as even as they come, chunk c summed from replica c+1 round the ring to replica c
// (a ring reduce-scatter's order). `seed`: the stream of a stochastic format. `weights`
// [count] (null: all 1): replica r's gradient is first multiplied by float(weights[r]) in fp32
// (shards of unequal size, TrainingSession), inside the same pass.
void allReduceMean(std::vector<std::vector<float>>& replicas, int count, float* out, std::size_t n,
                   const backends::ReductionPolicy& reduction = {}, std::uint64_t seed = 0,
                   const std::vector<double>* weights = nullptr);

// Adds one micro-batch's gradient [n], multiplied by `weight` (1 / micro-batches, as a loss divided
// by their count), into the accumulator sum [n]: sum = grad * weight for the first micro-batch,
// else sum + grad * weight; in `format` (nullopt: fp32) the weighted gradient and every sum are
// rounded to it.
void accumulateGradient(const float* grad, float* sum, std::size_t n, float weight, bool first,
                        const std::optional<numerics::RoundingSpec>& format, std::uint64_t seed);

// a + b held in `format` (nullopt: as it is, in double): a running sum of reported losses.
double heldSum(double a, double b, const std::optional<numerics::RoundingSpec>& format);

}  // namespace paritylab::nn
