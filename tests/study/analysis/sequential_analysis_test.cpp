// A sequential study's words at a look that cannot test: when every run of each backend gave the
// same value there is no run-to-run variation (the t statistics are 0/0), and the words say so
// instead of quoting a p-value of nan; the study goes on to its next look, and at the last one
// ends with nothing shown.

#include "core/study/analysis/sequential_analysis.h"

#include <gtest/gtest.h>

namespace paritylab::study {
namespace {

const char* kSpec = R"({"name": "seq",
    "dataset": {"source": "synthetic", "train_size": 128, "test_size": 64},
    "model": "mlp", "epochs": 1, "batch_size": 32, "chaos_floor": false,
    "backends": ["cpu-fp32", "gpu-tf32"],
    "sequential": {"margin": 0.015, "max_seeds": 6, "look_every": 3}})";

// Completed runs of both backends for the first `seeds` seeds, each with `accuracy`.
std::vector<RunRecord> runsWith(const StudySpec& spec, std::size_t seeds, double accuracy) {
  std::vector<RunRecord> runs;
  for (const BackendEntry& b : spec.backends)
    for (std::size_t i = 0; i < seeds; ++i) {
      RunRecord r;
      r.backend = b.name;
      r.seed = spec.seeds[i];
      r.status = RunState::Completed;
      r.finalAccuracy = accuracy;
      runs.push_back(r);
    }
  return runs;
}

TEST(SequentialAnalysis, IdenticalRunsSayThereIsNoVariationToTestAgainst) {
  const StudySpec spec = parseStudySpec(kSpec);
  const SequentialAnalysis first = analyseSequential(spec, runsWith(spec, 3, 1.0));
  ASSERT_EQ(first.looks.size(), 1u);
  EXPECT_FALSE(first.looks[0].tost.defined);
  EXPECT_EQ(seedsForNextLook(first), std::optional<std::size_t>(6));
  EXPECT_EQ(first.words.back(),
            "After look 1 of 2 (3 seeds each): nothing tested yet, every run of each gave the same "
            "accuracy, the same for both, so there is no run-to-run variation to test against; "
            "the next look at 6 seeds.");
  const SequentialAnalysis last = analyseSequential(spec, runsWith(spec, 6, 1.0));
  ASSERT_EQ(last.looks.size(), 2u);
  EXPECT_EQ(last.words.back(),
            "Ended at the last look, look 2 of 2 (6 seeds each), with nothing shown: every run of "
            "each gave the same accuracy, the same for both, so there is no run-to-run variation "
            "to test against.");
  for (const std::string& sentence : last.words)
    EXPECT_EQ(sentence.find("nan"), std::string::npos) << sentence;
}

}  // namespace
}  // namespace paritylab::study
