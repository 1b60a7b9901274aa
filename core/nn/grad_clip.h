#pragma once
// torch.nn.utils.clip_grad_norm_: if the global L2 norm of the gradients exceeds maxNorm, scale
// them by maxNorm / (norm + 1e-6). Returns the norm before clipping.

#include <vector>

#include "core/nn/param_store.h"

namespace paritylab::nn {

double globalGradNorm(ParamStore& params, const std::vector<ParamStore::Range>& ranges);
double clipGradNorm(ParamStore& params, const std::vector<ParamStore::Range>& ranges,
                    double maxNorm);

}  // namespace paritylab::nn
