#pragma once
// Model weights on disk: a small binary format.
//   "PLCKPT01" magic (8 bytes), u32 tensor count, then per tensor: u32 name length, name bytes,
//   u32 rank, i32 dims[rank], f32 values[prod(dims)]; all little-endian.
// Holds every parameter and buffer (batch-norm running statistics) by name.

#include <stdexcept>
#include <string>

#include "core/input/error.h"
#include "core/nn/param_store.h"

namespace paritylab::nn {

class CheckpointError : public ErrorOf<std::runtime_error> {
 public:
  using ErrorOf::ErrorOf;
};

// Writes the master values. Throws CheckpointError naming the file when it cannot be written.
void saveCheckpoint(const std::string& path, const ParamStore& params);

struct CheckpointLoad {
  int loaded = 0;         // tensors taken from the file
  int headKeptFresh = 0;  // head tensors left as initialised (absent or of another shape)
};

// Loads every backbone tensor (must be present with the same shape) and the head tensors whose
// shapes match (a new head for another class count keeps its fresh initialisation).
// Throws CheckpointError naming the file and the tensor for a missing file, bad magic, truncated
// data, or a missing/mismatched backbone tensor.
CheckpointLoad loadCheckpoint(const std::string& path, ParamStore& params);

}  // namespace paritylab::nn
