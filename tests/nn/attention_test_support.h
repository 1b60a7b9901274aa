#pragma once
// The causal self-attention layer the attention tests examine: input [2, 6, 8], 2 heads of 4, its
// parameters uniform in [-weightBound, weightBound] (seeds 40 + parameter id) and its input
// uniform in [-1.5, 1.5] (seed 5), under the policy a test gives.
#include "core/nn/causal_self_attention.h"
#include "nn_test_support.h"

namespace paritylab::nn::testing {

constexpr int kBatch = 2, kT = 6, kC = 8, kHeads = 2, kHeadDim = kC / kHeads;

struct AttentionUnderTest {
  Fixture f;
  CausalSelfAttention layer{f.builder, "attn", kC, kHeads};
  Tensor x = randomTensor({kBatch, kT, kC}, 5, -1.5, 1.5);
  AttentionUnderTest(const backends::PrecisionPolicy& policy, double weightBound) {
    f.policy = policy;
    f.params.finalize(false);
    for (std::size_t id = 0; id < f.params.infos().size(); ++id)
      fillUniform(f.params.master(int(id)), f.params.infos()[id].size, 40 + id, -weightBound,
                  weightBound);
  }
  // The layer's output [B, T, C]; its probabilities stay in layer.probabilities().
  const Tensor& run() {
    StepContext ctx = f.ctx();
    return layer.forward(x, ctx);
  }
};

}  // namespace paritylab::nn::testing
