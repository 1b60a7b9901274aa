#pragma once
// Layers applied in order. Stores each layer's output in the policy's activation format (the
// tensors kept for backward), and is itself a layer so that blocks nest.

#include <memory>
#include <vector>

#include "core/nn/layer.h"

namespace paritylab::nn {

class Sequential : public Layer {
 public:
  explicit Sequential(ModelBuilder& builder) : site_(builder.nextSite++) {}
  template <class L, class... Args>
  L& add(Args&&... args) {
    auto layer = std::make_unique<L>(std::forward<Args>(args)...);
    L& ref = *layer;
    layers_.push_back(std::move(layer));
    return ref;
  }
  Shape outputShape(const Shape& in) const override;
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;
  void init(ParamStore& params, RandomStream& rng) override;
  void propagateNeedInputGrad(bool need);

  const std::vector<std::unique_ptr<Layer>>& layers() const { return layers_; }
  int site() const { return site_; }  // seeds of the stored outputs: site() * 64 + layer index

 private:
  int site_;
  std::vector<std::unique_ptr<Layer>> layers_;
};

}  // namespace paritylab::nn
