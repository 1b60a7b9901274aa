#pragma once
// Where an emulated backend rounds: every matmul/conv operand, accumulation, storage, loss
// scaling, replicas. CONTRACT (owned by core/backends; core/nn, core/study and ui rely on it).
// The owner may add fields; these names stay.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/numerics/block_scaling.h"
#include "core/numerics/rounding.h"

namespace paritylab::backends {

// XLA's multi-pass bf16 products (torch_xla precision default/high/highest).
enum class MultiPass { None, Bf16x3, Bf16x6 };

// How one kind of matrix product is computed: C[m,n] = sum_k A[m,k] * B[k,n].
struct GemmPolicy {
  std::optional<numerics::RoundingSpec> operands;  // nullopt: fp32 operands as they are
  // B's format when it differs from A's (fp8: E5M2 gradients times E4M3 weights/activations);
  // nullopt: B uses `operands` too.
  std::optional<numerics::RoundingSpec> operandsB;
  MultiPass passes = MultiPass::None;  // != None: operands split into bf16 parts
  int accumulationChunk = 0;  // 0: fp32 accumulation over all of K; > 0: partial sums over chunks
                              // of K, each rounded to `accumulation` before being added
  std::optional<numerics::RoundingSpec> accumulation;
  // With accumulationChunk: true when the chunks' partial sums, each rounded to `accumulation`, are
  // added into an fp32 running sum (Hopper's fp8 tensor cores keep about 14 bits of their partial
  // sums, which a kernel promotes to fp32 registers every so many elements: DeepSeek-V3 technical
  // report, section 3.3.2); false: the running sum is rounded to `accumulation` after every
  // addition too.
  bool fp32Promotion = false;
  std::optional<numerics::RoundingSpec> output;  // result stored in this format (e.g. autocast)
  // What is added to the product (beta * C: a layer's bias) is first rounded to this format, as
  // autocast casts a linear or convolution layer's bias to its dtype with the other arguments.
  // nullopt: added in fp32 as it is.
  std::optional<numerics::RoundingSpec> addend;
  // true: the K terms of every dot product are summed in reverse order (k = K-1 down to 0), the
  // same products in another fp32 summation order. No hardware is meant: the chaos floor's
  // reference with another summation order (docs/chaos-floor.md).
  bool reverseSummation = false;
  // Block-scaled operands (docs/block-formats.md: OCP MX, NVFP4, fp8 with a scale per tensor, row
  // or block): A's (B's) values are quantized in scaling groups along the product's reduction
  // dimension K as they are packed, in place of `operands` (`operandsB`) for that operand. Both
  // operands of a block-scaled product are handed to one fp32-accumulated product; `output`,
  // `accumulation` and `addend` apply as for any product. nullopt: the operand is rounded by
  // `operands` / `operandsB` (or not at all).
  std::optional<numerics::BlockScaling> scalingA;
  std::optional<numerics::BlockScaling> scalingB;
  // NVFP4's random Hadamard transform: both operands are transformed along K (16-element runs, the
  // same random signs for both, so the product is unchanged in exact arithmetic) before they are
  // quantized; it spreads an outlier over its block. NVIDIA applies it to the weight gradient's
  // operands.
  bool hadamard = false;

  bool blockScaled() const { return scalingA || scalingB || hadamard; }
};

struct StoragePolicy {
  std::optional<numerics::RoundingSpec> activations;     // layer outputs kept for backward
  std::optional<numerics::RoundingSpec> weights;         // the weights the products see
  std::optional<numerics::RoundingSpec> gradients;       // weight and activation gradients
  std::optional<numerics::RoundingSpec> optimizerState;  // momentum / Adam moments
  bool fp32MasterWeights = true;  // false: the update itself is applied to stored weights
};

enum class LossScalingKind { None, Static, Dynamic };
struct LossScaling {
  LossScalingKind kind = LossScalingKind::None;
  double initialScale = 65536.0;
  double growthFactor = 2.0;
  double backoffFactor = 0.5;
  int growthInterval = 2000;  // steps without overflow before the scale grows
};

// Transformer Engine's delayed scaling: per-tensor scale from an amax history.
struct Fp8Scaling {
  bool enabled = false;
  int amaxHistoryLength = 16;
  double margin = 0.0;
};

// Replicas sharing one batch (a TPU's 8 cores): each sees batch/replicas examples, keeps its own
// batch-norm statistics; gradients are all-reduced (summed in a fixed tree order, then averaged).
struct Topology {
  int replicas = 1;
};

// The order a replicas' all-reduce sums in (ReductionPolicy::order).
enum class ReduceOrder {
  Tree,  // ((g0 + g1) + (g2 + g3)) + ..., the whole gradient at once (a fixed tree)
  Ring,  // a ring reduce-scatter: the gradient cut into one chunk per replica, chunk c summed from
         // replica c + 1 round the ring to replica c (NCCL's ring order)
};

// The sums a backend computes outside the products, where a narrow format loses what is added: a
// bf16 gradient all-reduce, bf16 gradient accumulation, a loss summed in bf16 (4096 + 1 = 4096).
// The defaults (fp32, a tree, no accumulation, exact running sums) are what every preset does.
struct ReductionPolicy {
  // The replicas' gradient all-reduce (Topology::replicas > 1): each replica's gradient, every
  // partial sum and the mean held in this format (nullopt: fp32), summed in `order`.
  std::optional<numerics::RoundingSpec> allReduce;
  ReduceOrder order = ReduceOrder::Tree;
  // Gradient accumulation: each replica's share of a step's batch split into this many
  // micro-batches, each one forward and backward (batch norm over the micro-batch), their
  // gradients divided by their count (as a loss / K) and summed in an accumulator held in
  // `accumulationFormat` (nullopt: fp32) before the all-reduce, clipping and the update.
  int accumulationSteps = 1;
  std::optional<numerics::RoundingSpec> accumulationFormat;
  // The running sums of the training loss a backend keeps on the device (over a step's replicas
  // and micro-batches, and over an epoch's steps), held in this format (nullopt: exact, in double).
  // Only what is reported changes, never the training.
  std::optional<numerics::RoundingSpec> runningSums;

  bool isDefault() const {
    return !allReduce && order == ReduceOrder::Tree && accumulationSteps == 1 &&
           !accumulationFormat && !runningSums;
  }
};

// The arithmetic between the products that a transformer depends on (and every classifier's loss).
// Each field is a format the values are held in; nullopt: fp32, as PyTorch's autocast runs them
// (softmax, log_softmax, layer_norm and cross_entropy are on its fp32 list). Sums inside one of
// these operations are accumulated in fp32 and their result rounded, as PyTorch's kernels do for
// bf16 tensors (their accumulator type is float): what rounds is every value the operation takes,
// keeps and returns, never a partial sum.
struct ElementwisePolicy {
  // Attention's softmax: the scores it reads, each exponential, the row's sum and the
  // probabilities it writes.
  std::optional<numerics::RoundingSpec> softmax;
  // Layer norm's statistics: each row's mean and variance, and 1 / sqrt(variance + eps).
  std::optional<numerics::RoundingSpec> layerNormStatistics;
  // The loss: the logits the cross-entropy reads, each exponential, the log-sum-exp, the
  // probabilities its gradient is made of, the gradient it returns and the loss it reports. The
  // study's evaluation (test loss, accuracy, perplexity) reads the backend's logits but measures
  // them in fp32: it measures the model, not the backend's way of reporting it.
  std::optional<numerics::RoundingSpec> loss;
  // A transformer's residual stream: the embeddings' sum and x + f(x) after every block's
  // attention and MLP, held in this format (autocast: fp32, the sum of an fp32 stream and a bf16
  // branch). A convolutional network's residual add is a layer output like the others
  // (storage.activations).
  std::optional<numerics::RoundingSpec> residual;
};

// The three products of one layer kind.
struct ProductPolicy {
  GemmPolicy forward;         // Y = X * W
  GemmPolicy backwardData;    // dX = dY * W^T
  GemmPolicy backwardWeight;  // dW = X^T * dY
};

// Attention's two products multiply two activations, not an activation and a weight. Each maps
// onto the three fields as a linear layer Y = X W^T does, the left operand playing X:
//   scores S = Q K^T:  forward; dQ = dS K    backwardData; dK = dS^T Q   backwardWeight
//   output O = P V:    forward; dP = dO V^T  backwardData; dV = dO^T P   backwardWeight
// (the gradient is operand A of every backward product, as in a linear layer's).
enum class LayerKind { Linear, Conv, Attention };
enum class Product { Forward, BackwardData, BackwardWeight };

// One per-layer choice (core/backends/policy_overrides.h): the selected products of the layers
// `layers` names are computed as this override's products for the layer's kind, not the policy's.
struct ProductOverride {
  std::string layers;   // '|'-separated: "first", "last", or names with '*' ("h*.attn.qkv")
  bool forward = true;  // which products it selects
  bool backwardData = true;
  bool backwardWeight = true;
  // The preset the products were taken from ("gpu-amp-bf16"), shown to people; empty when they
  // were written out. The products themselves are kept either way (a stored policy does not
  // change when a preset does).
  std::string preset;
  ProductPolicy linear;
  ProductPolicy conv;
  ProductPolicy attention;

  bool selects(Product product) const {
    return product == Product::Forward        ? forward
           : product == Product::BackwardData ? backwardData
                                              : backwardWeight;
  }
  const ProductPolicy& productsFor(LayerKind kind) const {
    return kind == LayerKind::Linear ? linear : kind == LayerKind::Conv ? conv : attention;
  }
};

struct PrecisionPolicy {
  std::string name;         // preset name, or the user's name for a custom policy
  std::string description;  // one line: which hardware behaviour this emulates
  // Linear layers and convolutions apart: on Ampere/Ada, PyTorch runs convolutions in TF32 by
  // default (cudnn.allow_tf32) but matmuls in fp32 (cuda.matmul.allow_tf32 = False).
  ProductPolicy linear;
  ProductPolicy conv;
  // Q K^T and P V of self-attention. Presets set it to their linear products (autocast lists
  // matmul/bmm with linear; XLA's default precision covers every dot); a policy may keep
  // attention in fp32 while the projections round.
  ProductPolicy attention;
  StoragePolicy storage;
  ElementwisePolicy elementwise;
  bool batchNormStatsFp32 = true;
  LossScaling lossScaling;
  bool stochasticWeightUpdate = false;
  Fp8Scaling fp8;
  Topology topology;
  ReductionPolicy reduction;
  // Per-layer and per-product choices, applied in order over the kind-wide products above.
  std::vector<ProductOverride> overrides;
  // Where a preset's choices come from: one line per claim, naming the document, release or issue
  // it follows (shown by `paritylab-cli backends NAME`). Empty for a user's own policy.
  std::vector<std::string> sources;

  // The kind-wide product (before any override: a layer's own is productsFor() in
  // policy_overrides.h).
  const GemmPolicy& gemmFor(LayerKind kind, Product product) const {
    const ProductPolicy& p = kind == LayerKind::Linear ? linear
                             : kind == LayerKind::Conv ? conv
                                                       : attention;
    return product == Product::Forward        ? p.forward
           : product == Product::BackwardData ? p.backwardData
                                              : p.backwardWeight;
  }
};

// Hopper's fp8 "fast accumulation" as a named accumulation model ("accumulationModel":
// "hopper-fp8-fast" in a product's JSON): the products of each run of `chunk` = 128 elements of K
// are summed keeping 14 significant bits, truncated (partialSums: e8m13 toward zero), and the
// runs' sums are added in fp32 (GemmPolicy::fp32Promotion). DeepSeek-V3 (technical report,
// section 3.3.2) measured H800 fp8 GEMMs retaining about 14 bits of their accumulation and promotes
// every 128 elements. Emulated per run of 128, not per addition (docs/precision-policy.md).
struct AccumulationModel {
  int chunk = 128;
  numerics::RoundingSpec partialSums;
};
AccumulationModel hopperFp8FastAccumulation();

// Presets in display order: cpu-fp32, gpu-tf32, gpu-amp-bf16, gpu-amp-fp16, tpu-bf16, tpu-bf16x3,
// tpu-bf16x6, pure-bf16, fp8-e4m3, mxfp8, mxfp6, mxfp4, nvfp4.
const std::vector<PrecisionPolicy>& presetPolicies();
std::vector<std::string> presetNames();
// Throws std::invalid_argument naming `name` and listing the presets.
PrecisionPolicy presetPolicy(const std::string& name);

// JSON: either a preset name string, or an object {"preset": "tpu-bf16", ...fields to adjust} or a
// full custom object. Throws std::invalid_argument naming the field and value that is wrong.
PrecisionPolicy policyFromJson(const nlohmann::json& j);
nlohmann::json policyToJson(const PrecisionPolicy& policy);

}  // namespace paritylab::backends
