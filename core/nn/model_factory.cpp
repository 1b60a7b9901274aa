#include <stdexcept>

#include "core/nn/model.h"
#include "core/nn/training_choices.h"

namespace paritylab::nn {

void Model::init(std::uint64_t seed) {
  RandomStream rng(hashSeed(seed, 0x494E4954 /* "INIT" */));
  net->init(params, rng);
}

namespace {

// Token ids are stored as uint16 (core/data/text_corpus.h).
constexpr int kMaxVocabulary = 65535;

// The layers and parameter registrations of a model, without allocating parameter storage.
std::unique_ptr<Model> buildStructure(const ModelSpec& spec) {
  const bool language = isLanguageModel(spec.name);
  if (language && (spec.numClasses < 2 || spec.numClasses > kMaxVocabulary))
    throw std::invalid_argument("model '" + spec.name + "': a vocabulary of " +
                                std::to_string(spec.numClasses) + " symbols (2 to " +
                                std::to_string(kMaxVocabulary) + ")");
  if (!language && (spec.channels < 1 || spec.height < 1 || spec.width < 1 || spec.numClasses < 2))
    throw std::invalid_argument("model '" + spec.name + "': bad input " +
                                std::to_string(spec.channels) + "x" + std::to_string(spec.height) +
                                "x" + std::to_string(spec.width) + " with " +
                                std::to_string(spec.numClasses) + " classes");
  auto model = std::make_unique<Model>();
  model->name = spec.name;
  model->input =
      language ? Shape{1, spec.gpt.blockSize} : Shape{1, spec.channels, spec.height, spec.width};
  model->numClasses = spec.numClasses;
  model->tokenInput = language;
  model->targetsPerItem = language ? spec.gpt.blockSize : 1;
  model->gradientsPerShard = language;  // embeddings, layer norms and linear layers do
  ModelBuilder builder;
  builder.params = &model->params;
  model->net = std::make_unique<Sequential>(builder);
  if (spec.name == "mlp")
    buildMlp(builder, *model->net, spec);
  else if (spec.name == "small-cnn")
    buildSmallCnn(builder, *model->net, spec);
  else if (spec.name == "resnet18")
    buildResNet18(builder, *model->net, spec);
  else if (spec.name == "gpt")
    buildGpt(builder, *model->net, spec);
  else
    throw std::invalid_argument("unknown model '" + spec.name +
                                "' (known: " + joinedNames(kModelNames) + ")");
  model->gemmSites = builder.nextSite;
  model->siteNames = std::move(builder.siteNames);
  model->siteNames.resize(std::size_t(builder.nextSite));
  model->siteKinds = std::move(builder.siteKinds);
  model->siteKinds.resize(std::size_t(builder.nextSite));
  model->siteWeights = std::move(builder.siteWeights);
  model->siteWeights.resize(std::size_t(builder.nextSite), -1);
  return model;
}

}  // namespace

ModelSize measureModel(const ModelSpec& spec) {
  const auto model = buildStructure(spec);
  ModelSize size;
  size.parameters = model->params.totalSize();
  if (model->tokenInput) {
    size.activationsPerItem = gptActivationsPerWindow(spec.gpt, spec.numClasses);
    return size;
  }
  Shape shape = model->input;
  for (const auto& layer : model->net->layers()) {
    shape = layer->outputShape(shape);
    size.activationsPerItem += shape.numel();
  }
  return size;
}

std::unique_ptr<Model> makeModel(const ModelSpec& spec, bool separateWorkingWeights) {
  auto model = buildStructure(spec);
  model->params.finalize(separateWorkingWeights);
  model->net->outputShape(model->input);  // validates the input size
  model->net->propagateNeedInputGrad(false);
  return model;
}

}  // namespace paritylab::nn
