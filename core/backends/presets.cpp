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

PrecisionPolicy fp8E4m3() {
  PrecisionPolicy p;
  p.name = "fp8-e4m3";
  p.description =
      "Emulates Transformer Engine's default fp8 recipe (Hopper/Ada): E4M3 forward operands, E5M2 "
      "gradients in backward products, per-tensor delayed scaling (amax history 16), fp32 "
      "accumulation and master weights";
  const auto e4m3 =
      spec("fp8-e4m3", numerics::RoundingMode::NearestEven, numerics::OverflowMode::Saturate);
  const auto e5m2 =
      spec("fp8-e5m2", numerics::RoundingMode::NearestEven, numerics::OverflowMode::Saturate);
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
  p.sources = {
      "Transformer Engine's DelayedScaling recipe with Format.HYBRID: E4M3 in the forward "
      "products, E5M2 for gradients in the backward ones, each tensor scaled by amax history, "
      "fp32 accumulation; the history here is 16 steps (Transformer Engine's default is 1024), "
      "so the scale follows a short CPU run",
      "Only te.Linear's GEMMs run in fp8: attention's products stay bf16 (fp8 attention is an "
      "opt-in of DotProductAttention) with the softmax in fp32, and the master weights fp32"};
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
