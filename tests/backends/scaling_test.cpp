// Covers issue #3: dynamic loss scaling (GradScaler dynamics) and fp8 delayed scaling.
#include <gtest/gtest.h>

#include <cmath>

#include "core/nn/fp8_scaling.h"
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

}  // namespace
