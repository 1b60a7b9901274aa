// The --backend-from rule: path:PATTERN with {backend}, {seed}, * and ** matched against a run
// folder's relative path; malformed rules are refused naming the option and what is wrong.

#include "core/study/files/tensorboard_run_rule.h"

#include <gtest/gtest.h>

#include "core/input/number_input.h"

namespace paritylab::study {
namespace {

std::string refusal(const std::string& rule) {
  try {
    RunPathRule::parse(rule);
  } catch (const input::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(RunPathRule, BackendAndSeedComeFromTheirFolders) {
  const RunPathRule rule = RunPathRule::parse("path:{backend}/seed{seed}");
  EXPECT_TRUE(rule.hasSeed());
  const auto tpu = rule.match("tpu-v4/seed12");
  ASSERT_TRUE(tpu);
  EXPECT_EQ(tpu->backend, "tpu-v4");
  EXPECT_EQ(tpu->seed, 12u);
  EXPECT_FALSE(rule.match("tpu-v4/seedx"));        // not digits
  EXPECT_FALSE(rule.match("tpu-v4/seed3/extra"));  // the whole path must match
  EXPECT_FALSE(rule.match("notes"));
  EXPECT_FALSE(rule.match("tpu/seed99999999999999999999"));  // beyond 2^63 - 1
}

TEST(RunPathRule, StarsAndAnyDepthAndAdjacentPlaceholders) {
  const auto deep = RunPathRule::parse("path:**/{backend}/run-*").match("2025/july/gpu/run-7b");
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->backend, "gpu");
  EXPECT_FALSE(deep->seed);
  EXPECT_TRUE(RunPathRule::parse("path:**/{backend}/run-*").match("gpu/run-"));
  const auto packed = RunPathRule::parse("path:{backend}{seed}").match("fp8run12");
  ASSERT_TRUE(packed);
  EXPECT_EQ(packed->backend, "fp8run");
  EXPECT_EQ(packed->seed, 12u);
}

TEST(RunPathRule, MalformedRulesAreRefusedNamingTheOption) {
  EXPECT_NE(refusal("{backend}/x")
                .find("--backend-from '{backend}/x': does not start with "
                      "'path:'"),
            std::string::npos);
  EXPECT_NE(refusal("path:seed{seed}").find("needs {backend} exactly once"), std::string::npos);
  EXPECT_NE(refusal("path:{backend}/{run}").find("unknown placeholder {run}"), std::string::npos);
  EXPECT_NE(refusal("path:{backend}/{seed}/{seed}").find("{seed} may appear once"),
            std::string::npos);
  EXPECT_NE(refusal("path:/{backend}").find("relative"), std::string::npos);
  EXPECT_NE(refusal("path:{backend").find("without its '}'"), std::string::npos);
  EXPECT_NE(refusal("path:{backend}*").find("cannot be told apart"), std::string::npos);
  EXPECT_NE(refusal("path:a**/{backend}").find("folder name of its own"), std::string::npos);
}

}  // namespace
}  // namespace paritylab::study
