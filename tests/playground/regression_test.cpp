// The regression example: references and the emulated runs.
//
// GCC 12's AVX-512 intrinsics read an uninitialised __Y in _mm512_undefined_* (GCC bug 105593,
// fixed in 13); -Wuninitialized reports it once Eigen's double-precision packet code is inlined
// into this file's reference solves. Before the includes, so the headers' lines are covered.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "core/playground/regression.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

#include "core/backends/precision_policy.h"

namespace paritylab::playground {
namespace {

// fp64 gradient descent equals the closed-form iteration
// c_t = M^t c_0 + sum_{j<t} M^j v with M = I - (2 lr / n) Z^T Z, v = (2 lr / n) Z^T y, Z = [X 1],
// evaluated through the eigendecomposition of the symmetric M (eigenvalue 1 on the null space of
// Z, where the sum is t v).
TEST(RegressionReference, GradientDescentFp64EqualsClosedFormIteration) {
  RegressionProblem p;
  p.initialWeights = {0.25, -0.5};
  p.initialBias = 0.125;
  const RegressionTrajectory gd = gradientDescentFp64(p);
  ASSERT_EQ(gd.coefficients.size(), std::size_t(p.epochs + 1));

  Eigen::MatrixXd z(3, 3);
  z << 1, 2, 1, 3, 4, 1, 5, 6, 1;
  const Eigen::Vector3d y(7, 9, 11);
  const double step = 2.0 * p.lr / 3.0;
  const Eigen::Matrix3d m = Eigen::Matrix3d::Identity() - step * z.transpose() * z;
  const Eigen::Vector3d v = step * z.transpose() * y;
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(m);
  const Eigen::Matrix3d q = eig.eigenvectors();
  const Eigen::Vector3d lambda = eig.eigenvalues();
  const Eigen::Vector3d c0(0.25, -0.5, 0.125);
  for (int t : {0, 1, 2, 10, 50, 100}) {
    Eigen::Vector3d power, geometric;
    for (int i = 0; i < 3; ++i) {
      power(i) = std::pow(lambda(i), t);
      geometric(i) =
          std::fabs(1.0 - lambda(i)) < 1e-14 ? double(t) : (1.0 - power(i)) / (1.0 - lambda(i));
    }
    const Eigen::Vector3d closed = q * power.asDiagonal() * q.transpose() * c0 +
                                   q * geometric.asDiagonal() * q.transpose() * v;
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(gd.coefficients[std::size_t(t)][std::size_t(i)], closed(i), 1e-12)
          << "epoch " << t << " coefficient " << i;
  }
  // The loss is the MSE of the coefficients it is recorded with.
  const auto& c = gd.coefficients[7];
  double loss = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double r = z(i, 0) * c[0] + z(i, 1) * c[1] + c[2] - y(i);
    loss += r * r / 3.0;
  }
  EXPECT_NEAR(gd.loss[7], loss, 1e-12);
}

// numpy.linalg.lstsq([[1,2,1],[3,4,1],[5,6,1]], [7,9,11]) returns the minimum-norm
// solution (-4/3, 7/3, 11/3) with rank 2: (1, 0, 6) fits exactly, the null space is (1, -1, 1).
TEST(RegressionReference, LeastSquaresIsTheMinimumNormSolutionOfTheRankDeficientExample) {
  const LeastSquares ls = leastSquaresFp64(RegressionProblem{});
  EXPECT_EQ(ls.rank, 2);
  EXPECT_EQ(ls.columns, 3);
  EXPECT_TRUE(ls.rankDeficient());
  ASSERT_EQ(ls.coefficients.size(), 3u);
  EXPECT_NEAR(ls.coefficients[0], -4.0 / 3.0, 1e-12);
  EXPECT_NEAR(ls.coefficients[1], 7.0 / 3.0, 1e-12);
  EXPECT_NEAR(ls.coefficients[2], 11.0 / 3.0, 1e-12);
  EXPECT_LT(ls.residual, 1e-12);
}

// An independent fp32 loop of the same training: forward y_i = (x_i0 w0 + x_i1 w1) + b, the MSE
// gradient g_i = float(2/n) * (y_i - t_i), dW_j = sum_i g_i x_ij, db = sum_i g_i, w -= lr * dW.
// `fused`: the BLAS kernel forms x_i0 w0 + x_i1 w1 (and dW) with fused multiply-adds, as
// OpenBLAS's Haswell/SkylakeX kernels do (the case is chosen so that the two differ).
std::vector<float> independentFp32(const RegressionProblem& p, bool fused) {
  float w0 = float(p.initialWeights[0]), w1 = float(p.initialWeights[1]), b = float(p.initialBias);
  const float lr = float(p.lr);
  const float factor = float(2.0 / p.rows);
  for (int epoch = 0; epoch < p.epochs; ++epoch) {
    float g[3];
    for (int i = 0; i < 3; ++i) {
      const float x0 = float(p.x[std::size_t(2 * i)]), x1 = float(p.x[std::size_t(2 * i + 1)]);
      const float dot = fused ? std::fma(x1, w1, x0 * w0) : x0 * w0 + x1 * w1;
      const float yhat = dot + b;
      g[i] = factor * (yhat - float(p.y[std::size_t(i)]));
    }
    float dw0 = 0.0f, dw1 = 0.0f, db = 0.0f;
    for (int i = 0; i < 3; ++i) {
      const float x0 = float(p.x[std::size_t(2 * i)]), x1 = float(p.x[std::size_t(2 * i + 1)]);
      dw0 = fused ? std::fma(g[i], x0, dw0) : dw0 + g[i] * x0;
      dw1 = fused ? std::fma(g[i], x1, dw1) : dw1 + g[i] * x1;
      db += g[i];
    }
    w0 -= lr * dw0;
    w1 -= lr * dw1;
    b -= lr * db;
  }
  return {w0, w1, b};
}

// The cpu-fp32 run equals an independent fp32 loop bit for bit.
TEST(RegressionRun, CpuFp32EqualsAnIndependentFp32LoopBitForBit) {
  RegressionProblem p;
  p.initialWeights = {0.1, -0.3};
  p.initialBias = 0.7;
  const RegressionRun run = runRegression(p, backends::presetPolicy("cpu-fp32"));
  ASSERT_TRUE(run.finite);
  ASSERT_EQ(run.trajectory.coefficients.size(), std::size_t(p.epochs + 1));
  const auto& c = run.trajectory.final();
  const std::vector<float> plain = independentFp32(p, false);
  const std::vector<float> fused = independentFp32(p, true);
  ASSERT_NE(plain, fused) << "the case must tell fused from unfused accumulation";
  // configureBlas() selects OpenBLAS's Haswell/SkylakeX kernels on CPUs with AVX2 and FMA, and
  // those accumulate with fused multiply-adds.
  const bool blasFuses = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const std::vector<float> expected = blasFuses ? fused : plain;
  EXPECT_EQ(float(c[0]), expected[0]);
  EXPECT_EQ(float(c[1]), expected[1]);
  EXPECT_EQ(float(c[2]), expected[2]);
  // Every epoch's coefficients are the fp32 master weights, exactly.
  for (const auto& epoch : run.trajectory.coefficients)
    for (double v : epoch) EXPECT_EQ(v, double(float(v)));
}

TEST(RegressionRun, EveryPresetRunsFromTheSameInitialWeightsAndTpuShardsTheRows) {
  const RegressionExperiment e =
      runRegressionExperiment(RegressionProblem{}, backends::presetPolicies());
  ASSERT_EQ(e.runs.size(), backends::presetPolicies().size());
  for (const auto& run : e.runs) {
    ASSERT_TRUE(run.finite) << run.backend;
    EXPECT_EQ(run.trajectory.coefficients.front(), (std::vector<double>{0, 0, 0})) << run.backend;
    EXPECT_LT(run.trajectory.loss.back(), run.trajectory.loss.front()) << run.backend;
    EXPECT_NEAR(run.distanceToGradientDescent,
                euclideanDistance(run.trajectory.final(), e.gradientDescent.final()), 1e-15);
  }
  EXPECT_EQ(e.runs[0].backend, "cpu-fp32");
  EXPECT_LT(e.runs[0].distanceToGradientDescent, 1e-4);  // fp32 rounding only
  const auto tpu = std::find_if(e.runs.begin(), e.runs.end(),
                                [](const RegressionRun& r) { return r.backend == "tpu-bf16"; });
  ASSERT_NE(tpu, e.runs.end());
  EXPECT_EQ(tpu->replicas, 3);  // 8 cores, 3 rows: one row per core
  EXPECT_GT(tpu->distanceToGradientDescent, e.runs[0].distanceToGradientDescent);
}

TEST(RegressionProblemChecks, BadInputNamesTheField) {
  RegressionProblem p;
  p.y = {1, 2};
  EXPECT_THROW(
      {
        try {
          validateProblem(p);
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("y has 2 values"), std::string::npos) << e.what();
          throw;
        }
      },
      std::invalid_argument);
  p = RegressionProblem{};
  p.lr = -1;
  EXPECT_THROW(validateProblem(p), std::invalid_argument);
  p = RegressionProblem{};
  p.x[3] = NAN;
  EXPECT_THROW(validateProblem(p), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::playground
