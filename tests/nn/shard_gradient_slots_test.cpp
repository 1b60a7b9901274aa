// The shards' gradient slots of a step whose replica shards run as one batch: each parameter is
// all-reduced as soon as the last layer writing it is done (learned from the first step), and
// the means are the bits of the whole-array all-reduce of every shard's gradients.
#include "core/nn/shard_gradient_slots.h"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

// Parameters a [5], b [3], tied [4] (written by two layers, the second adding to the first, as a
// tied head adds to the embedding's gradient) and unused [2] (written by none).
struct FourParameters {
  ParamStore params;
  int a, b, tied, unused;
  FourParameters() {
    a = params.add("a", Shape{5}, ParamKind::Weight, true);
    b = params.add("b", Shape{3}, ParamKind::Weight, true);
    tied = params.add("tied", Shape{4}, ParamKind::Weight, true);
    unused = params.add("unused", Shape{2}, ParamKind::Weight, true);
    params.finalize(false);
  }
};

constexpr int kShards = 3;
const std::vector<double> kWeights{1.0, 4.0 / 3.0, 2.0 / 3.0};

// Shard s's gradient of parameter `id` as layer `layer` writes it in step `step`.
std::vector<float> written(int step, int s, int id, int layer, std::size_t n) {
  std::vector<float> v(n);
  testing::fillUniform(v.data(), n, std::uint64_t(step * 1000 + s * 100 + id * 10 + layer));
  return v;
}

// The all-reduce of whole arrays in ParamStore's layout: every shard's gradients as the layers
// leave them (tied: the sum of its two layers'), unused 0.
std::vector<float> expectedMeans(const FourParameters& m, int step) {
  std::vector<std::vector<float>> shards(kShards, std::vector<float>(m.params.totalSize(), 0.0f));
  for (int s = 0; s < kShards; ++s) {
    auto& g = shards[std::size_t(s)];
    for (const int id : {m.a, m.b}) {
      const auto v = written(step, s, id, 0, m.params.info(id).size);
      std::copy(v.begin(), v.end(), g.begin() + std::ptrdiff_t(m.params.info(id).offset));
    }
    const auto first = written(step, s, m.tied, 1, 4), second = written(step, s, m.tied, 2, 4);
    for (std::size_t i = 0; i < 4; ++i) g[m.params.info(m.tied).offset + i] = first[i] + second[i];
  }
  std::vector<float> mean(m.params.totalSize());
  allReduceMean(shards, kShards, mean.data(), mean.size(), {}, 0, &kWeights);
  return mean;
}

// One layer writing parameters `ids` for every shard (adding to the slot when `add`).
void layer(ShardGradientSlots& slots, const FourParameters& m, int step, int index,
           std::initializer_list<int> ids, bool add = false) {
  for (int s = 0; s < kShards; ++s) {
    for (const int id : ids) {
      float* g = slots.slot(s, id);
      const auto v = written(step, s, id, index, m.params.info(id).size);
      for (std::size_t i = 0; i < v.size(); ++i) g[i] = add ? g[i] + v[i] : v[i];
    }
  }
  slots.layerDone();
}

TEST(ShardGradientSlots, EachParameterIsReducedAfterItsLastWriterWithTheWholeArraysBits) {
  FourParameters m;
  ReplicaAllReduce reduce;
  ShardGradientSlots slots;
  for (int step = 0; step < 3; ++step) {
    std::fill(m.params.gradData().begin(), m.params.gradData().end(), -7.0f);
    reduce.begin(kShards, m.params.totalSize(), {}, 0);
    slots.begin(m.params, kShards, reduce, kWeights);
    const std::vector<float> expected = expectedMeans(m, step);
    const auto reduced = [&](int id) {
      const ParamInfo& info = m.params.info(id);
      return std::memcmp(m.params.grad(id), expected.data() + info.offset,
                         info.size * sizeof(float)) == 0;
    };
    layer(slots, m, step, 0, {m.a, m.b});
    // From the second step on, a and b are reduced here; the first step waits for the end.
    EXPECT_EQ(reduced(m.a), step > 0) << "step " << step;
    EXPECT_EQ(reduced(m.b), step > 0) << "step " << step;
    layer(slots, m, step, 1, {m.tied});
    EXPECT_FALSE(reduced(m.tied)) << "step " << step;  // its second writer is still to come
    layer(slots, m, step, 2, {m.tied}, true);
    EXPECT_EQ(reduced(m.tied), step > 0) << "step " << step;
    slots.finish();
    EXPECT_EQ(
        std::memcmp(m.params.gradData().data(), expected.data(), expected.size() * sizeof(float)),
        0)
        << "step " << step;
  }
}

TEST(ShardGradientSlots, AParameterWrittenAfterItsReductionIsAnError) {
  FourParameters m;
  ReplicaAllReduce reduce;
  ShardGradientSlots slots;
  for (int step = 0; step < 2; ++step) {
    reduce.begin(kShards, m.params.totalSize(), {}, 0);
    slots.begin(m.params, kShards, reduce, kWeights);
    layer(slots, m, step, 0, {m.a});
    if (step == 1) {
      EXPECT_THROW(slots.slot(0, m.a), std::logic_error);
    }
    slots.finish();
  }
}

}  // namespace
}  // namespace paritylab::nn
