// A language-model study in the spec: the transformer's shape as top-level fields, a run counted
// in steps, the text source the model reads, and the refusals of what does not go together, each
// naming the field.

#include <gtest/gtest.h>

#include <string>

#include "core/study/spec/study_spec.h"
#include "tests/study/spec/spec_message.h"

namespace paritylab::study {
namespace {

std::string gptSpec(const std::string& fields = "") {
  return R"({"version": 1, "name": "lm", "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 2,
    "model": "gpt", "dataset": {"source": "text:/corpus.txt"})" +
         (fields.empty() ? "" : ", " + fields) + "}";
}

std::string messageOf(const std::string& text) {
  return testing::specMessage(text, "lm.json");
}

TEST(LanguageModelSpec, TheShapeAndStepsAreReadAndTheTextGetsTheModelsBlockSize) {
  const StudySpec spec = parseStudySpec(gptSpec(
      R"("n_layer": 2, "n_head": 2, "n_embd": 32, "block_size": 48, "tie_weights": false,
         "steps": 500, "schedule": {"kind": "cosine", "warmup_steps": 50})"));
  const nn::GptShape expected{2, 2, 32, 48, false};
  EXPECT_EQ(spec.train.gpt, expected);
  EXPECT_EQ(spec.train.steps, 500);
  EXPECT_EQ(spec.train.schedule.warmupSteps, 50);
  EXPECT_EQ(spec.dataset.blockSize, 48);
}

TEST(LanguageModelSpec, DefaultsAreNanoGptsShakespeareCharConfigurationForACpu) {
  const StudySpec spec = parseStudySpec(gptSpec());
  const nn::GptShape expected{4, 4, 128, 64, true};
  EXPECT_EQ(spec.train.gpt, expected);
  EXPECT_EQ(spec.dataset.blockSize, 64);
}

TEST(LanguageModelSpec, EvaluationBatchDefaultsToTheTrainingBatchNotAThousandWindows) {
  EXPECT_EQ(parseStudySpec(gptSpec(R"("batch_size": 12)")).train.evalBatchSize, 12);
  EXPECT_EQ(
      parseStudySpec(gptSpec(R"("batch_size": 12, "eval_batch_size": 40)")).train.evalBatchSize,
      40);
  const StudySpec images = parseStudySpec(
      R"({"version": 1, "name": "i", "backends": ["cpu-fp32"], "model": "mlp", "batch_size": 12})");
  EXPECT_EQ(images.train.evalBatchSize, 1000);
}

TEST(LanguageModelSpec, WritingAndReadingAgainGivesTheSameStudy) {
  const StudySpec spec = parseStudySpec(
      gptSpec(R"("n_layer": 3, "n_embd": 64, "steps": 200, "schedule": {"warmup_steps": 20})"));
  const nlohmann::json written = studySpecToJson(spec);
  EXPECT_EQ(written["n_layer"], 3);
  EXPECT_EQ(written["steps"], 200);
  EXPECT_FALSE(written.contains("epochs"));
  EXPECT_FALSE(written.contains("width"));
  const StudySpec again = parseStudySpec(written.dump(), "written.json");
  EXPECT_EQ(studySpecToJson(again), written);
  EXPECT_TRUE(extendsStudy(spec, again));
}

TEST(LanguageModelSpec, AnImageStudyIsWrittenAsBefore) {
  const StudySpec spec =
      parseStudySpec(R"({"version": 1, "name": "img", "backends": ["cpu-fp32"], "epochs": 3})");
  const nlohmann::json written = studySpecToJson(spec);
  EXPECT_EQ(written["epochs"], 3);
  EXPECT_EQ(written["width"], 16);
  for (const char* field : {"steps", "n_layer", "n_head", "n_embd", "block_size", "tie_weights"})
    EXPECT_FALSE(written.contains(field)) << field;
  EXPECT_FALSE(written["schedule"].contains("warmup_steps"));
}

TEST(LanguageModelSpec, WhatDoesNotGoTogetherIsRefusedNamingTheField) {
  EXPECT_EQ(messageOf(R"({"version": 1, "name": "x", "backends": ["cpu-fp32"], "model": "gpt"})"),
            "lm.json: dataset.source: 'fashion-mnist' is images: the language model 'gpt' trains "
            "on \"text:FILE\"");
  EXPECT_EQ(messageOf(R"({"version": 1, "name": "x", "backends": ["cpu-fp32"],
                          "dataset": {"source": "text:/c.txt"}})"),
            "lm.json: dataset.source: 'text:/c.txt' is text: it trains the language model "
            "(\"model\": \"gpt\"), not 'mlp'");
  EXPECT_EQ(messageOf(R"({"version": 1, "name": "x", "backends": ["cpu-fp32"], "n_layer": 2})"),
            "lm.json: n_layer: applies to the language model (\"model\": \"gpt\"), not to 'mlp'");
  EXPECT_EQ(messageOf(gptSpec(R"("n_embd": 100, "n_head": 3)")),
            "lm.json: n_embd: 100 is not a multiple of n_head = 3 (each head is n_embd / n_head "
            "wide)");
  EXPECT_EQ(messageOf(gptSpec(R"("steps": 10, "epochs": 2)")),
            "lm.json: steps: give epochs or steps, not both (steps: the run trains exactly that "
            "many)");
  EXPECT_EQ(messageOf(gptSpec(R"("augment": true)")),
            "lm.json: augment: applies to images, not to text");
  EXPECT_EQ(messageOf(gptSpec(R"("freeze_epochs": 1)")),
            "lm.json: freeze_epochs: applies to image classifiers, not to 'gpt'");
  EXPECT_EQ(messageOf(gptSpec(R"("schedule": {"warmup_steps": 5, "warmup_epochs": 1})")),
            "lm.json: schedule.warmup_steps: give warmup_epochs or warmup_steps, not both");
  EXPECT_NE(messageOf(gptSpec(R"("block_size": 0)")).find("block_size"), std::string::npos);
}

}  // namespace
}  // namespace paritylab::study
