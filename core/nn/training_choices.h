#pragma once
// The names a study chooses from in core/nn: the models makeModel builds, the optimizers
// makeOptimizer builds and the learning-rate schedules LrSchedule follows. These lists are the
// only place the names are written: the spec parser, the Study dialog and the command line's help
// read them from here, in this order (the order a chooser offers them).

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace paritylab::nn {

// ModelSpec::name and TrainConfig::model: a multilayer perceptron, a small convolutional network,
// a ResNet-18 of adjustable width (the image classifiers, smallest first), and a GPT language
// model (nanoGPT's, trained on text).
inline constexpr std::array<std::string_view, 4> kModelNames = {"mlp", "small-cnn", "resnet18",
                                                                "gpt"};

// Whether the model called `name` is a language model (reads token windows of a text source)
// rather than an image classifier.
bool isLanguageModel(std::string_view name);

// The evaluation batch a study takes when its spec names none: 1,000 images for an image
// classifier; for a language model as many windows as it trains on (a window is block_size
// positions, so 1,000 of them would hold block_size times the activations of 1,000 images).
int defaultEvalBatchSize(std::string_view model, int batchSize);

// OptimizerConfig::kind: torch.optim.AdamW, torch.optim.SGD (with momentum and Nesterov).
inline constexpr std::array<std::string_view, 2> kOptimizerKinds = {"adamw", "sgd"};

// ScheduleConfig::kind: a constant rate, a rate multiplied by gamma every stepEpochs, a cosine
// decay (each after the optional linear warmup).
inline constexpr std::array<std::string_view, 3> kScheduleKinds = {"constant", "step", "cosine"};

// Whether `name` is one of `names`.
bool isOneOf(std::string_view name, std::span<const std::string_view> names);

// The names in their order, joined by `separator`: "mlp, small-cnn, resnet18".
std::string joinedNames(std::span<const std::string_view> names, std::string_view separator = ", ");

}  // namespace paritylab::nn
