#pragma once
// The linear-regression example of "why do TPU and GPU results differ": a Dense(1) layer with bias
// trained by full-batch gradient descent on the mean squared error under an emulated backend,
// against two fp64 references: the same gradient descent in fp64 and the least-squares solution.

#include <string>
#include <vector>

#include "core/backends/precision_policy.h"

namespace paritylab::playground {

// Defaults: the example of the text (X = [[1,2],[3,4],[5,6]], y = [7,9,11], lr 0.01, 100 epochs)
// from zero initial weights.
struct RegressionProblem {
  int rows = 3;
  int features = 2;
  std::vector<double> x = {1, 2, 3, 4, 5, 6};  // [rows, features], row-major
  std::vector<double> y = {7, 9, 11};          // [rows]
  double lr = 0.01;
  int epochs = 100;
  std::vector<double> initialWeights = {0, 0};  // [features]
  double initialBias = 0.0;
};

// Throws std::invalid_argument naming the field and the value that is wrong.
void validateProblem(const RegressionProblem& problem);

// Coefficients are always (w_0, ..., w_{features-1}, b).
struct RegressionTrajectory {
  std::vector<std::vector<double>> coefficients;  // [epochs + 1][features + 1]: after e epochs
  std::vector<double> loss;                       // [epochs + 1]: the MSE of coefficients[e]
  const std::vector<double>& final() const { return coefficients.back(); }
};

// Plain gradient descent in fp64: r = Xw + b - y, w -= lr * 2/n X^T r, b -= lr * 2/n sum(r).
RegressionTrajectory gradientDescentFp64(const RegressionProblem& problem);

// The fp64 least-squares solution of [X 1] c = y (numpy.linalg.lstsq): the minimum-norm solution
// when [X 1] is rank-deficient (as in the example, where x2 - x1 is the bias column).
struct LeastSquares {
  std::vector<double> coefficients;  // [features + 1]
  int rank = 0;
  int columns = 0;        // features + 1
  double residual = 0.0;  // ||[X 1] c - y||_2
  bool rankDeficient() const { return rank < columns; }
};
LeastSquares leastSquaresFp64(const RegressionProblem& problem);

// One backend's run: the Dense layer is core/nn's Linear, so every product goes through
// nn::gemm() with the backend's linear policy; inputs, gradients and weights are stored where the
// policy stores them, replicas are the policy's topology (each a shard of the rows, gradients
// all-reduced), fp16 policies scale the loss, fp8 policies scale operands per tensor. The loss
// of each epoch is the mean of the replicas' shard means as the run computes it (fp32 outputs,
// squared differences summed in fp64).
struct RegressionRun {
  std::string backend;
  RegressionTrajectory trajectory;  // shorter than epochs + 1 when the loss became NaN/inf
  int replicas = 1;
  int skippedSteps = 0;  // dynamic loss scaling overflowed: no update that epoch
  bool finite = true;
  double distanceToGradientDescent = 0.0;  // ||c - c_gd64||_2 at the final epoch
  double distanceToLeastSquares = 0.0;     // ||c - c_lstsq||_2
};
RegressionRun runRegression(const RegressionProblem& problem,
                            const backends::PrecisionPolicy& policy);

struct RegressionExperiment {
  RegressionProblem problem;
  RegressionTrajectory gradientDescent;  // fp64 reference (a)
  LeastSquares leastSquares;             // fp64 reference (b)
  std::vector<RegressionRun> runs;       // one per policy, in the order given
};
// Validates, then runs every policy from the same initial weights and fills the distances.
RegressionExperiment runRegressionExperiment(
    const RegressionProblem& problem, const std::vector<backends::PrecisionPolicy>& policies);

double euclideanDistance(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace paritylab::playground
