#pragma once
// Internals of the fp64 reference's layers: Eigen views of their row-major binary64 buffers.

#include <Eigen/Core>

namespace paritylab::nn::fp64 {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Matrix = Eigen::Map<RowMajor>;
using ConstMatrix = Eigen::Map<const RowMajor>;
using Row = Eigen::Map<Eigen::RowVectorXd>;
using ConstRow = Eigen::Map<const Eigen::RowVectorXd>;
using Array = Eigen::Map<Eigen::ArrayXd>;
using ConstArray = Eigen::Map<const Eigen::ArrayXd>;
// A block of a wider row-major buffer: rows `stride` values apart (one head's columns of [T, C]).
using StridedMatrix = Eigen::Map<RowMajor, 0, Eigen::OuterStride<>>;
using ConstStridedMatrix = Eigen::Map<const RowMajor, 0, Eigen::OuterStride<>>;

}  // namespace paritylab::nn::fp64
