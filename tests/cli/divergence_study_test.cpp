// The divergence analysis on a real study: small-cnn on a Fashion-MNIST subset, cpu-fp32 vs
// pure-bf16 vs tpu-bf16, 3 seeds, trained by the built CLI. Precision churn and seed churn are
// both > 0; a deterministic backend trained twice at the same seed (into a second database)
// predicts identically (churn 0); and `compare --json` and the report's divergence CSVs give the
// numbers analyseDivergence gives. Kept small (800 training images, 2 epochs): about a minute on
// two loaded cores. Also the CLI's messages for a backend or database that is not there.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/input/csv.h"
#include "core/stats/churn.h"
#include "core/study/analysis/divergence_analysis.h"
#include "core/study/files/divergence_export.h"
#include "core/study/store/results_store.h"
#include "tests/cli/cli_runner.h"

namespace paritylab::cli {
namespace {

using testing::runCli;
using testing::TempFolder;

std::string studyJson(const std::string& backends, const std::string& seeds) {
  return R"({"version": 1, "name": "divergence-check",
    "dataset": {"source": "fashion-mnist", "train_size": 800, "test_size": 1000},
    "model": "small-cnn", "epochs": 2, "batch_size": 64, "optimizer": {"kind": "adamw",
    "lr": 0.002}, "chaos_floor": false, "backends": )" +
         backends + R"(, "seeds": )" + seeds + R"(, "threads": 2, "keep_weights": "epochs"})";
}

// CSV rows as maps from the header's names.
std::vector<std::map<std::string, std::string>> readCsv(const std::string& path) {
  std::ifstream in(path);
  input::CsvReader reader(in, path);
  input::CsvRow row;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  while (reader.next(row)) {
    if (header.empty()) {
      header = row.fields;
      continue;
    }
    std::map<std::string, std::string> named;
    for (std::size_t i = 0; i < header.size() && i < row.fields.size(); ++i)
      named[header[i]] = row.fields[i];
    rows.push_back(named);
  }
  return rows;
}

TEST(DivergenceStudy, SmallCnnOnFashionMnistAgreesAcrossCoreCliAndReport) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz"))
    GTEST_SKIP() << "the Debian fashion-mnist package is not installed";
  const TempFolder dir("divergence-study");
  const std::string db = dir.file("study.db");
  const auto run = runCli(
      {"run", dir.write("study.json", studyJson(R"(["cpu-fp32", "pure-bf16", "tpu-bf16"])", "3")),
       "--db", db});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const std::string again = dir.file("again.db");  // cpu-fp32 seed 1 once more, elsewhere
  const auto rerun =
      runCli({"run", dir.write("again.json", studyJson(R"(["cpu-fp32"])", "[1]")), "--db", again});
  ASSERT_EQ(rerun.exitCode, 0) << rerun.err;

  const auto store = study::ResultsStore::openReadOnly(db);
  // A deterministic backend at the same seed: the same predictions, churn 0.
  {
    const auto other = study::ResultsStore::openReadOnly(again);
    std::int64_t first = 0;
    for (const auto& r : store->loadRuns())
      if (r.backend == "cpu-fp32" && r.seed == 1) first = r.id;
    ASSERT_NE(first, 0);
    const auto stored = store->loadPredictions();
    const auto storedAgain = other->loadPredictions();
    ASSERT_EQ(storedAgain.size(), 1u);
    const auto& p1 = stored.at(first).predicted;
    const auto& p2 = storedAgain.begin()->second.predicted;
    ASSERT_EQ(p1.size(), 1000u);
    EXPECT_EQ(stats::churn(p1, p2), 0.0);
  }

  study::DivergenceOptions options;
  options.a = "tpu-bf16";
  options.b = "cpu-fp32";
  const study::DivergenceReport report = study::analyseDivergence(*store, options);
  ASSERT_TRUE(report.churn);
  EXPECT_GT(report.churn->precision.mean, 0.0) << report.churn->headline;
  EXPECT_GT(report.churn->seed_floor.mean, 0.0) << report.churn->headline;
  EXPECT_EQ(report.churn->precision.pairs, 3u);
  EXPECT_EQ(report.churn->seed_floor.pairs, 3u);
  ASSERT_EQ(report.backends.size(), 3u);
  ASSERT_EQ(report.classes.size(), 10u);
  EXPECT_EQ(report.classes[0].className, "T-shirt/top");
  ASSERT_FALSE(report.layers.empty());
  EXPECT_EQ(report.layers[0].epochs, (std::vector<int>{1, 2}));
  EXPECT_TRUE(report.notes.empty() || !report.notes.front().empty());
  std::cout << report.churn->headline << "\n";

  // compare --json: the same numbers (JSON carries doubles to their last digit).
  const auto compare = runCli({"compare", db, "--a", "tpu-bf16", "--b", "cpu-fp32", "--json"});
  ASSERT_EQ(compare.exitCode, 0) << compare.err;
  const nlohmann::json j = nlohmann::json::parse(compare.out);
  EXPECT_EQ(j["headline"], report.churn->headline);
  EXPECT_DOUBLE_EQ(j["precision_churn"]["mean"].get<double>(), report.churn->precision.mean);
  EXPECT_DOUBLE_EQ(j["seed_churn"]["mean"].get<double>(), report.churn->seed_floor.mean);
  EXPECT_DOUBLE_EQ(j["precision_churn"]["ci_low"].get<double>(), report.churn->precision.ci.ci_low);
  ASSERT_EQ(j["churn_matrix"].size(), report.churnMatrix.size());
  for (std::size_t i = 0; i < report.churnMatrix.size(); ++i)
    EXPECT_DOUBLE_EQ(j["churn_matrix"][i]["mean"].get<double>(), report.churnMatrix[i].churn.mean);
  ASSERT_EQ(j["mcnemar"].size(), report.mcnemar.size());
  for (std::size_t i = 0; i < report.mcnemar.size(); ++i) {
    EXPECT_EQ(j["mcnemar"][i]["only_a_correct"], report.mcnemar[i].test.only_first_correct);
    EXPECT_DOUBLE_EQ(j["mcnemar"][i]["p_holm"].get<double>(), report.mcnemar[i].p_holm);
  }
  ASSERT_EQ(j["classes"].size(), report.classes.size());
  for (std::size_t c = 0; c < report.classes.size(); ++c)
    EXPECT_DOUBLE_EQ(j["classes"][c]["mean_a"].get<double>(), report.classes[c].meanA);
  ASSERT_EQ(j["layers"].size(), report.layers.size());
  for (std::size_t l = 0; l < report.layers.size(); ++l)
    for (std::size_t e = 0; e < report.layers[l].epochs.size(); ++e)
      EXPECT_DOUBLE_EQ(j["layers"][l]["precision"][e].get<double>(), report.layers[l].precision[e]);
  if (report.pairedT) {
    EXPECT_DOUBLE_EQ(j["paired_t"]["p_value"].get<double>(), report.pairedT->p_value);
  }

  // report --csv: the divergence files, named in the output, with the same numbers.
  const std::string csv = dir.file("report.csv");
  const auto rep = runCli({"report", db, "--csv", csv, "--a", "tpu-bf16", "--b", "cpu-fp32"});
  ASSERT_EQ(rep.exitCode, 0) << rep.err;
  for (const char* part : {"churn", "summary", "mcnemar", "classes", "weights"})
    EXPECT_NE(rep.out.find(dir.file(std::string("report-divergence-") + part + ".csv")),
              std::string::npos)
        << rep.out;
  const auto summary = readCsv(dir.file("report-divergence-summary.csv"));
  bool sawPrecision = false;
  for (const auto& row : summary)
    if (row.at("item") == "precision_churn") {
      sawPrecision = true;
      EXPECT_DOUBLE_EQ(std::stod(row.at("estimate")), report.churn->precision.mean);
    }
  EXPECT_TRUE(sawPrecision);
  const auto churn = readCsv(dir.file("report-divergence-churn.csv"));
  ASSERT_EQ(churn.size(), report.churnMatrix.size());
  for (std::size_t i = 0; i < churn.size(); ++i)
    EXPECT_DOUBLE_EQ(std::stod(churn[i].at("churn")), report.churnMatrix[i].churn.mean);
  const auto weights = readCsv(dir.file("report-divergence-weights.csv"));
  ASSERT_EQ(weights.size(), report.layers.size() * 2);
  EXPECT_DOUBLE_EQ(std::stod(weights[1].at("precision")), report.layers[0].precision[1]);
  const auto classes = readCsv(dir.file("report-divergence-classes.csv"));
  ASSERT_EQ(classes.size(), 10u);
  EXPECT_EQ(classes[9].at("class_name"), "Ankle boot");
  EXPECT_DOUBLE_EQ(std::stod(classes[9].at("mean_diff")),
                   report.classes[9].difference.welch.mean_diff);
}

// The chaos floor end to end on a tiny synthetic study: `run` states its cost and trains it, the
// nudged reference differs from the reference (one weight one ulp), and `compare`, `compare
// --json` and the report's CSVs all carry the same floor beside the seed floor.
TEST(DivergenceStudy, ChaosFloorIsTrainedAndReportedBesideTheSeedFloor) {
  const TempFolder dir("chaos-floor");
  const std::string db = dir.file("chaos.db");
  const auto run = runCli({"run", "--db", db, "--dataset", "synthetic", "--train-size", "256",
                           "--test-size", "200", "--model", "mlp", "--backends",
                           "cpu-fp32,tpu-bf16", "--seeds", "3", "--epochs", "2", "--batch", "16"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("Chaos floor: cpu-fp32 trained 2 more times per seed"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("6 of the study's 12 runs"), std::string::npos) << run.out;

  const auto store = study::ResultsStore::openReadOnly(db);
  std::map<std::string, int> completed;
  for (const auto& r : store->loadRuns())
    completed[r.backend] += r.status == study::RunState::Completed ? 1 : 0;
  EXPECT_EQ(completed["nudged-cpu-fp32"], 3);
  EXPECT_EQ(completed["reordered-cpu-fp32"], 3);

  study::DivergenceOptions options;
  options.a = "tpu-bf16";
  options.b = "cpu-fp32";
  const study::DivergenceReport report = study::analyseDivergence(*store, options);
  ASSERT_TRUE(report.chaos);
  ASSERT_EQ(report.chaos->parts.size(), 2u);
  for (const study::ChaosFloorPart& part : report.chaos->parts) {
    EXPECT_EQ(part.churn.pairs, 3u) << part.backend;
    EXPECT_EQ(part.mcnemar.size(), 3u) << part.backend;
    EXPECT_FALSE(part.layers.empty()) << part.backend;
    // A perturbation at the level of rounding noise still moves the weights.
    EXPECT_GT(part.layers.front().precision.back(), 0.0) << part.backend;
  }

  const auto text = runCli({"compare", db, "--a", "tpu-bf16", "--b", "cpu-fp32"});
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("Chaos floor: cpu-fp32 perturbed at the level of rounding noise"),
            std::string::npos)
      << text.out;
  if (!report.chaos->headline.empty()) {
    EXPECT_NE(text.out.find(report.chaos->headline), std::string::npos) << text.out;
    EXPECT_NE(report.chaos->headline.find("a one-ulp nudge of one initial weight changes"),
              std::string::npos);
    EXPECT_NE(report.chaos->headline.find("two seeds"), std::string::npos);
  }

  const auto compare = runCli({"compare", db, "--a", "tpu-bf16", "--b", "cpu-fp32", "--json"});
  ASSERT_EQ(compare.exitCode, 0) << compare.err;
  const nlohmann::json j = nlohmann::json::parse(compare.out);
  ASSERT_TRUE(j["chaos"].is_object());
  EXPECT_EQ(j["chaos"]["reference"], "cpu-fp32");
  ASSERT_EQ(j["chaos"]["parts"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const study::ChaosFloorPart& part = report.chaos->parts[i];
    const nlohmann::json& jp = j["chaos"]["parts"][i];
    EXPECT_EQ(jp["backend"], part.backend);
    EXPECT_DOUBLE_EQ(jp["churn"]["mean"].get<double>(), part.churn.mean);
    EXPECT_EQ(jp["excess"]["seeds"], part.excessSeeds);
  }

  const std::string csv = dir.file("report.csv");
  const auto rep = runCli({"report", db, "--csv", csv, "--a", "tpu-bf16", "--b", "cpu-fp32"});
  ASSERT_EQ(rep.exitCode, 0) << rep.err;
  std::map<std::string, double> items;
  for (const auto& row : readCsv(dir.file("report-divergence-summary.csv")))
    if (!row.at("estimate").empty()) items[row.at("item")] = std::stod(row.at("estimate"));
  for (const study::ChaosFloorPart& part : report.chaos->parts)
    EXPECT_DOUBLE_EQ(items.at("chaos_churn_of_" + part.backend), part.churn.mean) << part.backend;
  bool nudgedWeights = false;
  for (const auto& row : readCsv(dir.file("report-divergence-weights.csv")))
    nudgedWeights |= row.at("a") == "nudged-cpu-fp32" && row.at("b") == "cpu-fp32";
  EXPECT_TRUE(nudgedWeights);
}

TEST(DivergenceStudy, CompareNamesAMissingBackendOrDatabase) {
  const TempFolder dir("divergence-errors");
  const std::string db = dir.file("tiny.db");
  const auto run = runCli({"run", "--db", db, "--dataset", "synthetic", "--train-size", "64",
                           "--test-size", "32", "--model", "mlp", "--backends", "cpu-fp32,tpu-bf16",
                           "--seeds", "2", "--epochs", "1", "--batch", "16"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto unknown = runCli({"compare", db, "--a", "tpu-bf17", "--b", "cpu-fp32"});
  EXPECT_EQ(unknown.exitCode, 1);
  EXPECT_NE(unknown.err.find("backend 'tpu-bf17' is not in the study"), std::string::npos)
      << unknown.err;
  EXPECT_NE(unknown.err.find("cpu-fp32, tpu-bf16"), std::string::npos) << unknown.err;
  const auto missing =
      runCli({"compare", dir.file("none.db"), "--a", "tpu-bf16", "--b", "cpu-fp32"});
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find(dir.file("none.db")), std::string::npos) << missing.err;
  const auto alpha = runCli({"compare", db, "--a", "tpu-bf16", "--b", "cpu-fp32", "--alpha", "2"});
  EXPECT_NE(alpha.exitCode, 0);
  EXPECT_NE(alpha.err.find("--alpha"), std::string::npos) << alpha.err;
  const auto text = runCli({"compare", db, "--a", "tpu-bf16", "--b", "cpu-fp32"});
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("Churn matrix"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(study::kPairingNote), std::string::npos) << text.out;
}

}  // namespace
}  // namespace paritylab::cli
