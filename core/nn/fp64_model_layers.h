#pragma once
// The fp64 reference's layers of a model (fp64_layer.h): the model's stack walked layer by layer,
// nested containers (sequences, residual blocks, transformer blocks, the language model)
// included, each fp32 layer given its binary64
// counterpart with the same parameter ids and GEMM call sites.

#include <memory>

#include "core/nn/fp64_layer.h"
#include "core/nn/model.h"

namespace paritylab::nn {

// The layers the fp64 reference computes, in words (for messages).
inline constexpr const char* kFp64Layers =
    "flatten, linear, ReLU, convolution, batch norm, max pool, global average pool, residual "
    "block, token and position embedding, layer norm, GELU, causal self-attention and transformer "
    "block layers (the mlp, small-cnn, resnet18 and gpt)";

// The model's stack in binary64, its first layer computing no input gradient (as the model's).
// Throws std::invalid_argument for a layer it does not compute, naming the model, where the layer
// is and what it computes.
std::unique_ptr<Fp64Sequential> fp64LayersOf(const Model& model);

}  // namespace paritylab::nn
