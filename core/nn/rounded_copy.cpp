#include "core/nn/rounded_copy.h"

namespace paritylab::nn {
namespace {

const std::optional<numerics::RoundingSpec>& operandSpec(const backends::GemmPolicy& policy,
                                                         Operand which) {
  return which == Operand::A || !policy.operandsB ? policy.operands : policy.operandsB;
}

}  // namespace

const float* RoundedCopy::round(const float* values, std::size_t n,
                                const backends::GemmPolicy& policy, Operand which,
                                const GemmExtras& extras) {
  spec_.reset();
  if (!canPreroundOperand(policy, which, extras)) return nullptr;
  if (values_.size() < n) values_.resize(n);  // grows only: sizes alternate between replicas
  preroundOperand(policy, which, extras, values, values_.data(), n);
  spec_ = operandSpec(policy, which);
  return values_.data();
}

const float* RoundedCopy::forProduct(const backends::GemmPolicy& policy, Operand which,
                                     const GemmExtras& extras) const {
  if (!spec_ || !canPreroundOperand(policy, which, extras)) return nullptr;
  return numerics::sameRounding(*spec_, *operandSpec(policy, which)) ? values_.data() : nullptr;
}

const float* useRounded(const float* rounded, const float* values, std::size_t offset,
                        Operand which, GemmExtras& extras) {
  if (!rounded) return values + offset;
  const float* at = rounded + offset;
  (which == Operand::A ? extras.roundedA : extras.roundedB) = at;
  return at;
}

}  // namespace paritylab::nn
