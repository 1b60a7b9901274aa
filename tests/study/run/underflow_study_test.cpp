// resources/studies/underflow.json, scaled down to seconds. With fp16
// operands and no loss scaling, the X-ray reports gradient underflow on backward products that
// the same recipe with loss scaling (gpu-amp-fp16) does not, and cpu-fp32 reports none; the
// study's lockstep finds the layer the underflow hits at the step the X-ray sees it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/study/analysis/xray_findings.h"
#include "core/study/run/study_runner.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

TEST(UnderflowStudy, LossScalingKeepsTheGradientsThatFp16WithoutItFlushes) {
  StudySpec spec = loadStudySpecFile(PARITYLAB_SOURCE_DIR "/resources/studies/underflow.json");
  ASSERT_NE(spec.train.xrayEverySteps, 0);  // the study ships with the X-ray on
  spec.dataset.trainSize = 1024;
  spec.dataset.testSize = 200;
  spec.train.epochs = 1;
  spec.seeds = {0};
  const fs::path db =
      fs::temp_directory_path() / ("paritylab-underflow-" + std::to_string(::getpid()) + ".db");
  fs::remove(db);
  {
    auto store = ResultsStore::open(db.string(), true);
    StudyRunner runner(spec, *store);
    const RunnerSummary summary = runner.run();
    ASSERT_EQ(summary.completed, 3);

    // Worst underflow of each backward product's gradient operand, per backend.
    std::map<std::string, std::map<std::string, double>> gradUnderflow;
    for (const XraySiteSummary& s : summariseXray(*store, {})) {
      if (s.backend == "cpu-fp32") {
        EXPECT_EQ(s.underflow.value, 0.0) << s.site << " " << s.operand;
        EXPECT_EQ(s.format, "fp32");
      }
      if (s.operand == "grad" && s.site != "loss")  // the products' gradient operands
        gradUnderflow[s.backend][s.site] = s.underflow.value;
    }
    const auto& noScaling = gradUnderflow["fp16-no-scaling"];
    const auto& scaled = gradUnderflow["gpu-amp-fp16"];
    ASSERT_FALSE(noScaling.empty());
    int flushedOnlyWithoutScaling = 0;
    for (const auto& [site, fraction] : noScaling) {
      ASSERT_TRUE(site.ends_with(".dgrad") || site.ends_with(".wgrad")) << site;
      std::printf("  %-12s grad underflow: no scaling %.4f%%, loss scaling %.4f%%\n", site.c_str(),
                  100 * fraction, 100 * scaled.at(site));
      EXPECT_LE(scaled.at(site), fraction) << site;
      if (fraction >= kNotableFraction && scaled.at(site) < fraction / 10)
        ++flushedOnlyWithoutScaling;
    }
    EXPECT_GE(flushedOnlyWithoutScaling, 1);
    const std::vector<std::string> findings = xrayFindings(summariseXray(*store, {}));
    int gradFindings = 0;
    for (const std::string& f : findings) {
      std::printf("  finding: %s\n", f.c_str());
      if (f.rfind("fp16-no-scaling: up to ", 0) == 0 && f.find("grad operand") != std::string::npos)
        ++gradFindings;
    }
    EXPECT_GE(gradFindings, 1);

    // The lockstep finds the same place at the same step: at the first step the X-ray samples,
    // the layer whose weight gradient is furthest from cpu-fp32's (one step from the same
    // state) is the one whose weight-gradient product's gradient operand fp16 flushes most.
    const std::vector<LockstepRecord> lockstep = store->loadLockstep();
    ASSERT_EQ(lockstep.size(), 1u);
    const nn::LockstepResult& r = lockstep.front().result;
    std::int64_t runId = 0;
    for (const RunRecord& run : store->loadRuns())
      if (run.backend == "fp16-no-scaling" && run.seed == spec.seeds.front()) runId = run.id;
    std::int64_t first = -1;
    std::map<std::string, double> flushed;  // per layer: its .wgrad's gradient operand
    for (const XrayRow& row : store->loadXray(runId))
      if (row.operand == "grad" && row.site.ends_with(".wgrad") &&
          (first < 0 || row.step <= first)) {
        if (row.step < first || first < 0) flushed.clear(), first = row.step;
        flushed[row.site.substr(0, row.site.size() - 6)] =
            double(row.xray.flushed) / double(std::max<std::int64_t>(1, row.xray.count));
      }
    ASSERT_GE(first, 0);
    const auto step = std::find_if(r.steps.begin(), r.steps.end(),
                                   [&](const nn::LockstepStep& s) { return s.step == first + 1; });
    ASSERT_NE(step, r.steps.end()) << "X-ray step " << first;
    std::string mostFlushed, furthest;
    double flushedMax = -1, differenceMax = -1;
    double lowestWithFlushing = 1e300, highestWithout = 0;
    for (std::size_t l = 0; l < r.layers.size(); ++l) {
      const double d = step->difference[l][std::size_t(nn::LockstepQuantity::WeightGradient)];
      const double f = flushed.count(r.layers[l].name) ? flushed.at(r.layers[l].name) : 0.0;
      std::printf("  step %lld %-6s weight-gradient difference %.4f%%, gradient flushed %.4f%%\n",
                  static_cast<long long>(step->step), r.layers[l].name.c_str(), 100 * d, 100 * f);
      if (f > flushedMax) flushedMax = f, mostFlushed = r.layers[l].name;
      if (f >= kNotableFraction)
        lowestWithFlushing = std::min(lowestWithFlushing, d);
      else
        highestWithout = std::max(highestWithout, d);
      if (d > differenceMax) differenceMax = d, furthest = r.layers[l].name;
    }
    EXPECT_GE(flushedMax, kNotableFraction);
    EXPECT_EQ(furthest, mostFlushed);
    EXPECT_GT(differenceMax, lockstep.front().tolerance);
    // Every layer whose gradient is flushed is further off than every layer whose is not.
    EXPECT_GT(lowestWithFlushing, highestWithout);
  }
  fs::remove(db);
  fs::remove(db.string() + "-wal");
  fs::remove(db.string() + "-shm");
}

}  // namespace
}  // namespace paritylab::study
