#pragma once
// A classification model: a layer stack over [N, C, H, W] images giving logits [N, classes],
// with its parameters in one ParamStore. Parameters created for the final classifier are the
// head; all others the backbone (freeze schedule, loading a backbone with a new head).

#include <memory>
#include <string>
#include <vector>

#include "core/nn/sequential.h"

namespace paritylab::nn {

struct ModelSpec {
  std::string name = "mlp";  // one of kModelNames (core/nn/training_choices.h)
  int channels = 1, height = 28, width = 28;
  int numClasses = 10;
  int resnetWidth = 16;  // resnet18: channels of stage 1 (torchvision: 64)
};

struct Model {
  std::string name;
  Shape input;  // [1, C, H, W]: one item; the batch dimension is set per call
  int numClasses = 0;
  ParamStore params;
  std::unique_ptr<Sequential> net;
  int gemmSites = 0;                   // number of GEMM call sites (for per-site fp8 scaling state)
  std::vector<std::string> siteNames;  // [gemmSites]: layer of each site ("" for non-GEMM sites)

  // Initialises every parameter like PyTorch's defaults, from `seed` alone.
  void init(std::uint64_t seed);
};

// Builds (does not initialise) a model; `separateWorkingWeights`: products see a rounded copy
// of fp32 master weights. Throws std::invalid_argument for an unknown name or an input the model
// cannot take, naming the value.
std::unique_ptr<Model> makeModel(const ModelSpec& spec, bool separateWorkingWeights = false);

// What a model needs, counted without allocating it (for a study's memory estimate).
struct ModelSize {
  std::size_t parameters = 0;          // floats of all parameters and buffers
  std::size_t activationsPerItem = 0;  // floats of the top-level layers' outputs for one item
};
// Throws like makeModel for a spec it cannot build.
ModelSize measureModel(const ModelSpec& spec);

// Builders, one per file.
void buildMlp(ModelBuilder& b, Sequential& net, const ModelSpec& spec);
void buildSmallCnn(ModelBuilder& b, Sequential& net, const ModelSpec& spec);
void buildResNet18(ModelBuilder& b, Sequential& net, const ModelSpec& spec);

}  // namespace paritylab::nn
