// One backend's run of the regression example, through core/nn's Linear layer and nn::gemm().
#include "core/playground/regression.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/nn/fp8_site_scales.h"
#include "core/nn/linear.h"
#include "core/nn/loss_scaler.h"
#include "core/nn/optimizer.h"
#include "core/nn/training_session.h"

namespace paritylab::playground {
namespace {

using nn::Tensor;

// Mean squared error of one shard: returns sum((yhat - y)^2) / n in fp64 and writes
// dL/dyhat = float(2 * scale / n) * (yhat - y) (fp32, as torch's MSELoss backward with the loss
// scale folded in) into `grad` [n, 1].
double meanSquaredError(const Tensor& yhat, const float* target, Tensor& grad, double scale) {
  const int n = yhat.batch();
  grad.resize(yhat.shape());
  const float factor = float(2.0 * scale / n);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    const float diff = yhat[std::size_t(i)] - target[i];
    sum += double(diff) * double(diff);
    grad[std::size_t(i)] = factor * diff;
  }
  return sum / n;
}

bool allFinite(const std::vector<float>& values) {
  return std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); });
}

// Re-derives the weights the products see after the master weights changed (as
// nn::TrainingSession::weightsChanged does).
void weightsChanged(nn::ParamStore& params, const backends::PrecisionPolicy& policy,
                    std::uint64_t step) {
  std::optional<numerics::RoundingSpec> format = policy.storage.weights;
  if (format && policy.stochasticWeightUpdate) format->mode = numerics::RoundingMode::Stochastic;
  const std::uint64_t seed = nn::hashSeed(0, step, 0x57454947);
  if (policy.storage.fp32MasterWeights)
    params.refreshWorking(format, seed);
  else
    params.roundMaster(format, seed);
}

}  // namespace

RegressionRun runRegression(const RegressionProblem& p, const backends::PrecisionPolicy& policy) {
  validateProblem(p);
  RegressionRun run;
  run.backend = policy.name;
  const int n = p.rows, d = p.features;

  nn::ParamStore params;
  nn::ModelBuilder builder{&params};
  nn::Linear dense(builder, "dense", d, 1, true);
  dense.setNeedInputGrad(false);
  params.finalize(policy.storage.weights && policy.storage.fp32MasterWeights);
  for (int j = 0; j < d; ++j) params.master(dense.weightId())[j] = float(p.initialWeights[j]);
  params.master(dense.biasId())[0] = float(p.initialBias);
  weightsChanged(params, policy, 0);

  std::unique_ptr<nn::Fp8SiteScales> fp8;
  if (policy.fp8.enabled) fp8 = std::make_unique<nn::Fp8SiteScales>(policy, builder.nextSite);
  nn::GemmWorkspace workspace;
  nn::LayerScratch scratch;
  nn::LossScaler scaler(policy.lossScaling);
  nn::OptimizerConfig sgdConfig;
  sgdConfig.kind = "sgd";
  sgdConfig.lr = p.lr;
  sgdConfig.momentum = 0.0;
  nn::Sgd sgd(sgdConfig);
  const auto ranges = params.weightRanges(false);

  const std::vector<float> target(p.y.begin(), p.y.end());
  const int replicas = std::max(1, std::min(policy.topology.replicas, n));
  run.replicas = replicas;
  std::vector<std::vector<float>> replicaGrads(std::size_t(replicas),
                                               std::vector<float>(params.totalSize(), 0.0f));
  Tensor input, dyhat;
  for (int epoch = 0; epoch <= p.epochs; ++epoch) {
    const auto step = std::uint64_t(epoch);
    nn::StepContext ctx{&policy, &workspace, &scratch, &params, fp8.get(), true, 0, 0, step};
    const double scale = scaler.scale();
    double lossSum = 0.0;
    for (int r = 0; r < replicas; ++r) {
      const int begin = int(std::int64_t(n) * r / replicas);
      const int end = int(std::int64_t(n) * (r + 1) / replicas);
      ctx.replica = r;
      input.resize({end - begin, d});
      for (std::size_t i = 0; i < input.size(); ++i)
        input[i] = float(p.x[std::size_t(begin) * d + i]);
      if (policy.storage.activations)
        nn::storeTensor(policy.storage.activations, input.data(), input.size(),
                        nn::hashSeed(0, step * 64 + std::uint64_t(r), 0x494E5054));
      const Tensor& yhat = dense.forward(input, ctx);
      lossSum += meanSquaredError(yhat, target.data() + begin, dyhat, scale);
      if (epoch == p.epochs) continue;  // the last pass only measures the final loss
      dense.backward(dyhat, ctx);
      replicaGrads[std::size_t(r)] = params.gradData();
    }
    std::vector<double> c(std::size_t(d) + 1);
    for (int j = 0; j < d; ++j) c[std::size_t(j)] = params.master(dense.weightId())[j];
    c[std::size_t(d)] = params.master(dense.biasId())[0];
    run.trajectory.coefficients.push_back(std::move(c));
    run.trajectory.loss.push_back(lossSum / replicas);
    if (!std::isfinite(run.trajectory.loss.back())) {
      run.finite = false;
      break;
    }
    if (epoch == p.epochs) break;
    if (replicas > 1) {
      nn::allReduceMean(replicaGrads, replicas, params.gradData().data(), params.totalSize());
      nn::storeTensor(policy.storage.gradients, params.gradData().data(), params.totalSize(),
                      nn::hashSeed(0, step, 0x52454443));
    }
    if (scaler.enabled()) {
      if (scaler.update(!allFinite(params.gradData()))) {
        ++run.skippedSteps;
        continue;
      }
      const float inv = float(1.0 / scale);
      for (float& g : params.gradData()) g *= inv;
    }
    sgd.step(params, ranges, p.lr, policy.storage.optimizerState);
    weightsChanged(params, policy, step + 1);
  }
  return run;
}

RegressionExperiment runRegressionExperiment(
    const RegressionProblem& problem, const std::vector<backends::PrecisionPolicy>& policies) {
  validateProblem(problem);
  RegressionExperiment e;
  e.problem = problem;
  e.gradientDescent = gradientDescentFp64(problem);
  e.leastSquares = leastSquaresFp64(problem);
  for (const auto& policy : policies) {
    RegressionRun run = runRegression(problem, policy);
    if (run.finite) {
      run.distanceToGradientDescent =
          euclideanDistance(run.trajectory.final(), e.gradientDescent.final());
      run.distanceToLeastSquares =
          euclideanDistance(run.trajectory.final(), e.leastSquares.coefficients);
    } else {
      run.distanceToGradientDescent = run.distanceToLeastSquares = std::nan("");
    }
    e.runs.push_back(std::move(run));
  }
  return e;
}

}  // namespace paritylab::playground
