// resources/studies/underflow.json, scaled down to seconds. With fp16
// operands and no loss scaling, the X-ray reports gradient underflow on backward products that
// the same recipe with loss scaling (gpu-amp-fp16) does not, and cpu-fp32 reports none.

#include <gtest/gtest.h>

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
  }
  fs::remove(db);
  fs::remove(db.string() + "-wal");
  fs::remove(db.string() + "-shm");
}

}  // namespace
}  // namespace paritylab::study
