#pragma once
// A tensor's values as an Eigen array [size], for the element-wise kernels written with Eigen
// (ReLU, the residual adds). Apart from tensor.h so that the many files that only pass tensors
// around do not parse Eigen.

#include <Eigen/Core>

#include "core/nn/tensor.h"

namespace paritylab::nn {

inline Eigen::Map<Eigen::ArrayXf> asArray(Tensor& t) {
  return {t.data(), Eigen::Index(t.size())};
}
inline Eigen::Map<const Eigen::ArrayXf> asArray(const Tensor& t) {
  return {t.data(), Eigen::Index(t.size())};
}

}  // namespace paritylab::nn
