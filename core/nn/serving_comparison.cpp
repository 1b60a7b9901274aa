#include "core/nn/serving_comparison.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace paritylab::nn {
namespace {

// log softmax of one row, in double.
void logSoftmax(const float* row, std::size_t classes, std::vector<double>& out) {
  out.resize(classes);
  double max = -INFINITY;
  for (std::size_t c = 0; c < classes; ++c) max = std::max(max, double(row[c]));
  double sum = 0.0;
  for (std::size_t c = 0; c < classes; ++c) sum += std::exp(double(row[c]) - max);
  const double logSum = max + std::log(sum);
  for (std::size_t c = 0; c < classes; ++c) out[c] = double(row[c]) - logSum;
}

std::size_t argmax(const float* row, std::size_t classes) {
  return std::size_t(std::max_element(row, row + classes) - row);
}

}  // namespace

std::unique_ptr<TrainingSession> servedCopy(const TrainingSession& trained,
                                            const backends::PrecisionPolicy& serving) {
  auto served = std::make_unique<TrainingSession>(trained.spec(), serving, trained.seed());
  served->model().params.masterData() = trained.model().params.masterData();
  served->weightsChanged(0);
  return served;
}

Answers answersOf(TrainingSession& session, const float* items, std::size_t count, int batchSize) {
  if (batchSize < 1)
    throw std::invalid_argument("answers: batch size must be >= 1, got " +
                                std::to_string(batchSize));
  Answers out;
  const std::size_t itemSize = session.model().input.itemSize();
  for (std::size_t begin = 0; begin < count; begin += std::size_t(batchSize)) {
    const int n = int(std::min<std::size_t>(std::size_t(batchSize), count - begin));
    const Tensor& logits = session.logits(items + begin * itemSize, n, 0xEEEEEEEEull + begin);
    out.classes = std::size_t(logits.dim(logits.shape().rank - 1));
    out.logits.insert(out.logits.end(), logits.data(), logits.data() + logits.size());
  }
  return out;
}

ServingComparison compareAnswers(const Answers& trained, const Answers& served,
                                 const std::int32_t* labels) {
  if (trained.classes != served.classes || trained.logits.size() != served.logits.size())
    throw std::invalid_argument("serving comparison: answers of different shapes");
  ServingComparison out;
  const std::size_t rows = trained.predictions(), classes = trained.classes;
  if (rows == 0) return out;
  std::vector<double> la, lb;
  double absChange = 0.0, kl = 0.0;
  std::int64_t correct = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* ra = trained.logits.data() + r * classes;
    const float* rb = served.logits.data() + r * classes;
    logSoftmax(ra, classes, la);
    logSoftmax(rb, classes, lb);
    const auto label = std::size_t(labels[r]);
    absChange += std::abs(lb[label] - la[label]);
    double d = 0.0;
    for (std::size_t c = 0; c < classes; ++c) d += std::exp(la[c]) * (la[c] - lb[c]);
    kl += std::max(0.0, d);  // >= 0 exactly; rounding may leave -1e-17
    const std::size_t pa = argmax(ra, classes), pb = argmax(rb, classes);
    out.flips += pa != pb ? 1 : 0;
    correct += pb == label ? 1 : 0;
  }
  out.predictions = std::int64_t(rows);
  out.meanAbsLogProbChange = absChange / double(rows);
  out.meanKl = kl / double(rows);
  out.servedAccuracy = double(correct) / double(rows);
  return out;
}

}  // namespace paritylab::nn
