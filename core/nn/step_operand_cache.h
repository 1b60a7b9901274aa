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
#include "core/numerics/block_scaling.h"

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

  // A convolution's weights w [cout, cin, taps] quantized in square blocks for operand A of a
  // product under `policy` (prequantizeSquareConvWeights), shared by every product of the step
  // under the same recipe: the forward and the data-gradient product quantize the same blocks
  // with one tensor scale, so to the same values along either reduction. Only when the
  // quantization draws and measures nothing (nearest rounding, no Hadamard transform, not on a
  // step the X-ray measures); else, or when the policy takes no square blocks there, null (the
  // caller quantizes its own). The caller reads it as it is (GemmExtras::writableA with
  // writableARounded set) and never writes it, with *tensorScale (NVFP4's, else 0) as
  // GemmExtras::tensorScaleA.
  float* squareWeights(int key, const backends::GemmPolicy& policy, const GemmExtras& extras,
                       const float* w, int cout, int cin, int taps, float& tensorScale);

 private:
  // One operand's shared copy under one recipe (a RoundingSpec, or a BlockScaling), valid until
  // clear().
  template <typename Recipe>
  struct Entry {
    int key = -1;
    Recipe recipe;
    bool valid = false;
    std::vector<float> values;
    float tensorScale = 0.0f;  // NVFP4's, of square-block weights
  };
  // The entry of `key` under `recipe` (`same` compares recipes), added when there is none.
  template <typename Recipe, typename Same>
  static Entry<Recipe>& entryFor(std::vector<Entry<Recipe>>& entries, int key, const Recipe& recipe,
                                 Same same);

  std::vector<Entry<numerics::RoundingSpec>> rounded_;
  std::vector<Entry<numerics::BlockScaling>> squares_;
};

}  // namespace paritylab::nn
