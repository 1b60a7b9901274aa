#include "core/study/analysis/identical_runs.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace paritylab::study {
namespace {

// Equal to the last digit; two unknown (NaN) values are equal too.
bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

bool identical(const RunCurve& a, const RunCurve& b) {
  if (a.epochs.size() != b.epochs.size() || !same(a.finalAccuracy, b.finalAccuracy)) return false;
  for (std::size_t i = 0; i < a.epochs.size(); ++i) {
    const EpochRecord &x = a.epochs[i], &y = b.epochs[i];
    if (x.epoch != y.epoch || !same(x.trainLoss, y.trainLoss) || !same(x.testLoss, y.testLoss) ||
        !same(x.testAccuracy, y.testAccuracy))
      return false;
  }
  return true;
}

}  // namespace

int IdenticalRuns::pairs() const {
  int total = 0;
  for (const auto& g : groups) total += int(g.size() * (g.size() - 1) / 2);
  return total;
}

std::vector<IdenticalRuns> findIdenticalRuns(const std::vector<RunCurve>& runs) {
  std::vector<std::string> backends;
  for (const RunCurve& r : runs)
    if (std::find(backends.begin(), backends.end(), r.backend) == backends.end())
      backends.push_back(r.backend);
  std::vector<IdenticalRuns> out;
  for (const std::string& backend : backends) {
    IdenticalRuns found{backend, {}, 0, 0};
    std::vector<bool> grouped(runs.size(), false);
    // Only runs of the same final accuracy and length can be identical: compared within those
    // buckets, so 10,000 different runs are not 50 million comparisons.
    std::map<std::pair<double, std::size_t>, std::vector<std::size_t>> buckets;
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (runs[i].backend == backend && !std::isnan(runs[i].finalAccuracy))
        buckets[{runs[i].finalAccuracy, runs[i].epochs.size()}].push_back(i);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (runs[i].backend != backend || std::isnan(runs[i].finalAccuracy)) continue;
      ++found.n;
      if (grouped[i]) continue;
      ++found.distinct;
      if (runs[i].epochs.size() < 2) continue;
      std::vector<std::size_t> group{i};
      for (std::size_t j : buckets[{runs[i].finalAccuracy, runs[i].epochs.size()}]) {
        if (j > i && !grouped[j] && identical(runs[i], runs[j])) {
          grouped[j] = true;
          group.push_back(j);
        }
      }
      if (group.size() > 1) found.groups.push_back(std::move(group));
    }
    if (!found.groups.empty()) out.push_back(std::move(found));
  }
  return out;
}

constexpr std::size_t kMaxGroupsNamed = 10;
constexpr std::size_t kMaxNamesLength = 400;

std::vector<std::string> describeIdenticalRuns(const std::vector<IdenticalRuns>& found,
                                               const std::vector<RunCurve>& runs) {
  std::vector<std::string> lines;
  for (const IdenticalRuns& f : found) {
    std::string names;
    std::size_t shown = 0;
    for (const auto& group : f.groups) {
      // A bounded note: the first groups by name, then how many more (10,000 identical runs made
      // one line of 69 KB).
      if (shown == kMaxGroupsNamed || names.size() > kMaxNamesLength) {
        names += "; and " + std::to_string(f.groups.size() - shown) + " more group" +
                 (f.groups.size() - shown == 1 ? "" : "s");
        break;
      }
      ++shown;
      if (!names.empty()) names += "; ";
      for (std::size_t k = 0; k < group.size(); ++k) {
        if (k > 0 && names.size() > kMaxNamesLength) {
          names += " and " + std::to_string(group.size() - k) + " more";
          break;
        }
        if (k > 0) names += k + 1 == group.size() ? " and " : ", ";
        const std::string& name = runs[group[k]].name;
        if (name.empty()) {
          names += '#';
          names += std::to_string(group[k] + 1);
        } else {
          names += name;
        }
      }
    }
    const int pairs = f.pairs();
    lines.push_back(f.backend + ": " + std::to_string(pairs) + (pairs == 1 ? " pair" : " pairs") +
                    " of identical runs (" + names + "); n would be " + std::to_string(f.distinct) +
                    " without them (" + std::to_string(f.n) + " runs)");
  }
  return lines;
}

}  // namespace paritylab::study
