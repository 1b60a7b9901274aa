#include "core/nn/training_session.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/nn/grad_clip.h"
#include "core/nn/softmax_cross_entropy.h"

namespace paritylab::nn {

namespace {

bool allFinite(const ParamStore& params, const std::vector<ParamStore::Range>& ranges,
               const std::vector<float>& grads) {
  (void)params;
  for (const auto& r : ranges)
    if (!Eigen::Map<const Eigen::ArrayXf>(grads.data() + r.offset, Eigen::Index(r.size))
             .isFinite()
             .all())
      return false;
  return true;
}

}  // namespace

TrainingSession::TrainingSession(const ModelSpec& spec, const backends::PrecisionPolicy& policy,
                                 std::uint64_t seed)
    : spec_(spec), policy_(policy), seed_(seed), lossScaler_(policy.lossScaling) {
  if (policy_.topology.replicas < 1)
    throw std::invalid_argument("policy '" + policy_.name + "': topology.replicas must be >= 1");
  const bool separateWorking = policy_.storage.weights && policy_.storage.fp32MasterWeights;
  model_ = makeModel(spec, separateWorking);
  model_->init(seed);
  sitePolicies_ = SitePolicies(policy_, *model_);
  shardsTogether_ = policy_.topology.replicas > 1 && model_->gradientsPerShard &&
                    replicaShardsMayRunTogether(policy_);
  if (policy_.fp8.enabled) fp8_ = std::make_unique<Fp8SiteScales>(policy_, model_->gemmSites);
  weightsChanged(0);
}

void TrainingSession::enableXray(int everySteps) {
  xray_ = std::make_unique<GemmXray>(everySteps, model_->siteNames);
}

void TrainingSession::weightsChanged(std::uint64_t step) {
  std::optional<numerics::RoundingSpec> format = policy_.storage.weights;
  if (format && policy_.stochasticWeightUpdate) format->mode = numerics::RoundingMode::Stochastic;
  const std::uint64_t seed = hashSeed(seed_, step, 0x57454947 /* "WEIG" */);
  if (policy_.storage.fp32MasterWeights)
    model_->params.refreshWorking(format, seed);
  else
    model_->params.roundMaster(format, seed);
}

std::vector<float>& TrainingSession::spareReplicaGradients() {
  for (std::size_t i = 0; i < replicaGrads_.size(); ++i) {
    if (!replicaGradsHeld_[i]) {
      replicaGradsHeld_[i] = true;
      return replicaGrads_[i];
    }
  }
  replicaGrads_.emplace_back(model_->params.totalSize(), 0.0f);
  replicaGradsHeld_.push_back(true);
  return replicaGrads_.back();
}

void TrainingSession::loadInput(const float* items, int n, std::uint64_t step) {
  Shape shape = model_->input;
  shape.dims[0] = n;
  input_.resize(shape);
  std::copy(items, items + input_.size(), input_.data());
  // Token ids are indices, not values a backend rounds.
  if (policy_.storage.activations && !model_->tokenInput)
    storeTensor(policy_.storage.activations, input_.data(), input_.size(),
                hashSeed(seed_, step, 0x494E5054 /* "INPT" */));
}

// The loss of one piece of a step (a replica's shard, or a micro-batch of it): items [from, to)
// of the step's batch with their logits, the loss's gradient into *dlogits, and what the step
// reports of it added to the tally.
void TrainingSession::lossOf(const StepBatch& batch, const Tensor& logits, Tensor* dlogits,
                             int from, int to, std::uint64_t lossSeed, int micro,
                             const StepContext& ctx, StepTally& tally) {
  const backends::ReductionPolicy& reduction = policy_.reduction;
  if (signals_) {
    const auto classes = std::size_t(logits.dim(logits.shape().rank - 1));
    const std::size_t rows = logits.size() / classes;
    tally.logitNormSum += meanRowNorm(logits.data(), rows, classes) * double(rows);
    tally.logitRows += rows;
  }
  const LossResult loss = heldSoftmaxCrossEntropy(
      logits, batch.labels + std::size_t(from) * std::size_t(model_->targetsPerItem), dlogits,
      float(batch.scale), policy_.elementwise.loss, lossSeed, ctx.xray);
  tally.lossSum = heldSum(tally.lossSum, loss.loss, reduction.runningSums);
  // Pieces of unequal size: the mean weighted by each piece's share of the batch instead.
  tally.weightedLoss =
      heldSum(tally.weightedLoss, loss.loss * double(to - from) / batch.n, reduction.runningSums);
  tally.equalPieces =
      tally.equalPieces && std::int64_t(to - from) * batch.replicas * micro == batch.n;
  ++tally.losses;
  tally.correct += loss.correct;
}

std::uint64_t TrainingSession::lossSeed(const StepBatch& batch, int replica) const {
  return hashSeed(seed_, batch.step, 0x4C4F5353 /* "LOSS" */ + std::uint64_t(replica));
}

// Shards of unequal size (a batch that the replicas do not divide): each replica's gradient is of
// its own shard's mean loss, weighted k_r R / n by the all-reduce so that the replicas' mean is the
// whole batch's mean, as every item counts once. Equal shards: all 1, the same bits.
void TrainingSession::shardWeights(const StepBatch& batch, int first, int count) {
  weights_.resize(std::size_t(count));
  for (int i = 0; i < count; ++i) {
    const int items = shardBegin(batch.n, batch.replicas, first + i + 1) -
                      shardBegin(batch.n, batch.replicas, first + i);
    weights_[std::size_t(i)] = double(items) * batch.replicas / batch.n;
  }
}

// The buffers the all-reduce then lets go of are spare again.
void TrainingSession::reduceShards(const StepBatch& batch, std::span<float* const> gradients,
                                   int first) {
  shardWeights(batch, first, int(gradients.size()));
  allReduce_.add(gradients, weights_);
  for (const float* freed : allReduce_.released())
    for (std::size_t i = 0; i < replicaGrads_.size(); ++i)
      if (replicaGrads_[i].data() == freed) replicaGradsHeld_[i] = false;
}

// Groups of consecutive shards, each run as one batch (replica_shards.h) with every shard's own
// loss and parameter gradients.
void TrainingSession::runShardsTogether(const StepBatch& batch, StepContext& ctx,
                                        StepTally& tally) {
  const std::size_t itemSize = model_->input.itemSize();
  const auto begin = [&](int r) { return shardBegin(batch.n, batch.replicas, r); };
  const int groups = shardGroups(batch.n, batch.replicas, std::size_t(model_->targetsPerItem));
  // Every shard in one group: each parameter's gradients all-reduced as soon as they are final.
  const bool slotted = groups == 1;
  if (slotted) {
    shardWeights(batch, 0, batch.replicas);
    slots_.begin(model_->params, batch.replicas, allReduce_, weights_);
  }
  shards_.gradientSlots = slotted ? &slots_ : nullptr;
  for (int g = 0; g < groups; ++g) {
    const int first = shardBegin(batch.replicas, groups, g);
    const int last = shardBegin(batch.replicas, groups, g + 1);
    const int base = begin(first), count = begin(last) - base;
    const auto shards = std::size_t(last - first);
    shards_.items.resize(shards + 1);
    shards_.gradients.resize(slotted ? 0 : shards);
    shards_.probeGradientScales.resize(shards);
    for (int r = first; r <= last; ++r) shards_.items[std::size_t(r - first)] = begin(r) - base;
    for (int r = first; r < last; ++r) {
      if (!slotted) shards_.gradients[std::size_t(r - first)] = spareReplicaGradients().data();
      shards_.probeGradientScales[std::size_t(r - first)] =
          double(begin(r + 1) - begin(r)) / batch.n / batch.scale;
    }
    ctx.shards = &shards_;
    loadInput(batch.items + std::size_t(base) * itemSize, count,
              batch.step * 64 + std::uint64_t(first));
    const Tensor& logits = model_->net->forward(input_, ctx);
    dlogits_.resize(logits.shape());
    const std::size_t itemLogits = logits.shape().itemSize();
    for (int r = first; r < last; ++r) {
      const int from = begin(r), to = begin(r + 1);
      shardLogits_.resize(logits.shape().withBatch(to - from));
      std::copy_n(logits.data() + std::size_t(from - base) * itemLogits, shardLogits_.size(),
                  shardLogits_.data());
      lossOf(batch, shardLogits_, &shardDlogits_, from, to, lossSeed(batch, r), 1, ctx, tally);
      std::copy_n(shardDlogits_.data(), shardDlogits_.size(),
                  dlogits_.data() + std::size_t(from - base) * itemLogits);
    }
    model_->net->backward(dlogits_, ctx);
    ctx.shards = nullptr;
    if (slotted) {
      slots_.finish();
      tally.reduced = true;
    } else {
      reduceShards(batch, shards_.gradients, first);
    }
  }
}

// The replicas' shards one after another, each in micro-batches under gradient accumulation.
void TrainingSession::runShardsInTurn(const StepBatch& batch, StepContext& ctx, StepTally& tally) {
  const backends::ReductionPolicy& reduction = policy_.reduction;
  const std::size_t itemSize = model_->input.itemSize();
  std::vector<float>& grads = model_->params.gradData();
  for (int r = 0; r < batch.replicas; ++r) {
    const int begin = shardBegin(batch.n, batch.replicas, r);
    const int end = shardBegin(batch.n, batch.replicas, r + 1);
    ctx.replica = r;
    // Gradient accumulation: the replica's share in micro-batches (one, without accumulation).
    const int micro = std::min(reduction.accumulationSteps, end - begin);
    for (int m = 0; m < micro; ++m) {
      const int from = begin + int(std::int64_t(end - begin) * m / micro);
      const int to = begin + int(std::int64_t(end - begin) * (m + 1) / micro);
      // The first micro-batch's streams are those of a step without accumulation.
      const auto stream = [m](std::uint64_t s) { return m == 0 ? s : hashSeed(s, m); };
      loadInput(batch.items + std::size_t(from) * itemSize, to - from,
                stream(batch.step * 64 + std::uint64_t(r)));
      // The micro-batch's loss is the mean over its own items (the replicas' mean and the
      // accumulation's weights come after the layers), its gradient scaled by `scale`.
      ctx.probeGradientScale = double(to - from) / batch.n / batch.scale;
      lossOf(batch, model_->net->forward(input_, ctx), &dlogits_, from, to,
             stream(lossSeed(batch, r)), micro, ctx, tally);
      model_->net->backward(dlogits_, ctx);
      if (micro > 1) {
        accumulated_.resize(grads.size());
        // Each micro-batch weighted by its share of the shard (1 / micro when they are equal).
        const bool even = std::int64_t(to - from) * micro == end - begin;
        const float share = even ? 1.0f / float(micro) : float(double(to - from) / (end - begin));
        accumulateGradient(
            grads.data(), accumulated_.data(), grads.size(), share, m == 0,
            reduction.accumulationFormat,
            hashSeed(seed_, batch.step, 0x41434355 /* "ACCU" */ + std::uint64_t(r)) + m);
      }
    }
    if (micro > 1) std::copy(accumulated_.begin(), accumulated_.end(), grads.begin());
    if (batch.replicas > 1) {
      // The replica's gradients change places with a spare buffer (no copy): the next replica's
      // backward writes every gradient it has, and what none writes stays zero in every buffer.
      std::vector<float>& held = spareReplicaGradients();
      grads.swap(held);
      float* const gradients = held.data();
      reduceShards(batch, {&gradients, 1}, r);
    }
  }
}

StepOutcome TrainingSession::computeGradients(const float* items, const std::int32_t* labels, int n,
                                              std::uint64_t step,
                                              const std::vector<ParamStore::Range>& ranges) {
  StepOutcome out;
  const int replicas = std::min(policy_.topology.replicas, n);
  ParamStore& params = model_->params;
  StepContext ctx{&policy_, &workspace_, &scratch_, &params, fp8_.get(), true, 0, seed_, step};
  ctx.sitePolicies = &sitePolicies_;
  ctx.probe = probe_;
  ctx.stepSignals = signals_;
  operandCache_.clear();  // the optimizer moved the weights since the last step
  ctx.operandCache = &operandCache_;
  if (xray_) {
    xray_->beginStep(step);
    ctx.xray = xray_.get();
  }
  const double scale = lossScaler_.scale();  // in force for this step's gradients
  const backends::ReductionPolicy& reduction = policy_.reduction;
  // The replicas' all-reduce, taken as each replica's gradient is ready.
  if (replicas > 1) {
    allReduce_.begin(replicas, params.totalSize(), reduction,
                     hashSeed(seed_, step, 0x414C4C52 /* "ALLR" */));
    replicaGradsHeld_.assign(replicaGrads_.size(), false);
  }
  const StepBatch batch{items, labels, n, replicas, step, scale};
  StepTally tally;
  if (replicas > 1 && shardsTogether_)
    runShardsTogether(batch, ctx, tally);
  else
    runShardsInTurn(batch, ctx, tally);
  out.correct = tally.correct;
  if (signals_ && tally.logitRows > 0)
    signals_->outputLogitNorm = tally.logitNormSum / double(tally.logitRows);
  const double meanLoss = tally.equalPieces ? tally.lossSum / tally.losses : tally.weightedLoss;
  out.loss = reduction.runningSums
                 ? double(cachedRounder(*reduction.runningSums).round(float(meanLoss)))
                 : meanLoss;
  out.finite = std::isfinite(out.loss);
  if (!out.finite && !lossScaler_.enabled()) {
    out.diverged = true;
    return out;
  }
  if (out.finite && replicas > 1) {
    if (!tally.reduced) allReduce_.finish(params.gradData().data());
    if (policy_.storage.gradients)
      storeTensor(policy_.storage.gradients, params.gradData().data(), params.totalSize(),
                  hashSeed(seed_, step, 0x52454443 /* "REDC" */));
  }
  if (lossScaler_.enabled()) {
    // GradScaler: unscale in fp32 (unscale_ multiplies by the reciprocal), then found_inf from the
    // unscaled gradients; a non-finite loss has non-finite gradients. Skip and back off on inf/NaN.
    bool foundInf = !out.finite;
    if (!foundInf) {
      const float inv = float(1.0 / scale);
      for (const auto& rg : ranges)
        Eigen::Map<Eigen::ArrayXf>(params.gradData().data() + rg.offset, Eigen::Index(rg.size)) *=
            inv;
      foundInf = !allFinite(params, ranges, params.gradData());
    }
    if (lossScaler_.update(foundInf)) {
      out.skipped = true;
      out.diverged = lossScaler_.gaveUp();
    }
  }
  return out;
}

StepOutcome TrainingSession::step(const float* items, const std::int32_t* labels, int n,
                                  std::uint64_t step, Optimizer& optimizer, double lr,
                                  const std::vector<ParamStore::Range>& ranges, double clipNorm,
                                  StepSignals* warnings) {
  signals_ = warnings;
  StepOutcome out = computeGradients(items, labels, n, step, ranges);
  signals_ = nullptr;
  if (warnings) warnings->updateRatios.clear();
  if (!out.finite || out.skipped || out.diverged) return out;
  if (warnings) {
    warnings->gradNorm = globalGradNorm(model_->params, ranges);
    updateRatios_.before(model_->params);
  }
  if (clipNorm > 0.0) clipGradNorm(model_->params, ranges, clipNorm);
  optimizer.step(model_->params, ranges, lr, policy_.storage.optimizerState);
  weightsChanged(step + 1);
  if (warnings) updateRatios_.after(model_->params, warnings->updateRatios);  // as stored
  return out;
}

EvalOutcome TrainingSession::evaluate(const data::Dataset& set, int batchSize,
                                      TestPredictions* predictions) {
  return evaluate(set.images.data(), set.labels.data(), set.size(), batchSize, predictions);
}

const Tensor& TrainingSession::logits(const float* items, int n, std::uint64_t inputStream) {
  StepContext ctx{&policy_, &workspace_, &scratch_, &model_->params, fp8_.get(),
                  false,    0,           seed_,     0xEEEEEEEEull};
  ctx.sitePolicies = &sitePolicies_;
  loadInput(items, n, inputStream);
  return model_->net->forward(input_, ctx);
}

EvalOutcome TrainingSession::evaluate(const float* items, const std::int32_t* labels,
                                      std::size_t count, int batchSize,
                                      TestPredictions* predictions) {
  EvalOutcome out;
  const std::size_t targets = std::size_t(model_->targetsPerItem);
  const std::size_t total = count * targets;  // the predictions: one per target
  if (predictions) {
    predictions->predicted.assign(total, 0);
    predictions->trueClassProbability.assign(total, 0.0f);
  }
  if (total == 0) return out;
  batchSize = std::max(1, batchSize);
  const std::size_t itemSize = model_->input.itemSize();
  double lossSum = 0.0;
  std::int64_t correct = 0;
  for (std::size_t begin = 0; begin < count; begin += std::size_t(batchSize)) {
    const int n = int(std::min<std::size_t>(std::size_t(batchSize), count - begin));
    const std::size_t first = begin * targets;  // the batch's first target
    const Tensor& out = logits(items + begin * itemSize, n, 0xEEEEEEEEull + begin);
    const LossResult loss = softmaxCrossEntropy(
        out, labels + first, nullptr, 1.0f,
        predictions ? predictions->predicted.data() + first : nullptr,
        predictions ? predictions->trueClassProbability.data() + first : nullptr);
    lossSum += loss.loss * double(std::size_t(n) * targets);
    correct += loss.correct;
  }
  out.loss = lossSum / double(total);
  out.accuracy = double(correct) / double(total);
  return out;
}

}  // namespace paritylab::nn
