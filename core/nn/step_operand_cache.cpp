#include "core/nn/step_operand_cache.h"

#include <algorithm>

namespace paritylab::nn {

namespace {

bool sameRecipe(const numerics::BlockScaling& a, const numerics::BlockScaling& b) {
  return a.kind == b.kind && a.element.name == b.element.name && a.blockSize == b.blockSize &&
         a.scale == b.scale && a.squareBlocks == b.squareBlocks && a.rounding == b.rounding;
}

}  // namespace

void StepOperandCache::clear() {
  for (Entry& e : entries_) e.valid = false;
  for (SquareEntry& e : squares_) e.valid = false;
}

const float* StepOperandCache::operand(int key, const backends::GemmPolicy& policy, Operand which,
                                       const GemmExtras& extras, const float* values,
                                       std::size_t n) {
  if (!canPreroundOperand(policy, which, extras)) return values;
  const numerics::RoundingSpec& spec =
      which == Operand::A || !policy.operandsB ? *policy.operands : *policy.operandsB;
  auto entry = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) {
    return e.key == key && numerics::sameRounding(e.spec, spec);
  });
  if (entry == entries_.end()) entry = entries_.insert(entries_.end(), Entry{key, spec, false, {}});
  if (!entry->valid || entry->rounded.size() != n) {
    entry->rounded.resize(n);
    preroundOperand(policy, which, extras, values, entry->rounded.data(), n);
    entry->valid = true;
  }
  return entry->rounded.data();
}

float* StepOperandCache::squareWeights(int key, const backends::GemmPolicy& policy,
                                       const GemmExtras& extras, const float* w, int cout, int cin,
                                       int taps) {
  const std::optional<numerics::BlockScaling>& recipe = policy.scalingA;
  if (!recipe || !recipe->squareBlocks || recipe->rounding != numerics::RoundingMode::NearestEven ||
      policy.hadamard || extras.xray)
    return nullptr;
  auto entry = std::find_if(squares_.begin(), squares_.end(), [&](const SquareEntry& e) {
    return e.key == key && sameRecipe(e.recipe, *recipe);
  });
  if (entry == squares_.end())
    entry = squares_.insert(squares_.end(), SquareEntry{key, *recipe, false, {}});
  if (!entry->valid) {
    if (!prequantizeSquareConvWeights(policy, Operand::A, extras, w, entry->values, cout, cin, taps,
                                      numerics::BlockAxis::Row))
      return nullptr;
    entry->valid = true;
  }
  return entry->values.data();
}

}  // namespace paritylab::nn
