#pragma once
// torch.nn.Conv2d (square kernel, stride, zero padding, optional bias), through im2col and one
// GEMM per product over the whole batch. x [N, Cin, H, W] -> y [N, Cout, outH, outW].

#include "core/nn/im2col.h"
#include "core/nn/layer.h"

namespace paritylab::nn {

enum class ConvInit {
  TorchDefault,     // kaiming_uniform_(a=sqrt(5)): U(-1/sqrt(fan_in), 1/sqrt(fan_in)), bias too
  KaimingNormalOut  // torchvision ResNet: normal(0, sqrt(2 / fan_out))
};

class Conv2d : public Layer {
 public:
  Conv2d(ModelBuilder& builder, const std::string& name, int in, int out, int kernel, int stride,
         int padding, bool bias, ConvInit init = ConvInit::TorchDefault);
  Shape outputShape(const Shape& in) const override;
  Tensor& forward(const Tensor& x, StepContext& ctx) override;
  const Tensor& backward(const Tensor& dy, StepContext& ctx) override;
  void init(ParamStore& params, RandomStream& rng) override;
  // The forward product's one output rounding is `format` (gpu-amp-*: bf16/fp16 outputs stored
  // as bf16/fp16 activations).
  bool outputAlreadyStoredAs(const numerics::RoundingSpec& format,
                             const StepContext& ctx) const override;

  int weightId() const { return weight_; }
  int biasId() const { return bias_; }  // -1: no bias
  int site() const { return site_; }
  int inChannels() const { return in_; }
  int outChannels() const { return out_; }
  int kernel() const { return kernel_; }
  int stride() const { return stride_; }
  int padding() const { return padding_; }

 private:
  ConvGeometry geometry(const Shape& in) const;
  // Whether backward() takes the gathered path below for this step's policy.
  bool gathersGradient(const StepContext& ctx, bool splitWeight) const;
  // Backward of a same convolution (stride 1, padding (kernel-1)/2) from one gather of the output
  // gradient per image group (conv2d_gathered_backward.cpp).
  const Tensor& backwardGathered(const Tensor& dy, StepContext& ctx);

  int in_, out_, kernel_, stride_, padding_;
  ConvInit initKind_;
  int weight_ = -1, bias_ = -1;
  int site_;
  const Tensor* x_ = nullptr;
  // x_ went through the store step in this format (StepContext::inputStoredAs at forward).
  std::optional<numerics::RoundingSpec> inputStoredAs_;
  Tensor y_, dx_;
};

}  // namespace paritylab::nn
