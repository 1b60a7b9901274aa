// The names a study chooses from are the ones core/nn builds: every listed model, optimizer and
// schedule is accepted, and an unknown name is refused with the list.

#include "core/nn/training_choices.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>

#include "core/nn/lr_schedule.h"
#include "core/nn/model.h"
#include "core/nn/optimizer.h"

namespace paritylab::nn {
namespace {

std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "nothing thrown";
}

TEST(TrainingChoices, EveryListedModelIsBuilt) {
  for (std::string_view name : kModelNames) {
    ModelSpec spec;
    spec.name = std::string(name);
    spec.height = spec.width = 32;
    spec.channels = 3;  // gpt: numClasses (10) is its vocabulary, its shape the default
    EXPECT_NO_THROW(measureModel(spec)) << name;
  }
  ModelSpec unknown;
  unknown.name = "vgg";
  EXPECT_EQ(messageOf([&] { measureModel(unknown); }),
            "unknown model 'vgg' (known: mlp, small-cnn, resnet18, gpt)");
}

TEST(TrainingChoices, EveryListedOptimizerIsBuilt) {
  for (std::string_view kind : kOptimizerKinds) {
    OptimizerConfig config;
    config.kind = std::string(kind);
    EXPECT_NE(makeOptimizer(config), nullptr) << kind;
  }
  OptimizerConfig unknown;
  unknown.kind = "lamb";
  EXPECT_EQ(messageOf([&] { makeOptimizer(unknown); }),
            "unknown optimizer 'lamb' (known: adamw, sgd)");
}

TEST(TrainingChoices, EveryListedScheduleIsFollowed) {
  for (std::string_view kind : kScheduleKinds) {
    ScheduleConfig config;
    config.kind = std::string(kind);
    EXPECT_DOUBLE_EQ(LrSchedule(config, 0.1, 10, 2).at(0), 0.1) << kind;
  }
  ScheduleConfig unknown;
  unknown.kind = "linear";
  EXPECT_EQ(messageOf([&] { LrSchedule(unknown, 0.1, 10, 2); }),
            "unknown schedule 'linear' (known: constant, step, cosine)");
}

TEST(TrainingChoices, NamesAreJoinedInTheirOrder) {
  EXPECT_EQ(joinedNames(kModelNames, " | "), "mlp | small-cnn | resnet18 | gpt");
  EXPECT_TRUE(isOneOf("sgd", kOptimizerKinds));
  EXPECT_FALSE(isOneOf("SGD", kOptimizerKinds));
}

}  // namespace
}  // namespace paritylab::nn
