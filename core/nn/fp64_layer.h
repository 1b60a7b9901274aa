#pragma once
// The layers of the fp64 reference (fp64_training.h): one double layer per kind of fp32 layer,
// forward and backward on row-major binary64 tensors [batch, ...] in the same layout as the fp32
// layer's, its parameters read from and its gradients written to the reference's own copy of the
// model's ParamStore (Fp64Params). Like the fp32 Layer, a layer owns its output and its input
// gradient and remembers its input between forward() and backward(); backward() overwrites the
// gradients of the parameters it reads.
//
// A layer with products (a GEMM call site of the fp32 model) shows the tensors the lockstep probe
// records of the fp32 layer (activation_probe.h) through sites(): its output after its products
// and the gradient it passes back to its input, in the fp32 layer's layout.

#include <cstddef>
#include <memory>
#include <vector>

#include "core/nn/tensor.h"

namespace paritylab::nn {

// A binary64 tensor: `shape` (up to 4 dims, the batch first) and its values, row-major.
struct DoubleTensor {
  Shape shape;
  std::vector<double> values;  // exactly shape.numel() values

  void resize(const Shape& s) {
    shape = s;
    values.resize(s.numel());
  }
  std::size_t size() const { return values.size(); }
  double* data() { return values.data(); }
  const double* data() const { return values.data(); }
};

// The parameters in binary64, laid out as a model's ParamStore: parameter `id`'s values start at
// offsets[id] in `values` (and its gradient at the same place in `grads`).
struct Fp64Params {
  std::vector<double> values, grads;  // [total]
  std::vector<std::size_t> offsets;   // [param id]
  std::vector<std::size_t> sizes;     // [param id]

  // Appends a parameter holding `initial`; returns its id (tests build layers this way).
  int add(const std::vector<double>& initial);
  const double* value(int id) const { return values.data() + offsets[std::size_t(id)]; }
  double* value(int id) { return values.data() + offsets[std::size_t(id)]; }
  double* grad(int id) { return grads.data() + offsets[std::size_t(id)]; }
  std::size_t size(int id) const { return sizes[std::size_t(id)]; }
};

// [site]: where each GEMM call site's output and input gradient live (null: no such site).
struct Fp64Sites {
  std::vector<const std::vector<double>*> outputs, inputGradients;
  void set(int site, const std::vector<double>* output, const std::vector<double>* inputGradient);
};

class Fp64Layer {
 public:
  virtual ~Fp64Layer() = default;
  // Training-mode forward of x (alive and unchanged until backward()); returns the layer's output.
  virtual const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) = 0;
  // dy: the loss's gradient with respect to the last forward's output. Overwrites the gradients
  // of the parameters the layer reads; returns dL/dx (empty when it needs no input gradient).
  virtual const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) = 0;
  // The parameter ids it reads (its own and those of the layers inside it).
  virtual std::vector<int> paramIds() const { return {}; }
  // Where the tensors of its GEMM call sites (its own and those of the layers inside it) live.
  virtual void sites(Fp64Sites& /*into*/) const {}
  // Whether backward() computes dL/dx (false for a model's first layer, as the fp32 one).
  virtual void setNeedInputGrad(bool need) { needInputGrad_ = need; }
  bool needsInputGrad() const { return needInputGrad_; }
  // True for a layer that only changes the shape (flatten): an input gradient it is asked for
  // is asked of the layer after it too.
  virtual bool onlyReshapes() const { return false; }

 protected:
  bool needInputGrad_ = true;
};

// Layers applied in order (the fp32 Sequential).
class Fp64Sequential : public Fp64Layer {
 public:
  void add(std::unique_ptr<Fp64Layer> layer) { layers_.push_back(std::move(layer)); }
  const DoubleTensor& forward(const DoubleTensor& x, Fp64Params& params) override;
  const DoubleTensor& backward(const DoubleTensor& dy, Fp64Params& params) override;
  std::vector<int> paramIds() const override;
  void sites(Fp64Sites& into) const override;
  // As Sequential::propagateNeedInputGrad: its first layer (past flattens, which hold nothing)
  // computes an input gradient only when the sequence must.
  void setNeedInputGrad(bool need) override;
  const std::vector<std::unique_ptr<Fp64Layer>>& layers() const { return layers_; }

 private:
  std::vector<std::unique_ptr<Fp64Layer>> layers_;
};

}  // namespace paritylab::nn
