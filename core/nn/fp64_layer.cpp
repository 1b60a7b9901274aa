#include "core/nn/fp64_layer.h"

namespace paritylab::nn {

int Fp64Params::add(const std::vector<double>& initial) {
  offsets.push_back(values.size());
  sizes.push_back(initial.size());
  values.insert(values.end(), initial.begin(), initial.end());
  grads.resize(values.size(), 0.0);
  return int(offsets.size()) - 1;
}

void Fp64Sites::set(int site, const std::vector<double>* output,
                    const std::vector<double>* inputGradient) {
  if (std::size_t(site) >= outputs.size()) {
    outputs.resize(std::size_t(site) + 1, nullptr);
    inputGradients.resize(std::size_t(site) + 1, nullptr);
  }
  outputs[std::size_t(site)] = output;
  inputGradients[std::size_t(site)] = inputGradient;
}

const DoubleTensor& Fp64Sequential::forward(const DoubleTensor& x, Fp64Params& params) {
  const DoubleTensor* cur = &x;
  for (auto& layer : layers_) cur = &layer->forward(*cur, params);
  return *cur;
}

const DoubleTensor& Fp64Sequential::backward(const DoubleTensor& dy, Fp64Params& params) {
  const DoubleTensor* grad = &dy;
  for (auto it = layers_.rbegin(); it != layers_.rend(); ++it) {
    grad = &(*it)->backward(*grad, params);
    if (!(*it)->needsInputGrad()) break;  // nothing before it is asked for a gradient
  }
  return *grad;
}

std::vector<int> Fp64Sequential::paramIds() const {
  std::vector<int> ids;
  for (const auto& layer : layers_) {
    const std::vector<int> own = layer->paramIds();
    ids.insert(ids.end(), own.begin(), own.end());
  }
  return ids;
}

void Fp64Sequential::sites(Fp64Sites& into) const {
  for (const auto& layer : layers_) layer->sites(into);
}

void Fp64Sequential::setNeedInputGrad(bool need) {
  needInputGrad_ = need;
  for (auto& layer : layers_) {
    layer->setNeedInputGrad(need);
    if (!layer->onlyReshapes()) break;
  }
}

}  // namespace paritylab::nn
