// The "xray" field of a study spec, and X-ray records stored per run, site, operand and sample:
// `report --xray` long-form CSV; summaries and findings; the xray table is schema version 5: a
// version-4 database gains it when opened for writing and reads as no samples when opened
// read-only.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/study/analysis/xray_findings.h"
#include "core/study/files/xray_rows.h"
#include "core/study/store/results_schema.h"
#include "core/study/store/results_store.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

std::string tempPath(const std::string& name) {
  return testing::freshTempPath(name);
}

std::string errorOf(const std::string& text) {
  try {
    parseStudySpec(text, "s.json");
  } catch (const SpecError& e) {
    return e.what();
  }
  return "";
}

TEST(XraySpec, EveryStepsParsesRoundTripsAndBadValuesNameTheField) {
  const std::string head = R"({"name": "x", "backends": ["cpu-fp32"], )";
  EXPECT_EQ(parseStudySpec(head + R"("seeds": 1})").train.xrayEverySteps, 0);  // off
  const StudySpec every = parseStudySpec(head + R"("xray": {"every_steps": 7}})");
  EXPECT_EQ(every.train.xrayEverySteps, 7);
  EXPECT_EQ(parseStudySpec(studySpecToJson(every).dump()).train.xrayEverySteps, 7);
  const StudySpec automatic = parseStudySpec(head + R"("xray": {}})");
  EXPECT_EQ(automatic.train.xrayEverySteps, -1);  // about 50 samples per run
  EXPECT_EQ(parseStudySpec(studySpecToJson(automatic).dump()).train.xrayEverySteps, -1);
  EXPECT_NE(errorOf(head + R"("xray": {"every_steps": 0}})").find("xray.every_steps"),
            std::string::npos);
  EXPECT_NE(errorOf(head + R"("xray": {"every": 3}})").find("every"), std::string::npos);
  EXPECT_NE(errorOf(head + R"("xray": 5})").find("xray"), std::string::npos);
}

numerics::TensorXray syntheticXray(std::int64_t flushed, std::int64_t nonzero) {
  numerics::TensorXray x;
  x.count = nonzero + 3;
  x.zeros = 3;
  x.exponentBins[std::size_t(-20 - numerics::TensorXray::kMinExponent)] = nonzero - 1;
  x.exponentBins[std::size_t(2 - numerics::TensorXray::kMinExponent)] = 1;
  x.amax = 4.5;
  x.minNonzero = std::ldexp(1.0, -20);
  x.flushed = flushed;
  x.signalEnergy = 20.25;
  x.errorEnergy = flushed ? 1e-6 : 0.0;
  x.maxRelativeError = flushed ? 1.0 : 0.0;
  return x;
}

TEST(XrayStore, SamplesRoundTripAndExportAsLongFormCsv) {
  const std::string db = tempPath("store.db");
  auto store = ResultsStore::open(db, true);
  RunRecord a, b;
  a.backend = "fp16-no-scaling";
  b.backend = "gpu-amp-fp16";
  a.id = store->addRun(a);
  b.id = store->addRun(b);
  for (std::int64_t step : {0, 10}) {
    const int epoch = step == 0 ? 1 : 2;
    store->addXraySample(a.id, {step,
                                epoch,
                                {{"conv2.wgrad", "grad", "fp16", syntheticXray(step ? 31 : 0, 100)},
                                 {"conv2.wgrad", "input", "fp16", syntheticXray(0, 100)}}});
    store->addXraySample(b.id, {step,
                                epoch,
                                {{"conv2.wgrad", "grad", "fp16", syntheticXray(0, 100)},
                                 {"conv2.wgrad", "input", "fp16", syntheticXray(0, 100)}}});
  }
  const std::vector<XrayRow> rows = store->loadXray(a.id);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[2].step, 10);
  EXPECT_EQ(rows[2].epoch, 2);
  EXPECT_EQ(rows[2].site, "conv2.wgrad");
  EXPECT_EQ(rows[2].operand, "grad");
  const numerics::TensorXray want = syntheticXray(31, 100);
  EXPECT_EQ(rows[2].xray.exponentBins, want.exponentBins);
  EXPECT_EQ(rows[2].xray.flushed, 31);
  EXPECT_DOUBLE_EQ(rows[2].xray.underflowFraction(), 0.31);
  EXPECT_DOUBLE_EQ(rows[2].xray.sqnrDb(), want.sqnrDb());
  EXPECT_EQ(rows[0].xray.minNonzero, std::ldexp(1.0, -20));
  EXPECT_TRUE(std::isinf(rows[0].xray.sqnrDb()));  // exact stays exact
  EXPECT_EQ(store->loadXray().size(), 8u);

  const std::string csvPath = tempPath("xray.csv");
  EXPECT_EQ(writeXrayCsv(*store, csvPath), 8u);
  std::ifstream in(csvPath);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(header.rfind("run_id,backend,seed,step,epoch,site,operand,format,count,", 0), 0u);
  EXPECT_NE(first.find(",fp16-no-scaling,0,0,1,conv2.wgrad,grad,fp16,103,3,0,4.5,"),
            std::string::npos)
      << first;
  // A histogram starting with a negative exponent gets the leading ' of every CSV text cell that
  // starts with '-' (formula injection, core/input/csv.h).
  EXPECT_NE(first.find(",inf,0,'-20:99 2:1 zero:3"), std::string::npos) << first;

  // Summary and findings: the worst underflow and when, side by side with the other backend.
  const auto sites = summariseXray(*store, {});
  ASSERT_EQ(sites.size(), 4u);
  EXPECT_EQ(sites[0].backend, "fp16-no-scaling");
  EXPECT_DOUBLE_EQ(sites[0].underflow.value, 0.31);
  EXPECT_EQ(sites[0].underflow.step, 10);
  EXPECT_EQ(sites[0].firstUnderflowEpoch, 2);
  const auto findings = xrayFindings(sites);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0],
            "fp16-no-scaling: up to 31% of conv2.wgrad's grad operand flushes to zero in fp16 "
            "(from epoch 2; worst at step 10, epoch 2); gpu-amp-fp16: 0%");
  EXPECT_EQ(summariseXray(*store, {0, "gpu-amp-fp16", "conv2"}).size(), 2u);
  EXPECT_TRUE(summariseXray(*store, {0, "", "conv1"}).empty());

  // A run redone from scratch loses its samples, with its epochs and steps.
  store->deleteEpochs(a.id);
  EXPECT_TRUE(store->loadXray(a.id).empty());
  EXPECT_EQ(store->loadXray().size(), 4u);
  // So does a run claimed again after an interrupted attempt (pending, as --resume leaves it).
  store->addSteps(b.id, {{1, 1, 0.5, 0.1}});
  ASSERT_TRUE(store->claimRun(b.id, "elsewhere-host:1"));
  EXPECT_TRUE(store->loadXray().empty());
  EXPECT_EQ(store->loadAllSteps().count(b.id), 0u);
}

std::string fileBytesOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int schemaVersionOfFile(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return 0;
  }
  const int version = schemaVersionOf(db, path);
  sqlite3_close(db);
  return version;
}

// A database as schema version 4 wrote it (the steps table, no xray table), with one
// run, one epoch and two sampled steps.
void writeVersion4Database(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, R"sql(
CREATE TABLE paritylab_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE study (
  id INTEGER PRIMARY KEY CHECK (id = 1), spec TEXT NOT NULL, software_version TEXT NOT NULL,
  created TEXT NOT NULL);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT, backend TEXT NOT NULL, policy TEXT NOT NULL,
  seed INTEGER NOT NULL, status TEXT NOT NULL, epochs_done INTEGER NOT NULL DEFAULT 0,
  final_train_loss REAL, final_test_loss REAL, final_accuracy REAL, wall_seconds REAL,
  diverged_epoch INTEGER, message TEXT NOT NULL DEFAULT '', source TEXT NOT NULL DEFAULT 'emulated',
  run_name TEXT NOT NULL DEFAULT '', seed_given INTEGER NOT NULL DEFAULT 1,
  claimed_by TEXT NOT NULL DEFAULT '');
CREATE TABLE epochs (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, epoch INTEGER NOT NULL,
  train_loss REAL, test_loss REAL, test_accuracy REAL, seconds REAL,
  skipped_steps INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run_id, epoch));
CREATE TABLE steps (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,
  epoch INTEGER NOT NULL, train_loss REAL, lr REAL, PRIMARY KEY (run_id, step));
CREATE UNIQUE INDEX runs_emulated_identity ON runs (backend, seed) WHERE source = 'emulated';
CREATE UNIQUE INDEX runs_imported_identity ON runs (backend, message) WHERE source = 'imported';
INSERT INTO paritylab_meta (key, value) VALUES ('format', 'paritylab-results-1'),
  ('schema_version', '4');
INSERT INTO runs (backend, policy, seed, status, epochs_done, final_accuracy) VALUES
  ('gpu-amp-fp16', '{}', 0, 'completed', 1, 0.75);
INSERT INTO epochs VALUES (1, 1, 0.5, 0.4, 0.75, 2.0, 0);
INSERT INTO steps VALUES (1, 1, 1, 0.9, 0.1), (1, 2, 1, 0.8, 0.1);
)sql",
                              nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST(XrayStore, Version4DatabaseGainsTheTableForWritingAndReadsAsNoSamples) {
  const std::string path = tempPath("v4.db");
  writeVersion4Database(path);
  ASSERT_EQ(schemaVersionOfFile(path), 4);
  const std::string before = fileBytesOf(path);
  {  // A reader (report, xray, the app viewing it) finds no samples and changes nothing.
    auto reader = ResultsStore::openReadOnly(path);
    EXPECT_TRUE(reader->loadXray().empty());
    EXPECT_TRUE(reader->loadXray(1).empty());
    EXPECT_TRUE(summariseXray(*reader, {}).empty());
    const std::string csvPath = tempPath("v4-xray.csv");
    EXPECT_EQ(writeXrayCsv(*reader, csvPath), 0u);  // the header only
    std::ifstream in(csvPath);
    std::string header, rest;
    std::getline(in, header);
    EXPECT_EQ(header.rfind("run_id,backend,seed,step,epoch,site,", 0), 0u) << header;
    EXPECT_FALSE(std::getline(in, rest));
    ASSERT_EQ(reader->loadAllSteps().count(1), 1u);
    EXPECT_EQ(reader->loadAllSteps().at(1).size(), 2u);
  }
  EXPECT_EQ(fileBytesOf(path), before);
  EXPECT_EQ(schemaVersionOfFile(path), 4);
  {  // Opened for writing (run --resume, a study extended): migrated to version 5.
    auto store = ResultsStore::open(path);
    EXPECT_TRUE(store->openNotes().empty());
    EXPECT_TRUE(store->loadXray().empty());
    store->addXraySample(1, {8, 1, {{"fc1.fwd", "input", "fp16", syntheticXray(0, 10)}}});
    ASSERT_EQ(store->loadXray(1).size(), 1u);
    EXPECT_EQ(store->loadXray(1)[0].step, 8);
    EXPECT_EQ(store->loadAllSteps().at(1).size(), 2u);  // what version 4 held stays
    EXPECT_EQ(store->loadEpochs(1).size(), 1u);
  }
  EXPECT_EQ(schemaVersionOfFile(path), currentSchemaVersion());
  EXPECT_GE(currentSchemaVersion(), 5);  // version 6 (the divergence tables) came after
  auto reader = ResultsStore::openReadOnly(path);
  ASSERT_EQ(reader->loadXray().size(), 1u);
  EXPECT_EQ(reader->loadXray()[0].site, "fc1.fwd");
  EXPECT_TRUE(ResultsStore::open(path)->openNotes().empty());  // migrated once
}

// A block-scaled operand's scales are findings about blocks: their scale underflows or saturates
// the scale's format, never "flushes to zero".
TEST(XrayFindings, ABlockScaledOperandsScalesAreSpokenOfAsBlocks) {
  XraySiteSummary s;
  s.backend = "nvfp4";
  s.site = "fc1.wgrad";
  s.operand = "grad scales";
  s.format = "e4m3 x fp32";
  s.underflow = {0.25, 1, 40, 2};
  s.overflow = {0.02, 1, 41, 2};
  s.firstUnderflowEpoch = 1;
  const auto findings = xrayFindings({s});
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0],
            "nvfp4: up to 25% of the blocks of fc1.wgrad's grad operand have a scale that "
            "underflows e4m3 x fp32 (from epoch 1; worst at step 40, epoch 2)");
  EXPECT_EQ(findings[1],
            "nvfp4: 2.0% of the blocks of fc1.wgrad's grad operand have a scale that saturates "
            "e4m3 x fp32 (worst at step 41, epoch 2)");
}

TEST(XrayStore, HistogramTextRejectsGarbageNamingIt) {
  numerics::TensorXray x;
  EXPECT_THROW(parseExponentHistogram("3:4 banana", x), std::runtime_error);
  EXPECT_THROW(parseExponentHistogram("500:1", x), std::runtime_error);
  parseExponentHistogram("-149:2 127:1 zero:5", x);
  EXPECT_EQ(x.exponentBins.front(), 2);
  EXPECT_EQ(x.exponentBins.back(), 1);
}

}  // namespace
}  // namespace paritylab::study
