#pragma once
// A tensor rounded once to the operand format of the products that read it, which then read the
// copy as it is (GemmExtras::roundedA / roundedB) instead of each packing a rounded copy of its
// own: a linear layer's input (read by its forward and weight-gradient products), its output
// gradient (weight- and data-gradient products), attention's Q, K, V, P and their gradients.
// The same bits: a product takes the copy only when it would round the tensor the same way
// (canPreroundOperand: deterministic, unscaled, one pass, not on a step the X-ray measures), and
// rounding a value of the format leaves it as it is.

#include <cstddef>
#include <optional>
#include <vector>

#include "core/nn/gemm.h"

namespace paritylab::nn {

class RoundedCopy {
 public:
  // values [n] rounded as operand `which` of a product under `policy` with `extras` rounds them,
  // when that rounding can be done ahead (else the copy is dropped: forNext() returns null).
  // Returns the copy, or null.
  const float* round(const float* values, std::size_t n, const backends::GemmPolicy& policy,
                     Operand which, const GemmExtras& extras);
  // The copy, when operand `which` of a product under `policy` with `extras` rounds the tensor
  // exactly as the copy was rounded; null otherwise (that product rounds its own).
  const float* forProduct(const backends::GemmPolicy& policy, Operand which,
                          const GemmExtras& extras) const;
  // Drops the copy (the tensor is read as it is, e.g. already rounded by the store step).
  void clear() { spec_.reset(); }

 private:
  std::vector<float> values_;
  std::optional<numerics::RoundingSpec> spec_;  // set while the copy is valid
};

// Points operand `which` of a call at `rounded` + offset (the call's slice of the copy) and
// tells gemm() it is rounded; returns the operand pointer to pass. `values` + offset when
// `rounded` is null.
const float* useRounded(const float* rounded, const float* values, std::size_t offset,
                        Operand which, GemmExtras& extras);

}  // namespace paritylab::nn
