// After the first step (and the first evaluation) a training step allocates
// nothing — activations, gradients, im2col columns and GEMM workspaces are reused.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "core/nn/training_session.h"
#include "language_model_test_support.h"
#include "nn_test_support.h"

namespace {
std::atomic<long> allocationCount{0};
}  // namespace

void* operator new(std::size_t n) {
  ++allocationCount;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
// The nothrow form too (std::stable_sort's buffer): every new of this program pairs with the
// delete above (a sanitizer's own nothrow new freed here is an alloc-dealloc mismatch).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  ++allocationCount;
  return std::malloc(n ? n : 1);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}

namespace paritylab::nn {
namespace {

TEST(SteadyState, TrainingStepsAllocateNothing) {
  const data::Dataset d = testing::syntheticImages(64, 1, 16, 10, 1);
  // Named: the address of a temporary policy would dangle inside the loop (ASan
  // stack-use-after-scope, found by the sanitizer build).
  const backends::PrecisionPolicy plain;
  const backends::PrecisionPolicy replicated = [] {
    backends::PrecisionPolicy p;
    p.topology.replicas = 4;
    return p;
  }();
  for (const std::string model : {"mlp", "small-cnn", "resnet18"})
    for (const backends::PrecisionPolicy* policy : {&plain, &replicated}) {
      TrainingSession s({model, 1, 16, 16, 10, 4, {}}, *policy, 1);
      auto opt = makeOptimizer(OptimizerConfig{});
      const auto ranges = s.model().params.weightRanges(false);
      for (std::uint64_t i = 0; i < 2; ++i)
        s.step(d.images.data(), d.labels.data(), 64, i, *opt, 1e-3, ranges, 0.0);
      s.evaluate(d, 32);
      const long before = allocationCount.load();
      for (std::uint64_t i = 2; i < 5; ++i)
        s.step(d.images.data(), d.labels.data(), 64, i, *opt, 1e-3, ranges, 1.0);
      s.evaluate(d, 32);
      EXPECT_EQ(allocationCount.load() - before, 0)
          << model << " with " << policy->topology.replicas << " replica(s)";
    }
}

// The language model too: one replica, 4 replicas whose shards run together (tpu-bf16's
// arithmetic), and 4 taking turns (gradient accumulation keeps them apart).
TEST(SteadyState, LanguageModelTrainingStepsAllocateNothing) {
  const ModelSpec spec = testing::gptSpec({1, 2, 16, 8, true});
  const testing::TokenWindows w = testing::randomWindows(6, spec.gpt.blockSize, 11, 3);
  const auto tpu = [](int replicas, int accumulationSteps) {
    backends::PrecisionPolicy p = backends::presetPolicy("tpu-bf16");
    p.topology.replicas = replicas;
    p.reduction.accumulationSteps = accumulationSteps;
    return p;
  };
  const backends::PrecisionPolicy one = tpu(1, 1), together = tpu(4, 1), inTurn = tpu(4, 2);
  for (const backends::PrecisionPolicy* p : {&one, &together, &inTurn}) {
    TrainingSession s(spec, *p, 1);
    EXPECT_EQ(s.shardsRunTogether(), p == &together);
    auto opt = makeOptimizer(OptimizerConfig{});
    const auto ranges = s.model().params.weightRanges(false);
    for (std::uint64_t i = 0; i < 2; ++i)
      s.step(w.tokens.data(), w.targets.data(), w.windows, i, *opt, 1e-3, ranges, 0.0);
    const long before = allocationCount.load();
    for (std::uint64_t i = 2; i < 5; ++i)
      s.step(w.tokens.data(), w.targets.data(), w.windows, i, *opt, 1e-3, ranges, 1.0);
    EXPECT_EQ(allocationCount.load() - before, 0)
        << p->topology.replicas << " replica(s)" << (s.shardsRunTogether() ? ", together" : "");
  }
}

}  // namespace
}  // namespace paritylab::nn
