// NaN or an infinity in a log is a diverged run, not an error: the run is imported with its
// epochs up to there and stored as diverged, as an emulated run that diverged is (status and
// epoch), with a note naming file, line and value, in every tracker's export and in the torchprime
// and generic results CSVs (TensorBoard event files alike: tensorboard_import_test.cpp). Values
// simply out of range are still refused, naming their cell.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/study/analysis/compared_metric.h"
#include "core/study/files/import_input.h"
#include "core/study/files/results_import.h"
#include "tests/study/files/tracker_fixtures.h"

namespace paritylab::study {
namespace {

using testing::errorOf;
using testing::freshTempPath;
using testing::hasNote;
using testing::kTrackerFixtures;
using testing::runNamed;

const std::string kDiverged = kTrackerFixtures + "/diverged";

ImportInput readDiverged() {
  TensorBoardImportOptions o;
  o.backendRule = "path:{backend}/lightning_logs/version_{seed}";
  return readImportInput(kDiverged, ImportFormat::Auto, {}, o);
}

TEST(ImportDivergence, NanInALogIsADivergedRunWithItsEpochsBefore) {
  const ImportInput input = readDiverged();
  ASSERT_EQ(input.runs.size(), 2u);
  const ImportedRun* fine = runNamed(input, "gpu/lightning_logs/version_0");
  EXPECT_EQ(fine->run.status, RunState::Completed);
  EXPECT_EQ(fine->run.divergedEpoch, 0);
  const ImportedRun* run = runNamed(input, "gpu/lightning_logs/version_1");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->run.status, RunState::Diverged);
  EXPECT_EQ(run->run.divergedEpoch, 2);  // epoch index 1, stored from 1
  ASSERT_EQ(run->epochs.size(), 1u);
  EXPECT_EQ(run->run.epochsDone, 1);
  EXPECT_EQ(run->run.finalAccuracy, 0.4011);  // its last epoch before the NaN
  const std::string file = kDiverged + "/gpu/lightning_logs/version_1/metrics.csv";
  EXPECT_TRUE(hasNote(input.notes, file + ":5: column 5 (val_loss): val_loss nan at epoch 1: run "
                                          "'gpu/lightning_logs/version_1' diverged; imported as "
                                          "diverged with its 1 epoch before it"))
      << ::testing::PrintToString(input.notes);
}

TEST(ImportDivergence, ADivergedRunIsStoredAsDivergedAndReimportAddsNothing) {
  ImportInput input = readDiverged();
  const std::string db = freshTempPath("diverged-import.db");
  auto store = ResultsStore::open(db, true);
  EXPECT_EQ(importRuns(*store, kDiverged, input.runs).added, 2);
  const auto runs = store->loadRuns();
  ASSERT_EQ(runs.size(), 2u);
  const auto diverged = std::find_if(
      runs.begin(), runs.end(), [](const RunRecord& r) { return r.status == RunState::Diverged; });
  ASSERT_NE(diverged, runs.end());
  EXPECT_EQ(diverged->divergedEpoch, 2);
  EXPECT_EQ(diverged->source, "imported");
  EXPECT_EQ(store->loadEpochs(diverged->id).size(), 1u);
  ImportInput again = readDiverged();
  EXPECT_EQ(importRuns(*store, kDiverged, again.runs).added, 0);
}

TEST(ImportDivergence, InfinityAsAFinalValueMarksARunOfFinalValuesDiverged) {
  const std::string folder = testing::writeTree("diverged-final", "runs.csv",
                                                "Name,State,device,val_acc,val_loss\n"
                                                "a,finished,tpu,0.5,1.5\n"
                                                "b,finished,tpu,0.25,inf\n");
  const ImportInput input = readImportInput(folder + "/runs.csv");
  const ImportedRun* b = runNamed(input, "b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->run.status, RunState::Diverged);
  EXPECT_EQ(b->run.divergedEpoch, 0);  // a run of final values: the epoch is not known
  EXPECT_TRUE(std::isnan(b->run.finalAccuracy));
  EXPECT_TRUE(hasNote(input.notes, folder + "/runs.csv:3: column 5 (val_loss): val_loss inf: "
                                            "run 'b' diverged; imported as diverged"));
  EXPECT_EQ(runNamed(input, "a")->run.status, RunState::Completed);
}

TEST(ImportDivergence, NanInAResultsCsvIsADivergedRunWithItsEpochsBefore) {
  const std::string folder = testing::writeTree("diverged-long", "long.csv",
                                                "run,backend,epoch,accuracy,test_loss\n"
                                                "r1,cpu,1,0.5,1.5\n"
                                                "r1,cpu,3,0.25,nan\n"
                                                "r1,cpu,2,0.55,1.25\n"
                                                "r1,cpu,4,-inf,inf\n"
                                                "r2,cpu,1,0.5,1.5\n"
                                                "r2,cpu,2,0.6,1.2\n");
  const std::string file = folder + "/long.csv";
  CsvImportOptions o;
  o.testLossColumn = "test_loss";
  ImportNotes notes;
  const std::vector<ImportedRun> runs = readResultsCsv(file, o, &notes);
  ASSERT_EQ(runs.size(), 2u);
  const ImportedRun& r1 = runs[0];
  EXPECT_EQ(r1.run.message, "r1");
  EXPECT_EQ(r1.run.status, RunState::Diverged);
  EXPECT_EQ(r1.run.divergedEpoch, 3);
  ASSERT_EQ(r1.epochs.size(), 2u);  // epochs 1 and 2, the rows in any order
  EXPECT_EQ(r1.epochs[1].epoch, 2);
  EXPECT_EQ(r1.run.epochsDone, 2);
  EXPECT_EQ(r1.run.finalAccuracy, 0.55);
  EXPECT_EQ(r1.run.finalTestLoss, 1.25);
  EXPECT_TRUE(hasNote(notes, file + ":3: column 5 (test_loss): test_loss nan at epoch 3: run 'r1' "
                                    "(backend 'cpu') diverged; imported as diverged with its 2 "
                                    "epochs before it"))
      << ::testing::PrintToString(notes);
  EXPECT_EQ(runs[1].run.status, RunState::Completed);

  // Stored as diverged: the statistics leave it out, as an emulated run that diverged.
  const std::string db = freshTempPath("diverged-csv.db");
  auto store = ResultsStore::open(db, true);
  std::vector<ImportedRun> stored = runs;
  EXPECT_EQ(importRuns(*store, file, stored).added, 2);
  const auto finals = finalMetricByBackend(*store, ComparedMetric::Accuracy);
  ASSERT_EQ(finals.size(), 1u);
  EXPECT_EQ(finals[0].second, std::vector<double>{0.6});
  std::vector<ImportedRun> again = readResultsCsv(file, o);
  EXPECT_EQ(importRuns(*store, file, again).added, 0);
}

TEST(ImportDivergence, InfinityInAWideResultsCsvIsADivergedRunOfFinalValues) {
  const std::string folder = testing::writeTree("diverged-wide", "wide.csv",
                                                "backend,seed,final_accuracy\n"
                                                "tpu,0,0.61\n"
                                                "tpu,1,inf\n");
  const std::string file = folder + "/wide.csv";
  CsvImportOptions o;
  o.epochColumn = "";
  ImportNotes notes;
  const std::vector<ImportedRun> runs = readResultsCsv(file, o, &notes);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].run.status, RunState::Completed);
  EXPECT_EQ(runs[1].run.status, RunState::Diverged);
  EXPECT_EQ(runs[1].run.divergedEpoch, 0);  // a run of final values: the epoch is not known
  EXPECT_TRUE(std::isnan(runs[1].run.finalAccuracy));
  EXPECT_TRUE(runs[1].epochs.empty());
  EXPECT_TRUE(hasNote(notes, file + ":3: column 3 (final_accuracy): final_accuracy inf: run "
                                    "'seed 1' (backend 'tpu') diverged; imported as diverged (a "
                                    "run of final values: none kept)"))
      << ::testing::PrintToString(notes);
}

TEST(ImportDivergence, NanInTheTorchprimeCsvIsADivergedRun) {
  const std::string folder = testing::writeTree(
      "diverged-torchprime", "metrics.csv",
      "run_name,datetime,hyperparameters,epoch,train_loss,test_loss,accuracy_top1\n"
      "prod_1,2025-07-22 19:30:47,{'device': 'xla'},1,2.1,1.9,0.41\n"
      "prod_1,2025-07-22 19:30:47,{'device': 'xla'},2,NaN,1.7,0.52\n");
  const std::string file = folder + "/metrics.csv";
  ImportNotes notes;
  const std::vector<ImportedRun> runs = readResultsCsv(file, {}, &notes);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run.status, RunState::Diverged);
  EXPECT_EQ(runs[0].run.divergedEpoch, 2);
  ASSERT_EQ(runs[0].epochs.size(), 1u);
  EXPECT_EQ(runs[0].run.finalAccuracy, 0.41);
  EXPECT_TRUE(hasNote(notes, file + ":3: column 5 (train_loss): train_loss nan at epoch 2"))
      << ::testing::PrintToString(notes);
}

TEST(ImportDivergence, OutOfRangeValuesAreStillRefused) {
  const std::string folder = testing::writeTree("out-of-range", "h.csv",
                                                "_step,device,val_acc\n"
                                                "1,tpu,0.5\n"
                                                "2,tpu,3.5\n");
  const std::string e = errorOf([&] { readImportInput(folder + "/h.csv"); });
  EXPECT_NE(e.find(folder + "/h.csv:3: column 3 (val_acc): accuracy 3.5 outside [0, 1]"),
            std::string::npos)
      << e;
  const std::string loss = testing::writeTree("out-of-range-loss", "h.csv",
                                              "_step,device,val_acc,val_loss\n"
                                              "1,tpu,0.5,2e7\n");
  const std::string l = errorOf([&] { readImportInput(loss + "/h.csv"); });
  EXPECT_NE(l.find(loss + "/h.csv:2: column 4 (val_loss): a loss outside [-1e6, 1e6]"),
            std::string::npos)
      << l;
  const std::string text = testing::writeTree("not-a-number", "h.csv",
                                              "_step,device,val_acc\n"
                                              "1,tpu,high\n");
  const std::string t = errorOf([&] { readImportInput(text + "/h.csv"); });
  EXPECT_NE(t.find(text + "/h.csv:2: column 3 (val_acc): not a number: 'high'"), std::string::npos)
      << t;
}

}  // namespace
}  // namespace paritylab::study
