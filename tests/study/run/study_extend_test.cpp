// Resuming a study's database with the same study plus seeds or
// backends extends it; any other change is refused, naming the database.

#include <gtest/gtest.h>

#include <filesystem>

#include "core/study/files/results_import.h"
#include "core/study/run/study_runner.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

const char* kBase = R"({"version": 1, "name": "ext",
  "dataset": {"source": "synthetic", "train_size": 100, "test_size": 50},
  "model": "mlp", "epochs": 1, "batch_size": 50, "chaos_floor": false, "backends": ["cpu-fp32"], "seeds": 2,
  "threads": 1})";

StudySpec withChange(const std::string& from, const std::string& to) {
  std::string text = kBase;
  text.replace(text.find(from), from.size(), to);
  return parseStudySpec(text);
}

TEST(ExtendStudy, MoreSeedsOrBackendsExtendAnythingElseDoesNot) {
  const StudySpec base = parseStudySpec(kBase);
  EXPECT_TRUE(extendsStudy(base, base));
  EXPECT_TRUE(extendsStudy(base, withChange("\"seeds\": 2", "\"seeds\": 5")));
  EXPECT_TRUE(extendsStudy(base, withChange("\"seeds\": 2", "\"seeds\": [0, 1, 7]")));
  EXPECT_TRUE(extendsStudy(base, withChange("[\"cpu-fp32\"]", "[\"cpu-fp32\", \"tpu-bf16\"]")));
  EXPECT_TRUE(extendsStudy(base, withChange("\"threads\": 1", "\"threads\": 2")));
  EXPECT_FALSE(extendsStudy(base, withChange("\"seeds\": 2", "\"seeds\": [1, 2]")));  // 0 gone
  EXPECT_FALSE(extendsStudy(base, withChange("[\"cpu-fp32\"]", "[\"tpu-bf16\"]")));
  EXPECT_FALSE(extendsStudy(base, withChange("\"epochs\": 1", "\"epochs\": 2")));
  EXPECT_FALSE(extendsStudy(base, withChange("\"batch_size\": 50", "\"batch_size\": 25")));
}

TEST(ExtendStudy, ResumeWithMoreSeedsAddsOnlyTheNewRuns) {
  const auto path =
      (fs::temp_directory_path() / ("paritylab-extend-" + std::to_string(::getpid()) + ".db"))
          .string();
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix);
  auto store = ResultsStore::open(path, true);
  {
    StudyRunner runner(parseStudySpec(kBase), *store);
    EXPECT_EQ(runner.run().completed, 2);
  }
  const auto before = store->loadRuns();
  StudyRunner more(withChange("\"seeds\": 2", "\"seeds\": 3"), *store);
  const RunnerSummary summary = more.run(true);
  EXPECT_EQ(summary.skipped, 2);
  EXPECT_EQ(summary.completed, 1);
  const auto after = store->loadRuns();
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0].finalAccuracy, before[0].finalAccuracy);  // kept, not redone
  EXPECT_EQ(after[2].seed, 2u);
  EXPECT_EQ(store->loadStudySpec().seeds.size(), 3u);
  StudyRunner other(withChange("\"epochs\": 1", "\"epochs\": 2"), *store);
  try {
    other.run(true);
    FAIL() << "a different study resumed";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
}

// Results measured on hardware are not continued with emulations trained under their backends'
// names: resuming a database of imported runs is refused, naming it, and trains nothing.
TEST(ExtendStudy, ResumeOnADatabaseOfImportedResultsIsRefused) {
  const auto path =
      (fs::temp_directory_path() / ("paritylab-imported-" + std::to_string(::getpid()) + ".db"))
          .string();
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix);
  auto store = ResultsStore::open(path, true);
  auto runs = readResultsCsv(PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv", {});
  importRuns(*store, PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv", runs);
  StudyRunner runner(store->loadStudySpec(), *store);
  try {
    runner.run(true);
    FAIL() << "resumed a database of imported results";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": holds results imported from "),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("(cuda, xla)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(store->loadRuns().size(), 28u);
  for (const RunRecord& r : store->loadRuns()) EXPECT_EQ(r.source, "imported");
}

TEST(ExtendStudy, ResumingADifferentStudyNamesTheFirstDifferingField) {
  const auto path =
      (fs::temp_directory_path() / ("paritylab-differs-" + std::to_string(::getpid()) + ".db"))
          .string();
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix);
  auto store = ResultsStore::open(path, true);
  store->saveStudySpec(studySpecToJson(parseStudySpec(kBase)).dump());
  StudyRunner other(withChange("\"batch_size\": 50", "\"batch_size\": 25"), *store);
  try {
    other.run(true);
    FAIL() << "a different study resumed";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": the stored study differs from this one at "
                                                "batch_size (50 against 25)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace paritylab::study
