// Speed work on the emulation must not move a bit of training. Three AdamW steps of small-cnn
// (batch 32, synthetic 1x28x28 images) under every preset are pinned bit for bit, per OpenBLAS
// kernel set: each step's loss and a hash of all weights and gradients after the last step. A
// change that moves any bit of any product, rounding, statistic or update under any preset fails
// here; a deliberate change re-pins the presets it moves, in its own commit, and says so below.
// - The autocast presets add a bias cast to their dtype (round(XW + round(b))): pinned with it.
// - mxfp8, mxfp6, mxfp4 and nvfp4 (block-scaled operands) and fp8-e4m3fnuz were pinned when they
//   were added. The block-scaled presets were re-pinned when a convolution's operands took their
//   blocks along channels (forward, input gradient) and along the batch (weight gradient) instead
//   of along the lowered product's rows and columns (docs/block-formats.md). nvfp4 was re-pinned
//   when its square weight blocks came to cover 16 output x 16 input channels at one tap (they
//   had covered one output channel's input channels across its taps), and again when its
//   products came to multiply its elements times their block scales in bf16 and apply the two
//   tensor scales after the sum (oneDNN's bf16 matmul where the CPU has AVX-512, OpenBLAS's sgemm
//   below: pinned for both, as bf16ProductEngine() names them).
// - pure-bf16 computes its loss in bf16 (elementwise.loss: the logits, probabilities, gradient and
//   reported loss held in bf16, as a bf16 model's cross-entropy returns them): re-pinned with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>

#include "core/nn/blas_setup.h"
#include "pinned_steps.h"

namespace paritylab::nn {
namespace {

using testing::Trace;

struct SmallCnnPinnedCase {
  const char* backend;
  Trace haswell, skylakeX, zen;
};

// Each row: backend, then the bits of each kernel set (laid out by hand: each set on its own).
// clang-format off
const SmallCnnPinnedCase kSmallCnnCases[] = {
    {"cpu-fp32",
     {{0x40028899b3800000ull, 0x400082ce82c00000ull, 0x3ffb73648e400000ull},
      0x64abd309963ba0b7ull},  // Haswell
     {{0x40028899b3800000ull, 0x400082ce82900000ull, 0x3ffb7364a8400000ull},
      0xb946837bb8bf5f4cull},  // SkylakeX
     {{0x40028899b3800000ull, 0x400082ce82c00000ull, 0x3ffb73648e400000ull},
      0x64abd309963ba0b7ull}},  // Zen
    {"gpu-tf32",
     {{0x400288ac51800000ull, 0x400082559c700000ull, 0x3ffb64ec6ec00000ull},
      0x31e8fde88eacc715ull},  // Haswell
     {{0x400288ac50000000ull, 0x40008255d7600000ull, 0x3ffb64ec20800000ull},
      0x1b335613e5ecb492ull},  // SkylakeX
     {{0x400288ac51800000ull, 0x400082559c700000ull, 0x3ffb64ec6ec00000ull},
      0x31e8fde88eacc715ull}},  // Zen
    {"gpu-amp-bf16",
     {{0x4002882a3c000000ull, 0x40008cd5c3100000ull, 0x3ffb73fca8400000ull},
      0x4799909d18bb8365ull},  // Haswell
     {{0x40028827fe000000ull, 0x40008b8491800000ull, 0x3ffb6e4704c00000ull},
      0x15248032cff1c5c8ull},  // SkylakeX
     {{0x4002882a3c000000ull, 0x40008cd5c3100000ull, 0x3ffb73fca8400000ull},
      0x4799909d18bb8365ull}},  // Zen
    {"gpu-amp-fp16",
     {{0x400288ba21800000ull, 0x4000835659d00000ull, 0x4000835659d00000ull},
      0xd1bf9c2db1108ea3ull},  // Haswell
     {{0x400288ba8d000000ull, 0x40008347d0500000ull, 0x40008347d0500000ull},
      0xdb6236af6013bdbdull},  // SkylakeX
     {{0x400288ba21800000ull, 0x4000835659d00000ull, 0x4000835659d00000ull},
      0xd1bf9c2db1108ea3ull}},  // Zen
    {"tpu-bf16",
     {{0x4002827f82000000ull, 0x400055219fc00000ull, 0x3ff9e3b737c00000ull},
      0x3a93fa987744e120ull},  // Haswell
     {{0x4002827f81000000ull, 0x40005518bfc00000ull, 0x3ff9e2f13d800000ull},
      0x2b099a12d74c4c61ull},  // SkylakeX
     {{0x4002827f82000000ull, 0x400055219fc00000ull, 0x3ff9e3b737c00000ull},
      0x3a93fa987744e120ull}},  // Zen
    {"tpu-bf16x3",
     {{0x40028292e4000000ull, 0x40003b655a100000ull, 0x3ff972b632400000ull},
      0xffb099eb7acd989aull},  // Haswell
     {{0x40028292e8000000ull, 0x40003b652a300000ull, 0x3ff972b76a800000ull},
      0x636765fe802bd6e1ull},  // SkylakeX
     {{0x40028292e4000000ull, 0x40003b655a100000ull, 0x3ff972b632400000ull},
      0xffb099eb7acd989aull}},  // Zen
    {"tpu-bf16x6",
     {{0x400282927f000000ull, 0x40003b5c2ba00000ull, 0x3ff972c05d800000ull},
      0xded132f985229af7ull},  // Haswell
     {{0x4002829285800000ull, 0x40003b5c2ea00000ull, 0x3ff972c050800000ull},
      0x6ae804e5b1f82776ull},  // SkylakeX
     {{0x400282927f000000ull, 0x40003b5c2ba00000ull, 0x3ff972c05d800000ull},
      0xded132f985229af7ull}},  // Zen
    {"pure-bf16",
     {{0x4002800000000000ull, 0x4000a00000000000ull, 0x3ffbc00000000000ull},
      0x169e2b957b3f5d35ull},  // Haswell
     {{0x4002800000000000ull, 0x4000a00000000000ull, 0x3ffbc00000000000ull},
      0xfd479be0836f5d35ull},  // SkylakeX
     {{0x4002800000000000ull, 0x4000a00000000000ull, 0x3ffbc00000000000ull},
      0x169e2b957b3f5d35ull}},  // Zen
    {"fp8-e4m3",
     {{0x40027f8f2d800000ull, 0x4000e9189d800000ull, 0x3ff762b2eb000000ull},
      0x1b0ad6063ee3969full},  // Haswell
     {{0x40027f8f2d800000ull, 0x4000e9189dc00000ull, 0x3ff762b2f0000000ull},
      0x1204a21dc1b12467ull},  // SkylakeX
     {{0x40027f8f2d800000ull, 0x4000e9189d800000ull, 0x3ff762b2eb000000ull},
      0x1b0ad6063ee3969full}},  // Zen
    {"fp8-e4m3fnuz",
     {{0x400283b46e800000ull, 0x400053ba81400000ull, 0x3ff693d778000000ull},
      0x741c608ed6e7ec28ull},  // Haswell
     {{0x400283b46e800000ull, 0x400053b9f2400000ull, 0x3ff696bc12400000ull},
      0x544f31f489651b74ull},  // SkylakeX
     {{0x400283b46e800000ull, 0x400053ba81400000ull, 0x3ff693d778000000ull},
      0x741c608ed6e7ec28ull}},  // Zen
    {"mxfp8",
     {{0x40028b2586800000ull, 0x40001a6722900000ull, 0x3ffacdcc6d800000ull},
      0x5366e034579c3938ull},  // Haswell
     {{0x40028b2586800000ull, 0x40001a6722900000ull, 0x3ffacdcc6d800000ull},
      0x54133fba8c70a9b1ull},  // SkylakeX
     {{0x40028b2586800000ull, 0x40001a6722900000ull, 0x3ffacdcc6d800000ull},
      0x5366e034579c3938ull}},  // Zen
    {"mxfp6",
     {{0x40028071c9000000ull, 0x40005d310ca00000ull, 0x3ffb6b7ff4400000ull},
      0x28a9c4fa1e7965aaull},  // Haswell
     {{0x40028071c9000000ull, 0x40005d310ca00000ull, 0x3ffb6b7ff4400000ull},
      0x28a9c4fa1e7965aaull},  // SkylakeX
     {{0x40028071c9000000ull, 0x40005d310ca00000ull, 0x3ffb6b7ff4400000ull},
      0x28a9c4fa1e7965aaull}},  // Zen
    {"mxfp4",
     {{0x4002a5dc21000000ull, 0x3fff97c3b0c00000ull, 0x3ff72421a9000000ull},
      0xcf4e2eb70b0579eull},  // Haswell
     {{0x4002a5dc21000000ull, 0x3fff97c3b0c00000ull, 0x3ff72421a9000000ull},
      0xcf4e2eb70b0579eull},  // SkylakeX
     {{0x4002a5dc21000000ull, 0x3fff97c3b0c00000ull, 0x3ff72421a9000000ull},
      0xcf4e2eb70b0579eull}},  // Zen
    {"nvfp4",  // where OpenBLAS runs its products (no AVX-512); kNvfp4OnOneDnn where oneDNN does
     {{0x4002742201000000ull, 0x400241ed91c00000ull, 0x3fff2b5242000000ull},
      0x57e4c10b69e1614eull},  // Haswell
     {{0x4002742201000000ull, 0x400241ed91c00000ull, 0x3fff2b5242000000ull},
      0x393edc7bfe3f0d80ull},  // SkylakeX
     {{0x4002742201000000ull, 0x400241ed91c00000ull, 0x3fff2b5242000000ull},
      0x57e4c10b69e1614eull}},  // Zen
};
// nvfp4 where oneDNN's bf16 matmul runs its products: the same bits whatever OpenBLAS's kernels,
// and on each of these instruction sets (this machine's avx512_core_bf16, and held to the two
// below it). Another (AMX's tiles) may sum in another order: not pinned there.
const char* const kNvfp4OneDnnPinned[] = {"oneDNN avx512_core_bf16", "oneDNN avx512_core_vnni",
                                          "oneDNN avx512_core"};
const Trace kNvfp4OnOneDnn = {
    {0x4002742201000000ull, 0x400241ed91c00000ull, 0x3fff2b5242000000ull}, 0x2a9dba36ce993625ull};
// clang-format on

TEST(SmallCnnPinnedSteps, EveryPresetTrainsBitForBitAsPinned) {
  configureBlas();
  const std::string core = blasCoreName();
  const Trace SmallCnnPinnedCase::*pinned = core == "Haswell"    ? &SmallCnnPinnedCase::haswell
                                            : core == "SkylakeX" ? &SmallCnnPinnedCase::skylakeX
                                            : core == "Zen"      ? &SmallCnnPinnedCase::zen
                                                                 : nullptr;
  if (!pinned)
    GTEST_SKIP() << "pinned with OpenBLAS's Haswell, SkylakeX and Zen kernels; this machine uses "
                 << core;
  ASSERT_EQ(std::size(kSmallCnnCases), backends::presetNames().size()) << "a preset without pins";
  const std::string engine = bf16ProductEngine();
  const bool oneDnn = engine.starts_with("oneDNN");
  for (const SmallCnnPinnedCase& p : kSmallCnnCases) {
    const bool nvfp4 = std::string(p.backend) == "nvfp4";
    if (nvfp4 && oneDnn &&
        std::find(std::begin(kNvfp4OneDnnPinned), std::end(kNvfp4OneDnnPinned), engine) ==
            std::end(kNvfp4OneDnnPinned)) {
      std::printf("nvfp4 not pinned with %s\n", engine.c_str());
      continue;
    }
    const Trace& pins = nvfp4 && oneDnn ? kNvfp4OnOneDnn : p.*pinned;
    const Trace t = testing::trainThreeSteps({"small-cnn", 1, 28, 28, 10, 16, {}}, p.backend);
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(t.lossBits[i], pins.lossBits[i])
          << p.backend << " step " << i << ": loss " << std::bit_cast<double>(t.lossBits[i])
          << std::hex << " bits 0x" << t.lossBits[i];
    EXPECT_EQ(t.stateHash, pins.stateHash)
        << p.backend << std::hex << " state hash 0x" << t.stateHash << "\n    {" << p.backend
        << "\", {{0x" << t.lossBits[0] << "ull, 0x" << t.lossBits[1] << "ull, 0x" << t.lossBits[2]
        << "ull}, 0x" << t.stateHash << "ull}},";
  }
}

}  // namespace
}  // namespace paritylab::nn
