// A study's memory is estimated before it starts, and a study that does not fit
// is refused with the figures (never std::bad_alloc).

#include "core/study/spec/study_memory.h"

#include <gtest/gtest.h>

#include "core/nn/model.h"

namespace paritylab::study {
namespace {

data::Dataset shapeOnly(int channels, int side, int classes) {
  data::Dataset d;
  d.channels = channels;
  d.height = d.width = side;
  d.numClasses = classes;
  return d;
}

TEST(StudyMemory, ModelMeasuredWithoutAllocatingMatchesTheBuiltModel) {
  for (const char* name : {"mlp", "small-cnn", "resnet18"}) {
    nn::ModelSpec spec;
    spec.name = name;
    spec.channels = 3;
    spec.height = spec.width = 16;
    spec.resnetWidth = 8;
    const auto model = nn::makeModel(spec);
    const nn::ModelSize size = nn::measureModel(spec);
    EXPECT_EQ(size.parameters, model->params.totalSize()) << name;
    EXPECT_GT(size.activationsPerItem, std::size_t(10)) << name;  // at least the logits
  }
}

TEST(StudyMemory, DatasetBytesAndWorkersFromTheSpec) {
  const StudySpec spec = parseStudySpec(R"({"name": "m", "backends": ["cpu-fp32", "tpu-bf16"],
      "seeds": 3, "threads": 4, "model": "mlp"})");
  const MemoryEstimate e = estimateStudyMemory(spec, shapeOnly(1, 28, 10), 1000, 500);
  EXPECT_EQ(e.datasetBytes, std::uint64_t(1500) * 784 * 4);
  EXPECT_EQ(e.workers, 4);
  EXPECT_GT(e.perWorkerBytes, std::uint64_t(0));
  EXPECT_LT(e.totalBytes(), std::uint64_t(1) << 30);  // the quick study's mlp: well under 1 GiB
  EXPECT_NO_THROW(requireStudyFitsMemory(e, std::uint64_t(1) << 30));
}

TEST(StudyMemory, AnEvaluationBatchLargerThanTrainingIsCountedWithoutGradients) {
  const auto perWorker = [](int evalBatch) {
    const StudySpec spec = parseStudySpec(
        R"({"name": "m", "backends": ["cpu-fp32"], "model": "mlp", "batch_size": 10,
            "eval_batch_size": )" +
        std::to_string(evalBatch) + "}");
    return estimateStudyMemory(spec, shapeOnly(1, 28, 10), 1000, 500).perWorkerBytes;
  };
  // Up to twice the training batch, training's four copies per item are the larger.
  EXPECT_EQ(perWorker(10), perWorker(20));
  // Beyond: two copies per evaluated item (outputs and workspaces).
  const std::uint64_t perItem = (perWorker(1020) - perWorker(1000)) / 20;
  EXPECT_EQ(perWorker(2020) - perWorker(1020), 1000 * perItem);
  EXPECT_GT(perWorker(1000), perWorker(20));
}

TEST(StudyMemory, StudyBeyondTheMachineRefusedWithTheFigure) {
  // resnet18 at its width limit with the largest batch: terabytes of activations.
  const StudySpec spec = parseStudySpec(R"({"name": "big", "backends": ["tpu-bf16"], "seeds": 1,
      "model": "resnet18", "width": 256, "batch_size": 65536})");
  const MemoryEstimate e = estimateStudyMemory(spec, shapeOnly(1, 28, 10), 60000, 10000);
  EXPECT_GT(e.totalBytes(), std::uint64_t(1) << 40);
  try {
    requireStudyFitsMemory(e, std::uint64_t(16) << 30);
    ADD_FAILURE() << "not refused";
  } catch (const SpecError& ex) {
    const std::string m = ex.what();
    EXPECT_EQ(m.rfind("the study needs an estimated ", 0), 0u) << m;
    EXPECT_NE(m.find("more than the 16.0 GiB of this machine"), std::string::npos) << m;
    EXPECT_NE(m.find("dataset 209 MiB"), std::string::npos) << m;  // 70000 x 784 x 4 bytes
  }
  EXPECT_EQ(formatBytes(std::uint64_t(3) << 29), "1.5 GiB");
}

}  // namespace
}  // namespace paritylab::study
