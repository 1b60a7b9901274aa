#include "core/nn/training_choices.h"

#include <algorithm>

namespace paritylab::nn {

bool isOneOf(std::string_view name, std::span<const std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool isLanguageModel(std::string_view name) {
  return name == "gpt";
}

int defaultEvalBatchSize(std::string_view model, int batchSize) {
  return isLanguageModel(model) ? batchSize : 1000;
}

std::string joinedNames(std::span<const std::string_view> names, std::string_view separator) {
  std::string text;
  for (std::string_view name : names) {
    if (!text.empty()) text += separator;
    text += name;
  }
  return text;
}

}  // namespace paritylab::nn
