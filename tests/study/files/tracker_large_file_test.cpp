// A tracker export of 100,000 rows, written by the test, is read whole and quickly: every
// epoch of every run, the last values right. Memory stays bounded by the metrics read, not the
// width of the file.

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "core/study/files/import_input.h"
#include "tests/study/files/tracker_fixtures.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;

TEST(TrackerLargeFile, HundredThousandRowsOfHistoryAreReadWhole) {
  // 10 runs x 10,000 logged steps; val_acc every 10th step (1,000 epochs per run).
  const std::string folder = freshTempPath("wandb-large");
  std::filesystem::create_directories(folder);
  const std::string file = folder + "/history.csv";
  {
    std::ofstream out(file, std::ios::binary);
    out << "Name,device,seed,_step,_runtime,train_loss,val_acc,unread\n";
    for (int run = 0; run < 10; ++run) {
      const std::string head = "run" + std::to_string(run) + "," + (run % 2 ? "gpu" : "tpu") + "," +
                               std::to_string(run / 2) + ",";
      for (int step = 1; step <= 10'000; ++step) {
        out << head << step << "," << step * 0.5 << "," << 2.0 - step * 1e-4 << ",";
        if (step % 10 == 0) out << (step / 10) * 1e-3;
        out << ",x\n";
      }
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const ImportInput input = readImportInput(file);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(input.runs.size(), 10u);
  for (const ImportedRun& r : input.runs) {
    ASSERT_EQ(r.epochs.size(), 1000u) << r.run.message;
    EXPECT_EQ(r.epochs.back().epoch, 10'000);
    EXPECT_EQ(r.run.finalAccuracy, 1.0);
    EXPECT_DOUBLE_EQ(r.run.finalTrainLoss, 1.0);
  }
  EXPECT_EQ(input.runs[3].run.backend, "gpu");
  EXPECT_EQ(input.runs[3].run.seed, 1u);
  EXPECT_LT(seconds, 5.0);  // about a second in a release build
}

}  // namespace
}  // namespace paritylab::study
