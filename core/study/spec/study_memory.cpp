#include "core/study/spec/study_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "core/data/byte_reader.h"
#include "core/nn/model.h"

namespace paritylab::study {

nn::ModelSpec modelSpecFor(const StudySpec& spec, const data::Dataset& sample) {
  nn::ModelSpec model;
  model.name = spec.train.model;
  model.channels = sample.channels;
  model.height = sample.height;
  model.width = sample.width;
  model.numClasses = std::max(sample.numClasses, 2);
  model.resnetWidth = spec.train.width;
  model.gpt = spec.train.gpt;
  return model;
}

MemoryEstimate estimateStudyMemory(const StudySpec& spec, const data::Dataset& sample,
                                   std::uint64_t trainImages, std::uint64_t testImages) {
  MemoryEstimate e;
  const std::uint64_t imageFloats = sample.imageSize();
  e.datasetBytes = (trainImages + testImages) * imageFloats * sizeof(float);
  const nn::ModelSize size = nn::measureModel(modelSpecFor(spec, sample));

  std::uint64_t worst = 0;
  for (const BackendEntry& backend : spec.backends) {
    const nn::TrainConfig config = trainConfigFor(spec, backend);
    const std::uint64_t replicas = std::uint64_t(std::max(backend.policy.topology.replicas, 1));
    // Master, working copy, gradient, two optimizer moments, the best/backbone checkpoint.
    const std::uint64_t parameters = 6 * std::uint64_t(size.parameters);
    // Training: outputs kept for backward, their gradients, layer workspaces: at least 4 per
    // item; evaluation: the outputs and workspaces, no gradients: 2 per item. Per-replica state
    // (batch-norm statistics, shards) holds at least one more parameter copy each.
    const std::uint64_t perItem = std::uint64_t(size.activationsPerItem);
    const std::uint64_t activations =
        std::max(4 * std::uint64_t(config.batchSize), 2 * std::uint64_t(config.evalBatchSize)) *
        perItem;
    const std::uint64_t perReplica = (replicas - 1) * std::uint64_t(size.parameters);
    worst = std::max(worst, (parameters + activations + perReplica) * sizeof(float));
  }
  e.perWorkerBytes = worst;
  const std::uint64_t runs = std::uint64_t(spec.backends.size()) * spec.seeds.size();
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  e.workers = int(std::min<std::uint64_t>(spec.threads > 0 ? spec.threads : cores, runs));
  e.workers = std::max(e.workers, 1);
  return e;
}

void requireStudyFitsMemory(const MemoryEstimate& e, std::uint64_t memoryBytes) {
  if (memoryBytes == 0 || e.totalBytes() <= memoryBytes) return;
  throw SpecError("the study needs an estimated " + formatBytes(e.totalBytes()) +
                  " of memory (dataset " + formatBytes(e.datasetBytes) + " + " +
                  std::to_string(e.workers) + " runs at once x " + formatBytes(e.perWorkerBytes) +
                  "), more than the " + formatBytes(memoryBytes) +
                  " of this machine; lower dataset.train_size, batch_size, eval_batch_size, width, "
                  "replicas or threads");
}

std::uint64_t physicalMemoryBytes() {
  return data::physicalMemoryBytes();
}

std::string formatBytes(std::uint64_t bytes) {
  char buf[32];
  if (bytes >= (std::uint64_t(1) << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ULL << 30));
  else
    std::snprintf(buf, sizeof buf, "%.0f MiB", double(bytes) / double(1ULL << 20));
  return buf;
}

}  // namespace paritylab::study
