#pragma once
// torch.nn.Linear: y[N, out] = x[N, in] * W[out, in]^T + b[out]. Inputs of higher rank are
// flattened per batch item.

#include "core/nn/layer.h"

namespace paritylab::nn {

class Linear : public Layer {
 public:
  Linear(ModelBuilder& builder, const std::string& name, int in, int out, bool bias = true);
  Shape outputShape(const Shape& in) const override;
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;
  void init(ParamStore& params, RandomStream& rng) override;

  int weightId() const { return weight_; }
  int biasId() const { return bias_; }

 private:
  int in_, out_;
  int weight_ = -1, bias_ = -1;
  int site_;
  const Tensor* x_ = nullptr;
  Tensor y_, dx_;
};

}  // namespace paritylab::nn
