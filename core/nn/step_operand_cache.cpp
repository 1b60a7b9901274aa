#include "core/nn/step_operand_cache.h"

#include <algorithm>

namespace paritylab::nn {

void StepOperandCache::clear() {
  for (Entry& e : entries_) e.valid = false;
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

}  // namespace paritylab::nn
