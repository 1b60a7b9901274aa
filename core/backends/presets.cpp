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
  return p;
}

PrecisionPolicy gpuTf32() {
  PrecisionPolicy p;
  p.name = "gpu-tf32";
  p.description =
      "Emulates PyTorch defaults on Ampere/Ada GPUs: convolutions with TF32 operands (round "
      "nearest-away) and fp32 accumulation; linear matmuls fp32 (allow_tf32 off)";
  setAll(p.conv, roundedOperands(spec("tf32", numerics::RoundingMode::NearestAway)));
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
  // Autocast casts every floating argument of an op on its lower-precision list to the autocast
  // dtype, the bias of linear/addmm and convNd among them (PyTorch's "Autocast Op Reference":
  // linear, addmm, conv1d/2d/3d run in lower precision; oneDNN's CPU kernels then report
  // `bia_bf16`): the product adds a bias already rounded to the format.
  p.linear.forward.addend = p.conv.forward.addend = spec(format);
  p.storage.activations = spec(format);
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
  p.topology.replicas = 8;
  return p;
}

PrecisionPolicy pureBf16() {
  PrecisionPolicy p;
  p.name = "pure-bf16";
  p.description =
      "Emulates pure bf16 training (no fp32 master weights): bf16 operands, outputs, activations, "
      "weights, gradients, optimizer state and batch-norm statistics";
  GemmPolicy g = roundedOperands(spec("bf16"));
  g.output = spec("bf16");
  setAll(p.linear, g);
  setAll(p.conv, g);
  p.storage.activations = p.storage.weights = p.storage.gradients = p.storage.optimizerState =
      spec("bf16");
  p.storage.fp32MasterWeights = false;
  p.batchNormStatsFp32 = false;
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
  p.fp8.enabled = true;
  p.fp8.amaxHistoryLength = 16;
  p.fp8.margin = 0.0;
  return p;
}

// Attention's products round as the preset's linear ones: autocast puts matmul and bmm on its
// lower-precision list with linear, XLA's precision setting covers every dot, and a policy
// rounding all products rounds these too.
PrecisionPolicy withAttentionAsLinear(PrecisionPolicy p) {
  p.attention = p.linear;
  return p;
}

std::vector<PrecisionPolicy> makePresets() {
  std::vector<PrecisionPolicy> presets = {
      cpuFp32(),
      gpuTf32(),
      amp("gpu-amp-bf16", "bf16",
          "Emulates PyTorch autocast bf16 on GPUs: bf16 operands, biases and outputs of "
          "matmuls/convs, fp32 accumulation, fp32 master weights and batch norm, bf16 "
          "activations"),
      [] {
        PrecisionPolicy p = amp("gpu-amp-fp16", "fp16",
                                "Emulates PyTorch autocast fp16 on GPUs with GradScaler: fp16 "
                                "operands/biases/outputs, fp32 accumulation, dynamic loss "
                                "scaling 2^16");
        p.lossScaling.kind = LossScalingKind::Dynamic;
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
  for (PrecisionPolicy& p : presets) p = withAttentionAsLinear(std::move(p));
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
