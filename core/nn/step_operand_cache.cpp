#include "core/nn/step_operand_cache.h"

#include <algorithm>

namespace paritylab::nn {

template <typename Recipe, typename Same>
StepOperandCache::Entry<Recipe>& StepOperandCache::entryFor(std::vector<Entry<Recipe>>& entries,
                                                            int key, const Recipe& recipe,
                                                            Same same) {
  auto entry = std::find_if(entries.begin(), entries.end(), [&](const Entry<Recipe>& e) {
    return e.key == key && same(e.recipe, recipe);
  });
  if (entry == entries.end())
    entry = entries.insert(entries.end(), Entry<Recipe>{key, recipe, false, {}});
  return *entry;
}

void StepOperandCache::clear() {
  for (auto& e : rounded_) e.valid = false;
  for (auto& e : squares_) e.valid = false;
}

const float* StepOperandCache::operand(int key, const backends::GemmPolicy& policy, Operand which,
                                       const GemmExtras& extras, const float* values,
                                       std::size_t n) {
  if (!canPreroundOperand(policy, which, extras)) return values;
  const numerics::RoundingSpec& spec =
      which == Operand::A || !policy.operandsB ? *policy.operands : *policy.operandsB;
  auto& entry = entryFor(rounded_, key, spec, numerics::sameRounding);
  if (!entry.valid || entry.values.size() != n) {
    entry.values.resize(n);
    preroundOperand(policy, which, extras, values, entry.values.data(), n);
    entry.valid = true;
  }
  return entry.values.data();
}

float* StepOperandCache::squareWeights(int key, const backends::GemmPolicy& policy,
                                       const GemmExtras& extras, const float* w, int cout, int cin,
                                       int taps, float& tensorScale) {
  const std::optional<numerics::BlockScaling>& recipe = policy.scalingA;
  if (!recipe || !recipe->squareBlocks || recipe->rounding != numerics::RoundingMode::NearestEven ||
      policy.hadamard || extras.xray)
    return nullptr;
  auto& entry = entryFor(squares_, key, *recipe, numerics::sameBlockScaling);
  if (!entry.valid) {
    if (!prequantizeSquareConvWeights(policy, Operand::A, extras, w, entry.values, cout, cin, taps,
                                      numerics::BlockAxis::Row, &entry.tensorScale))
      return nullptr;
    entry.valid = true;
  }
  tensorScale = entry.tensorScale;
  return entry.values.data();
}

}  // namespace paritylab::nn
