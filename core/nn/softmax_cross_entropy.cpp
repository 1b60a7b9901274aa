#include "core/nn/softmax_cross_entropy.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/nn/gemm.h"
#include "core/nn/gemm_xray.h"
#include "core/nn/random.h"

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

namespace {

// The loss with every value it takes, keeps and returns passed to hold(values, count, part,
// quantity) before it is used: the held loss rounds there, the X-ray measures there.
template <typename Hold>
LossResult lossThroughHolds(const Tensor& logits, const std::int32_t* labels, Tensor* dlogits,
                            float gradScale, Hold&& hold) {
  const int k = logits.dim(logits.shape().rank - 1);
  const int n = int(logits.size() / std::size_t(k));
  LossResult result;
  if (dlogits) dlogits->resize(logits.shape());
  std::vector<float> z(static_cast<std::size_t>(k)), e(static_cast<std::size_t>(k));
  double total = 0.0;
  const float gradPerItem = gradScale / float(n);
  for (int i = 0; i < n; ++i) {
    const std::uint64_t part = std::uint64_t(i) * 8;
    std::copy_n(logits.data() + std::size_t(i) * k, k, z.data());
    hold(z.data(), z.size(), part, "logits");
    int best = 0;
    for (int j = 1; j < k; ++j)
      if (z[std::size_t(j)] > z[std::size_t(best)] || std::isnan(z[std::size_t(j)])) best = j;
    const float maxZ = z[std::size_t(best)];
    for (int j = 0; j < k; ++j) e[std::size_t(j)] = std::exp(z[std::size_t(j)] - maxZ);
    hold(e.data(), e.size(), part + 1, "exp");
    double sum = 0.0;
    for (float v : e) sum += v;
    auto heldSum = float(sum);
    hold(&heldSum, 1, part + 2, "sum");
    float logSum = std::log(heldSum);
    hold(&logSum, 1, part + 3, "log sum");
    const int label = labels[i];
    float rowLoss = logSum - (z[std::size_t(label)] - maxZ);
    hold(&rowLoss, 1, part + 4, "position loss");
    total += rowLoss;
    if (best == label) ++result.correct;
    if (dlogits) {
      float* g = dlogits->data() + std::size_t(i) * k;
      for (int j = 0; j < k; ++j) g[j] = e[std::size_t(j)] / heldSum;
      hold(g, std::size_t(k), part + 5, "probs");
      g[label] -= 1.0f;
      for (int j = 0; j < k; ++j) g[j] *= gradPerItem;
      hold(g, std::size_t(k), part + 6, "grad");
    }
  }
  auto mean = float(total / n);
  hold(&mean, 1, std::uint64_t(n) * 8, "mean loss");  // after every row's parts
  result.loss = mean;
  return result;
}

}  // namespace

LossResult heldSoftmaxCrossEntropy(const Tensor& logits, const std::int32_t* labels,
                                   Tensor* dlogits, float gradScale,
                                   const std::optional<numerics::RoundingSpec>& held,
                                   std::uint64_t seed, GemmXray* xray) {
  static const std::string kXraySite = "loss";
  const bool measured = xray && xray->measuring();
  if (!held) {
    const LossResult result = softmaxCrossEntropy(logits, labels, dlogits, gradScale);
    if (measured) {  // the same values computed once more, measured against fp32 (they stay)
      Tensor probabilities;
      lossThroughHolds(logits, labels, &probabilities, gradScale,
                       [&](float* values, std::size_t count, std::uint64_t, const char* quantity) {
                         xray->addHeld(kXraySite, quantity, {values, count}, std::nullopt, 0);
                       });
    }
    return result;
  }
  return lossThroughHolds(
      logits, labels, dlogits, gradScale,
      [&](float* values, std::size_t count, std::uint64_t part, const char* quantity) {
        const std::uint64_t stream = hashSeed(seed, part);
        if (measured) xray->addHeld(kXraySite, quantity, {values, count}, held, stream);
        storeTensor(held, values, count, stream);
      });
}

}  // namespace paritylab::nn
