#include "core/study/analysis/xray_findings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>

namespace paritylab::study {
namespace {

bool siteMatches(const std::string& site, const std::string& wanted) {
  return wanted.empty() || site == wanted ||
         (site.size() > wanted.size() && site.compare(0, wanted.size(), wanted) == 0 &&
          site[wanted.size()] == '.');
}

void keepWorst(XrayWorst& worst, double value, const XrayRow& row, bool larger, bool first) {
  if (first || (larger ? value > worst.value : value < worst.value))
    worst = {value, row.runId, row.step, row.epoch};
}

std::string operandText(const std::string& site, const std::string& operand) {
  return operand == "output" ? site + "'s output" : site + "'s " + operand + " operand";
}

// A block-scaled operand's scales ("input scales"): one value per block, whose underflow and
// overflow are the blocks' scales underflowing or saturating, not values flushed.
bool isScales(const std::string& operand) {
  return operand.ends_with(" scales");
}

// What a fraction of an operand does: "<site>'s grad operand flushes to zero in fp16", or for a
// block-scaled operand's scales "the blocks of <site>'s grad operand have a scale that
// underflows e8m0". `valuesVerb` / `scalesVerb`: what happened ("flushes to zero in",
// "underflows").
std::string fractionText(const std::string& site, const std::string& operand,
                         const std::string& format, const std::string& valuesVerb,
                         const std::string& scalesVerb) {
  if (isScales(operand))
    return "the blocks of " + site + "'s " + operand.substr(0, operand.size() - 7) +
           " operand have a scale that " + scalesVerb + " " + format;
  return operandText(site, operand) + " " + valuesVerb + " " + format;
}

std::string when(const XrayWorst& w) {
  return "step " + std::to_string(w.step) + ", epoch " + std::to_string(w.epoch);
}

}  // namespace

std::string percentText(double fraction) {
  const double p = 100.0 * fraction;
  if (p == 0.0) return "0%";
  char buffer[32];
  if (p >= 10.0)
    std::snprintf(buffer, sizeof buffer, "%.0f%%", p);
  else if (p >= 0.1)
    std::snprintf(buffer, sizeof buffer, "%.1f%%", p);
  else
    std::snprintf(buffer, sizeof buffer, "%.2g%%", p);
  return buffer;
}

std::vector<XraySiteSummary> summariseXray(const ResultsStore& store, const XrayFilter& filter) {
  std::map<std::int64_t, std::string> backendOf;
  std::vector<std::string> backendOrder;
  for (const RunRecord& r : store.loadRuns()) {
    backendOf[r.id] = r.backend;
    if (std::find(backendOrder.begin(), backendOrder.end(), r.backend) == backendOrder.end())
      backendOrder.push_back(r.backend);
  }
  std::vector<XraySiteSummary> out;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
  for (const XrayRow& row : store.loadXray(filter.runId)) {
    const std::string& backend = backendOf[row.runId];
    if (!filter.backend.empty() && backend != filter.backend) continue;
    if (!siteMatches(row.site, filter.site)) continue;
    const auto key = std::make_tuple(backend, row.site, row.operand);
    auto [it, added] = index.try_emplace(key, out.size());
    if (added) {
      XraySiteSummary fresh;
      fresh.backend = backend;
      fresh.site = row.site;
      fresh.operand = row.operand;
      fresh.format = row.format;
      out.push_back(std::move(fresh));
    }
    XraySiteSummary& s = out[it->second];
    const numerics::TensorXray& x = row.xray;
    const bool first = s.samples == 0;
    keepWorst(s.underflow, x.underflowFraction(), row, true, first);
    keepWorst(s.overflow, x.overflowFraction(), row, true, first);
    if (first) s.sqnr.value = std::numeric_limits<double>::infinity();
    keepWorst(s.sqnr, x.sqnrDb(), row, false, false);  // NaN (no signal) and inf never worst
    s.meanUnderflow += x.underflowFraction();
    if (x.underflowFraction() >= kNotableFraction &&
        (s.firstUnderflowEpoch == 0 || row.epoch < s.firstUnderflowEpoch))
      s.firstUnderflowEpoch = row.epoch;
    s.amax = std::max(s.amax, x.amax);
    ++s.samples;
  }
  for (XraySiteSummary& s : out) s.meanUnderflow /= std::max(1, s.samples);
  // Backends in run order, sites and operands as recorded within each.
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    auto rank = [&](const std::string& name) {
      return std::find(backendOrder.begin(), backendOrder.end(), name) - backendOrder.begin();
    };
    return rank(a.backend) < rank(b.backend);
  });
  return out;
}

std::vector<std::string> xrayFindings(const std::vector<XraySiteSummary>& summaries) {
  std::vector<std::string> findings;
  // Per site and operand, in first-appearance order: the backends' underflow side by side.
  std::vector<std::pair<std::string, std::string>> keys;
  for (const auto& s : summaries)
    if (std::find(keys.begin(), keys.end(), std::pair{s.site, s.operand}) == keys.end())
      keys.emplace_back(s.site, s.operand);
  for (const auto& [site, operand] : keys) {
    std::vector<const XraySiteSummary*> group;
    for (const auto& s : summaries)
      if (s.site == site && s.operand == operand) group.push_back(&s);
    const auto worst = std::max_element(group.begin(), group.end(), [](auto* a, auto* b) {
      return a->underflow.value < b->underflow.value;
    });
    if ((*worst)->underflow.value >= kNotableFraction) {
      const XraySiteSummary& w = **worst;
      std::string line = w.backend + ": up to " + percentText(w.underflow.value) + " of " +
                         fractionText(site, operand, w.format, "flushes to zero in", "underflows") +
                         " (from epoch " + std::to_string(w.firstUnderflowEpoch) + "; worst at " +
                         when(w.underflow) + ")";
      for (const auto* s : group) {
        if (s != &w) line += "; " + s->backend + ": " + percentText(s->underflow.value);
      }
      findings.push_back(line);
    }
    for (const auto* s : group) {
      if (s->overflow.value > 0.0) {
        findings.push_back(s->backend + ": " + percentText(s->overflow.value) + " of " +
                           fractionText(site, operand, s->format, "overflows", "saturates") +
                           " (worst at " + when(s->overflow) + ")");
      }
    }
  }
  if (findings.empty())
    findings.push_back("No product flushes " + percentText(kNotableFraction) +
                       " or more of an operand to zero, and none overflows.");
  return findings;
}

}  // namespace paritylab::study
