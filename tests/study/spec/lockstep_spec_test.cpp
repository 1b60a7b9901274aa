// The spec's "lockstep": read with its defaults, written back the same, and refused with the
// field named when it names a backend the study has not (nor a preset), compares a backend with
// itself, lists an unknown or repeated mode, or goes with a pretrain stage; the fp64 reference is
// taken for every model.

#include <gtest/gtest.h>

#include <string>

#include "core/study/spec/study_spec.h"
#include "tests/study/spec/spec_message.h"

namespace paritylab::study {
namespace {

std::string lockstepSpec(const std::string& lockstep, const std::string& more = "") {
  return R"({"version": 1, "name": "l", "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 2,
    "model": "mlp", "dataset": {"source": "synthetic"}, "lockstep": )" +
         lockstep + more + "}";
}

std::string lockstepMessageOf(const std::string& text) {
  return testing::specMessage(text, "l.json");
}

TEST(LockstepSpec, ReadWithItsDefaultsAndWrittenBackTheSame) {
  const StudySpec s = parseStudySpec(lockstepSpec(R"({"backend": "tpu-bf16"})"));
  ASSERT_TRUE(s.lockstep);
  EXPECT_EQ(s.lockstep->backend, "tpu-bf16");
  EXPECT_EQ(s.lockstep->reference, "cpu-fp32");
  EXPECT_EQ(s.lockstep->steps, 200);
  EXPECT_EQ(s.lockstep->every, 1);
  EXPECT_EQ(s.lockstep->tolerance, 0.01);
  EXPECT_EQ(s.lockstep->modes, (std::vector<std::string>{"resync", "free"}));
  const StudySpec again = parseStudySpec(studySpecToJson(s).dump(), "written.json");
  ASSERT_TRUE(again.lockstep);
  EXPECT_EQ(studySpecToJson(again), studySpecToJson(s));
  const StudySpec none = parseStudySpec(R"({"version": 1, "name": "l", "backends": ["cpu-fp32"],
    "model": "mlp", "dataset": {"source": "synthetic"}})");
  EXPECT_FALSE(none.lockstep);
  EXPECT_FALSE(studySpecToJson(none).contains("lockstep"));
}

TEST(LockstepSpec, APresetOutsideTheStudyMayBeTheReference) {
  const StudySpec s = parseStudySpec(
      lockstepSpec(R"({"backend": "tpu-bf16", "reference": "tpu-bf16x6", "modes": ["free"]})"));
  EXPECT_EQ(lockstepPolicy(s, "tpu-bf16x6").name, "tpu-bf16x6");
  EXPECT_EQ(s.lockstep->modes, (std::vector<std::string>{"free"}));
}

TEST(LockstepSpec, TheFp64ReferenceIsTakenForEveryModel) {
  for (const std::string model : {"mlp", "small-cnn", "resnet18", "gpt"}) {
    const std::string source = model == "gpt" ? "text:corpus.txt" : "synthetic";
    const std::string text = R"({"version": 1, "name": "l", "backends": ["cpu-fp32"], "model": ")" +
                             model + R"(", "dataset": {"source": ")" + source +
                             R"("}, "lockstep": {"backend": "cpu-fp32", "reference": "fp64"}})";
    const StudySpec s = parseStudySpec(text);
    ASSERT_TRUE(s.lockstep) << model;
    EXPECT_EQ(s.lockstep->reference, "fp64") << model;
  }
}

TEST(LockstepSpec, RefusalsNameTheField) {
  EXPECT_NE(lockstepMessageOf(lockstepSpec(R"({"backend": "gpu-x"})"))
                .find("lockstep.backend: 'gpu-x' is neither a backend of the study (cpu-fp32, "
                      "tpu-bf16) nor a preset"),
            std::string::npos)
      << lockstepMessageOf(lockstepSpec(R"({"backend": "gpu-x"})"));
  EXPECT_NE(lockstepMessageOf(lockstepSpec(R"({"backend": "cpu-fp32"})"))
                .find("lockstep.reference: 'cpu-fp32' "
                      "is the backend itself"),
            std::string::npos);
  EXPECT_NE(lockstepMessageOf(lockstepSpec(R"({"backend": "tpu-bf16", "modes": ["sideways"]})"))
                .find("lockstep.modes: unknown mode \"sideways\" (resync | free)"),
            std::string::npos);
  EXPECT_NE(lockstepMessageOf(lockstepSpec(R"({"backend": "tpu-bf16", "modes": ["free", "free"]})"))
                .find("'free' is listed twice"),
            std::string::npos);
  EXPECT_NE(lockstepMessageOf(lockstepSpec(R"({"backend": "tpu-bf16", "steps": 0})"))
                .find("lockstep.steps"),
            std::string::npos);
  EXPECT_NE(lockstepMessageOf(lockstepSpec(R"({"backend": "tpu-bf16"})",
                                           R"(, "pretrain": {"classes": [0, 1], "epochs": 1})"))
                .find("not with a \"pretrain\" stage"),
            std::string::npos);
}

}  // namespace
}  // namespace paritylab::study
