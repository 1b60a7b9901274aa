// Dynamic loss scaling (GradScaler dynamics) and fp8 delayed scaling.
#include <gtest/gtest.h>

#include <cmath>

#include "core/nn/fp8_scaling.h"
#include "core/nn/fp8_site_scales.h"
#include "core/nn/loss_scaler.h"

namespace {

using namespace paritylab;

TEST(LossScaler, DynamicGrowsBacksOffAndSkips) {
  backends::LossScaling c;
  c.kind = backends::LossScalingKind::Dynamic;
  c.growthInterval = 3;
  nn::LossScaler s(c);
  EXPECT_EQ(s.scale(), 65536.0);
  EXPECT_FALSE(s.update(false));
  EXPECT_FALSE(s.update(false));
  EXPECT_EQ(s.scale(), 65536.0);
  EXPECT_FALSE(s.update(false));
  EXPECT_EQ(s.scale(), 131072.0);  // grew after 3 clean steps
  EXPECT_FALSE(s.update(false));
  EXPECT_TRUE(s.update(true));  // overflow: skip and halve, counter reset
  EXPECT_EQ(s.scale(), 65536.0);
  EXPECT_EQ(s.cleanSteps(), 0);
  EXPECT_FALSE(s.update(false));
  EXPECT_FALSE(s.update(false));
  EXPECT_EQ(s.scale(), 65536.0);
}

TEST(LossScaler, StaticAndNone) {
  backends::LossScaling c;
  c.kind = backends::LossScalingKind::Static;
  c.initialScale = 128;
  nn::LossScaler s(c);
  EXPECT_TRUE(s.update(true));
  EXPECT_EQ(s.scale(), 128.0);
  nn::LossScaler none(backends::LossScaling{});
  EXPECT_EQ(none.scale(), 1.0);
  EXPECT_FALSE(none.enabled());
}

// The defaults are torch.cuda.amp.GradScaler's (init_scale=2.**16, growth_factor=2.0,
// backoff_factor=0.5, growth_interval=2000; PyTorch docs, torch.amp.GradScaler), and the
// gpu-amp-fp16 preset uses them.
TEST(LossScaler, DefaultsAreGradScalers) {
  for (const backends::LossScaling& c :
       {backends::LossScaling{}, backends::presetPolicy("gpu-amp-fp16").lossScaling}) {
    EXPECT_EQ(c.initialScale, 65536.0);
    EXPECT_EQ(c.growthFactor, 2.0);
    EXPECT_EQ(c.backoffFactor, 0.5);
    EXPECT_EQ(c.growthInterval, 2000);
  }
  EXPECT_EQ(backends::presetPolicy("gpu-amp-fp16").lossScaling.kind,
            backends::LossScalingKind::Dynamic);
}

// The documented limits past which a run that keeps overflowing is diverged: the
// dynamic scale below 2^-24 (65536 = 2^16 halved 41 times is 2^-25), or 100 skips in a row.
TEST(LossScaler, GivesUpOnlyPastTheDocumentedLimits) {
  backends::LossScaling c;
  c.kind = backends::LossScalingKind::Dynamic;
  nn::LossScaler dynamic(c);
  for (int i = 1; i <= 40; ++i) {
    EXPECT_TRUE(dynamic.update(true));
    EXPECT_FALSE(dynamic.gaveUp()) << i;
  }
  EXPECT_EQ(dynamic.scale(), std::ldexp(1.0, -24));  // at the limit, not below it
  EXPECT_FALSE(dynamic.update(false));               // a clean step resets the run of skips
  EXPECT_EQ(dynamic.skipsInARow(), 0);
  EXPECT_TRUE(dynamic.update(true));
  EXPECT_TRUE(dynamic.gaveUp());
  EXPECT_EQ(dynamic.scale(), std::ldexp(1.0, -25));
  EXPECT_NE(dynamic.gaveUpReason().find("below the limit 2^-24"), std::string::npos)
      << dynamic.gaveUpReason();

  c.kind = backends::LossScalingKind::Static;
  nn::LossScaler fixed(c);
  for (int i = 1; i < nn::LossScaler::kMaxSkipsInARow; ++i) fixed.update(true);
  EXPECT_FALSE(fixed.gaveUp());
  EXPECT_TRUE(fixed.update(true));
  EXPECT_TRUE(fixed.gaveUp());
  EXPECT_EQ(fixed.scale(), 65536.0);
  EXPECT_NE(fixed.gaveUpReason().find("100 steps in a row"), std::string::npos)
      << fixed.gaveUpReason();
  nn::LossScaler none(backends::LossScaling{});
  for (int i = 0; i < 200; ++i) none.update(true);
  EXPECT_FALSE(none.gaveUp());  // no loss scaling: the trainer's NaN check decides
}

TEST(Fp8TensorScale, DelayedScaleFromHistoryMax) {
  nn::Fp8TensorScale s(448.0, 4, 1.0);
  EXPECT_EQ(s.scale(), 1.0f);  // no history yet
  const float a[] = {0.5f, -2.0f, 1.0f};
  s.record(a, 3);
  EXPECT_FLOAT_EQ(s.scale(), 448.0f / 2.0f / 2.0f);  // margin 1 halves
  for (float m : {1.0f, 1.0f, 1.0f}) s.recordAmax(m);
  EXPECT_FLOAT_EQ(s.scale(), 112.0f);  // 2.0 still in the 4-step window
  s.recordAmax(1.0f);                  // 2.0 falls out of the ring
  EXPECT_FLOAT_EQ(s.scale(), 224.0f);
  s.recordAmax(0.0f);
  EXPECT_FLOAT_EQ(s.scale(), 224.0f);
  // Round trip: scaled values land at fp8 max, unscale restores them.
  const float v = 1.0f * s.scale();
  EXPECT_FLOAT_EQ(v, 224.0f);
  EXPECT_FLOAT_EQ(v / s.scale(), 1.0f);
}

// The fp8 recipe scales its 8-bit operands only: attention's bf16 products round as they are, as
// Transformer Engine scales its fp8 GEMMs alone.
TEST(Fp8SiteScales, OnlyEightBitOperandsAreScaled) {
  const backends::PrecisionPolicy policy = backends::presetPolicy("fp8-e4m3");
  nn::Fp8SiteScales scales(policy, 2);
  const float a[] = {0.5f, -2.0f, 1.0f};
  for (int step = 0; step < 2; ++step) {
    nn::GemmExtras linear, attention;
    scales.scales(0, policy.gemmFor(backends::LayerKind::Linear, backends::Product::Forward),
                  backends::Product::Forward, a, 3, a, 3, linear);
    scales.scales(1, policy.gemmFor(backends::LayerKind::Attention, backends::Product::Forward),
                  backends::Product::Forward, a, 3, a, 3, attention);
    if (step == 1) {
      EXPECT_FLOAT_EQ(linear.scaleA, 224.0f);  // 448 / amax 2 from step 0
    }
    EXPECT_EQ(attention.scaleA, 1.0f);
    EXPECT_EQ(attention.scaleB, 1.0f);
  }
}

}  // namespace
