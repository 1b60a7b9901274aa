#pragma once
// The layer interface. A layer owns its output and input-gradient tensors and remembers its input
// between forward() and backward(), so a model chains layers without copies:
//   const Tensor& y = layer.forward(x, ctx);   ...   const Tensor& dx = layer.backward(dy, ctx);
// Parameters live in the model's ParamStore; layers keep their ids.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/activation_probe.h"
#include "core/nn/gemm.h"
#include "core/nn/gemm_xray.h"
#include "core/nn/param_store.h"
#include "core/nn/random.h"
#include "core/nn/replica_shards.h"
#include "core/nn/site_policies.h"
#include "core/nn/step_operand_cache.h"
#include "core/nn/step_signals.h"
#include "core/nn/tensor.h"

namespace paritylab::nn {

// Supplies per-call GEMM extras: the stochastic-rounding stream and, for fp8 policies, the
// per-tensor delayed scales of both operands. `site` identifies the call site (layer and
// product); A and B are the operands as they will be passed to gemm().
class GemmScaleProvider {
 public:
  virtual ~GemmScaleProvider() = default;
  // `gemm`: the product as this site computes it (the policy's, or an override's).
  virtual void scales(int site, const backends::GemmPolicy& gemm, backends::Product product,
                      const float* a, std::size_t na, const float* b, std::size_t nb,
                      GemmExtras& extras) = 0;
};

// Scratch buffers shared by all layers of one model (im2col columns, transposed products); they
// grow to the largest layer once and are then reused.
struct LayerScratch {
  std::vector<float> columns;     // im2col / col2im: [C*kh*kw, batch*outH*outW]
  std::vector<float> product;     // a conv's output or output gradient as [Cout, batch*outH*outW]
  std::vector<float> weights;     // a conv's weights, rounded once for all its image groups
  std::vector<float> inputs;      // a conv's input for one image group as [Cin, group*H*W]
  std::vector<float> weightGrad;  // a conv's weight gradient in its gathered order
  std::vector<float> rounded;     // a conv's input (or output gradient) for one image group,
                                  // rounded ahead of its gather (preroundOperand)
  // A block-scaled weight-gradient product's operands, quantized along the batch ahead of their
  // gathers: the output gradient [N, Cout, outH*outW] and the input [N, C, H*W], and the output
  // gradient as [Cout, N*outH*outW] for the lowered product.
  std::vector<float> gradientByBatch, inputByBatch, gradientRowsByBatch;
  // A conv's weights quantized in square blocks (prequantizeSquareConvWeights) for its input
  // gradient, in W's layout.
  std::vector<float> squareWeights;
  // NVFP4: a conv's quantized input (or its batch's) as bf16 values, and their gathered columns
  // (packOperandBf16, im2colBf16).
  std::vector<std::uint16_t> bf16Values, bf16Columns;
};

// Everything a layer needs during one step.
struct StepContext {
  const backends::PrecisionPolicy* policy = nullptr;
  GemmWorkspace* workspace = nullptr;
  LayerScratch* scratch = nullptr;
  ParamStore* params = nullptr;
  GemmScaleProvider* scaleProvider = nullptr;  // null: no fp8 scaling
  bool training = true;
  int replica = 0;           // which replica's shard is running (batch-norm running stats)
  std::uint64_t seed = 0;    // run seed
  std::uint64_t step = 0;    // global step (stochastic rounding streams)
  GemmXray* xray = nullptr;  // null: no X-ray; else measures the steps it samples
  // Weights rounded once per training step for all its products (null: each product rounds its
  // own); cleared by the training session before each step.
  StepOperandCache* operandCache = nullptr;
  // Non-null while a layer's forward runs on an input that went through the store step in this
  // format (Sequential sets it for the layers after the first, and passes its own on to its first
  // layer): the input's values are already representable in it. Null: not known (a model's input).
  const numerics::RoundingSpec* inputStoredAs = nullptr;
  // The policy's overrides resolved per call site; null: every site computes the policy's
  // kind-wide products (a policy without overrides).
  const SitePolicies* sitePolicies = nullptr;
  // Non-null during the training steps of a lockstep comparison: every layer with products
  // reports its output and its input gradient (probeForward / probeBackward).
  ActivationProbe* probe = nullptr;
  // What makes this shard's input gradients the whole batch's (ActivationProbe::backward).
  double probeGradientScale = 1.0;
  // Non-null on a training step that measures early warnings: layers note what only they see
  // (attention: the largest score before its softmax).
  StepSignals* stepSignals = nullptr;
  // Non-null while the replicas' shards run as one batch (replica_shards.h): a layer computes its
  // products over the whole batch and writes its parameter gradients once per shard
  // (forEachGradientShard).
  const ReplicaShards* shards = nullptr;

  // Calls f(firstRow, rows, gradients) for each part of a batch of `rows` rows (`items` items of
  // rows / items rows each) whose parameter gradients are summed apart: the whole batch into the
  // ParamStore's gradients, or each replica shard into its own.
  template <typename F>
  void forEachGradientShard(std::size_t rows, int items, F&& f) const {
    if (!shards) {
      f(std::size_t(0), rows, ParamGradients{params});
      return;
    }
    const std::size_t perItem = items > 0 ? rows / std::size_t(items) : 0;
    for (int s = 0; s < shards->count(); ++s) {
      const ReplicaShards::Rows r = shards->rows(s, perItem);
      f(r.first, r.count,
        shards->gradientSlots ? ParamGradients{params, nullptr, shards->gradientSlots, s}
                              : ParamGradients{params, shards->gradients[std::size_t(s)]});
    }
    if (shards->gradientSlots) shards->gradientSlots->layerDone();
  }

  // How the product `product` of GEMM call site `site` (a layer of `kind`) is computed: the
  // policy's product for the kind, or the one an override gives the layer.
  const backends::GemmPolicy& gemmPolicy(int site, backends::LayerKind kind,
                                         backends::Product product) const {
    if (sitePolicies)
      if (const backends::GemmPolicy* own = sitePolicies->find(site, product)) return *own;
    return policy->gemmFor(kind, product);
  }
  // Extras for one GEMM call at `site`.
  GemmExtras gemmExtras(int site, backends::LayerKind kind, backends::Product product,
                        const float* a, std::size_t na, const float* b, std::size_t nb) {
    GemmExtras e;
    e.seed = hashSeed(seed, step, std::uint64_t(site) * 3 + std::uint64_t(product));
    if (scaleProvider)
      scaleProvider->scales(site, gemmPolicy(site, kind, product), product, a, na, b, nb, e);
    if (xray) e.xray = xray->slot(site, kind, product);
    return e;
  }
  // Parameter `paramId`'s values [n] as operand `which` of a product under `policy`: from the
  // step's cache (set extras.roundedA / roundedB to the pointer returned when it is not `values`),
  // or `values` when there is no cache or the rounding cannot be shared.
  const float* sharedOperand(int paramId, const backends::GemmPolicy& policy, Operand which,
                             GemmExtras& extras, const float* values, std::size_t n) const {
    if (!operandCache) return values;
    const float* shared = operandCache->operand(paramId, policy, which, extras, values, n);
    if (shared != values) (which == Operand::A ? extras.roundedA : extras.roundedB) = shared;
    return shared;
  }
  // A convolution's weights w [cout, cin, taps] (parameter `paramId`) quantized in square blocks
  // for operand A of a product under `policy` along `reduction`: the step's shared copy
  // (StepOperandCache::squareWeights), else quantized into `scratch`; null when the policy takes
  // no square blocks there. Read as it is, with *tensorScale (NVFP4's, else 0) as
  // GemmExtras::tensorScaleA.
  float* squareConvWeights(int paramId, const backends::GemmPolicy& policy,
                           const GemmExtras& extras, const float* w, std::vector<float>& scratch,
                           int cout, int cin, int taps, numerics::BlockAxis reduction,
                           float& tensorScale) const {
    if (operandCache)
      if (float* shared =
              operandCache->squareWeights(paramId, policy, extras, w, cout, cin, taps, tensorScale))
        return shared;
    return prequantizeSquareConvWeights(policy, Operand::A, extras, w, scratch, cout, cin, taps,
                                        reduction, &tensorScale)
               ? scratch.data()
               : nullptr;
  }
  // A layer's output (after its forward products) and its input gradient, to the probe if any.
  void probeForward(int site, const Tensor& output) const {
    if (probe) probe->forward(site, output.data(), output.size());
  }
  void probeBackward(int site, const Tensor& inputGradient) const {
    if (!probe || inputGradient.size() == 0) return;
    if (!shards) {
      probe->backward(site, inputGradient.data(), inputGradient.size(), probeGradientScale);
      return;
    }
    // Each shard's rows with its own scale (its loss is the mean over its own items).
    const std::size_t perItem = inputGradient.size() / std::size_t(inputGradient.dim(0));
    for (int s = 0; s < shards->count(); ++s) {
      const ReplicaShards::Rows r = shards->rows(s, perItem);
      probe->backward(site, inputGradient.data() + r.first, r.count,
                      shards->probeGradientScales[std::size_t(s)]);
    }
  }
  // Applies the policy's storage format to an activation kept for backward / to a gradient.
  void storeActivation(Tensor& t, int site) const {
    if (policy->storage.activations)
      storeTensor(policy->storage.activations, t.data(), t.size(), hashSeed(seed, step, site));
  }
  void storeGradient(float* data, std::size_t n, int site) const {
    if (policy->storage.gradients)
      storeTensor(policy->storage.gradients, data, n, hashSeed(seed, step, site + 0x10000));
  }
  // Holds n values of an operation between the products (softmax, layer-norm statistics, loss,
  // residual stream) in `format`, one of the policy's `elementwise` fields: the store step with a
  // seed stream of its own per (site, part). Nothing to do when the field is fp32 (nullopt). On a
  // step the X-ray measures, `xraySite` names what is held ("h0.attn.softmax") and `quantity` which
  // of its values ("scores"): they are measured against the format first (GemmXray::addHeld).
  void holdIn(const std::optional<numerics::RoundingSpec>& format, float* data, std::size_t n,
              int site, std::uint64_t part = 0, const std::string* xraySite = nullptr,
              const char* quantity = nullptr) const {
    const bool measured = xray && xraySite && xray->measuring();
    if (!format && !measured) return;  // fp32 and not measured: per row, nothing to compute
    const std::uint64_t stream = hashSeed(hashSeed(seed, step, site + 0x20000), part);
    if (measured) xray->addHeld(*xraySite, quantity, {data, n}, format, stream);
    if (format) storeTensor(format, data, n, stream);
  }
};

// Builds ids for layers while a model is assembled: parameter registration and GEMM call sites.
struct ModelBuilder {
  ParamStore* params = nullptr;
  int nextSite = 0;
  bool head = false;  // layers created while true belong to the classification head
  // siteNames[site]: the layer owning a GEMM call site ("conv2"), taken from the first matrix
  // weight ("conv2.weight", rank >= 2) registered after the site (X-ray site names); "" if none.
  std::vector<std::string> siteNames{};
  // siteKinds[site]: the kind of products a GEMM call site computes; nullopt for a site without
  // products (a layer norm's, an embedding's).
  std::vector<std::optional<backends::LayerKind>> siteKinds{};
  // siteWeights[site]: the parameter id of that weight, or of the weight a layer reads (a tied
  // output layer's token embedding); -1 if none (attention's sites).
  std::vector<int> siteWeights{};
  // A new call site whose layer computes products of `kind`.
  int productSite(backends::LayerKind kind) {
    siteKinds.resize(std::size_t(nextSite) + 1);
    siteKinds[std::size_t(nextSite)] = kind;
    return nextSite++;
  }
  int addParam(const std::string& name, const Shape& shape, ParamKind kind = ParamKind::Weight) {
    static constexpr std::string_view kWeight = ".weight";
    if (nextSite > 0 && shape.rank >= 2 && name.ends_with(kWeight)) {
      siteNames.resize(std::size_t(nextSite));
      std::string& site = siteNames[std::size_t(nextSite - 1)];
      if (site.empty()) {
        site = name.substr(0, name.size() - kWeight.size());
        const int id = params->add(name, shape, kind, !head);
        siteWeights.resize(std::size_t(nextSite), -1);
        siteWeights[std::size_t(nextSite - 1)] = id;
        return id;
      }
    }
    return params->add(name, shape, kind, !head);
  }
};

class Layer {
 public:
  virtual ~Layer() = default;
  // Output shape for an input of shape `in` (throws std::invalid_argument when it does not fit).
  virtual Shape outputShape(const Shape& in) const = 0;
  // x stays alive and unchanged until backward(). Returns the layer's own output tensor.
  virtual Tensor& forward(const Tensor& x, StepContext& ctx) = 0;
  // dy: gradient of the loss w.r.t. the last forward's output. Writes (overwrites) parameter
  // gradients and returns dL/dx (empty when needInputGrad is false).
  virtual const Tensor& backward(const Tensor& dy, StepContext& ctx) = 0;
  // Initialises parameters like PyTorch's default for this layer.
  virtual void init(ParamStore& /*params*/, RandomStream& /*rng*/) {}
  // The first layer of a model does not need dL/dx.
  void setNeedInputGrad(bool need) { needInputGrad_ = need; }
  // True when the last forward's output already holds values of the deterministic rounding
  // `format` (a product whose one output rounding is that format), so storing it in that format
  // would leave every bit as it is and the store step may skip the pass.
  virtual bool outputAlreadyStoredAs(const numerics::RoundingSpec& /*format*/,
                                     const StepContext& /*ctx*/) const {
    return false;
  }

 protected:
  bool needInputGrad_ = true;
};

// The store step for a layer's output inside a model: rounds `out` to the policy's activation
// format (seed stream `site`) unless `producer` says it already holds such values (null: a sum no
// layer produced, such as a residual add), then tells the next layer that its input went through
// the store step (StepContext::inputStoredAs).
inline void storeLayerOutput(Tensor& out, const Layer* producer, int site, StepContext& ctx) {
  const auto& format = ctx.policy->storage.activations;
  if (format && !(producer && producer->outputAlreadyStoredAs(*format, ctx)))
    ctx.storeActivation(out, site);
  ctx.inputStoredAs = format ? &*format : nullptr;
}

// The store step for a transformer's residual stream (the embeddings' sum, x + f(x) after each
// branch): held in the policy's elementwise.residual format rather than the activations' (autocast
// keeps the stream fp32 while its branches' outputs are bf16), then the next layer is told so. On
// a step the X-ray measures, the stream is measured as (xraySite, quantity): ("h0.residual",
// "attn") is the stream after block 0 added its attention's output.
inline void storeResidual(Tensor& out, int site, StepContext& ctx, const std::string& xraySite,
                          const char* quantity) {
  const auto& format = ctx.policy->elementwise.residual;
  ctx.holdIn(format, out.data(), out.size(), site, 0, &xraySite, quantity);
  ctx.inputStoredAs = format ? &*format : nullptr;
}

}  // namespace paritylab::nn
