#pragma once
// Transformer Engine's delayed scaling for one tensor: an amax history ring of the last
// `historyLength` steps; scale = (fp8 max / max(history)) / 2^margin, computed from PREVIOUS
// steps (scale 1 until the first amax is recorded, or when the history's amax is 0 or not
// finite), as TE's default recipe (amax_compute_algo "max").

#include <cstddef>
#include <vector>

namespace paritylab::nn {

class Fp8TensorScale {
 public:
  // fp8Max: the operand format's largest finite value (E4M3 448, E5M2 57344).
  Fp8TensorScale(double fp8Max, int historyLength = 16, double margin = 0.0);

  float scale() const { return scale_; }  // multiply the tensor by this before casting to fp8
  float amax() const;                     // max over the history (0 when empty)
  // Records |max| of this step's tensor [n] and recomputes the scale for the next step.
  void record(const float* values, std::size_t n);
  void recordAmax(float amax);

 private:
  double fp8Max_, margin_;
  std::vector<float> history_;  // ring of the last historyLength amax values
  std::size_t next_ = 0, filled_ = 0;
  float scale_ = 1.0f;
};

}  // namespace paritylab::nn
