// Every example study shipped in resources/studies/ reads as a study (the README and the app
// offer them; a field renamed in the parser must be renamed in them too).

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/backends/policy_overrides.h"
#include "core/input/text_file.h"
#include "core/study/spec/study_spec.h"

namespace paritylab::study {
namespace {

TEST(ShippedStudies, EveryExampleStudyParses) {
  std::size_t read = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(PARITYLAB_SOURCE_DIR "/resources/studies")) {
    if (entry.path().extension() != ".json") continue;
    const std::string path = entry.path().string();
    EXPECT_NO_THROW(loadStudySpecFile(path)) << path;
    ++read;
  }
  EXPECT_GE(read, 10u);
}

TEST(ShippedStudies, FenwicksCrossesTheTwoBackendsWithWeightDecayAndBatchSize) {
  const StudySpec s = loadStudySpecFile(PARITYLAB_SOURCE_DIR "/resources/studies/fenwicks.json");
  ASSERT_EQ(sweepBases(s).size(), 2u);
  EXPECT_EQ(s.backends.size(), 8u);
  EXPECT_EQ(s.backends.front().policy.topology.replicas, 8);
}

// The recipes' example on the transformer: every recipe against bf16 autocast (the first backend,
// the reference of the verdicts), and NVFP4 with its output layer in bf16 as NVIDIA's recipe keeps
// its last layers, the blocks' products still NVFP4.
TEST(ShippedStudies, GptRecipesPutsTheRecipesBesideBf16AndOneNvfp4KeepsItsHeadInBf16) {
  const StudySpec s = loadStudySpecFile(PARITYLAB_SOURCE_DIR "/resources/studies/gpt-recipes.json");
  EXPECT_EQ(s.train.model, "gpt");
  ASSERT_EQ(s.backends.size(), 9u);
  EXPECT_EQ(s.backends.front().name, "gpu-amp-bf16");
  const auto entry = std::find_if(s.backends.begin(), s.backends.end(), [](const BackendEntry& b) {
    return b.name == "nvfp4-head-bf16";
  });
  ASSERT_NE(entry, s.backends.end());
  const backends::LayerPlace head{"lm_head", backends::LayerKind::Linear, false, true};
  const backends::LayerPlace block{"h1.mlp.fc", backends::LayerKind::Linear, false, false};
  const backends::ProductPolicy headProducts = backends::productsFor(entry->policy, head);
  const backends::ProductPolicy blockProducts = backends::productsFor(entry->policy, block);
  for (const auto product :
       {&backends::ProductPolicy::forward, &backends::ProductPolicy::backwardData,
        &backends::ProductPolicy::backwardWeight}) {
    const backends::GemmPolicy& h = headProducts.*product;
    EXPECT_FALSE(h.blockScaled()) << backends::productSummary(h);
    EXPECT_EQ(backends::productSummary(h).substr(0, 4), "bf16") << backends::productSummary(h);
    EXPECT_TRUE((blockProducts.*product).blockScaled());
  }
}

}  // namespace
}  // namespace paritylab::study
