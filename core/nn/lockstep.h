#pragma once
// When and where two backends part. Backend A and a reference train side by side from one
// initial state on the same batches (the seed pairing of train()), and after every compared step
// each layer with products is measured: its output, the gradient it passes back, its weight
// gradient and its weight, as the relative RMS difference of A's tensor from the reference's.
//
// Two modes: re-synchronised (before every step the reference's weights and optimizer state are
// copied into A, so each step shows the error A adds in one step) and free-running (each trains
// on its own, so the error accumulates). Emulated arithmetic on this CPU, as everywhere.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/data/dataset.h"
#include "core/nn/trainer.h"

namespace paritylab::nn {

enum class LockstepMode {
  Resynchronised,  // "resync": A starts every step from the reference's state
  FreeRunning,     // "free": A and the reference each continue from their own state
};
std::string_view toString(LockstepMode mode);
std::optional<LockstepMode> parseLockstepMode(std::string_view name);

// What is compared per layer, in this order.
enum class LockstepQuantity {
  Activation,          // "activation": the layer's output [batch, ...]
  ActivationGradient,  // "activation_grad": the gradient it passes back to its input
  WeightGradient,      // "weight_grad": its weight's gradient as the optimizer uses it
  Weight,              // "weight": its weight after the step
};
inline constexpr std::size_t kLockstepQuantities = 4;
std::string_view toString(LockstepQuantity quantity);

// sqrt(sum (a - r)^2 / sum r^2) in double over n values: 0 when equal, +inf when the reference
// is all zeros and A is not, or when A holds a NaN or infinity where the reference is finite;
// NaN when the reference is not finite.
double relativeRmsDifference(const float* a, const float* reference, std::size_t n);
double relativeRmsDifference(const float* a, const double* reference, std::size_t n);

struct LockstepOptions {
  std::int64_t steps = 100;  // at most the run's planned steps
  LockstepMode mode = LockstepMode::Resynchronised;
  double tolerance = 0.01;  // the relative difference the first crossing is measured against
  int everySteps = 1;       // compare steps 1, 1 + N, 1 + 2N, ... (1-based); both train every step
  // Which product adds most of one step's error: at the first crossing (else the last compared
  // step), A's step from the reference's state is redone once per product with that product
  // computed as the reference computes it (LockstepAttribution).
  bool attribute = false;
};

// One product's share of the one-step error: how much of it goes away when that product alone
// is computed as the reference computes it.
struct ProductShare {
  std::string product;  // "h1.attn.qk.fwd", "conv2.dgrad", "fc1.wgrad"
  double errorWithout = 0.0;
  double share = 0.0;  // (error - errorWithout) / error; the shares need not add up to 1
};

// The one-step error of A's weight gradients (all of them, as one vector; relative RMS
// difference from the reference's) at `step`, A starting from the reference's weights and
// optimizer state, and what each product adds to it.
struct LockstepAttribution {
  std::int64_t step = 0;  // 1-based
  double error = 0.0;
  // With every product computed as the reference computes it: what the rest adds (storage
  // formats, element-wise precision, loss scaling, replicas' reductions).
  double errorOutsideProducts = 0.0;
  std::vector<ProductShare> products;  // the largest share first
};

struct LockstepLayer {
  std::string name;  // the X-ray's layer name ("conv2", "h0.attn.qk", "lm_head")
  backends::LayerKind kind = backends::LayerKind::Linear;
  bool hasWeight = false;        // attention's products multiply activations
  bool hasInputGradient = true;  // a model's first layer passes no gradient back
};

struct LockstepStep {
  std::int64_t step = 0;  // 1-based, as the runs count steps
  double lossA = 0.0, lossReference = 0.0;
  // [layer][quantity]: relative RMS differences; NaN where the layer has no such tensor
  std::vector<std::array<double, kLockstepQuantities>> difference;
};

struct LockstepCrossing {
  std::int64_t step = 0;
  std::size_t layer = 0;  // index into LockstepResult::layers
  LockstepQuantity quantity = LockstepQuantity::Activation;
  double value = 0.0;
};

struct LockstepResult {
  std::vector<LockstepLayer> layers;  // in forward order
  std::vector<LockstepStep> steps;    // the compared steps
  // The earliest compared step with a difference above the tolerance, at its first layer in
  // forward order (quantities in their order); none when every difference stayed within.
  std::optional<LockstepCrossing> firstCrossing;
  std::optional<LockstepAttribution> attribution;  // with options.attribute
  std::int64_t stepsTrained = 0;
  // Why it stopped before options.steps: "" (it did not), a run diverged, or cancelled.
  std::string stoppedBecause;
  double seconds = 0.0;  // wall time of the whole comparison
};

struct LockstepCallbacks {
  std::function<void(const LockstepStep&)> onStep;  // after each compared step
  std::function<bool()> shouldCancel;               // polled once per step
};

// Throws std::invalid_argument for what train() refuses, for steps < 1, everySteps < 1, a
// tolerance that is not positive, and for a config with freeze_epochs (not compared yet).
LockstepResult runLockstep(const TrainConfig& config, const backends::PrecisionPolicy& a,
                           const backends::PrecisionPolicy& reference, const data::DataSplit& data,
                           const LockstepOptions& options, const LockstepCallbacks& callbacks = {});

// The name of the fp64 reference, as `lockstep --reference` and a study's lockstep take it.
inline constexpr std::string_view kFp64Reference = "fp64";

// The same comparison against the fp64 reference (fp64_training.h): every product, sum and update
// of the reference in binary64, from the starting weights of the run under cpu-fp32. Re-
// synchronised, A starts each step from the reference's weights and optimizer state rounded to
// fp32. Throws std::invalid_argument as runLockstep, for a model the fp64 reference does not
// compute (naming what it computes), and for options.attribute (which needs a backend).
LockstepResult runLockstepAgainstFp64(const TrainConfig& config, const backends::PrecisionPolicy& a,
                                      const data::DataSplit& data, const LockstepOptions& options,
                                      const LockstepCallbacks& callbacks = {});

// The result in plain words: where the tolerance is first crossed, how the difference of the
// first compared step grows with depth going forward and going back, and which product adds most
// of the one-step error (with an attribution).
std::string describeLockstep(const LockstepResult& result, const LockstepOptions& options,
                             std::string_view backend, std::string_view referenceName);

}  // namespace paritylab::nn
