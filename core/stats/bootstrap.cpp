#include "core/stats/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/stats/sample_checks.h"

namespace paritylab::stats {

double sortedQuantile(std::span<const double> sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

BootstrapCi bootstrapCi(std::size_t count,
                        const std::function<double(std::span<const std::size_t>)>& statistic,
                        const BootstrapOptions& options) {
  const char* fn = "bootstrapCi";
  if (count == 0) throw std::invalid_argument(std::string(fn) + ": no units to resample");
  if (options.resamples == 0) throw std::invalid_argument(std::string(fn) + ": resamples = 0");
  detail::requireAlpha(fn, options.alpha);
  BootstrapCi r;
  r.alpha = options.alpha;
  r.resamples = options.resamples;
  r.seed = options.seed;
  std::vector<std::size_t> indices(count);
  for (std::size_t i = 0; i < count; ++i) indices[i] = i;
  r.estimate = statistic(indices);

  std::mt19937_64 engine(options.seed);
  std::vector<double> replicates;
  replicates.reserve(options.resamples);
  for (std::size_t b = 0; b < options.resamples; ++b) {
    for (std::size_t& index : indices) {
      // Multiply-shift: floor(draw * count / 2^64), the same on every platform.
      index = static_cast<std::size_t>((static_cast<unsigned __int128>(engine()) * count) >> 64);
    }
    const double value = statistic(indices);
    if (std::isfinite(value)) replicates.push_back(value);
  }
  r.used = replicates.size();
  if (replicates.empty()) {
    r.ci_low = r.ci_high = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  std::sort(replicates.begin(), replicates.end());
  r.ci_low = sortedQuantile(replicates, options.alpha / 2.0);
  r.ci_high = sortedQuantile(replicates, 1.0 - options.alpha / 2.0);
  return r;
}

BootstrapCi bootstrapMeanCi(std::span<const double> values, const BootstrapOptions& options) {
  detail::requireSample("bootstrapMeanCi", "values", values, 1);
  return bootstrapCi(
      values.size(),
      [&](std::span<const std::size_t> indices) {
        double sum = 0.0;
        for (std::size_t i : indices) sum += values[i];
        return sum / static_cast<double>(indices.size());
      },
      options);
}

}  // namespace paritylab::stats
