// Every example study shipped in resources/studies/ reads as a study (the README and the app
// offer them; a field renamed in the parser must be renamed in them too).

#include <gtest/gtest.h>

#include <filesystem>

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

}  // namespace
}  // namespace paritylab::study
