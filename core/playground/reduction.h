#pragma once
// Error of a length-K dot product against its exact value, by operand rounding (each backend's),
// summation order (sequential, pairwise, 8 shards + all-reduce tree) and accumulation format.

#include <cstdint>
#include <string>
#include <vector>

#include "core/backends/precision_policy.h"

namespace paritylab::playground {

enum class Distribution { Uniform01, Normal, WideRange };
std::string_view toString(Distribution d);  // "uniform", "normal", "wide"
// Throws std::invalid_argument naming the value and listing the names.
Distribution parseDistribution(std::string_view name);

// Seeded random operands [n]: uniform in [0, 1); standard normal; or wide dynamic range
// (random sign times 2^u, u uniform in [-12, 12]).
std::vector<float> randomVector(Distribution d, std::size_t n, std::uint64_t seed);

// One way of forming the elementwise products a_i * b_i: the operand rounding of a backend's
// forward product (operand formats, multi-pass split, fp8 per-tensor scaling), computed by
// nn::gemm() with that policy minus its output and accumulation rounding.
struct OperandRounding {
  std::string name;                   // "fp32", "tf32", "bf16", "fp16", "bf16x3", "fp8-e4m3", ...
  std::vector<std::string> backends;  // the presets whose products round operands this way
  backends::GemmPolicy policy;        // operands/operandsB/passes only
  bool perTensorScaling = false;      // fp8: operands scaled to the format's range first
};
// The distinct operand roundings of the presets' linear and convolution forward products, in
// preset order (gpu-tf32's TF32 comes from its convolutions, labelled "gpu-tf32 (conv)").
std::vector<OperandRounding> presetOperandRoundings();

// products[i] = a_i * b_i as the operand rounding forms them (fp32 results).
std::vector<float> roundedProducts(const OperandRounding& rounding, const std::vector<float>& a,
                                   const std::vector<float>& b);

enum class SummationOrder { Sequential, Pairwise, Blocked8 };
std::string_view toString(SummationOrder order);  // "sequential", "pairwise", "blocked-8"

// fp32 sums of `values` in one order:
float sequentialSum(const std::vector<float>& values);  // ((v0 + v1) + v2) + ...
float pairwiseSum(const std::vector<float>& values);    // balanced binary tree of additions
// 8 contiguous shards (as 8 TPU cores), each summed sequentially, then the 8 partial sums reduced
// in the fixed tree order of the replica all-reduce, ((0+1)+(2+3))+((4+5)+(6+7)).
float blockedSum(const std::vector<float>& values, int shards = 8);
float orderedSum(const std::vector<float>& values, SummationOrder order);
// Sequential with the running sum rounded to `format` after every addition (low-precision
// accumulation, as gemm's accumulationChunk = 1).
float lowPrecisionSequentialSum(const std::vector<float>& values,
                                const numerics::RoundingSpec& format);

// |computed - exact| / sum_i |a_i b_i| (the error relative to the sum of magnitudes, which for
// positive data is the relative error; inf/NaN when computed is not finite).
double normalizedError(double computed, double exact, double magnitudeSum);

struct ReductionConfig {
  Distribution distribution = Distribution::Uniform01;
  std::uint64_t seed = 0;
  std::vector<int> lengths;  // empty: 16, 64, 256, ..., 2^20 (powers of 4)
  int trials = 8;            // per length below largeFrom
  int largeTrials = 2;       // per length >= largeFrom (keeps the default under a second or two)
  int largeFrom = 1 << 18;
};
std::vector<int> defaultReductionLengths();

struct ReductionPoint {
  int length = 0;
  // Per trial, normalised (see normalizedError): against the exact dot product of the fp32
  // inputs (total error), and against the exact sum of the products as rounded (accumulation).
  std::vector<double> totalError, accumulationError;
};
struct ReductionCurve {
  std::string label;         // e.g. "bf16 operands · fp32 pairwise"
  std::string operands;      // OperandRounding::name
  std::string backends;      // presets sharing the operand rounding, comma-separated
  std::string order;         // toString(SummationOrder)
  std::string accumulation;  // "fp32", "bf16", "fp16"
  std::vector<ReductionPoint> points;
};
struct ReductionExperiment {
  ReductionConfig config;
  std::vector<ReductionCurve> curves;
};
// Every operand rounding x every order with fp32 accumulation, then bf16 and fp16 sequential
// accumulation (of bf16 and fp16 operand products) for contrast. Throws std::invalid_argument
// for a length < 1 or > 2^24, or trials < 1.
ReductionExperiment runReductionExperiment(const ReductionConfig& config);

// Summary of one point: median, min and max over its trials of `errors`.
struct Band {
  double median = 0.0, min = 0.0, max = 0.0;
};
Band band(std::vector<double> errors);

}  // namespace paritylab::playground
