#pragma once
// The arithmetic of one optimizer update over a range of parameters, written once for any element
// type: the optimizers (fp32 master weights, optimizer.h) and the fp64 reference of a lockstep
// comparison (fp64_training.h) run the same expressions, in float or in double.

#include <Eigen/Core>
#include <cmath>
#include <cstdint>

#include "core/nn/trainer.h"

namespace paritylab::nn::detail {

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

// torch.optim.AdamW's step `t` (1-based) with learning rate `lr`: decoupled weight decay, the
// moments, then the bias-corrected update. The constants are computed in double and taken to T.
template <typename T>
struct AdamWUpdate {
  AdamWUpdate(const OptimizerConfig& config, std::int64_t t, double lr)
      : b1(T(config.beta1)),
        b2(T(config.beta2)),
        decay(T(1.0 - lr * config.weightDecay)),
        stepSize(T(lr / (1.0 - std::pow(config.beta1, double(t))))),
        bc2Sqrt(T(std::sqrt(1.0 - std::pow(config.beta2, double(t))))),
        eps(T(config.eps)),
        decays(config.weightDecay != 0.0) {}

  // p *= 1 - lr wd; m, v from g.
  void moments(ArrayMap<T>& p, const ArrayMap<T>& g, ArrayMap<T>& m, ArrayMap<T>& v) const {
    if (decays) p *= decay;
    m = b1 * m + (T(1) - b1) * g;
    v = b2 * v + (T(1) - b2) * g.square();
  }
  // p -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps), from the moments as stored.
  void apply(ArrayMap<T>& p, const ArrayMap<T>& m, const ArrayMap<T>& v) const {
    p -= stepSize * (m / (v.sqrt() / bc2Sqrt + eps));
  }

  T b1, b2, decay, stepSize, bc2Sqrt, eps;
  bool decays;
};

// torch.optim.SGD with learning rate `lr`: g += wd p; the momentum buffer b = g on the first step,
// else mu b + g; the update g + mu b (Nesterov) or b; without momentum, g.
template <typename T>
struct SgdUpdate {
  SgdUpdate(const OptimizerConfig& config, double lr)
      : mu(T(config.momentum)), wd(T(config.weightDecay)), rate(T(lr)), nesterov(config.nesterov) {}

  bool hasMomentum() const { return mu != T(0); }
  // Without momentum: the whole update.
  void decayAndStep(ArrayMap<T>& p, ArrayMap<T>& g) const {
    decay(p, g);
    p -= rate * g;
  }
  void decay(const ArrayMap<T>& p, ArrayMap<T>& g) const {
    if (wd != T(0)) g += wd * p;
  }
  void momentum(const ArrayMap<T>& g, ArrayMap<T>& b, bool first) const {
    if (first)
      b = g;
    else
      b = mu * b + g;
  }
  // From the buffer as stored.
  void apply(ArrayMap<T>& p, const ArrayMap<T>& g, const ArrayMap<T>& b) const {
    if (nesterov)
      p -= rate * (g + mu * b);
    else
      p -= rate * b;
  }

  T mu, wd, rate;
  bool nesterov;
};

}  // namespace paritylab::nn::detail
