// Editing the study of an existing database: more seeds or backends add only the runs the
// database does not hold yet, in the planned order; any other change is another study.

#include <gtest/gtest.h>

#include "core/study/run/study_extension.h"

namespace paritylab::study {
namespace {

const char* kExtendedBase = R"({"version": 1, "name": "ext",
  "dataset": {"source": "synthetic", "train_size": 100, "test_size": 50},
  "model": "mlp", "epochs": 1, "batch_size": 50, "chaos_floor": false, "backends": ["cpu-fp32"], "seeds": 2,
  "threads": 1})";

StudySpec extendedWith(const std::string& from, const std::string& to) {
  std::string text = kExtendedBase;
  text.replace(text.find(from), from.size(), to);
  return parseStudySpec(text);
}

// The runs a database of `spec` holds once every planned run was added.
std::vector<RunIdentity> runsOf(const StudySpec& spec) {
  std::vector<RunIdentity> runs;
  for (const PlannedRun& run : plannedRunsOf(spec))
    runs.push_back({spec.backends[run.backendIndex].name, run.seed});
  return runs;
}

// "backend seed" of each run, to compare in one line.
std::vector<std::string> named(const StudySpec& spec, const std::vector<PlannedRun>& runs) {
  std::vector<std::string> names;
  for (const PlannedRun& run : runs)
    names.push_back(spec.backends[run.backendIndex].name + " " + std::to_string(run.seed));
  return names;
}

TEST(RunsAddedByExtending, MoreSeedsAddOnlyTheNewSeeds) {
  const StudySpec base = parseStudySpec(kExtendedBase);
  const StudySpec next = extendedWith("\"seeds\": 2", "\"seeds\": [0, 1, 7, 3]");
  const auto added = runsAddedByExtending(base, next, runsOf(base));
  ASSERT_TRUE(added.has_value());
  EXPECT_EQ(named(next, *added), (std::vector<std::string>{"cpu-fp32 7", "cpu-fp32 3"}));
}

TEST(RunsAddedByExtending, ANewBackendAddsItsRunForEverySeedInPlannedOrder) {
  const StudySpec base = parseStudySpec(kExtendedBase);
  const StudySpec next = extendedWith("[\"cpu-fp32\"]", "[\"cpu-fp32\", \"tpu-bf16\"]");
  const auto added = runsAddedByExtending(base, next, runsOf(base));
  ASSERT_TRUE(added.has_value());
  EXPECT_EQ(named(next, *added), (std::vector<std::string>{"tpu-bf16 0", "tpu-bf16 1"}));
}

TEST(RunsAddedByExtending, RunsAlreadyPresentAreNotAddedAgain) {
  const StudySpec base = parseStudySpec(kExtendedBase);
  const StudySpec next = extendedWith("\"seeds\": 2", "\"seeds\": 4");
  std::vector<RunIdentity> present = runsOf(base);
  present.push_back({"cpu-fp32", 2});  // listed by an earlier edit, not trained yet
  const auto added = runsAddedByExtending(base, next, present);
  ASSERT_TRUE(added.has_value());
  EXPECT_EQ(named(next, *added), (std::vector<std::string>{"cpu-fp32 3"}));
}

TEST(RunsAddedByExtending, AnotherThreadCountIsTheSameStudyAndAddsNothing) {
  const StudySpec base = parseStudySpec(kExtendedBase);
  const auto added =
      runsAddedByExtending(base, extendedWith("\"threads\": 1", "\"threads\": 2"), runsOf(base));
  ASSERT_TRUE(added.has_value());
  EXPECT_TRUE(added->empty());
}

TEST(RunsAddedByExtending, AnyOtherChangeIsAnotherStudy) {
  const StudySpec base = parseStudySpec(kExtendedBase);
  EXPECT_FALSE(
      runsAddedByExtending(base, extendedWith("\"epochs\": 1", "\"epochs\": 2"), runsOf(base)));
  EXPECT_FALSE(runsAddedByExtending(base, extendedWith("\"seeds\": 2", "\"seeds\": [1, 2]"),
                                    runsOf(base)));  // seed 0 gone
  EXPECT_FALSE(runsAddedByExtending(base, extendedWith("[\"cpu-fp32\"]", "[\"tpu-bf16\"]"),
                                    runsOf(base)));  // cpu-fp32 gone
}

}  // namespace
}  // namespace paritylab::study
