#pragma once
// A model: a layer stack with its parameters in one ParamStore. An image classifier takes
// [N, C, H, W] images and gives logits [N, classes]; the language model ("gpt") takes token ids
// [N, T] (integral floats) and gives logits [N, T, vocabulary], one prediction per position.
// Parameters created for an image classifier's final layer are the head; all others the backbone
// (freeze schedule, loading a backbone with a new head).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/nn/sequential.h"

namespace paritylab::nn {

// gpt: the transformer's shape. The defaults are nanoGPT's shakespeare_char configuration for a
// CPU (config/train_shakespeare_char.py with its README's CPU overrides): about 0.8 M parameters
// at a 65-symbol vocabulary.
struct GptShape {
  int nLayer = 4;
  int nHead = 4;
  int nEmbd = 128;         // a multiple of nHead
  int blockSize = 64;      // tokens per window: the context the model sees
  bool tieWeights = true;  // the output head shares the token embedding (GPT-2's choice)
  bool operator==(const GptShape&) const = default;
};

struct ModelSpec {
  std::string name = "mlp";  // one of kModelNames (core/nn/training_choices.h)
  int channels = 1, height = 28, width = 28;
  int numClasses = 10;   // gpt: the vocabulary's size
  int resnetWidth = 16;  // resnet18: channels of stage 1 (torchvision: 64)
  GptShape gpt;          // gpt only
};

struct Model {
  std::string name;
  Shape input;  // one item, the batch dimension set per call: [1, C, H, W], or gpt's [1, T]
  int numClasses = 0;
  // gpt: the input holds token ids, which no storage format may round, and every item has T
  // targets (the next token at each position); image models: 1.
  bool tokenInput = false;
  int targetsPerItem = 1;
  // Every layer writes its parameter gradients per replica shard when the step's shards run as
  // one batch (StepContext::shards): gpt.
  bool gradientsPerShard = false;
  ParamStore params;
  std::unique_ptr<Sequential> net;
  int gemmSites = 0;                   // number of GEMM call sites (for per-site fp8 scaling state)
  std::vector<std::string> siteNames;  // [gemmSites]: layer of each site ("" for non-GEMM sites)
  // [gemmSites]: the kind of products each site computes (nullopt: a site without products)
  std::vector<std::optional<backends::LayerKind>> siteKinds;
  std::vector<int> siteWeights;  // [gemmSites]: each site's weight parameter id (-1: none)

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
void buildGpt(ModelBuilder& b, Sequential& net, const ModelSpec& spec);
// gpt: the floats of the tensors one window keeps for backward (an estimate counted from the
// layers, for ModelSize::activationsPerItem).
std::size_t gptActivationsPerWindow(const GptShape& shape, int vocab);

}  // namespace paritylab::nn
