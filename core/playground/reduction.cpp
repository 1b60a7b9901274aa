// The reduction experiment: every operand rounding x summation order, over lengths and trials.
#include "core/playground/reduction.h"

#include <cmath>
#include <stdexcept>

#include "core/nn/random.h"
#include "core/playground/exact_sum.h"

namespace paritylab::playground {
namespace {

numerics::RoundingSpec nearestEven(const char* format) {
  numerics::RoundingSpec s;
  s.format = *numerics::parseFormat(format);
  return s;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

double magnitudeSum(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += std::fabs(double(a[i]) * double(b[i]));
  return s;
}

double exactSumOf(const std::vector<float>& values) {
  LongAccumulator s;
  for (float v : values) s.add(v);
  return s.value();
}

}  // namespace

std::vector<int> defaultReductionLengths() {
  std::vector<int> lengths;
  for (int k = 16; k <= (1 << 20); k *= 4) lengths.push_back(k);
  return lengths;
}

ReductionExperiment runReductionExperiment(const ReductionConfig& config) {
  ReductionExperiment e;
  e.config = config;
  if (e.config.lengths.empty()) e.config.lengths = defaultReductionLengths();
  for (int k : e.config.lengths)
    if (k < 1 || k > (1 << 24))
      throw std::invalid_argument("length " + std::to_string(k) + " is outside 1 .. 2^24");
  if (config.trials < 1 || config.largeTrials < 1)
    throw std::invalid_argument("trials must be >= 1 (got " + std::to_string(config.trials) +
                                ", large " + std::to_string(config.largeTrials) + ")");

  const std::vector<OperandRounding> roundings = presetOperandRoundings();
  const SummationOrder orders[] = {SummationOrder::Sequential, SummationOrder::Pairwise,
                                   SummationOrder::Blocked8};
  for (const auto& r : roundings) {
    for (SummationOrder o : orders) {
      ReductionCurve c;
      c.operands = r.name;
      c.backends = joined(r.backends);
      c.order = std::string(toString(o));
      c.accumulation = "fp32";
      c.label = r.name + " operands · fp32 " + c.order;
      e.curves.push_back(std::move(c));
    }
  }
  // Low-precision accumulation for contrast, each on its own format's operands.
  struct LowPrecision {
    const char* format;
    std::size_t rounding;  // index into roundings
    numerics::RoundingSpec spec;
  };
  std::vector<LowPrecision> low;
  for (const char* f : {"bf16", "fp16"}) {
    for (std::size_t i = 0; i < roundings.size(); ++i) {
      if (roundings[i].name == f) {
        low.push_back({f, i, nearestEven(f)});
        ReductionCurve c;
        c.operands = roundings[i].name;
        c.backends = "contrast: no preset accumulates in " + std::string(f);
        c.order = "sequential";
        c.accumulation = f;
        c.label = std::string(f) + " operands · " + f + " sequential";
        e.curves.push_back(std::move(c));
        break;
      }
    }
  }

  for (int k : e.config.lengths) {
    const int trials = k >= e.config.largeFrom ? e.config.largeTrials : e.config.trials;
    for (auto& c : e.curves) c.points.push_back(ReductionPoint{k, {}, {}});
    for (int t = 0; t < trials; ++t) {
      const std::uint64_t s = nn::hashSeed(config.seed, std::uint64_t(k), std::uint64_t(t));
      const std::vector<float> a = randomVector(config.distribution, std::size_t(k), s * 2);
      const std::vector<float> b = randomVector(config.distribution, std::size_t(k), s * 2 + 1);
      const double exact = exactDot(a.data(), b.data(), a.size());
      const double magnitude = magnitudeSum(a, b);
      std::size_t curve = 0;
      std::vector<std::vector<float>> products(roundings.size());
      std::vector<double> exactProducts(roundings.size());
      for (std::size_t r = 0; r < roundings.size(); ++r) {
        products[r] = roundedProducts(roundings[r], a, b);
        exactProducts[r] = exactSumOf(products[r]);
        for (SummationOrder o : orders) {
          const double sum = orderedSum(products[r], o);
          ReductionPoint& p = e.curves[curve++].points.back();
          p.totalError.push_back(normalizedError(sum, exact, magnitude));
          p.accumulationError.push_back(normalizedError(sum, exactProducts[r], magnitude));
        }
      }
      for (const auto& l : low) {
        const double sum = lowPrecisionSequentialSum(products[l.rounding], l.spec);
        ReductionPoint& p = e.curves[curve++].points.back();
        p.totalError.push_back(normalizedError(sum, exact, magnitude));
        p.accumulationError.push_back(normalizedError(sum, exactProducts[l.rounding], magnitude));
      }
    }
  }
  return e;
}

}  // namespace paritylab::playground
