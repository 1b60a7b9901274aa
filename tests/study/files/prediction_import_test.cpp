// Per-example predictions imported with measured runs (prediction_files.h): emulated runs written
// out as a results CSV, the documented labels file and one predictions file per run (CSV for one
// backend, .npy for the other), then imported as runs from real hardware, give the same churn,
// McNemar and per-class figures as the database they came from; predictions imported later attach
// to the runs imported before. And every bad file is named.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "core/input/csv.h"
#include "core/input/npy_file.h"
#include "core/input/number_input.h"
#include "core/study/analysis/divergence_analysis.h"
#include "core/study/files/import_input.h"
#include "core/study/files/prediction_files.h"
#include "core/study/run/study_runner.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;

std::string write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

// An emulated study of 2 backends x 3 seeds on 60 synthetic test examples, with predictions.
std::string emulatedStudy() {
  const std::string path = freshTempPath("emulated-predictions.db");
  const StudySpec spec = parseStudySpec(R"({"version": 1, "name": "tiny",
      "dataset": {"source": "synthetic", "train_size": 120, "test_size": 60},
      "model": "mlp", "epochs": 2, "batch_size": 40, "chaos_floor": false,
      "backends": ["cpu-fp32", "pure-bf16"], "seeds": 3, "threads": 2})");
  auto store = ResultsStore::open(path, true);
  StudyRunner runner(spec, *store);
  EXPECT_EQ(runner.run(false).completed, 6);
  return path;
}

// The database's runs as the documented files: a long results CSV, labels.csv, and
// preds/<backend>/seed<seed>.(csv|npy).
std::filesystem::path exportAsMeasured(const std::string& db) {
  const auto dir = std::filesystem::path(freshTempPath("measured"));
  const auto store = ResultsStore::openReadOnly(db);
  const auto testSet = store->loadTestSet();
  std::string labels = "index,label,class_name\n";
  for (std::size_t i = 0; i < testSet->labels.size(); ++i)
    labels += std::to_string(i) + "," + std::to_string(testSet->labels[i]) + "," +
              testSet->classNames[std::size_t(testSet->labels[i])] + "\n";
  write(dir / "labels.csv", labels);
  std::string results = "run,backend,seed,epoch,accuracy\n";
  const auto predictions = store->loadPredictions();
  for (const RunRecord& r : store->loadRuns()) {
    const std::string name = r.backend + "-" + std::to_string(r.seed);
    for (const EpochRecord& e : store->loadEpochs(r.id))
      results += name + "," + r.backend + "," + std::to_string(r.seed) + "," +
                 std::to_string(e.epoch) + "," + input::csvNumber(e.testAccuracy) + "\n";
    const nn::TestPredictions& p = predictions.at(r.id);
    const auto file = dir / "preds" / r.backend / ("seed" + std::to_string(r.seed));
    if (r.backend == "cpu-fp32") {
      std::string csv = "index,predicted,true_class_probability\n";
      for (std::size_t i = p.predicted.size(); i-- > 0;)  // any order
        csv += std::to_string(i) + "," + std::to_string(p.predicted[i]) + "," +
               input::csvNumber(p.trueClassProbability[i]) + "\n";
      write(file.string() + ".csv", csv);
    } else {
      std::filesystem::create_directories(file.parent_path());
      input::writeNpy(file.string() + ".npy", p.predicted, {p.predicted.size()});
    }
  }
  write(dir / "results.csv", results);
  return dir;
}

std::string importMeasured(const std::filesystem::path& dir, const std::string& pattern,
                           const std::string& name) {
  const std::string db = freshTempPath(name);
  ImportInput input = readImportInput((dir / "results.csv").string());
  const RunsPredictions predictions =
      readRunsPredictions((dir / pattern).string(), (dir / "labels.csv").string(), input.runs);
  auto store = ResultsStore::open(db, true);
  requireSameTestSet(*store, predictions.testSet);
  importRuns(*store, (dir / "results.csv").string(), input.runs);
  storeRunsPredictions(*store, predictions, input.runs);
  return db;
}

TEST(PredictionImport, MeasuredRunsWithTheirPredictionsGiveTheSameChurnMcNemarAndPerClass) {
  const std::string original = emulatedStudy();
  const auto dir = exportAsMeasured(original);
  // The cpu-fp32 files are CSVs, the pure-bf16 ones .npy: each pattern finds one backend's.
  const std::string csvDb =
      importMeasured(dir, "preds/{backend}/seed{seed}.csv", "measured-csv.db");
  const std::string npyDb =
      importMeasured(dir, "preds/{backend}/seed{seed}.npy", "measured-npy.db");

  DivergenceOptions options;
  options.a = "pure-bf16";
  options.b = "cpu-fp32";
  const DivergenceReport want = analyseDivergence(*ResultsStore::openReadOnly(original), options);
  ASSERT_TRUE(want.churn.has_value());
  ASSERT_EQ(want.mcnemar.size(), 3u);

  // With the CSVs only cpu-fp32 has predictions; with the .npy files only pure-bf16: each
  // backend's seed churn is the original's.
  for (const auto& [db, backend] : {std::pair{csvDb, "cpu-fp32"}, std::pair{npyDb, "pure-bf16"}}) {
    const DivergenceReport got = analyseDivergence(*ResultsStore::openReadOnly(db), options);
    const auto seedChurn = [&](const DivergenceReport& r) {
      for (const ChurnCell& c : r.churnMatrix)
        if (c.row == backend && c.column == backend) return c.churn.values;
      return std::vector<double>{};
    };
    EXPECT_EQ(seedChurn(got), seedChurn(want)) << backend;
    EXPECT_FALSE(seedChurn(got).empty()) << backend << "\n"
                                         << [&] {
                                              std::string notes;
                                              for (const std::string& n : got.notes)
                                                notes += n + "\n";
                                              return notes;
                                            }();
  }

  // Both: the runs imported with the CSVs, then imported again with the .npy files, which attach
  // to the runs already present that have none (the import adds no run twice).
  const std::string both =
      importMeasured(dir, "preds/{backend}/seed{seed}.csv", "measured-both.db");
  {
    ImportInput input = readImportInput((dir / "results.csv").string());
    const RunsPredictions npy =
        readRunsPredictions((dir / "preds/{backend}/seed{seed}.npy").string(),
                            (dir / "labels.csv").string(), input.runs);
    auto store = ResultsStore::open(both, false);
    EXPECT_EQ(importRuns(*store, (dir / "results.csv").string(), input.runs).added, 0);
    storeRunsPredictions(*store, npy, input.runs);
    EXPECT_EQ(store->loadRuns().size(), 6u);
    EXPECT_EQ(store->loadPredictions().size(), 6u);
  }
  const DivergenceReport got = analyseDivergence(*ResultsStore::openReadOnly(both), options);
  ASSERT_TRUE(got.churn.has_value());
  EXPECT_EQ(got.churn->precision.values, want.churn->precision.values);
  EXPECT_EQ(got.churn->seed_floor.values, want.churn->seed_floor.values);
  ASSERT_EQ(got.mcnemar.size(), want.mcnemar.size());
  for (std::size_t i = 0; i < got.mcnemar.size(); ++i) {
    EXPECT_EQ(got.mcnemar[i].seed, want.mcnemar[i].seed);
    EXPECT_EQ(got.mcnemar[i].test.only_first_correct, want.mcnemar[i].test.only_first_correct);
    EXPECT_EQ(got.mcnemar[i].test.only_second_correct, want.mcnemar[i].test.only_second_correct);
    EXPECT_EQ(got.mcnemar[i].test.p_value, want.mcnemar[i].test.p_value);
  }
  ASSERT_EQ(got.classes.size(), want.classes.size());
  for (std::size_t c = 0; c < got.classes.size(); ++c) {
    EXPECT_EQ(got.classes[c].className, want.classes[c].className);
    EXPECT_EQ(got.classes[c].meanA, want.classes[c].meanA);
    EXPECT_EQ(got.classes[c].meanB, want.classes[c].meanB);
    const double p = got.classes[c].difference.p_holm, q = want.classes[c].difference.p_holm;
    EXPECT_TRUE(p == q || (std::isnan(p) && std::isnan(q))) << p << " " << q;
  }
}

TEST(PredictionImport, BadFilesAreNamedWithTheirLineAndValue) {
  const auto dir = std::filesystem::path(freshTempPath("bad-predictions"));
  const std::string labels = write(dir / "labels.csv", "index,label\n0,0\n1,1\n2,1\n");
  const ImportedTestSet set = readLabelsFile(labels);
  EXPECT_EQ(set.classNames, (std::vector<std::string>{"0", "1"}));
  const auto bad = [&](const std::string& name, const std::string& text) {
    return messageOf([&] { readPredictionsFile(write(dir / name, text), set); });
  };
  EXPECT_NE(bad("a.csv", "index,predicted\n0,0\n1,1\n")
                .find("a.csv: 2 examples, the labels "
                      "have 3"),
            std::string::npos);
  EXPECT_NE(bad("b.csv", "index,predicted\n0,0\n1,7\n2,1\n").find("b.csv:3: column 2 (predicted)"),
            std::string::npos);
  EXPECT_NE(bad("c.csv", "index,predicted\n0,0\n0,1\n2,1\n").find("index 0 given twice"),
            std::string::npos);
  EXPECT_NE(bad("d.csv", "index,predicted,true_class_probability\n0,0,0.5\n1,1,nan\n2,1,1\n")
                .find("d.csv:3: column 3 (true_class_probability): nan is not a probability"),
            std::string::npos);
  EXPECT_NE(bad("e.csv", "idx,pred\n0,0\n").find("no column 'index'"), std::string::npos);
  EXPECT_NE(bad("f.csv", "index,predicted\n0,0\n2,1\n3,1\n").find("index 1 is missing"),
            std::string::npos);
  // .npy: another dtype, a cut-short file, a class beyond the labels'.
  const auto npy = [&](const std::string& name, const std::string& header,
                       const std::string& body) {
    return messageOf([&] { readPredictionsFile(write(dir / name, header + body), set); });
  };
  const std::vector<float> floats = {0, 1, 1};
  input::writeNpy((dir / "g.npy").string(), floats, {3});
  EXPECT_NE(messageOf([&] {
              readPredictionsFile((dir / "g.npy").string(), set);
            }).find("dtype '<f4': expected little-endian integers"),
            std::string::npos);
  EXPECT_NE(npy("h.npy", input::npyHeader("<i4", {3}), std::string(8, '\0'))
                .find("cut short: its header says 3 values, it holds 2"),
            std::string::npos);
  const std::vector<std::int32_t> beyond = {0, 1, 5};
  input::writeNpy((dir / "i.npy").string(), beyond, {3});
  EXPECT_NE(messageOf([&] {
              readPredictionsFile((dir / "i.npy").string(), set);
            }).find("the prediction 5 of example 2 is not a class in [0, 2)"),
            std::string::npos);
  EXPECT_NE(npy("j.npy", "not numpy at all", "").find("not a .npy file"), std::string::npos);
  // A pattern that does not name each run, and one that finds no file.
  ImportedRun run;
  run.run.backend = "xla";
  run.run.seed = 3;
  EXPECT_NE(messageOf([&] {
              readRunsPredictions((dir / "p.csv").string(), labels, {run});
            }).find("name each run's file by its {backend} and {seed}"),
            std::string::npos);
  EXPECT_NE(messageOf([&] {
              readRunsPredictions((dir / "{backend}-{seed}.csv").string(), labels, {run});
            }).find("no file for any of the 1 runs (e.g. " + (dir / "xla-3.csv").string()),
            std::string::npos);
}

}  // namespace
}  // namespace paritylab::study
