// Covers issue 14.2 (the "xray" field of a study spec) and 14.3 (X-ray records stored per run,
// site, operand and sample; `report --xray` long-form CSV; summaries and findings).

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/study/results_store.h"
#include "core/study/xray_findings.h"
#include "core/study/xray_rows.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

std::string tempPath(const std::string& name) {
  auto p = fs::temp_directory_path() /
           ("paritylab-xray-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove(p);
  fs::remove(p.string() + "-wal");
  fs::remove(p.string() + "-shm");
  return p.string();
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
  EXPECT_NE(first.find(",inf,0,-20:99 2:1 zero:3"), std::string::npos) << first;

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

  // A run redone from scratch loses its samples.
  store->deleteXray(a.id);
  EXPECT_TRUE(store->loadXray(a.id).empty());
  EXPECT_EQ(store->loadXray().size(), 4u);
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
