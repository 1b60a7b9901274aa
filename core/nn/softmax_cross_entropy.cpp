#include "core/nn/softmax_cross_entropy.h"

#include <cmath>

namespace paritylab::nn {

LossResult softmaxCrossEntropy(const Tensor& logits, const std::int32_t* labels, Tensor* dlogits,
                               float gradScale, std::int32_t* predicted,
                               float* trueClassProbability) {
  const int k = logits.dim(logits.shape().rank - 1);
  const int n = int(logits.size() / std::size_t(k));
  LossResult result;
  if (dlogits) dlogits->resize(logits.shape());
  double total = 0.0;
  const float gradPerItem = gradScale / float(n);
  for (int i = 0; i < n; ++i) {
    const float* z = logits.data() + std::size_t(i) * k;
    int best = 0;
    float maxZ = z[0];
    for (int j = 1; j < k; ++j)
      if (z[j] > maxZ || std::isnan(z[j])) {
        maxZ = z[j];
        best = j;
      }
    float sum = 0.0f;
    for (int j = 0; j < k; ++j) sum += std::exp(z[j] - maxZ);
    const float logSum = std::log(sum);
    const int label = labels[i];
    total += double(logSum - (z[label] - maxZ));
    if (best == label) ++result.correct;
    if (predicted) predicted[i] = best;
    if (trueClassProbability) trueClassProbability[i] = std::exp(z[label] - maxZ - logSum);
    if (dlogits) {
      float* g = dlogits->data() + std::size_t(i) * k;
      for (int j = 0; j < k; ++j) {
        const float p = std::exp(z[j] - maxZ - logSum);
        g[j] = (p - (j == label ? 1.0f : 0.0f)) * gradPerItem;
      }
    }
  }
  result.loss = total / n;
  return result;
}

}  // namespace paritylab::nn
