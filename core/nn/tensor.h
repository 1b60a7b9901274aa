#pragma once
// A minimal dense tensor: up to 4 dims, contiguous fp32 storage, row-major [batch, channels, h, w].
// resize() never shrinks capacity, so after the first (largest) batch a training step allocates
// nothing.

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <vector>

namespace paritylab::nn {

struct Shape {
  std::array<int, 4> dims{0, 0, 0, 0};
  int rank = 0;

  Shape() = default;
  Shape(std::initializer_list<int> d) : rank(int(d.size())) {
    assert(d.size() <= 4);
    int i = 0;
    for (int v : d) dims[i++] = v;
  }
  int operator[](int i) const { return dims[i]; }
  std::size_t numel() const {
    std::size_t n = rank > 0 ? 1 : 0;
    for (int i = 0; i < rank; ++i) n *= std::size_t(dims[i]);
    return n;
  }
  // Elements per batch item (all dims but the first).
  std::size_t itemSize() const {
    std::size_t n = 1;
    for (int i = 1; i < rank; ++i) n *= std::size_t(dims[i]);
    return n;
  }
  Shape withBatch(int batch) const {
    Shape s = *this;
    s.dims[0] = batch;
    return s;
  }
  bool operator==(const Shape& o) const { return rank == o.rank && dims == o.dims; }
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(const Shape& shape) { resize(shape); }

  // Values beyond those the tensor held before are zero the first time the storage grows to
  // them, and otherwise unspecified: a tensor that changes size from call to call (a TPU's
  // replicas of 1 and 2 items, an epoch's last batch) is not zeroed each time it grows back.
  void resize(const Shape& shape) {
    shape_ = shape;
    size_ = shape.numel();
    if (data_.size() < size_) data_.resize(size_);
  }
  void setZero() { std::fill_n(data_.begin(), size_, 0.0f); }

  const Shape& shape() const { return shape_; }
  int dim(int i) const { return shape_.dims[i]; }
  int batch() const { return shape_.dims[0]; }
  std::size_t size() const { return size_; }
  float* data() { return data_.data(); }
  const float* data() const { return data_.data(); }
  float& operator[](std::size_t i) { return data_[i]; }
  float operator[](std::size_t i) const { return data_[i]; }

 private:
  Shape shape_;
  std::size_t size_ = 0;
  std::vector<float> data_;  // at least size_ values
};

}  // namespace paritylab::nn
