// The ResNet-18 speed work (fused batch norm + residual add + ReLU, the convolution layout and
// grouping changes) must leave training bit-identical for a given policy and seed. A few AdamW
// steps of a small resnet18 under cpu-fp32, gpu-tf32, tpu-bf16 and gpu-amp-bf16 are pinned bit
// for bit: every step's loss and a hash of all weights and gradients after the last step. The
// pinned values were computed by this test with the code before the speed work (main at
// b8cad04); a change that moves any bit of any product, statistic or update fails here.
// Deliberate, declared exceptions, each re-pinned in the commit that made it:
// - gpu-amp-bf16's weight gradients sum the image groups' fp32 partial products in fp32 before
//   their one bf16 output rounding (conv2d.cpp), where they were one sgemm over the whole batch:
//   a different fp32 summation order before the same single rounding (losses unchanged).
// - same convolutions (3x3, stride 1) take both backward products from one gather of the output
//   gradient (conv2d_gathered_backward.cpp): dX is one product over (Cout, ky, kx) instead of
//   k*k column gradients summed by col2im, dW sums the pixels in another order. Every policy's
//   losses after the first step moved; the code-before losses stay pinned beside the new bits
//   and must stay close (beforeTolerance).
// - convolutions whose weights are small against an image (Cout or Cin <= plane / 4) run one
//   product per image, written where it belongs: the same products, but small enough for
//   OpenBLAS's small-matrix kernels (M*N*K <= 1e6 on SkylakeX), which sum in their own order, so
//   on this width-8 model even the first step's loss moved in its last bits.
// - gpu-amp-bf16 adds its bias cast to bf16, as autocast casts it (round(XW + round(b))): the fc
//   layer's output moved, so every loss and the state; the code-before losses stay within
//   beforeTolerance.

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/blas_setup.h"
#include "core/nn/optimizer.h"
#include "core/nn/trainer.h"
#include "core/nn/training_session.h"
#include "pinned_steps.h"

namespace paritylab::nn {
namespace {

using testing::Trace;

// What one kernel set gives for a case, bit for bit.
using Pins = testing::Trace;

// A pinned run: backend and input shape, each step's loss with the code before the ResNet-18
// speed work (b8cad04: no fused batch norm, no gathered backward), and the bits of each OpenBLAS
// kernel set it is pinned for.
struct PinnedCase {
  const char* backend;
  int channels, side;
  std::uint64_t beforeBits[3];
  Pins skylakeX, zen;
};

// How far the losses may be from the code before the speed work: the gathered backward reorders
// fp32 sums (a few fp32 ulps of a gradient); under tf32 or bf16 operands the reordered gradients
// cross a few rounding boundaries of the format more or less, which moves a step's loss by up to
// a few 1e-4.
double beforeTolerance(const std::string& backend) {
  return backend == "cpu-fp32" ? 1e-5 : 3e-3;
}

Trace trainThreeSteps(const std::string& backend, int channels, int side) {
  return testing::trainThreeSteps({"resnet18", channels, side, side, 10, 8, {}}, backend);
}

// sgemm's summation order is OpenBLAS's kernel set's, so the bits are pinned per kernel set: the
// SkylakeX pins were recorded on an AVX-512 Xeon, the Zen pins on an AVX2 EPYC (at commit 957f466,
// before the AVX2 gathers; a pure copy changes no bit). The code-before losses were recorded with
// SkylakeX's kernels; another kernel set's summation order moves them well inside
// beforeTolerance, so both sets are held to them.
// Each row: backend, channels, side, the code-before losses, the SkylakeX pins, the Zen pins
// (laid out by hand: the run on the first line, each set of bits on its own).
// clang-format off
const PinnedCase kCases[] = {
    {"cpu-fp32", 1, 28,
     {0x4002d84932000000ull, 0x3fff2c68db000000ull, 0x3ffa57283f000000ull},  // before
     {{0x4002d8493c800000ull, 0x3fff2c68e0000000ull, 0x3ffa5728d7000000ull},
      0xb0a69c0b11f70b52ull},  // SkylakeX
     {{0x4002d84930800000ull, 0x3fff2c68ee000000ull, 0x3ffa57283a800000ull},
      0xf056f9e675b4a4c1ull}},  // Zen
    {"gpu-tf32", 1, 28,
     {0x4002d85249000000ull, 0x3fff2de6d3000000ull, 0x3ffa5324ce800000ull},  // before
     {{0x4002d84fe5000000ull, 0x3fff2e8ec6000000ull, 0x3ffa53688c000000ull},
      0x1691788d36601c44ull},  // SkylakeX
     {{0x4002d84b33000000ull, 0x3fff2e22c6000000ull, 0x3ffa52bf7e000000ull},
      0xfe920db3069ec6a4ull}},  // Zen
    {"tpu-bf16", 1, 28,
     {0x4002d9fc04000000ull, 0x3fffb7ffcb000000ull, 0x3ffb6b05f4000000ull},  // before
     {{0x4002d9fc04000000ull, 0x3fffb9d16a000000ull, 0x3ffb67ad5f000000ull},
      0x4b0e5b7b5b860b7eull},  // SkylakeX
     {{0x4002da1cf8000000ull, 0x3fffb842b8000000ull, 0x3ffb6c3c87800000ull},
      0xb47f62be8d3959dbull}},  // Zen
    {"gpu-amp-bf16", 1, 28,
     {0x4002d5fbcb800000ull, 0x3fff28118e000000ull, 0x3ffa5b3f1d000000ull},  // before
     {{0x4002d4d5e6800000ull, 0x3fff29afc9000000ull, 0x3ffa5dd064000000ull},
      0xe878fd6bfcd557cdull},  // SkylakeX
     {{0x4002d66b7e000000ull, 0x3fff2b5880000000ull, 0x3ffa5def67000000ull},
      0x8eedd4e3c95d30fbull}},  // Zen
    {"cpu-fp32", 3, 32,
     {0x400342ca4c800000ull, 0x3fffecc2bd000000ull, 0x3ffb14396d000000ull},  // before
     {{0x400342ca4c800000ull, 0x3fffecc2b2000000ull, 0x3ffb14485a000000ull},
      0x51af1f9e84cdb115ull},  // SkylakeX
     {{0x400342ca4c800000ull, 0x3fffecc2cd000000ull, 0x3ffb144838000000ull},
      0x41f57c084baf2114ull}},  // Zen
    {"gpu-tf32", 3, 32,
     {0x4003431a1b800000ull, 0x3ffff04a63000000ull, 0x3ffb17b647000000ull},  // before
     {{0x4003431a1b800000ull, 0x3ffff07e05000000ull, 0x3ffb17a388000000ull},
      0x78dfd020dcdd1828ull},  // SkylakeX
     {{0x4003430729000000ull, 0x3fffee6bb8000000ull, 0x3ffb155aa1000000ull},
      0x81dae30113ea8cffull}},  // Zen
    {"tpu-bf16", 3, 32,
     {0x4003506654000000ull, 0x40003491ea000000ull, 0x3ffbf1a23d000000ull},  // before
     {{0x4003506654000000ull, 0x4000350f1c800000ull, 0x3ffbf5835b000000ull},
      0x6c034ded04cf94aeull},  // SkylakeX
     {{0x4003506da1000000ull, 0x4000343770000000ull, 0x3ffbee9c05000000ull},
      0x109ce4aa6075de4cull}},  // Zen
    {"gpu-amp-bf16", 3, 32,
     {0x40034424bd800000ull, 0x3ffff434b0000000ull, 0x3ffb1a48f2000000ull},  // before
     {{0x40034415b3000000ull, 0x3ffff840fe000000ull, 0x3ffb18793c000000ull},
      0x34be5bc1564a1cb0ull},  // SkylakeX
     {{0x40034415b3000000ull, 0x3ffff92fca000000ull, 0x3ffb214a25000000ull},
      0x74e3d456bdc7f327ull}},  // Zen
};
// clang-format on

TEST(ResNet18PinnedSteps, TrainingIsPinnedBitForBitAndCloseToTheCodeBefore) {
  configureBlas();
  const std::string core = blasCoreName();
  const Pins PinnedCase::*pinned = core == "SkylakeX" ? &PinnedCase::skylakeX
                                   : core == "Zen"    ? &PinnedCase::zen
                                                      : nullptr;
  if (!pinned)
    GTEST_SKIP() << "pinned with OpenBLAS's SkylakeX and Zen kernels; this machine uses " << core;
  for (const PinnedCase& p : kCases) {
    const Pins& pins = p.*pinned;
    const Trace t = trainThreeSteps(p.backend, p.channels, p.side);
    const std::string what = std::string(p.backend) + " on " + std::to_string(p.channels) + "x" +
                             std::to_string(p.side) + "x" + std::to_string(p.side);
    for (int i = 0; i < 3; ++i) {
      const double loss = std::bit_cast<double>(t.lossBits[i]);
      EXPECT_EQ(t.lossBits[i], pins.lossBits[i])
          << what << " step " << i << ": loss " << loss << std::hex << " bits 0x" << t.lossBits[i];
      const double before = std::bit_cast<double>(p.beforeBits[i]);
      EXPECT_NEAR(loss, before, beforeTolerance(p.backend) * before)
          << what << " step " << i << " against the code before the speed work (b8cad04)";
    }
    EXPECT_EQ(t.stateHash, pins.stateHash) << what << std::hex << " state hash 0x" << t.stateHash;
  }
}

// gpu-amp-bf16's weight gradients are split into image groups whether or not the
// X-ray is on, so measuring a step changes no bit of training.
TEST(ResNet18PinnedSteps, XrayChangesNoBitOfAnAutocastRun) {
  testing::expectXrayChangesNoBit({"resnet18", 1, 28, 28, 10, 8, {}}, "gpu-amp-bf16");
}

}  // namespace
}  // namespace paritylab::nn
