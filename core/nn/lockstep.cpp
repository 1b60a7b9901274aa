#include "core/nn/lockstep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "core/nn/activation_probe.h"
#include "core/nn/fp64_training.h"
#include "core/nn/lr_schedule.h"
#include "core/nn/optimizer.h"
#include "core/nn/run_start.h"
#include "core/nn/site_policies.h"
#include "core/nn/training_batches.h"
#include "core/nn/training_session.h"

namespace paritylab::nn {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A product's share of the one-step error worth naming in words.
constexpr double kNotableShare = 0.05;

// One step's layer outputs and input gradients per call site, the replicas' shards appended in
// the order they ran (the whole batch in item order).
class StepCapture : public ActivationProbe {
 public:
  explicit StepCapture(int sites) : outputs_(std::size_t(sites)), gradients_(std::size_t(sites)) {}

  void clear() {  // keeps the buffers' capacity: no allocation after the first step
    for (auto& v : outputs_) v.clear();
    for (auto& v : gradients_) v.clear();
  }
  void forward(int site, const float* values, std::size_t n) override {
    append(outputs_, site, values, n, 1.0);
  }
  void backward(int site, const float* values, std::size_t n, double scale) override {
    append(gradients_, site, values, n, scale);
  }
  const std::vector<float>& output(int site) const { return outputs_[std::size_t(site)]; }
  const std::vector<float>& gradient(int site) const { return gradients_[std::size_t(site)]; }

 private:
  static void append(std::vector<std::vector<float>>& into, int site, const float* values,
                     std::size_t n, double scale) {
    if (site < 0 || std::size_t(site) >= into.size()) return;
    std::vector<float>& v = into[std::size_t(site)];
    const std::size_t at = v.size();
    v.resize(at + n);  // within the capacity of earlier steps: no allocation
    float* out = v.data() + at;
    if (scale == 1.0) {
      std::copy_n(values, n, out);
      return;
    }
    for (std::size_t i = 0; i < n; ++i) out[i] = float(double(values[i]) * scale);
  }
  std::vector<std::vector<float>> outputs_, gradients_;  // [site][values]
};

template <typename Reference>
double compared(const std::vector<float>& a, const std::vector<Reference>& reference) {
  if (reference.empty() || a.size() != reference.size()) return kNaN;
  return relativeRmsDifference(a.data(), reference.data(), a.size());
}

std::string percent(double fraction) {
  if (std::isnan(fraction)) return "n/a";
  if (std::isinf(fraction)) return "infinite";
  std::ostringstream out;
  const double p = fraction * 100.0;
  out << std::setprecision(p >= 1.0 ? 3 : 2) << p << "%";
  return out.str();
}

// What a redone step starts from and reads: the reference's state before it, and its batch.
struct StepStart {
  const ModelSpec& spec;
  const TrainConfig& config;
  const std::vector<float>& master;  // the reference's master weights before the step
  const Optimizer& optimizer;        // the reference's optimizer before the step
  const float* items;
  const std::int32_t* labels;
  int count;
  std::uint64_t step;  // 0-based
  double lr;
};

// The relative difference of the weight gradients of one step under `policy` from `reference`,
// started from `start`.
double oneStepGradientError(const backends::PrecisionPolicy& policy, const StepStart& start,
                            const std::vector<float>& reference) {
  TrainingSession s(start.spec, policy, start.config.seed);
  s.model().params.masterData() = start.master;
  s.weightsChanged(start.step);
  const std::unique_ptr<Optimizer> opt = start.optimizer.clone();
  s.step(start.items, start.labels, start.count, start.step, *opt, start.lr,
         s.model().params.weightRanges(false), start.config.gradClipNorm);
  const std::vector<float>& grads = s.model().params.gradData();
  if (grads.size() != reference.size()) return kNaN;
  return relativeRmsDifference(grads.data(), reference.data(), grads.size());
}

// A's step redone with each product (and then every product) computed as the reference computes
// it, through per-layer overrides appended to A's policy (later overrides win).
LockstepAttribution attributeStep(const backends::PrecisionPolicy& a,
                                  const backends::PrecisionPolicy& reference,
                                  const std::vector<backends::LayerPlace>& places,
                                  const std::vector<LockstepLayer>& layers, const StepStart& start,
                                  const std::vector<float>& referenceGrads) {
  LockstepAttribution r;
  r.step = std::int64_t(start.step) + 1;
  r.error = oneStepGradientError(a, start, referenceGrads);
  const auto asReference = [&](const backends::LayerPlace& place, backends::Product product) {
    backends::ProductOverride o;
    o.layers = std::string(place.name);
    o.forward = product == backends::Product::Forward;
    o.backwardData = product == backends::Product::BackwardData;
    o.backwardWeight = product == backends::Product::BackwardWeight;
    o.linear = o.conv = o.attention = backends::productsFor(reference, place);
    return o;
  };
  constexpr std::pair<backends::Product, const char*> kProducts[] = {
      {backends::Product::Forward, "fwd"},
      {backends::Product::BackwardData, "dgrad"},
      {backends::Product::BackwardWeight, "wgrad"}};
  backends::PrecisionPolicy all = a;
  for (std::size_t l = 0; l < places.size(); ++l)
    for (const auto& [product, suffix] : kProducts) {
      if (product == backends::Product::BackwardData && !layers[l].hasInputGradient) continue;
      backends::PrecisionPolicy one = a;
      one.overrides.push_back(asReference(places[l], product));
      all.overrides.push_back(one.overrides.back());
      ProductShare share;
      share.product = layers[l].name + "." + suffix;
      share.errorWithout = oneStepGradientError(one, start, referenceGrads);
      share.share = r.error > 0.0 ? (r.error - share.errorWithout) / r.error : 0.0;
      r.products.push_back(share);
    }
  r.errorOutsideProducts = oneStepGradientError(all, start, referenceGrads);
  std::stable_sort(r.products.begin(), r.products.end(),
                   [](const ProductShare& x, const ProductShare& y) { return x.share > y.share; });
  return r;
}

}  // namespace

std::string_view toString(LockstepMode mode) {
  return mode == LockstepMode::Resynchronised ? "resync" : "free";
}

std::optional<LockstepMode> parseLockstepMode(std::string_view name) {
  if (name == "resync") return LockstepMode::Resynchronised;
  if (name == "free") return LockstepMode::FreeRunning;
  return std::nullopt;
}

std::string_view toString(LockstepQuantity quantity) {
  switch (quantity) {
    case LockstepQuantity::Activation:
      return "activation";
    case LockstepQuantity::ActivationGradient:
      return "activation_grad";
    case LockstepQuantity::WeightGradient:
      return "weight_grad";
    case LockstepQuantity::Weight:
      return "weight";
  }
  return "?";
}

namespace {

template <typename Reference>
double relativeRms(const float* a, const Reference* reference, std::size_t n) {
  // Four partial sums (independent chains the CPU overlaps); a NaN or infinity on either side
  // makes a sum non-finite, and only then are the values looked at one by one.
  double error[4] = {}, energy[4] = {};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (std::size_t k = 0; k < 4; ++k) {
      const double r = reference[i + k], d = double(a[i + k]) - r;
      error[k] += d * d;
      energy[k] += r * r;
    }
  for (; i < n; ++i) {
    const double r = reference[i], d = double(a[i]) - r;
    error[0] += d * d;
    energy[0] += r * r;
  }
  const double e = (error[0] + error[1]) + (error[2] + error[3]);
  const double r = (energy[0] + energy[1]) + (energy[2] + energy[3]);
  if (!std::isfinite(e) || !std::isfinite(r)) {
    for (std::size_t j = 0; j < n; ++j)
      if (!std::isfinite(reference[j])) return kNaN;
    return std::numeric_limits<double>::infinity();  // A is not finite where the reference is
  }
  if (e == 0.0) return 0.0;
  if (r == 0.0) return std::numeric_limits<double>::infinity();
  return std::sqrt(e / r);
}

}  // namespace

double relativeRmsDifference(const float* a, const float* reference, std::size_t n) {
  return relativeRms(a, reference, n);
}

double relativeRmsDifference(const float* a, const double* reference, std::size_t n) {
  return relativeRms(a, reference, n);
}

namespace {

// What A is compared with: a session under a backend's policy, or the fp64 reference. Both start
// from the run's starting weights and train on the batches A trains on.
class ReferenceSide {
 public:
  virtual ~ReferenceSide() = default;
  // One training step; with `compare`, its layers' tensors are kept for the differences below.
  virtual StepOutcome step(const float* items, const std::int32_t* labels, int count,
                           std::uint64_t step, double lr, bool compare) = 0;
  // The relative RMS difference of A's tensor from the reference's: the output of the layer at
  // GEMM call site `site`, the gradient it passed back, parameter `id`'s gradient and weight.
  virtual double outputDifference(int site, const std::vector<float>& a) const = 0;
  virtual double gradientDifference(int site, const std::vector<float>& a) const = 0;
  virtual bool passesGradient(int site) const = 0;  // after a compared step
  virtual double weightGradientDifference(int id, const float* a) const = 0;
  virtual double weightDifference(int id, const float* a) const = 0;
  // Re-synchronisation: A takes the reference's master weights and optimizer state.
  virtual void copyInto(TrainingSession& a, Optimizer& optimizer, std::uint64_t step) const = 0;
};

class PolicyReference final : public ReferenceSide {
 public:
  PolicyReference(const ModelSpec& spec, const backends::PrecisionPolicy& policy,
                  const TrainConfig& config)
      : session_(spec, policy, config.seed),
        capture_(session_.model().gemmSites),
        optimizer_(makeOptimizer(config.optimizer)),
        ranges_(session_.model().params.weightRanges(false)),
        clipNorm_(config.gradClipNorm) {
    applyStartingWeights(config, session_);
  }
  StepOutcome step(const float* items, const std::int32_t* labels, int count, std::uint64_t step,
                   double lr, bool compare) override {
    capture_.clear();
    session_.setProbe(compare ? &capture_ : nullptr);
    return session_.step(items, labels, count, step, *optimizer_, lr, ranges_, clipNorm_);
  }
  double outputDifference(int site, const std::vector<float>& a) const override {
    return compared(a, capture_.output(site));
  }
  double gradientDifference(int site, const std::vector<float>& a) const override {
    return compared(a, capture_.gradient(site));
  }
  bool passesGradient(int site) const override { return !capture_.gradient(site).empty(); }
  double weightGradientDifference(int id, const float* a) const override {
    return relativeRmsDifference(a, params().grad(id), params().info(id).size);
  }
  double weightDifference(int id, const float* a) const override {
    return relativeRmsDifference(a, params().master(id), params().info(id).size);
  }
  void copyInto(TrainingSession& a, Optimizer& optimizer, std::uint64_t step) const override {
    a.model().params.masterData() = params().masterData();
    a.weightsChanged(step);
    optimizer.assign(*optimizer_);
  }
  // What an attribution's redone step starts from (before a step) and compares with (after it).
  const std::vector<float>& master() const { return params().masterData(); }
  const Optimizer& optimizer() const { return *optimizer_; }
  const std::vector<float>& grads() const { return params().gradData(); }

 private:
  const ParamStore& params() const { return session_.model().params; }
  TrainingSession session_;
  StepCapture capture_;
  std::unique_ptr<Optimizer> optimizer_;
  std::vector<ParamStore::Range> ranges_;
  double clipNorm_;
};

// Every product, sum and update in binary64 (fp64_training.h), from the starting weights a
// cpu-fp32 session of the run gets.
class Fp64Reference final : public ReferenceSide {
 public:
  Fp64Reference(const ModelSpec& spec, const TrainConfig& config)
      : training_(startingModel(spec, config), config.optimizer), clipNorm_(config.gradClipNorm) {}
  StepOutcome step(const float* items, const std::int32_t* labels, int count, std::uint64_t,
                   double lr, bool) override {
    StepOutcome out;
    out.loss = training_.step(items, labels, count, lr, clipNorm_);
    out.finite = std::isfinite(out.loss);
    out.diverged = !out.finite;
    return out;
  }
  double outputDifference(int site, const std::vector<float>& a) const override {
    return compared(a, training_.output(site));
  }
  double gradientDifference(int site, const std::vector<float>& a) const override {
    return compared(a, training_.inputGradient(site));
  }
  bool passesGradient(int site) const override { return !training_.inputGradient(site).empty(); }
  double weightGradientDifference(int id, const float* a) const override {
    return relativeRmsDifference(a, training_.grads().data() + offsets_.at(std::size_t(id)),
                                 sizes_.at(std::size_t(id)));
  }
  double weightDifference(int id, const float* a) const override {
    return relativeRmsDifference(a, training_.master().data() + offsets_.at(std::size_t(id)),
                                 sizes_.at(std::size_t(id)));
  }
  void copyInto(TrainingSession& a, Optimizer& optimizer, std::uint64_t step) const override {
    // each value rounded to the nearest fp32
    a.model().params.masterData().assign(training_.master().begin(), training_.master().end());
    a.weightsChanged(step);
    optimizer.assignRounded(training_.optimizerState());
  }

 private:
  const Model& startingModel(const ModelSpec& spec, const TrainConfig& config) {
    start_ =
        std::make_unique<TrainingSession>(spec, backends::presetPolicy("cpu-fp32"), config.seed);
    applyStartingWeights(config, *start_);
    for (const ParamInfo& info : start_->model().params.infos()) {
      offsets_.push_back(info.offset);
      sizes_.push_back(info.size);
    }
    return start_->model();
  }
  std::unique_ptr<TrainingSession> start_;    // only for the starting weights
  std::vector<std::size_t> offsets_, sizes_;  // [param id]
  Fp64Training training_;
  double clipNorm_;
};

using ReferenceFactory = std::function<std::unique_ptr<ReferenceSide>(const ModelSpec&)>;

void validateLockstep(const TrainConfig& config, const data::DataSplit& data,
                      const LockstepOptions& options) {
  validateTrainConfig(config, data);
  if (options.steps < 1)
    throw std::invalid_argument("lockstep: steps must be >= 1, got " +
                                std::to_string(options.steps));
  if (options.everySteps < 1)
    throw std::invalid_argument("lockstep: every must be >= 1, got " +
                                std::to_string(options.everySteps));
  if (!(options.tolerance > 0.0))
    throw std::invalid_argument("lockstep: tolerance must be > 0, got " +
                                std::to_string(options.tolerance));
  if (config.freezeEpochs > 0)
    throw std::invalid_argument(
        "lockstep: freeze_epochs is not compared yet (the head-only phase); set it to 0");
  makeOptimizer(config.optimizer);  // validates before any work
}

// The comparison with the reference `makeReference` builds; `attributeAgainst`: the reference's
// policy when it is a backend (an attribution redoes A's step with its products).
LockstepResult runWith(const TrainConfig& config, const backends::PrecisionPolicy& a,
                       const data::DataSplit& data, const LockstepOptions& options,
                       const LockstepCallbacks& callbacks, const ReferenceFactory& makeReference,
                       const backends::PrecisionPolicy* attributeAgainst) {
  const auto start = std::chrono::steady_clock::now();
  const ModelSpec spec = modelSpecFor(config, data.train);
  const std::int64_t perEpoch = stepsPerEpoch(config, data);
  const std::int64_t planned = plannedSteps(config, data);
  const int epochs = plannedEpochs(config, data);
  const LrSchedule schedule(config.schedule, config.optimizer.lr, perEpoch, epochs, planned);
  const std::int64_t total = std::min(options.steps, planned);

  TrainingSession runA(spec, a, config.seed);
  applyStartingWeights(config, runA);
  const std::unique_ptr<ReferenceSide> reference = makeReference(spec);
  auto* policyReference = dynamic_cast<PolicyReference*>(reference.get());
  const Model& model = runA.model();
  StepCapture captureA(model.gemmSites);
  std::unique_ptr<Optimizer> optA = makeOptimizer(config.optimizer);
  const std::vector<ParamStore::Range> rangesA = runA.model().params.weightRanges(false);
  TrainingBatches batches(config, data, model);

  LockstepResult result;
  const std::vector<backends::LayerPlace> places = productLayers(model);
  const std::vector<int> sites = productLayerSites(model);
  for (const backends::LayerPlace& p : places)
    result.layers.push_back(
        {std::string(p.name), p.kind, p.kind != backends::LayerKind::Attention, true});

  std::vector<float> startMaster;
  std::unique_ptr<Optimizer> startOptimizer;
  std::uint64_t step = 0;
  for (int epoch = 1; epoch <= epochs && std::int64_t(step) < total; ++epoch) {
    batches.startEpoch(epoch);
    for (std::int64_t inEpoch = 0; inEpoch < perEpoch && std::int64_t(step) < total; ++inEpoch) {
      if (callbacks.shouldCancel && callbacks.shouldCancel()) {
        result.stoppedBecause = "cancelled";
        break;
      }
      const int count = batches.fill(epoch, inEpoch, step);
      const double lr = schedule.at(std::int64_t(step));
      if (options.mode == LockstepMode::Resynchronised && step > 0)
        reference->copyInto(runA, *optA, step);
      const bool compare = std::int64_t(step) % options.everySteps == 0;
      if (attributeAgainst && compare && !result.firstCrossing) {  // what a redo starts from
        startMaster = policyReference->master();
        if (startOptimizer)
          startOptimizer->assign(policyReference->optimizer());
        else
          startOptimizer = policyReference->optimizer().clone();
      }
      captureA.clear();
      runA.setProbe(compare ? &captureA : nullptr);
      const StepOutcome outA = runA.step(batches.items(), batches.labels(), count, step, *optA, lr,
                                         rangesA, config.gradClipNorm);
      const StepOutcome outRef =
          reference->step(batches.items(), batches.labels(), count, step, lr, compare);
      ++step;
      result.stepsTrained = std::int64_t(step);
      if (compare) {
        LockstepStep s;
        s.step = std::int64_t(step);
        s.lossA = outA.loss;
        s.lossReference = outRef.loss;
        ParamStore& pa = runA.model().params;
        for (std::size_t l = 0; l < sites.size(); ++l) {
          const int site = sites[l];
          std::array<double, kLockstepQuantities> d{};
          d[0] = reference->outputDifference(site, captureA.output(site));
          d[1] = reference->gradientDifference(site, captureA.gradient(site));
          if (!reference->passesGradient(site)) result.layers[l].hasInputGradient = false;
          const int weight = std::size_t(site) < model.siteWeights.size()
                                 ? model.siteWeights[std::size_t(site)]
                                 : -1;
          if (weight >= 0) {
            d[2] = reference->weightGradientDifference(weight, pa.grad(weight));
            d[3] = reference->weightDifference(weight, pa.master(weight));
          } else {
            d[2] = d[3] = kNaN;
          }
          for (std::size_t q = 0; q < kLockstepQuantities; ++q)
            if (!result.firstCrossing && d[q] > options.tolerance)
              result.firstCrossing = LockstepCrossing{s.step, l, LockstepQuantity(q), d[q]};
          s.difference.push_back(d);
        }
        result.steps.push_back(s);
        if (callbacks.onStep) callbacks.onStep(result.steps.back());
        const bool last = std::int64_t(step) + options.everySteps > total;
        if (attributeAgainst && !result.attribution && (result.firstCrossing || last)) {
          const StepStart from{
              spec,  config,   startMaster, *startOptimizer, batches.items(), batches.labels(),
              count, step - 1, lr};
          result.attribution = attributeStep(a, *attributeAgainst, places, result.layers, from,
                                             policyReference->grads());
        }
      }
      if (outA.diverged || outRef.diverged) {
        result.stoppedBecause = std::string(outA.diverged ? "the backend's" : "the reference's") +
                                " run diverged at step " + std::to_string(step);
        break;
      }
    }
    if (!result.stoppedBecause.empty()) break;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

LockstepResult runLockstep(const TrainConfig& config, const backends::PrecisionPolicy& a,
                           const backends::PrecisionPolicy& reference, const data::DataSplit& data,
                           const LockstepOptions& options, const LockstepCallbacks& callbacks) {
  validateLockstep(config, data, options);
  return runWith(
      config, a, data, options, callbacks,
      [&](const ModelSpec& spec) {
        return std::make_unique<PolicyReference>(spec, reference, config);
      },
      options.attribute ? &reference : nullptr);
}

LockstepResult runLockstepAgainstFp64(const TrainConfig& config, const backends::PrecisionPolicy& a,
                                      const data::DataSplit& data, const LockstepOptions& options,
                                      const LockstepCallbacks& callbacks) {
  validateLockstep(config, data, options);
  if (options.attribute)
    throw std::invalid_argument(
        "lockstep: an attribution redoes A's step with each product computed as the reference "
        "computes it, which needs a backend as the reference, not fp64");
  Fp64Training(*makeModel(modelSpecFor(config, data.train), false), config.optimizer);  // refuses
  return runWith(
      config, a, data, options, callbacks,
      [&](const ModelSpec& spec) { return std::make_unique<Fp64Reference>(spec, config); },
      nullptr);
}

std::string describeLockstep(const LockstepResult& result, const LockstepOptions& options,
                             std::string_view backend, std::string_view referenceName) {
  std::ostringstream out;
  const bool resync = options.mode == LockstepMode::Resynchronised;
  out << (resync ? "Re-synchronised" : "Free-running") << " lockstep of " << backend << " against "
      << referenceName << " (emulated on this CPU), " << result.stepsTrained << " steps";
  if (!result.stoppedBecause.empty()) out << " (stopped: " << result.stoppedBecause << ")";
  out << ". ";
  if (result.firstCrossing) {
    const LockstepCrossing& c = *result.firstCrossing;
    out << (resync ? "The difference one step adds" : "The difference") << " first exceeds "
        << percent(options.tolerance) << " at step " << c.step << ", in "
        << result.layers[c.layer].name << "'s " << toString(c.quantity) << " (" << percent(c.value)
        << ").";
  } else {
    out << "Every difference stayed within " << percent(options.tolerance) << ".";
  }
  if (result.steps.empty()) return out.str();
  // How the first compared step's difference grows with depth, forward and back.
  const LockstepStep& first = result.steps.front();
  const auto ends = [&](std::size_t q, bool backward) {
    std::optional<std::size_t> from, to;
    for (std::size_t i = 0; i < first.difference.size(); ++i) {
      const std::size_t l = backward ? first.difference.size() - 1 - i : i;
      if (std::isnan(first.difference[l][q])) continue;
      if (!from) from = l;
      to = l;
    }
    return std::pair{from, to};
  };
  const auto growth = [&](std::size_t q, bool backward, const char* what) {
    const auto [from, to] = ends(q, backward);
    if (!from || *from == *to) return;
    const double a = first.difference[*from][q], b = first.difference[*to][q];
    out << " " << what << " from " << percent(a) << " at " << result.layers[*from].name << " to "
        << percent(b) << " at " << result.layers[*to].name;
    if (a > 0.0 && std::isfinite(a) && std::isfinite(b))
      out << " (" << std::setprecision(2) << b / a << "x)";
    out << ".";
  };
  out << " At step " << first.step << ":";
  growth(0, false, "going forward, the outputs differ");
  growth(1, true, "Going back, the gradients passed on differ");
  if (result.attribution && !result.attribution->products.empty()) {
    const LockstepAttribution& at = *result.attribution;
    const ProductShare& top = at.products.front();
    out << " At step " << at.step << ", of the one-step error of the weight gradients ("
        << percent(at.error) << "), ";
    if (top.share >= kNotableShare) {
      out << top.product << " adds " << percent(top.share) << " (computed as " << referenceName
          << " computes it, " << percent(top.errorWithout) << " remains)";
      if (at.products.size() > 1 && at.products[1].share >= kNotableShare)
        out << ", then " << at.products[1].product << " (" << percent(at.products[1].share) << ")";
    } else {
      out << "no product alone adds as much as " << percent(kNotableShare) << " (the most, "
          << top.product << ", " << percent(top.share) << ")";
    }
    out << "; with every product as " << referenceName << "'s, " << percent(at.errorOutsideProducts)
        << " remains, from outside the products (storage formats, element-wise precision, the "
           "replicas' sums).";
  }
  return out.str();
}

}  // namespace paritylab::nn
