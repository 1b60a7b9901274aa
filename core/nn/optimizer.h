#pragma once
// Optimizers with torch.optim semantics over the ParamStore's flat arrays. Each step updates the
// master weights of the given ranges; the caller then re-derives what the products see.

#include <memory>
#include <optional>
#include <vector>

#include "core/nn/param_store.h"
#include "core/nn/trainer.h"

namespace paritylab::nn {

// An optimizer's state held in double: the fp64 reference's (fp64_training.h).
struct Fp64OptimizerState {
  std::int64_t t = 0;        // AdamW: the steps taken
  bool first = true;         // Sgd: no step taken yet
  std::vector<double> m, v;  // AdamW: the moments [param] (empty before the first step)
  std::vector<double> buf;   // Sgd: the momentum buffer [param] (empty without momentum)
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // One update with learning rate `lr` of params[r] from grads[r] for every range r.
  // `stateFormat`: storage format of the optimizer state (moments, momentum).
  virtual void step(ParamStore& params, const std::vector<ParamStore::Range>& ranges, double lr,
                    const std::optional<numerics::RoundingSpec>& stateFormat) = 0;
  // A copy with the same hyper-parameters and state (moments, step count).
  virtual std::unique_ptr<Optimizer> clone() const = 0;
  // Takes `other`'s state (an optimizer of the same kind), reusing this one's buffers: a lockstep
  // run's re-synchronisation continues the reference's optimizer at every step.
  virtual void assign(const Optimizer& other) = 0;
  // Takes the fp64 reference's state, each value rounded to fp32: a lockstep comparison with the
  // fp64 reference re-synchronises A from it.
  virtual void assignRounded(const Fp64OptimizerState& state) = 0;
};

// torch.optim.AdamW: decoupled weight decay p -= lr*wd*p, bias-corrected moments.
class AdamW : public Optimizer {
 public:
  explicit AdamW(const OptimizerConfig& config) : config_(config) {}
  void step(ParamStore& params, const std::vector<ParamStore::Range>& ranges, double lr,
            const std::optional<numerics::RoundingSpec>& stateFormat) override;
  std::unique_ptr<Optimizer> clone() const override { return std::make_unique<AdamW>(*this); }
  void assign(const Optimizer& other) override { *this = dynamic_cast<const AdamW&>(other); }
  void assignRounded(const Fp64OptimizerState& state) override;

 private:
  OptimizerConfig config_;
  std::int64_t t_ = 0;
  std::vector<float> m_, v_;
};

// torch.optim.SGD: g += wd*p; momentum buffer b = g (first step) or mu*b + g; Nesterov
// g + mu*b; p -= lr*update.
class Sgd : public Optimizer {
 public:
  explicit Sgd(const OptimizerConfig& config) : config_(config) {}
  void step(ParamStore& params, const std::vector<ParamStore::Range>& ranges, double lr,
            const std::optional<numerics::RoundingSpec>& stateFormat) override;
  std::unique_ptr<Optimizer> clone() const override { return std::make_unique<Sgd>(*this); }
  void assign(const Optimizer& other) override { *this = dynamic_cast<const Sgd&>(other); }
  void assignRounded(const Fp64OptimizerState& state) override;

 private:
  OptimizerConfig config_;
  bool first_ = true;
  std::vector<float> buf_;
};

// Throws std::invalid_argument naming an unknown kind or a bad hyper-parameter.
std::unique_ptr<Optimizer> makeOptimizer(const OptimizerConfig& config);

}  // namespace paritylab::nn
