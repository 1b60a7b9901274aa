#pragma once
// A study's memory, estimated before it starts: a study that cannot fit in this
// machine is refused with the figure instead of ending in std::bad_alloc or the OOM killer.

#include <cstdint>
#include <string>

#include "core/data/dataset.h"
#include "core/nn/model.h"
#include "core/study/spec/study_spec.h"

namespace paritylab::study {

struct MemoryEstimate {
  std::uint64_t datasetBytes = 0;    // train + test images as floats, or a text's tokens and
                                     // validation windows (held once, shared)
  std::uint64_t perWorkerBytes = 0;  // one run: parameters, optimizer state, activations
  int workers = 1;                   // runs trained at once
  std::uint64_t totalBytes() const {
    return datasetBytes + perWorkerBytes * std::uint64_t(workers);
  }
};

// The model a study trains, shaped for its data: `sample`'s channels, height, width and classes
// (a language model's vocabulary), the spec's model name, width and transformer shape.
nn::ModelSpec modelSpecFor(const StudySpec& spec, const data::Dataset& sample);

// `sample`: the dataset's shape (channels, height, width, classes), from a probe load;
// `trainImages`/`testImages`: how many images the study will hold. A lower bound: only what is
// certainly allocated (the dataset, 6 copies of the parameters, 4 of the largest backend's
// per-item activations per batch item and per replica).
MemoryEstimate estimateStudyMemory(const StudySpec& spec, const data::Dataset& sample,
                                   std::uint64_t trainImages, std::uint64_t testImages);

// Throws SpecError when the estimate exceeds `memoryBytes` (0: no check), with the figures:
// "the study needs an estimated 37.4 GiB of memory (dataset 29.8 GiB + 2 runs at once x 3.8 GiB),
// more than the 15.6 GiB of this machine; lower ...".
void requireStudyFitsMemory(const MemoryEstimate& estimate, std::uint64_t memoryBytes);

// This machine's physical memory in bytes (0 if unknown).
std::uint64_t physicalMemoryBytes();

// "1.5 GiB", "300 MiB".
std::string formatBytes(std::uint64_t bytes);

}  // namespace paritylab::study
