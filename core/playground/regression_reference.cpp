// The fp64 references of the regression example and the problem's validation.
#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/playground/regression.h"

namespace paritylab::playground {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void requireFinite(const std::vector<double>& values, const std::string& field) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]))
      throw std::invalid_argument(field + "[" + std::to_string(i) + "] = " + number(values[i]) +
                                  " is not a finite number");
  }
}

}  // namespace

void validateProblem(const RegressionProblem& p) {
  if (p.rows < 1) throw std::invalid_argument("rows = " + std::to_string(p.rows) + " (need >= 1)");
  if (p.features < 1)
    throw std::invalid_argument("features = " + std::to_string(p.features) + " (need >= 1)");
  if (p.x.size() != std::size_t(p.rows) * std::size_t(p.features)) {
    throw std::invalid_argument(
        "X has " + std::to_string(p.x.size()) + " values, expected rows x " +
        "features = " + std::to_string(p.rows) + " x " + std::to_string(p.features));
  }
  if (p.y.size() != std::size_t(p.rows))
    throw std::invalid_argument("y has " + std::to_string(p.y.size()) + " values but X has " +
                                std::to_string(p.rows) + " rows");
  if (p.initialWeights.size() != std::size_t(p.features))
    throw std::invalid_argument("initial weights have " + std::to_string(p.initialWeights.size()) +
                                " values but X has " + std::to_string(p.features) + " columns");
  requireFinite(p.x, "X");
  requireFinite(p.y, "y");
  requireFinite(p.initialWeights, "initial weights");
  if (!std::isfinite(p.initialBias))
    throw std::invalid_argument("initial bias = " + number(p.initialBias) + " is not finite");
  if (!(p.lr > 0.0) || !std::isfinite(p.lr))
    throw std::invalid_argument("lr = " + number(p.lr) + " (need a finite value > 0)");
  if (p.epochs < 0 || p.epochs > 1000000)
    throw std::invalid_argument("epochs = " + std::to_string(p.epochs) + " (need 0 .. 1000000)");
}

RegressionTrajectory gradientDescentFp64(const RegressionProblem& p) {
  const int n = p.rows, d = p.features;
  std::vector<double> c(p.initialWeights);
  c.push_back(p.initialBias);
  std::vector<double> r(std::size_t(n), 0.0);
  RegressionTrajectory t;
  for (int epoch = 0; epoch <= p.epochs; ++epoch) {
    double loss = 0.0;
    for (int i = 0; i < n; ++i) {
      double yhat = c[std::size_t(d)];
      for (int j = 0; j < d; ++j) yhat += p.x[std::size_t(i) * d + j] * c[std::size_t(j)];
      r[std::size_t(i)] = yhat - p.y[std::size_t(i)];
      loss += r[std::size_t(i)] * r[std::size_t(i)];
    }
    t.coefficients.push_back(c);
    t.loss.push_back(loss / n);
    if (epoch == p.epochs) break;
    std::vector<double> grad(std::size_t(d) + 1, 0.0);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < d; ++j)
        grad[std::size_t(j)] += p.x[std::size_t(i) * d + j] * r[std::size_t(i)];
      grad[std::size_t(d)] += r[std::size_t(i)];
    }
    for (int j = 0; j <= d; ++j) c[std::size_t(j)] -= p.lr * 2.0 / n * grad[std::size_t(j)];
  }
  return t;
}

LeastSquares leastSquaresFp64(const RegressionProblem& p) {
  const int n = p.rows, d = p.features;
  Eigen::MatrixXd z(n, d + 1);
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j) z(i, j) = p.x[std::size_t(i) * d + j];
    z(i, d) = 1.0;
    y(i) = p.y[std::size_t(i)];
  }
  // Complete orthogonal decomposition: the minimum-norm least-squares solution, rank-revealing
  // (LAPACK gelsd, behind numpy's lstsq, returns the same solution through the SVD).
  const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(z);
  const Eigen::VectorXd c = cod.solve(y);
  LeastSquares out;
  out.coefficients.assign(c.data(), c.data() + c.size());
  out.rank = int(cod.rank());
  out.columns = d + 1;
  out.residual = (z * c - y).norm();
  return out;
}

double euclideanDistance(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("euclideanDistance: sizes differ");
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

}  // namespace paritylab::playground
