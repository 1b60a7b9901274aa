#pragma once
// Trains one model under one precision policy. CONTRACT (owned by core/nn; core/study, ui and the
// CLI rely on these names; the owner may add fields).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/data/dataset.h"
#include "core/nn/gemm_xray.h"
#include "core/nn/model.h"
#include "core/nn/param_store.h"
#include "core/nn/step_signals.h"
#include "core/nn/test_predictions.h"
#include "core/nn/text_generation.h"

namespace paritylab::nn {

class TrainingSession;

struct OptimizerConfig {
  std::string kind = "adamw";  // one of kOptimizerKinds (core/nn/training_choices.h)
  double lr = 1e-3;
  double weightDecay = 0.0;                       // AdamW: decoupled; SGD: L2 added to the gradient
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // AdamW
  double momentum = 0.9;                          // SGD
  bool nesterov = false;                          // SGD
};

struct ScheduleConfig {
  std::string kind = "constant";  // one of kScheduleKinds (core/nn/training_choices.h)
  double warmupEpochs = 0.0;      // linear warmup from 0, stepped per batch (cosine, constant)
  std::int64_t warmupSteps = 0;   // > 0: the warmup counted in steps instead (nanoGPT's
                                  // warmup_iters); warmupEpochs must then be 0
  int stepEpochs = 10;            // step: multiply by gamma every stepEpochs
  double gamma = 0.1;
  double minLrFraction = 0.0;  // cosine: final lr = lr * minLrFraction
};

struct TrainConfig {
  std::string model = "mlp";  // one of kModelNames (core/nn/training_choices.h)
  int width = 16;  // resnet18: channels of the first stage (torchvision: 64; 16 trains on a CPU)
  GptShape gpt;    // gpt: the transformer's shape, its block size the windows' length
  int epochs = 2;
  // > 0: the run trains exactly this many steps instead of `epochs` epochs (nanoGPT counts
  // iterations); its epochs are then plannedEpochs(), the last one cut short, each ending with
  // an evaluation as usual.
  std::int64_t steps = 0;
  int batchSize = 128;       // images, or a language model's windows of gpt.blockSize tokens
  int evalBatchSize = 1000;  // the same, for evaluation
  OptimizerConfig optimizer;
  ScheduleConfig schedule;
  double gradClipNorm = 0.0;   // 0 = off; else clip by global norm
  int freezeEpochs = 0;        // backbone frozen (head only) for the first K epochs, then all
                               // layers with a fresh optimizer and schedule (as the reference)
  std::string initCheckpoint;  // non-empty: load weights (backbone; head if shapes match)
  std::string saveCheckpoint;  // non-empty: save weights at the end
  std::uint64_t seed = 0;      // init, shuffling, augmentation, stochastic rounding
  bool augment = false;
  // X-ray of every product: 0 = off; N >= 1: every N-th training step; -1 = about 50
  // samples per run, at least kXrayMinAutoSteps apart (every max(16, steps / 50) steps).
  int xrayEverySteps = 0;
  // Early warnings (step_signals.h): 0 = off; N >= 1: measured on every step whose 1-based
  // number is a multiple of N (the steps a study samples its losses at) and passed to onSignals.
  std::int64_t signalsEverySteps = 0;
  // The chaos floor's one-ulp perturbation: once initialised (or loaded), the model's first
  // weight is moved to the next fp32 value up, and nothing else changes.
  bool nudgeFirstWeight = false;
  // A language model: the text it writes at the end of a completed run (onSample).
  SamplingConfig sampling;
};

// A measured step costs about 1.4 steps of small-cnn training (docs/performance.md); measuring at
// most one step in 16 keeps the X-ray's cost near 5%.
inline constexpr int kXrayMinAutoSteps = 16;

struct EpochMetrics {
  int epoch = 0;  // 1-based
  double trainLoss = 0.0;
  double testLoss = 0.0;
  double testAccuracy = 0.0;  // fraction in [0, 1]
  double seconds = 0.0;       // wall time of this epoch
  int skippedSteps = 0;       // loss scaling: optimizer steps skipped on inf/NaN (GradScaler)
};

enum class RunStatus { Completed, Diverged, Cancelled };

struct TrainResult {
  RunStatus status = RunStatus::Completed;
  int divergedEpoch = 0;  // 1-based epoch whose loss became NaN/inf (status Diverged)
  std::int64_t divergedStep = 0;
  std::string divergedReason;  // status Diverged: why, in words
  std::vector<EpochMetrics> epochs;
  std::int64_t steps = 0;
  double seconds = 0.0;
};

// Called on the training thread. Keep them cheap; the study runner throttles step events.
struct TrainCallbacks {
  // After each step: its epoch (1-based), the global step count (1-based), the batch's training
  // loss and the learning rate that step used.
  std::function<void(int epoch, std::int64_t step, double loss, double lr)> onStep;
  std::function<void(const EpochMetrics&)> onEpoch;
  std::function<bool()> shouldCancel;             // polled once per step
  std::function<void(const XraySample&)> onXray;  // after each step the X-ray measured
  // After each step that measured early warnings (config.signalsEverySteps) and updated the
  // weights: its epoch, its 1-based number (as onStep's), the signals and the names of the
  // layers of its update ratios (updateRatioNames, the same at every step).
  std::function<void(int epoch, std::int64_t step, const StepSignals&,
                     const std::vector<std::string>& layers)>
      onSignals;
  // The training batch exactly as the step receives it (shuffled, augmented): images [count, C,
  // H, W] with labels [count], or a language model's windows [count, T] (token ids) with targets
  // [count, T]. For tests of the seed-pairing guarantee.
  std::function<void(std::int64_t step, const float* items, const std::int32_t* labels, int count)>
      onBatch;
  // For the divergence analysis, both optional (unset: nothing is computed or copied). After the
  // last epoch's evaluation of a run that completed: every test example's predicted class and
  // true-class probability, from that evaluation pass (a language model: every validation
  // position's predicted next token and the probability of the true one).
  std::function<void(const TestPredictions&)> onPredictions;
  // At the end of each epoch (after its evaluation, before onEpoch): the parameters as trained
  // (their fp32 master values, or the stored values without master copies).
  std::function<void(int epoch, const ParamStore& params)> onEpochWeights;
  // A language model's run that completed, when config.sampling.length > 0: the text its model
  // writes from the sampling prompt (text_generation.h), after the last onPredictions.
  std::function<void(const TextSample&)> onSample;
  // A run that completed, after everything above (its last evaluation, its sample): the trained
  // model itself, to be evaluated further (served under other backends: serving_comparison.h).
  // Valid during the call only.
  std::function<void(TrainingSession&)> onFinalModel;
};

// Throws std::invalid_argument naming what a run cannot train with: counts out of range, a model
// that does not read the data (gpt without text, an image model on text), split shapes that differ.
void validateTrainConfig(const TrainConfig& config, const data::DataSplit& data);
// The steps of one epoch: ceil(examples / batch size), where the examples of a text split are its
// windowsPerEpoch (as many windows as the training part has tokens / block size).
std::int64_t stepsPerEpoch(const TrainConfig& config, const data::DataSplit& data);
// The steps a run trains: config.steps when set, else epochs x stepsPerEpoch.
std::int64_t plannedSteps(const TrainConfig& config, const data::DataSplit& data);
// The epochs a run trains: config.epochs, or with config.steps ceil(steps / stepsPerEpoch).
int plannedEpochs(const TrainConfig& config, const data::DataSplit& data);

// Same config + policy + data => bit-identical result, whatever runs on other threads. A language
// model (gpt) trains on data.text: at step s, batchSize windows drawn for (seed, s), the same under
// every policy; every epoch ends with the loss over the fixed validation windows.
// Throws std::invalid_argument for an unknown model/optimizer/schedule or a model that does not
// read the data (gpt without text, an image model on text), naming the value.
TrainResult train(const TrainConfig& config, const backends::PrecisionPolicy& policy,
                  const data::DataSplit& data, const TrainCallbacks& callbacks = {});

}  // namespace paritylab::nn
