#pragma once
// What the X-ray of a study says: per backend, product site and operand, the worst
// underflow / overflow / SQNR over the sampled steps of its runs and when; and findings in plain
// words comparing the backends.

#include <cstdint>
#include <string>
#include <vector>

#include "core/study/store/results_store.h"

namespace paritylab::study {

struct XrayWorst {
  double value = 0.0;      // fraction (underflow, overflow) or dB (SQNR)
  std::int64_t runId = 0;  // where and when it was seen
  std::int64_t step = 0;
  int epoch = 0;
};

struct XraySiteSummary {
  std::string backend, site, operand, format;
  int samples = 0;                // sampled steps over all runs of the backend
  XrayWorst underflow, overflow;  // largest fraction of the nonzero finite values
  XrayWorst sqnr;                 // lowest SQNR in dB (+inf: every sample exact)
  double meanUnderflow = 0.0;     // mean over the samples
  int firstUnderflowEpoch = 0;    // first epoch with underflow >= kNotableFraction (0: none)
  double amax = 0.0;              // largest |x| seen
};

// Fractions from this size on are findings (1%); any overflow is one.
inline constexpr double kNotableFraction = 0.01;

struct XrayFilter {
  std::int64_t runId = 0;  // 0: every run
  std::string backend;     // "": every backend
  std::string site;        // "": every site; "conv2" or "conv2.wgrad"
};

// Rows of the store's xray table matching `filter`, summarised per backend (first-appearance
// order), site and operand (as recorded).
std::vector<XraySiteSummary> summariseXray(const ResultsStore& store, const XrayFilter& filter);

// Findings in plain words, e.g. "fp16-no-scaling: up to 31% of conv2.wgrad's grad operand
// flushes to zero in fp16 (from epoch 1; worst at step 120, epoch 2); gpu-amp-fp16: 0.2%;
// cpu-fp32: 0%". One line when nothing is notable.
std::vector<std::string> xrayFindings(const std::vector<XraySiteSummary>& summaries);

// "31%", "0.2%", "0.004%", "0%".
std::string percentText(double fraction);

}  // namespace paritylab::study
