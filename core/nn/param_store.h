#pragma once
// All parameters and buffers of a model in flat fp32 arrays, so that the optimizer, gradient
// clipping, all-reduce and checkpoints each work on one contiguous range.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/tensor.h"

namespace paritylab::nn {

enum class ParamKind {
  Weight,  // trained; seen by products through the policy's weight storage format
  Buffer,  // not trained (batch-norm running statistics); saved in checkpoints
};

struct ParamInfo {
  std::string name;  // e.g. "layer1.0.conv1.weight"
  Shape shape;
  std::size_t offset = 0;
  std::size_t size = 0;
  ParamKind kind = ParamKind::Weight;
  bool backbone = true;  // false: part of the classification head
};

class ParamStore {
 public:
  // Registration (before finalize()). Returns the parameter's id.
  int add(std::string name, const Shape& shape, ParamKind kind, bool backbone);
  // Allocates storage; `separateWorking`: products see a rounded copy of fp32 master weights.
  void finalize(bool separateWorking);

  const std::vector<ParamInfo>& infos() const { return infos_; }
  const ParamInfo& info(int id) const { return infos_[std::size_t(id)]; }
  std::size_t totalSize() const { return total_; }

  // Master values (fp32 unless the policy stores weights without master copies).
  float* master(int id) { return master_.data() + infos_[std::size_t(id)].offset; }
  const float* master(int id) const { return master_.data() + infos_[std::size_t(id)].offset; }
  // The values the products see: a rounded working copy when weights are stored narrower than
  // their fp32 master, else the master itself.
  const float* value(int id) const {
    return (working_.empty() ? master_.data() : working_.data()) + infos_[std::size_t(id)].offset;
  }
  float* grad(int id) { return grads_.data() + infos_[std::size_t(id)].offset; }
  const float* grad(int id) const { return grads_.data() + infos_[std::size_t(id)].offset; }

  std::vector<float>& masterData() { return master_; }
  const std::vector<float>& masterData() const { return master_; }
  std::vector<float>& gradData() { return grads_; }
  const std::vector<float>& gradData() const { return grads_; }

  // Re-derives the working copy after the master weights changed (init, load, optimizer step):
  // rounds Weight entries to `format` (stochastically with `seed` if its mode says so).
  void refreshWorking(const std::optional<numerics::RoundingSpec>& format, std::uint64_t seed);
  // Rounds the master Weight entries in place (weights stored without fp32 master copies).
  void roundMaster(const std::optional<numerics::RoundingSpec>& format, std::uint64_t seed);

  // Contiguous ranges [offset, offset + size) of the Weight entries that are trained in the
  // current phase (all, or head only).
  struct Range {
    std::size_t offset, size;
  };
  std::vector<Range> weightRanges(bool headOnly) const;

 private:
  std::vector<ParamInfo> infos_;
  std::size_t total_ = 0;
  std::vector<float> master_, working_, grads_;
};

// The chaos floor's one-ulp perturbation: the first value of the first trained parameter (the
// first layer's first weight) moved to the next fp32 value up. Returns that parameter's name.
std::string nudgeFirstWeight(ParamStore& params);

}  // namespace paritylab::nn
