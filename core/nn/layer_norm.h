#pragma once
// torch.nn.LayerNorm(C) over the last dimension: x [..., C] (GPT: [B, T, C]), row-major;
// y = (x - mean) / sqrt(var + eps) * weight + bias per row of C, biased variance, eps 1e-5,
// weight 1 and bias 0 at init. The statistics (mean, 1/std) are fp32 values computed from double
// sums, as BatchNorm's, or held in the policy's elementwise.layerNormStatistics format: the mean,
// the variance and 1 / sqrt(variance + eps) each rounded to it (the backward uses them as held).

#include "core/nn/layer.h"

namespace paritylab::nn {

class LayerNorm : public Layer {
 public:
  LayerNorm(ModelBuilder& builder, const std::string& name, int features, double eps = 1e-5);
  Shape outputShape(const Shape& in) const override;
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;
  void init(ParamStore& params, RandomStream& rng) override;

  int weightId() const { return weight_; }
  int biasId() const { return bias_; }
  int features() const { return features_; }
  double eps() const { return eps_; }

 private:
  int features_;
  double eps_;
  int weight_, bias_;
  int site_;                    // seeds of the stored gradients
  std::string statisticsXray_;  // the X-ray's name of its held statistics: "h0.ln_1.stats"
  const Tensor* x_ = nullptr;
  Tensor y_, dx_;
  std::vector<float> mean_, invStd_;  // [rows] of the last forward
};

}  // namespace paritylab::nn
