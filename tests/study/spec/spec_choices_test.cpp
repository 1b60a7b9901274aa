// The spec's model, optimizer and schedule accept exactly core/nn's lists, and an unknown value
// is refused with the choices in the order the Study dialog and the command line offer them.

#include <gtest/gtest.h>

#include "core/nn/training_choices.h"
#include "core/study/spec/study_spec.h"
#include "tests/study/spec/spec_message.h"

namespace paritylab::study {
namespace {

std::string specWith(const std::string& fields) {
  return R"({"version": 1, "name": "choices", "backends": ["cpu-fp32"], )" + fields + "}";
}

std::string messageOf(const std::string& text) {
  return testing::specMessage(text, "s.json");
}

TEST(SpecChoices, EveryListedNameIsAccepted) {
  for (std::string_view m : nn::kModelNames) {
    // The language model trains on text, the classifiers on the default images.
    const std::string dataset =
        nn::isLanguageModel(m) ? R"(, "dataset": {"source": "text:/corpus.txt"})" : "";
    EXPECT_EQ(
        parseStudySpec(specWith(R"("model": ")" + std::string(m) + "\"" + dataset)).train.model, m);
  }
  for (std::string_view o : nn::kOptimizerKinds)
    EXPECT_EQ(parseStudySpec(specWith(R"("optimizer": {"kind": ")" + std::string(o) + "\"}"))
                  .train.optimizer.kind,
              o);
  for (std::string_view s : nn::kScheduleKinds)
    EXPECT_EQ(parseStudySpec(specWith(R"("schedule": {"kind": ")" + std::string(s) + "\"}"))
                  .train.schedule.kind,
              s);
}

TEST(SpecChoices, AnUnknownValueIsRefusedWithTheChoicesInTheirOrder) {
  EXPECT_EQ(messageOf(specWith(R"("model": "vgg")")),
            "s.json: model: unknown value 'vgg' (one of: mlp, small-cnn, resnet18, gpt)");
  EXPECT_EQ(messageOf(specWith(R"("schedule": {"kind": "linear"})")),
            "s.json: schedule.kind: unknown value 'linear' (one of: constant, step, cosine)");
  EXPECT_EQ(messageOf(specWith(R"("optimizer": {"kind": "lamb"})")),
            "s.json: optimizer.kind: unknown value 'lamb' (one of: adamw, sgd)");
}

}  // namespace
}  // namespace paritylab::study
