#pragma once
// One model under one precision policy with everything a training step needs preallocated:
// replicas, loss scaling, fp8 scales, master/working weights, GEMM workspace. train() drives it;
// tests and benchmarks use it directly.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/data/dataset.h"
#include "core/nn/fp8_site_scales.h"
#include "core/nn/gemm_xray.h"
#include "core/nn/gradient_sums.h"
#include "core/nn/loss_scaler.h"
#include "core/nn/model.h"
#include "core/nn/optimizer.h"
#include "core/nn/replica_shards.h"
#include "core/nn/step_signals.h"
#include "core/nn/test_predictions.h"

namespace paritylab::nn {

struct StepOutcome {
  double loss = 0.0;      // mean over the batch (mean of the replicas' shard means)
  bool finite = true;     // false: the loss is NaN/inf
  bool skipped = false;   // loss scaling: inf/NaN loss or gradients, no update, scale backed off
  bool diverged = false;  // the run cannot go on: a non-finite loss without loss scaling, or the
                          // loss scaler's limit reached (LossScaler::gaveUp)
  int correct = 0;
};

struct EvalOutcome {
  double loss = 0.0;
  double accuracy = 0.0;
};

class TrainingSession {
 public:
  TrainingSession(const ModelSpec& spec, const backends::PrecisionPolicy& policy,
                  std::uint64_t seed);

  Model& model() { return *model_; }
  const Model& model() const { return *model_; }
  const ModelSpec& spec() const { return spec_; }
  std::uint64_t seed() const { return seed_; }
  const backends::PrecisionPolicy& policy() const { return policy_; }
  double lossScale() const { return lossScaler_.scale(); }
  const LossScaler& lossScaler() const { return lossScaler_; }

  // Turns the X-ray on: every `everySteps`-th training step (step % everySteps == 0)
  // measures each product; takeXray() then returns that step's records.
  void enableXray(int everySteps);
  std::vector<XrayRecord> takeXray() {
    return xray_ ? xray_->takeRecords() : std::vector<XrayRecord>{};
  }

  // Training steps report every layer's output and input gradient to `probe` (null: none);
  // evaluation never does. The probe must outlive the steps it watches.
  void setProbe(ActivationProbe* probe) { probe_ = probe; }

  // Whether the steps run the replicas' shards as one batch (replica_shards.h; the policy has
  // replicas and computes every shard's values without reference to the others'), instead of one
  // shard after another.
  bool shardsRunTogether() const { return shardsTogether_; }

  // Re-derives the weights the products see after the master weights changed (init, load).
  void weightsChanged(std::uint64_t step);

  // Forward + backward over the replicas' shards of n items: images [n, C, H, W] with labels [n],
  // or the language model's token windows [n, T] with targets [n, T] (the next token at each
  // position; the loss is the mean over all n * T positions). Leaves the
  // averaged (unscaled) gradients in the ParamStore. Returns without usable gradients when the
  // loss is not finite (`diverged` without loss scaling) or, under loss scaling, when the loss or
  // the unscaled gradients are not finite (then `skipped`, scale backed off).
  StepOutcome computeGradients(const float* items, const std::int32_t* labels, int n,
                               std::uint64_t step, const std::vector<ParamStore::Range>& ranges);
  // Full step: gradients, clipping (clipNorm > 0), optimizer update, weight storage. Unless null,
  // `warnings` gets the step's early warnings (step_signals.h); a step loss scaling skips leaves
  // its update ratios empty.
  StepOutcome step(const float* items, const std::int32_t* labels, int n, std::uint64_t step,
                   Optimizer& optimizer, double lr, const std::vector<ParamStore::Range>& ranges,
                   double clipNorm, StepSignals* warnings = nullptr);
  // Loss and accuracy over a whole dataset in batches; batch norm in eval mode. Unless null,
  // `predictions` gets every example's predicted class and true-class probability from the same
  // pass (resized to the dataset's size).
  EvalOutcome evaluate(const data::Dataset& set, int batchSize,
                       TestPredictions* predictions = nullptr);
  // The same over `count` items as computeGradients takes them (a language model's windows
  // [count, T] with targets [count, T]): loss and accuracy per target, and one prediction per
  // target (count * T for a language model).
  EvalOutcome evaluate(const float* items, const std::int32_t* labels, std::size_t count,
                       int batchSize, TestPredictions* predictions = nullptr);
  // The logits of n items in evaluation mode, as evaluate() computes them: [n, classes], or a
  // language model's [n, T, vocabulary] for windows [n, T] of token ids. Valid until the next
  // call into the session. `inputStream`: the store step's seed stream for the items (evaluate
  // passes one per batch).
  const Tensor& logits(const float* items, int n, std::uint64_t inputStream = 0xEEEEEEEEull);

 private:
  // One step's batch as computeGradients takes it, and the replicas it is cut into.
  struct StepBatch {
    const float* items;
    const std::int32_t* labels;
    int n;         // items
    int replicas;  // shards (1: the whole batch)
    std::uint64_t step;
    double scale;  // the loss scale in force
  };
  // What the pieces of a step (replica shards, micro-batches) report, summed in their order.
  struct StepTally {
    double lossSum = 0.0, weightedLoss = 0.0;
    double logitNormSum = 0.0;  // early warnings: the output-logit norms of the predictions
    std::size_t logitRows = 0;
    bool equalPieces = true;  // every replica's shard and micro-batch of one size
    int losses = 0;
    int correct = 0;
    bool reduced = false;  // the replicas' all-reduce is done (parameter by parameter)
  };
  void runShardsTogether(const StepBatch& batch, StepContext& ctx, StepTally& tally);
  void runShardsInTurn(const StepBatch& batch, StepContext& ctx, StepTally& tally);
  void lossOf(const StepBatch& batch, const Tensor& logits, Tensor* dlogits, int from, int to,
              std::uint64_t lossSeed, int micro, const StepContext& ctx, StepTally& tally);
  std::uint64_t lossSeed(const StepBatch& batch, int replica) const;
  // weights_ [count]: replicas [first, first + count)'s weights in the all-reduce (their shares).
  void shardWeights(const StepBatch& batch, int first, int count);
  // Replicas [first, first + gradients.size())'s gradients to the all-reduce, in one call.
  void reduceShards(const StepBatch& batch, std::span<float* const> gradients, int first);
  void loadInput(const float* items, int n, std::uint64_t step);
  // A buffer of replicaGrads_ the all-reduce does not hold, marked held (a new one of zeros when
  // it holds them all).
  std::vector<float>& spareReplicaGradients();

  ModelSpec spec_;
  backends::PrecisionPolicy policy_;
  std::uint64_t seed_;
  std::unique_ptr<Model> model_;
  GemmWorkspace workspace_;
  LayerScratch scratch_;
  StepOperandCache operandCache_;  // the weights as one training step's products read them
  SitePolicies sitePolicies_;      // the policy's overrides, per call site of the model
  std::unique_ptr<Fp8SiteScales> fp8_;
  std::unique_ptr<GemmXray> xray_;
  Tensor input_, dlogits_;
  // Whether the replicas' shards run as one batch (replica_shards.h: the policy has replicas and
  // computes every shard's values without reference to the others', and the model's layers write
  // their parameter gradients per shard), and the shards of the step.
  bool shardsTogether_ = false;
  ReplicaShards shards_;
  Tensor shardLogits_, shardDlogits_;  // one shard's logits and their gradient
  ReplicaAllReduce allReduce_;         // the replicas' gradients, reduced as each is ready
  std::vector<double> weights_;        // [shard]: the shards' weights in the all-reduce
  ShardGradientSlots slots_;           // the shards' gradients when they run as one group
  // Replicas' gradients the all-reduce holds (a step's partial sums), and whether it holds each.
  std::vector<std::vector<float>> replicaGrads_;  // [buffer][param]
  std::vector<bool> replicaGradsHeld_;
  std::vector<float> accumulated_;  // [param]: the micro-batches' gradients (accumulation only)
  LossScaler lossScaler_;
  ActivationProbe* probe_ = nullptr;
  StepSignals* signals_ = nullptr;  // set while a step that measures early warnings runs
  UpdateRatioMeter updateRatios_;
};

}  // namespace paritylab::nn
