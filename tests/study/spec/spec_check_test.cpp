// A study file's problems are reported all at once, each with the file,
// the line and the field, including semantic ones (unknown model, -1 epochs, 0 seeds).

#include "core/study/spec/spec_check.h"

#include <gtest/gtest.h>

namespace paritylab::study {
namespace {

TEST(SpecCheck, ValidSpecHasNoIssues) {
  EXPECT_TRUE(checkStudySpec(R"({"version": 1, "name": "ok", "backends": ["cpu-fp32"]})", "ok.json")
                  .empty());
}

TEST(SpecCheck, ReportsEverySemanticProblemWithLineAndField) {
  const std::string text =
      "{\n"                               // 1
      "  \"version\": 1,\n"               // 2
      "  \"name\": \"bad\",\n"            // 3
      "  \"model\": \"transformer\",\n"   // 4
      "  \"epochs\": -1,\n"               // 5
      "  \"backends\": [\"cpu-fp32\",\n"  // 6
      "               \"gpu-tf33\"],\n"   // 7
      "  \"seeds\": 0\n"                  // 8
      "}\n";
  const std::vector<SpecIssue> issues = checkStudySpec(text, "bad.json");
  ASSERT_EQ(issues.size(), 4u);
  EXPECT_EQ(issues[0].field, "model");
  EXPECT_EQ(issues[0].line, 4);
  EXPECT_NE(issues[0].message.find("bad.json:4:"), std::string::npos) << issues[0].message;
  EXPECT_NE(issues[0].message.find("transformer"), std::string::npos);
  EXPECT_EQ(issues[1].field, "epochs");
  EXPECT_EQ(issues[1].line, 5);
  EXPECT_NE(issues[1].message.find("-1"), std::string::npos);
  EXPECT_EQ(issues[2].field, "backends[1]");
  EXPECT_EQ(issues[2].line, 7);
  EXPECT_NE(issues[2].message.find("gpu-tf33"), std::string::npos);
  EXPECT_EQ(issues[3].field, "seeds");
  EXPECT_EQ(issues[3].line, 8);
}

TEST(SpecCheck, LaterBackendKeepsItsIndexInTheFile) {
  // backends[0] is set aside first; the problem in the file's backends[2] is still called [2].
  const std::string text =
      "{\"version\": 1, \"name\": \"b\",\n"
      " \"backends\": [\"nope\", \"cpu-fp32\",\n"
      "  {\"name\": \"x\", \"policy\": \"tpu-bf16\", \"overrides\": {\"lr\": -2}}]}";
  const auto issues = checkStudySpec(text, "b.json");
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].field, "backends[0]");
  EXPECT_EQ(issues[0].line, 2);
  EXPECT_EQ(issues[1].field, "backends[2].overrides.lr");
  EXPECT_EQ(issues[1].line, 3);
  EXPECT_NE(issues[1].message.find("backends[2]"), std::string::npos) << issues[1].message;
}

TEST(SpecCheck, MissingNameAndUnknownFieldBothReported) {
  const auto issues =
      checkStudySpec("{\"version\": 1,\n \"epoch\": 3,\n \"backends\": [\"cpu-fp32\"]}", "m.json");
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].field, "name");
  EXPECT_EQ(issues[1].field, "epoch");
  EXPECT_EQ(issues[1].line, 2);
}

TEST(SpecCheck, SyntaxErrorNamesLineAndColumn) {
  const auto issues = checkStudySpec("{\"version\": 1,\n  \"name\": }", "s.json");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].line, 2);
  EXPECT_GT(issues[0].column, 0);
  EXPECT_EQ(issues[0].message.rfind("s.json:2:", 0), 0u) << issues[0].message;
}

// Values each within its own range that together describe no study: the checker names the field.
TEST(SpecCheck, RefusesWarmupAndFreezeEpochsBeyondTheStudysEpochs) {
  const auto warmup = checkStudySpec(
      R"({"version": 1, "name": "w", "epochs": 2, "schedule": {"warmup_epochs": 5},
          "backends": ["cpu-fp32"]})",
      "w.json");
  ASSERT_EQ(warmup.size(), 1u);
  EXPECT_EQ(warmup[0].field, "schedule.warmup_epochs");
  EXPECT_NE(warmup[0].message.find("5 is more than the study's 2 epochs"), std::string::npos)
      << warmup[0].message;
  const auto freeze = checkStudySpec(
      R"({"version": 1, "name": "f", "epochs": 2, "freeze_epochs": 3, "backends": ["cpu-fp32"]})",
      "f.json");
  ASSERT_EQ(freeze.size(), 1u);
  EXPECT_EQ(freeze[0].field, "freeze_epochs");
  EXPECT_NE(freeze[0].message.find("3 is more than the study's 2 epochs"), std::string::npos)
      << freeze[0].message;
  EXPECT_TRUE(checkStudySpec(R"({"version": 1, "name": "ok", "epochs": 2, "freeze_epochs": 2,
      "schedule": {"warmup_epochs": 2}, "backends": ["cpu-fp32"]})",
                             "ok.json")
                  .empty());
}

TEST(SpecCheck, RefusesAZeroInitialLossScale) {
  const auto issues = checkStudySpec(
      R"({"version": 1, "name": "s", "backends": [{"name": "z", "policy": {"preset": "gpu-amp-fp16",
          "lossScaling": {"kind": "static", "initialScale": 0}}}]})",
      "s.json");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].field, "backends[0].policy");
  EXPECT_NE(issues[0].message.find("lossScaling.initialScale"), std::string::npos)
      << issues[0].message;
}

TEST(SpecCheck, RefusesAClassListedTwiceOrASingleClass) {
  const auto twice = checkStudySpec(
      R"({"version": 1, "name": "c", "dataset": {"classes": [1, 1]}, "backends": ["cpu-fp32"]})",
      "c.json");
  ASSERT_EQ(twice.size(), 1u);
  EXPECT_EQ(twice[0].field, "dataset.classes[1]");
  EXPECT_NE(twice[0].message.find("class 1 is listed twice"), std::string::npos)
      << twice[0].message;
  const auto single = checkStudySpec(
      R"({"version": 1, "name": "c", "dataset": {"classes": [0]}, "backends": ["cpu-fp32"]})",
      "c.json");
  ASSERT_EQ(single.size(), 1u);
  EXPECT_EQ(single[0].field, "dataset.classes");
  EXPECT_NE(single[0].message.find("at least 2 classes"), std::string::npos) << single[0].message;
}

}  // namespace
}  // namespace paritylab::study
