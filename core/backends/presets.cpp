// The emulated backends users pick from. Every preset is an emulation on the CPU of where the
// named hardware/framework default rounds; none claims to have run on that hardware.
#include <sstream>
#include <stdexcept>

#include "core/backends/precision_policy.h"

namespace paritylab::backends {
namespace {

numerics::RoundingSpec spec(const char* format,
                            numerics::RoundingMode mode = numerics::RoundingMode::NearestEven,
                            numerics::OverflowMode overflow = numerics::OverflowMode::Ieee) {
  numerics::RoundingSpec s;
  s.format = *numerics::parseFormat(format);
  s.mode = mode;
  s.overflow = overflow;
  return s;
}

// Attention's products (Q K^T, P V) round as a preset's linear ones unless the preset says
// otherwise: autocast puts matmul and bmm on its lower-precision list with linear, and XLA's
// precision setting covers every dot.
void setAll(ProductPolicy& p, const GemmPolicy& g) {
  p.forward = p.backwardData = p.backwardWeight = g;
}

GemmPolicy roundedOperands(const numerics::RoundingSpec& s) {
  GemmPolicy g;
  g.operands = s;
  return g;
}

PrecisionPolicy cpuFp32() {
  PrecisionPolicy p;
  p.name = "cpu-fp32";
  p.description = "Reference: fp32 everywhere, no rounding (a CPU running PyTorch in fp32)";
  p.sources = {
      "PyTorch on a CPU with the default dtype float32: every product, softmax, "
      "normalisation, loss and stored tensor in fp32"};
  return p;
}

PrecisionPolicy gpuTf32() {
  PrecisionPolicy p;
  p.name = "gpu-tf32";
  p.description =
      "Emulates PyTorch defaults on Ampere/Ada GPUs: convolutions with TF32 operands (round "
      "nearest-away) and fp32 accumulation; linear matmuls fp32 (allow_tf32 off)";
  setAll(p.conv, roundedOperands(spec("tf32", numerics::RoundingMode::NearestAway)));
  p.sources = {
      "PyTorch docs, \"TensorFloat-32 (TF32) on Ampere (and later) devices\": "
      "torch.backends.cudnn.allow_tf32 defaults to True, torch.backends.cuda.matmul.allow_tf32 "
      "to False (since PyTorch 1.12)",
      "Softmax, layer norm, the loss and every stored tensor stay fp32: TF32 changes only what "
      "the tensor cores read"};
  return p;
}

PrecisionPolicy amp(const char* name, const char* format, const char* description) {
  PrecisionPolicy p;
  p.name = name;
  p.description = description;
  GemmPolicy g = roundedOperands(spec(format));
  g.output = spec(format);
  setAll(p.linear, g);
  setAll(p.conv, g);
  setAll(p.attention, g);
  // Autocast casts every floating argument of an op on its lower-precision list to the autocast
  // dtype, the bias of linear/addmm and convNd among them (PyTorch's "Autocast Op Reference":
  // linear, addmm, conv1d/2d/3d run in lower precision; oneDNN's CPU kernels then report
  // `bia_bf16`): the product adds a bias already rounded to the format.
  p.linear.forward.addend = p.conv.forward.addend = p.attention.forward.addend = spec(format);
  p.storage.activations = spec(format);
  // softmax, log_softmax, layer_norm and cross_entropy autocast to float32, and an fp32 residual
  // stream plus a low-precision branch promotes to fp32: `elementwise` stays fp32.
  p.sources = {
      "PyTorch docs, \"Automatic Mixed Precision package - torch.amp\", Autocast Op Reference: "
      "matmul, bmm, linear, addmm and conv2d run in the lower precision (their bias cast with "
      "them); softmax, log_softmax, layer_norm and cross_entropy autocast to float32",
      "The residual stream stays fp32: an fp32 tensor plus a lower-precision one promotes to "
      "fp32 (PyTorch's type promotion), so x + attn(ln(x)) is an fp32 sum"};
  return p;
}

PrecisionPolicy tpu(const char* name, MultiPass passes, const char* description) {
  PrecisionPolicy p;
  p.name = name;
  p.description = description;
  GemmPolicy g;
  if (passes == MultiPass::None) g.operands = spec("bf16");
  g.passes = passes;
  setAll(p.linear, g);
  setAll(p.conv, g);
  setAll(p.attention, g);
  p.topology.replicas = 8;
  p.sources = {
      passes == MultiPass::None
          ? "XLA's default precision on a TPU (jax.lax.Precision.DEFAULT, torch_xla's default "
            "mat_mul_precision): the matrix unit reads bf16 operands and accumulates in fp32"
      : passes == MultiPass::Bf16x3
          ? "XLA's precision HIGH (jax.lax.Precision.HIGH, torch_xla mat_mul_precision 'high'): "
            "each fp32 operand split into bf16 parts, 3 bf16 products summed in fp32"
          : "XLA's precision HIGHEST (jax.lax.Precision.HIGHEST, torch_xla mat_mul_precision "
            "'highest'): 6 bf16 products, about fp32's accuracy",
      "Without XLA_USE_BF16 the tensors stay fp32 on the TPU: softmax, layer norm, the loss and "
      "the residual stream are fp32; only the products round",
      "A TPU v2-8/v3-8 has 8 cores; data parallelism gives each 1/8 of the batch, batch norm "
      "normalises per core, and the gradients are all-reduced"};
  return p;
}

PrecisionPolicy pureBf16() {
  PrecisionPolicy p;
  p.name = "pure-bf16";
  p.description =
      "Emulates pure bf16 training (no fp32 master weights): bf16 operands, outputs, activations, "
      "weights, gradients, optimizer state, normalisation statistics, softmax, loss and residual "
      "stream";
  GemmPolicy g = roundedOperands(spec("bf16"));
  g.output = spec("bf16");
  setAll(p.linear, g);
  setAll(p.conv, g);
  setAll(p.attention, g);
  p.storage.activations = p.storage.weights = p.storage.gradients = p.storage.optimizerState =
      spec("bf16");
  p.storage.fp32MasterWeights = false;
  p.batchNormStatsFp32 = false;
  p.elementwise.softmax = p.elementwise.layerNormStatistics = p.elementwise.loss =
      p.elementwise.residual = spec("bf16");
  p.sources = {
      "model.to(torch.bfloat16) with a bf16 optimizer: weights, activations, gradients and "
      "optimizer state are bf16 tensors; PyTorch's softmax, layer_norm and cross_entropy take "
      "and return bf16 (accumulating in fp32 inside), so their inputs, statistics and results "
      "are bf16",
      "torch_xla's XLA_USE_BF16=1 stores every fp32 tensor as bf16 on the TPU, the softmax, "
      "the normalisation statistics and the loss included (a GPT-2 355M reported by torch_xla's "
      "users at perplexity 120 that way, against 65 in fp32)"};
  return p;
}

// Transformer Engine's delayed-scaling recipe with Format.HYBRID, in the two fp8 pairs there are:
// OCP's E4M3/E5M2 (Hopper, Ada) and the fnuz pair of AMD's MI300 (bias 8/16, no negative zero,
// one NaN).
PrecisionPolicy fp8Hybrid(const char* name, const char* e4m3Name, const char* e5m2Name) {
  PrecisionPolicy p;
  p.name = name;
  const auto e4m3 =
      spec(e4m3Name, numerics::RoundingMode::NearestEven, numerics::OverflowMode::Saturate);
  const auto e5m2 =
      spec(e5m2Name, numerics::RoundingMode::NearestEven, numerics::OverflowMode::Saturate);
  GemmPolicy fwd = roundedOperands(e4m3);
  // Backward products: which operand is the gradient follows core/nn's call order:
  // linear dX = dY * W^T and dW = dY^T * X (A = gradient); conv dW = dY * cols^T (A = gradient),
  // conv dCols = W^T * dY (B = gradient).
  GemmPolicy gradA = roundedOperands(e5m2);
  gradA.operandsB = e4m3;
  GemmPolicy gradB = roundedOperands(e4m3);
  gradB.operandsB = e5m2;
  p.linear = {fwd, gradA, gradA};
  p.conv = {fwd, gradB, gradA};
  // Transformer Engine runs its Linear layers' GEMMs in fp8; DotProductAttention runs in the
  // surrounding bf16 autocast (fp8 attention is a separate opt-in), its softmax in fp32 inside
  // the fused kernel.
  GemmPolicy attention = roundedOperands(spec("bf16"));
  attention.output = spec("bf16");
  setAll(p.attention, attention);
  p.fp8.enabled = true;
  p.fp8.amaxHistoryLength = 16;
  p.fp8.margin = 0.0;
  return p;
}

PrecisionPolicy fp8E4m3() {
  PrecisionPolicy p = fp8Hybrid("fp8-e4m3", "fp8-e4m3", "fp8-e5m2");
  p.description =
      "Emulates Transformer Engine's default fp8 recipe (Hopper/Ada): E4M3 forward operands, E5M2 "
      "gradients in backward products, per-tensor delayed scaling (amax history 16), fp32 "
      "accumulation and master weights";
  p.sources = {
      "Transformer Engine's DelayedScaling recipe with Format.HYBRID: E4M3 in the forward "
      "products, E5M2 for gradients in the backward ones, each tensor scaled by amax history, "
      "fp32 accumulation; the history here is 16 steps (Transformer Engine's default is 1024), "
      "so the scale follows a short CPU run",
      "Only te.Linear's GEMMs run in fp8: attention's products stay bf16 (fp8 attention is an "
      "opt-in of DotProductAttention) with the softmax in fp32, and the master weights fp32"};
  return p;
}

PrecisionPolicy fp8Fnuz() {
  PrecisionPolicy p = fp8Hybrid("fp8-e4m3fnuz", "fp8-e4m3fnuz", "fp8-e5m2fnuz");
  p.description =
      "Emulates Transformer Engine's fp8 recipe on AMD MI300 (ROCm): E4M3FNUZ forward operands "
      "(max 240), E5M2FNUZ gradients, per-tensor delayed scaling (amax history 16), fp32 "
      "accumulation and master weights";
  p.sources = {
      "AMD MI300 (CDNA3) fp8 types: E4M3FNUZ and E5M2FNUZ, exponent bias 8 and 16, largest "
      "values 240 and 57344, no infinities, no negative zero, one NaN (code 0x80); PyTorch's "
      "torch.float8_e4m3fnuz / float8_e5m2fnuz",
      "ROCm/TransformerEngine runs the DelayedScaling recipe with Format.HYBRID in these types on "
      "MI300 (gfx942; MI350 and NVIDIA GPUs use OCP E4M3/E5M2): E4M3FNUZ forward, E5M2FNUZ for "
      "gradients, each tensor's scale from its amax history against the fnuz maxima; history 16 "
      "here as in fp8-e4m3",
      "Attention's products bf16 with an fp32 softmax, master weights fp32, as in fp8-e4m3"};
  return p;
}

}  // namespace

AccumulationModel hopperFp8FastAccumulation() {
  AccumulationModel m;
  m.chunk = 128;
  m.partialSums = spec("e8m13", numerics::RoundingMode::TowardZero);
  return m;
}

namespace {

numerics::BlockScaling blockScaling(const char* recipe, const char* element = "",
                                    bool square = false, bool stochastic = false) {
  numerics::BlockScaling s = numerics::parseBlockScaling(recipe, element);
  s.squareBlocks = square;
  if (stochastic) s.rounding = numerics::RoundingMode::Stochastic;
  return s;
}

// A product whose two operands are block-scaled (A's and B's recipes).
GemmPolicy scaled(GemmPolicy g, const numerics::BlockScaling& a, const numerics::BlockScaling& b,
                  bool hadamard = false) {
  g.operands = g.operandsB = std::nullopt;
  g.scalingA = a;
  g.scalingB = b;
  g.hadamard = hadamard;
  return g;
}

// Block-scaled linear and conv products inside bf16 autocast, as Transformer Engine runs them:
// outputs, biases and stored activations bf16, attention's products bf16 (fp8/fp4 attention is a
// separate opt-in), fp32 master weights, softmax, layer norm and loss.
PrecisionPolicy blockScaledPreset(const char* name, const char* description,
                                  const numerics::BlockScaling& all) {
  PrecisionPolicy p = amp(name, "bf16", description);
  for (ProductPolicy* kind : {&p.linear, &p.conv})
    for (GemmPolicy* g : {&kind->forward, &kind->backwardData, &kind->backwardWeight})
      *g = scaled(*g, all, all);
  p.sources = {
      "OCP Microscaling Formats (MX) Specification v1.0: blocks of 32 elements along the "
      "product's reduction dimension share one E8M0 (power-of-two) scale; docs/block-formats.md",
      "Transformer Engine runs te.Linear's GEMMs block-scaled inside bf16 autocast: outputs and "
      "activations bf16, fp32 accumulation and master weights; attention's products stay bf16 "
      "with the softmax in fp32"};
  return p;
}

PrecisionPolicy mxfp8() {
  PrecisionPolicy p = blockScaledPreset(
      "mxfp8",
      "Emulates Transformer Engine's MXFP8BlockScaling (Blackwell): E4M3 elements with one E8M0 "
      "scale per 32 along K for every operand of every linear/conv product, forward and backward; "
      "bf16 outputs and activations",
      blockScaling("mx", "fp8-e4m3"));
  p.sources.push_back(
      "Transformer Engine docs, \"MXFP8\": E4M3 by default for both forward and backward passes, "
      "block size 32, one-dimensional blocks, E8M0 scales (HYBRID's E5M2 gradients are an option)");
  return p;
}

PrecisionPolicy mxfp6() {
  PrecisionPolicy p = blockScaledPreset(
      "mxfp6",
      "Emulates OCP MXFP6 training: FP6 E3M2 elements with one E8M0 scale per 32 along K for every "
      "operand of every linear/conv product; bf16 outputs and activations",
      blockScaling("mx", "fp6-e3m2"));
  p.sources.push_back(
      "Choice made here: E3M2 (the FP6 element with the wider range) for every operand, forward "
      "and "
      "backward, as no vendor recipe fixes one; the OCP MX whitepaper (Rouhani et al., "
      "\"Microscaling Data Formats for Deep Learning\", arXiv 2310.10537) trains with MXFP6 in "
      "both passes");
  return p;
}

PrecisionPolicy mxfp4() {
  PrecisionPolicy p = blockScaledPreset(
      "mxfp4",
      "Emulates OCP MXFP4 everywhere: FP4 E2M1 elements with one E8M0 scale per 32 along K for "
      "every operand of every linear/conv product (a stress test: no published recipe trains so)",
      blockScaling("mx", "fp4-e2m1"));
  p.sources.push_back(
      "Choice made here: E2M1 for every operand, forward and backward, with round-to-nearest-even "
      "and no transform, the plain MX reading; NVIDIA's nvfp4 preset is the recipe that trains");
  return p;
}

// NVIDIA's NVFP4 training recipe. Operand roles follow core/nn's calls: linear Y = X W^T (A = X,
// B = W), dX = dY W (A = dY, B = W), dW = dY^T X (A = dY, B = X); conv Y = W cols (A = W,
// B = cols), dCols = W^T dY (A = W, B = dY), dW = dY cols^T (A = dY, B = cols).
PrecisionPolicy nvfp4() {
  PrecisionPolicy p = amp(
      "nvfp4", "bf16",
      "Emulates NVIDIA's NVFP4 training recipe (Blackwell): E2M1 elements, one E4M3 scale per 16 "
      "along K and one fp32 scale per tensor; weights in 16x16 blocks, gradients rounded "
      "stochastically, the weight gradient's operands Hadamard-transformed; bf16 outputs");
  const auto activations = blockScaling("nvfp4");
  const auto weights = blockScaling("nvfp4", "", true);
  const auto gradients = blockScaling("nvfp4", "", false, true);
  p.linear.forward = scaled(p.linear.forward, activations, weights);
  p.linear.backwardData = scaled(p.linear.backwardData, gradients, weights);
  p.linear.backwardWeight = scaled(p.linear.backwardWeight, gradients, activations, true);
  p.conv.forward = scaled(p.conv.forward, weights, activations);
  p.conv.backwardData = scaled(p.conv.backwardData, weights, gradients);
  p.conv.backwardWeight = scaled(p.conv.backwardWeight, gradients, activations, true);
  p.sources = {
      "NVIDIA, \"Pretraining Large Language Models with NVFP4\" (arXiv 2509.25149) and Transformer "
      "Engine's NVFP4BlockScaling: E2M1 elements, E4M3 scales per 16 elements along K, an fp32 "
      "scale per tensor; 16x16 blocks for weights (a weight and its transpose quantize alike); "
      "stochastic rounding of gradients, nearest-even elsewhere; a 16x16 random Hadamard "
      "transform of the weight gradient's operands",
      "Not in this preset: the paper's choice of keeping a few final layers in bf16 (one "
      "override adds it: {\"preset\": \"nvfp4\", \"overrides\": [{\"layers\": \"last\", "
      "\"policy\": \"gpu-amp-bf16\"}]}); attention's products stay bf16 as in the paper",
      "bf16 autocast around the products as Transformer Engine runs them: outputs, biases and "
      "stored activations bf16, fp32 accumulation and master weights"};
  return p;
}

std::vector<PrecisionPolicy> makePresets() {
  std::vector<PrecisionPolicy> presets = {
      cpuFp32(),
      gpuTf32(),
      amp("gpu-amp-bf16", "bf16",
          "Emulates PyTorch autocast bf16 on GPUs: bf16 operands, biases and outputs of "
          "matmuls/convs, fp32 accumulation, bf16 activations; fp32 master weights, batch norm, "
          "softmax, layer norm, loss and residual stream"),
      [] {
        PrecisionPolicy p = amp("gpu-amp-fp16", "fp16",
                                "Emulates PyTorch autocast fp16 on GPUs with GradScaler: fp16 "
                                "operands/biases/outputs, fp32 accumulation, dynamic loss "
                                "scaling 2^16");
        p.lossScaling.kind = LossScalingKind::Dynamic;
        p.sources.push_back(
            "torch.amp.GradScaler's defaults: init_scale 2^16, growth_factor 2, backoff_factor "
            "0.5, growth_interval 2000; a step whose gradients overflow is skipped");
        return p;
      }(),
      tpu("tpu-bf16", MultiPass::None,
          "Emulates XLA default precision on a TPU: bf16 operands (nearest-even) with fp32 "
          "accumulation, fp32 storage, 8 replicas with per-replica batch norm"),
      tpu("tpu-bf16x3", MultiPass::Bf16x3,
          "Emulates XLA precision HIGH on a TPU: 3-pass bf16 products (hi*mid + mid*hi + hi*hi), "
          "8 replicas"),
      tpu("tpu-bf16x6", MultiPass::Bf16x6,
          "Emulates XLA precision HIGHEST on a TPU: 6-pass bf16 products (about fp32 accuracy), "
          "8 replicas"),
      pureBf16(),
      fp8E4m3(),
      fp8Fnuz(),
      mxfp8(),
      mxfp6(),
      mxfp4(),
      nvfp4(),
  };
  return presets;
}

}  // namespace

const std::vector<PrecisionPolicy>& presetPolicies() {
  static const std::vector<PrecisionPolicy> presets = makePresets();
  return presets;
}

std::vector<std::string> presetNames() {
  std::vector<std::string> names;
  for (const auto& p : presetPolicies()) names.push_back(p.name);
  return names;
}

PrecisionPolicy presetPolicy(const std::string& name) {
  for (const auto& p : presetPolicies())
    if (p.name == name) return p;
  std::ostringstream msg;
  msg << "unknown backend preset '" << name << "' (presets:";
  for (const auto& n : presetNames()) msg << ' ' << n;
  msg << ')';
  throw std::invalid_argument(msg.str());
}

}  // namespace paritylab::backends
