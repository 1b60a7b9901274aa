#pragma once
// torch.nn.Linear: y[rows, out] = x[rows, in] * W[out, in]^T + b[out], row-major. An input whose
// last dimension is `in` has one row per position of its leading dimensions, as torch applies
// Linear to [..., in] ([B, T, C] -> [B, T, out]: B*T rows); any other input of `in` features per
// batch item is flattened per item ([N, C, H, W] -> [N, out]).

#include <optional>

#include "core/nn/layer.h"
#include "core/nn/rounded_copy.h"

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
  int site() const { return site_; }
  int inFeatures() const { return in_; }
  int outFeatures() const { return out_; }

 private:
  // Rows of the product for an input of shape `in` (throws when it does not fit).
  int rows(const Shape& in) const;

  int in_, out_;
  int weight_ = -1, bias_ = -1;
  int site_;
  const Tensor* x_ = nullptr;
  // x_ went through the store step in this format (StepContext::inputStoredAs at forward).
  std::optional<numerics::RoundingSpec> inputStoredAs_;
  Tensor y_, dx_;
  // x and dY rounded once for the products that read them alike.
  RoundedCopy xRounded_, dyRounded_;
};

}  // namespace paritylab::nn
