// Convolution forward and backward (im2col + the one GEMM entry) per backend
// preset, on small-cnn's and resnet18's (width 16) conv shapes. Reports images/s.
#include <benchmark/benchmark.h>

#include <string>

#include "core/backends/precision_policy.h"
#include "core/nn/conv2d.h"
#include "core/nn/random.h"

namespace {

using namespace paritylab;

struct ConvShape {
  const char* name;
  int batch, cin, cout, hw, stride;
};
// small-cnn conv1/conv2 at batch 128; a resnet18 (width 16) stage-2 conv at batch 128.
const ConvShape kConvs[] = {{"small-cnn.conv1", 128, 1, 32, 28, 1},
                            {"small-cnn.conv2", 128, 32, 64, 14, 1},
                            {"resnet18.layer2", 128, 32, 32, 14, 1}};
const char* kBackends[] = {"cpu-fp32", "gpu-tf32", "tpu-bf16", "gpu-amp-bf16"};

struct ConvBench {
  backends::PrecisionPolicy policy;
  nn::GemmWorkspace workspace;
  nn::LayerScratch scratch;
  nn::ParamStore params;
  nn::ModelBuilder builder{&params};
  nn::Conv2d conv;
  nn::Tensor x, dy;

  ConvBench(const ConvShape& s, const char* backend)
      : policy(backends::presetPolicy(backend)),
        conv(builder, "conv", s.cin, s.cout, 3, s.stride, 1, true) {
    params.finalize(false);
    nn::RandomStream rng(1);
    conv.init(params, rng);
    x.resize({s.batch, s.cin, s.hw, s.hw});
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(rng.uniform(-1.0, 1.0));
    conv.setNeedInputGrad(s.cin > 1);
  }
  nn::StepContext ctx() {
    nn::StepContext c;
    c.policy = &policy;
    c.workspace = &workspace;
    c.scratch = &scratch;
    c.params = &params;
    return c;
  }
};

// mode 0: forward only; mode 1: forward + backward (weight, bias and input gradients).
void BM_Conv(benchmark::State& state) {
  const ConvShape& s = kConvs[state.range(0)];
  const char* backend = kBackends[state.range(1)];
  const bool backward = state.range(2) == 1;
  ConvBench b(s, backend);
  nn::StepContext ctx = b.ctx();
  const nn::Tensor& y = b.conv.forward(b.x, ctx);
  b.dy.resize(y.shape());
  for (std::size_t i = 0; i < b.dy.size(); ++i) b.dy[i] = 1e-3f * float(i % 7);
  for (auto _ : state) {
    benchmark::DoNotOptimize(b.conv.forward(b.x, ctx).data());
    if (backward) benchmark::DoNotOptimize(b.conv.backward(b.dy, ctx).data());
  }
  state.SetItemsProcessed(state.iterations() * s.batch);
  state.SetLabel(std::string(s.name) + " " + backend + (backward ? " fwd+bwd" : " fwd"));
}
BENCHMARK(BM_Conv)->ArgsProduct({{0, 1, 2}, {0, 1, 2, 3}, {0, 1}})->Unit(benchmark::kMillisecond);

}  // namespace
