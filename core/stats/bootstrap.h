// Seeded percentile bootstrap over units (runs, or seed-matched pairs of runs): resample the units
// with replacement, recompute the statistic, and take the alpha/2 and 1 - alpha/2 quantiles of
// the replicates (linear interpolation, NumPy's default). Deterministic for a seed on every
// platform: std::mt19937_64 (fully specified by the C++ standard) and a fixed multiply-shift map to
// an index, never std::uniform_int_distribution (implementation-defined).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace paritylab::stats {

struct BootstrapCi {
  double estimate = 0.0;  // the statistic on the units as given
  double ci_low = 0.0;    // percentile interval at level 1 - alpha (NaN if no replicate counted)
  double ci_high = 0.0;
  double alpha = 0.05;
  std::size_t resamples = 0;  // replicates drawn
  std::size_t used = 0;       // replicates whose statistic was finite (NaN ones are skipped)
  std::uint64_t seed = 0;
};

struct BootstrapOptions {
  std::size_t resamples = 2000;
  double alpha = 0.05;
  std::uint64_t seed = 20240607;
};

// statistic(indices): the statistic on the units whose indices (each in [0, count), repeats
// allowed, count of them) are given; it may return NaN for a resample it cannot judge.
// count >= 1, resamples >= 1, alpha in (0, 1); std::invalid_argument otherwise.
BootstrapCi bootstrapCi(std::size_t count,
                        const std::function<double(std::span<const std::size_t>)>& statistic,
                        const BootstrapOptions& options = {});

// The percentile bootstrap CI of the mean of values (>= 1 finite values).
BootstrapCi bootstrapMeanCi(std::span<const double> values, const BootstrapOptions& options = {});

// NumPy's np.quantile(sorted, q) (linear, "type 7") of an ascending, non-empty vector.
double sortedQuantile(std::span<const double> sorted, double q);

}  // namespace paritylab::stats
