// Checkpoint round trip, loading a backbone under a new head (another class
// count), errors naming the file and the tensor, and the freeze schedule (backbone unchanged
// during the frozen epochs, then trained with a fresh optimizer).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/nn/checkpoint.h"
#include "core/nn/trainer.h"
#include "core/nn/training_session.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

namespace fs = std::filesystem;

std::string tempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("paritylab_nn_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::vector<float> tensorOf(ParamStore& p, const std::string& name) {
  for (std::size_t id = 0; id < p.infos().size(); ++id)
    if (p.infos()[id].name == name)
      return {p.master(int(id)), p.master(int(id)) + p.infos()[id].size};
  ADD_FAILURE() << "no tensor " << name;
  return {};
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(Checkpoint, RoundTripAndNewHead) {
  const std::string path = tempPath("roundtrip.ckpt");
  TrainingSession a({"small-cnn", 1, 12, 12, 10, 4, {}}, backends::PrecisionPolicy{}, 1);
  saveCheckpoint(path, a.model().params);
  TrainingSession b({"small-cnn", 1, 12, 12, 10, 4, {}}, backends::PrecisionPolicy{}, 2);
  EXPECT_NE(b.model().params.masterData(), a.model().params.masterData());
  const CheckpointLoad full = loadCheckpoint(path, b.model().params);
  EXPECT_EQ(b.model().params.masterData(), a.model().params.masterData());  // incl. BN buffers
  EXPECT_EQ(full.headKeptFresh, 0);

  // Same backbone, a 3-class head: the backbone loads, the head keeps its initialisation.
  TrainingSession c({"small-cnn", 1, 12, 12, 3, 4, {}}, backends::PrecisionPolicy{}, 3);
  const std::vector<float> freshHead = tensorOf(c.model().params, "fc2.weight");
  const CheckpointLoad partial = loadCheckpoint(path, c.model().params);
  EXPECT_EQ(partial.headKeptFresh, 2);
  EXPECT_EQ(tensorOf(c.model().params, "conv2.weight"), tensorOf(a.model().params, "conv2.weight"));
  EXPECT_EQ(tensorOf(c.model().params, "bn1.running_var"),
            tensorOf(a.model().params, "bn1.running_var"));
  EXPECT_EQ(tensorOf(c.model().params, "fc2.weight"), freshHead);

  // A backbone of another shape: the error names the file and the tensor.
  TrainingSession d({"small-cnn", 1, 16, 16, 10, 4, {}}, backends::PrecisionPolicy{}, 4);
  const std::string mismatch = errorOf([&] { loadCheckpoint(path, d.model().params); });
  EXPECT_NE(mismatch.find(path), std::string::npos) << mismatch;
  EXPECT_NE(mismatch.find("fc1.weight"), std::string::npos) << mismatch;

  // Truncated, bad magic, missing: named file, no crash.
  const auto size = fs::file_size(path);
  fs::resize_file(path, size / 2);
  const std::string truncated = errorOf([&] { loadCheckpoint(path, b.model().params); });
  EXPECT_NE(truncated.find("truncated"), std::string::npos) << truncated;
  EXPECT_NE(truncated.find(path), std::string::npos) << truncated;
  std::ofstream(path, std::ios::trunc) << "not a checkpoint at all";
  EXPECT_NE(errorOf([&] { loadCheckpoint(path, b.model().params); }).find("bad magic"),
            std::string::npos);
  fs::remove(path);
  EXPECT_NE(errorOf([&] { loadCheckpoint(path, b.model().params); }).find(path), std::string::npos);
}

TEST(FreezeSchedule, BackboneUnchangedWhileFrozenThenTrained) {
  data::DataSplit split;
  split.train = testing::syntheticImages(128, 1, 8, 4, 1);
  split.test = testing::syntheticImages(64, 1, 8, 4, 2);
  TrainConfig c;
  c.model = "small-cnn";
  c.epochs = 1;
  c.freezeEpochs = 1;
  c.batchSize = 32;
  c.seed = 9;
  c.saveCheckpoint = tempPath("frozen.ckpt");
  ASSERT_EQ(train(c, backends::PrecisionPolicy{}, split).status, RunStatus::Completed);
  TrainingSession init({"small-cnn", 1, 8, 8, 4, 64, {}}, backends::PrecisionPolicy{}, c.seed);
  TrainingSession frozen({"small-cnn", 1, 8, 8, 4, 64, {}}, backends::PrecisionPolicy{}, 0);
  loadCheckpoint(c.saveCheckpoint, frozen.model().params);
  for (const ParamInfo& p : init.model().params.infos()) {
    if (p.kind != ParamKind::Weight) continue;
    const bool same =
        tensorOf(init.model().params, p.name) == tensorOf(frozen.model().params, p.name);
    EXPECT_EQ(same, p.backbone) << p.name;  // backbone untouched, head trained
  }
  // Two epochs, one frozen: the second trains the backbone too.
  c.epochs = 2;
  ASSERT_EQ(train(c, backends::PrecisionPolicy{}, split).status, RunStatus::Completed);
  TrainingSession thawed({"small-cnn", 1, 8, 8, 4, 64, {}}, backends::PrecisionPolicy{}, 0);
  loadCheckpoint(c.saveCheckpoint, thawed.model().params);
  EXPECT_NE(tensorOf(init.model().params, "conv1.weight"),
            tensorOf(thawed.model().params, "conv1.weight"));
  fs::remove(c.saveCheckpoint);
}

}  // namespace
}  // namespace paritylab::nn
