// The ResNet-18 pieces at batch 128, forward and forward + backward, per
// backend preset where products are involved (images/s): the stride-2 convolutions that open a
// stage (the 1x1 projection and the 3x3 first convolution), batch norm + residual add + ReLU (a
// block's tail, in one fused pass), and a whole BasicBlock with the identity and with the
// projection shortcut. Shapes: width 16 (as `paritylab-cli bench --model resnet18`) and 64 (the
// real ResNet-18), stage 1 -> 2 on 28x28. The whole model's training step is BM_TrainStep's
// resnet18 rows.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "core/backends/precision_policy.h"
#include "core/nn/batchnorm.h"
#include "core/nn/conv2d.h"
#include "core/nn/random.h"
#include "core/nn/residual_block.h"

namespace {

using namespace paritylab;

const char* kResnetBackends[] = {"cpu-fp32", "gpu-tf32", "tpu-bf16", "gpu-amp-bf16"};
constexpr int kBatch = 128;

// One layer with its parameters, a random input and a fixed output gradient.
template <class L>
struct LayerBench {
  backends::PrecisionPolicy policy;
  nn::GemmWorkspace workspace;
  nn::LayerScratch scratch;
  nn::ParamStore params;
  nn::ModelBuilder builder{&params};
  std::unique_ptr<L> layer;
  nn::Tensor x, dy;

  template <class... Args>
  LayerBench(const char* backend, const nn::Shape& input, Args&&... args)
      : policy(backends::presetPolicy(backend)),
        layer(std::make_unique<L>(builder, std::forward<Args>(args)...)) {
    params.finalize(false);
    nn::RandomStream rng(1);
    layer->init(params, rng);
    x.resize(input);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(rng.uniform(-1.0, 1.0));
    nn::StepContext c = ctx();
    const nn::Tensor& y = layer->forward(x, c);
    dy.resize(y.shape());
    for (std::size_t i = 0; i < dy.size(); ++i) dy[i] = 1e-3f * float(int(i % 7) - 3);
  }
  nn::StepContext ctx() {
    nn::StepContext c;
    c.policy = &policy;
    c.workspace = &workspace;
    c.scratch = &scratch;
    c.params = &params;
    return c;
  }
  // One forward (and backward) of the batch per iteration; items are images.
  void time(benchmark::State& state, bool backward) {
    nn::StepContext c = ctx();
    for (auto _ : state) {
      benchmark::DoNotOptimize(layer->forward(x, c).data());
      if (backward) benchmark::DoNotOptimize(layer->backward(dy, c).data());
    }
    state.SetItemsProcessed(state.iterations() * kBatch);
  }
};

// A stride-2 convolution of stage 1 -> 2: w -> 2w channels, 28x28 -> 14x14, kernel 1 (the
// projection shortcut) or 3 (the block's first convolution, padding 1).
// Args: width (16, 64), backend, backward (0, 1).
void benchStride2Conv(benchmark::State& state, int kernel) {
  const int w = int(state.range(0));
  const char* backend = kResnetBackends[state.range(1)];
  const bool backward = state.range(2) == 1;
  LayerBench<nn::Conv2d> b(backend, {kBatch, w, 28, 28}, kernel == 1 ? "downsample.0" : "conv1", w,
                           2 * w, kernel, 2, kernel / 2, false, nn::ConvInit::KaimingNormalOut);
  b.time(state, backward);
  state.SetLabel("width " + std::to_string(w) + " " + backend + (backward ? " fwd+bwd" : " fwd"));
}
void BM_ResNetConv1x1Stride2(benchmark::State& state) {
  benchStride2Conv(state, 1);
}
void BM_ResNetConv3x3Stride2(benchmark::State& state) {
  benchStride2Conv(state, 3);
}
BENCHMARK(BM_ResNetConv1x1Stride2)
    ->ArgsProduct({{16, 64}, {0, 1, 2, 3}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResNetConv3x3Stride2)
    ->ArgsProduct({{16, 64}, {0, 1, 2, 3}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// A block's tail: y = relu(bn(h) + residual) and its backward, at stage 2 ([128, 2w, 14, 14]).
// Args: width, backward.
void BM_ResNetBnAddRelu(benchmark::State& state) {
  const int w = int(state.range(0));
  const bool backward = state.range(1) == 1;
  const nn::Shape shape{kBatch, 2 * w, 14, 14};
  LayerBench<nn::BatchNorm> b("cpu-fp32", shape, "bn2", 2 * w);
  nn::Tensor residual(shape), y;
  for (std::size_t i = 0; i < residual.size(); ++i) residual[i] = 0.5f - float(i % 5) * 0.25f;
  nn::StepContext ctx = b.ctx();
  for (auto _ : state) {
    b.layer->forwardAddRelu(b.x, residual, y, ctx);
    benchmark::DoNotOptimize(y.data());
    if (backward) benchmark::DoNotOptimize(b.layer->backwardThroughRelu(b.dy, y, ctx).data());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.SetLabel("width " + std::to_string(w) + (backward ? " fwd+bwd" : " fwd"));
}
BENCHMARK(BM_ResNetBnAddRelu)->ArgsProduct({{16, 64}, {0, 1}})->Unit(benchmark::kMillisecond);

// One BasicBlock: identity (layer2.1: 2w -> 2w on 14x14) or projection (layer2.0: w -> 2w,
// stride 2, on 28x28). Args: width, backend, projection (0, 1), backward (0, 1).
void BM_ResNetBlock(benchmark::State& state) {
  const int w = int(state.range(0));
  const char* backend = kResnetBackends[state.range(1)];
  const bool projection = state.range(2) == 1;
  const bool backward = state.range(3) == 1;
  const nn::Shape input =
      projection ? nn::Shape{kBatch, w, 28, 28} : nn::Shape{kBatch, 2 * w, 14, 14};
  LayerBench<nn::BasicBlock> b(backend, input, "layer2.0", projection ? w : 2 * w, 2 * w,
                               projection ? 2 : 1);
  b.time(state, backward);
  state.SetLabel("width " + std::to_string(w) + " " + backend +
                 (projection ? " projection" : " identity") + (backward ? " fwd+bwd" : " fwd"));
}
BENCHMARK(BM_ResNetBlock)
    ->ArgsProduct({{16, 64}, {0, 1, 2, 3}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// The identity BasicBlock of each stage on 28x28 inputs, forward + backward, cpu-fp32: stage s
// has w * 2^(s-1) channels on planes of 28, 14, 7, 4. Every stage has about the same products
// (3.6 MFLOP per image and convolution); the planes shrink, and with them the products' N and
// the share of zero padding in the 3x3 windows (5% of the taps at 28x28, 31% at 4x4). Args:
// width, stage (1-4).
void BM_ResNetIdentityBlockByStage(benchmark::State& state) {
  const int w = int(state.range(0));
  const int stage = int(state.range(1));
  const int channels = w << (stage - 1);
  const int side = (28 + (1 << (stage - 1)) - 1) >> (stage - 1);  // 28, 14, 7, 4
  LayerBench<nn::BasicBlock> b("cpu-fp32", {kBatch, channels, side, side},
                               "layer" + std::to_string(stage) + ".1", channels, channels, 1);
  b.time(state, true);
  state.SetLabel("width " + std::to_string(w) + " stage " + std::to_string(stage) + " (" +
                 std::to_string(channels) + " x " + std::to_string(side) + "x" +
                 std::to_string(side) + ") cpu-fp32 fwd+bwd");
}
BENCHMARK(BM_ResNetIdentityBlockByStage)
    ->ArgsProduct({{16, 64}, {1, 2, 3, 4}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
