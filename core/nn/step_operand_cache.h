#pragma once
// Operands that stay the same for every product of one training step, rounded once per step
// instead of once per product: a layer's weights, read as they are rounded by its forward and
// data-gradient products, in every replica of the step (a TPU's 8 cores each read the same
// weights). The same bits as gemm()'s own rounding: only a rounding gemm() would apply to the
// operand as it is (preroundOperand's conditions: deterministic, unscaled, one pass, not on a step
// the X-ray measures) is shared.

#include <cstddef>
#include <vector>

#include "core/nn/gemm.h"

namespace paritylab::nn {

class StepOperandCache {
 public:
  // The operands changed (the optimizer updated the weights): every entry is rounded again when
  // next asked for. Buffers are kept (no allocation in the steady state).
  void clear();

  // values [n], operand `which` of a product under `policy` with `extras`: a copy rounded as
  // gemm() would round it, shared by every caller with the same `key` (a parameter id) and the
  // same rounding until clear(); pass it to gemm() as that operand with GemmExtras::roundedA /
  // roundedB set to it. Returns `values` itself when the rounding cannot be shared.
  const float* operand(int key, const backends::GemmPolicy& policy, Operand which,
                       const GemmExtras& extras, const float* values, std::size_t n);

 private:
  struct Entry {
    int key = -1;
    numerics::RoundingSpec spec;
    bool valid = false;
    std::vector<float> rounded;
  };
  std::vector<Entry> entries_;
};

}  // namespace paritylab::nn
