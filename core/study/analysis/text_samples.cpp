#include "core/study/analysis/text_samples.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "core/nn/training_choices.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {
namespace {

double median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Characters written before a and b part (the whole length when identical).
double agreeing(const std::string& a, const std::string& b) {
  const std::optional<std::size_t> at = firstDifference(a, b);
  return double(at ? *at : a.size());
}

}  // namespace

std::optional<std::size_t> firstDifference(std::string_view a, std::string_view b) {
  const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  if (ia == a.end() && ib == b.end()) return std::nullopt;
  return std::size_t(ia - a.begin());
}

SamplesReport compareSamples(const ResultsStore& store, const std::string& reference) {
  SamplesReport report;
  std::vector<std::string> backends;
  if (store.hasStudy()) {
    const StudySpec spec = store.loadStudySpec();
    for (const BackendEntry& e : spec.backends) backends.push_back(e.name);
    if (!nn::isLanguageModel(spec.train.model))
      report.notes.push_back("the study trains '" + spec.train.model +
                             "', not a language model: no samples");
  }
  const std::vector<RunRecord> runs = store.loadRuns();
  for (const RunRecord& r : runs)
    if (std::find(backends.begin(), backends.end(), r.backend) == backends.end())
      backends.push_back(r.backend);
  report.reference = reference.empty() && !backends.empty() ? backends.front() : reference;
  if (std::find(backends.begin(), backends.end(), report.reference) == backends.end()) {
    std::string list;
    for (const std::string& b : backends) list += (list.empty() ? "" : ", ") + b;
    throw std::invalid_argument("backend '" + report.reference + "' is not in the study " +
                                store.path() + " (its backends: " + list + ")");
  }

  const std::map<std::int64_t, nn::TextSample> samples = store.loadSamples();
  // seed -> backend -> run
  std::map<std::uint64_t, std::map<std::string, const RunRecord*>> bySeed;
  std::size_t completedWithout = 0;
  for (const RunRecord& r : runs) {
    if (r.source != "emulated") continue;
    if (samples.count(r.id)) {
      bySeed[r.seed][r.backend] = &r;
    } else if (r.status == RunState::Completed) {
      ++completedWithout;
    } else {
      report.notes.push_back(r.backend + " seed " + std::to_string(r.seed) + " (run " +
                             std::to_string(r.id) + ") has no sample: the run is " +
                             std::string(toString(r.status)));
    }
  }
  if (completedWithout > 0)
    report.notes.push_back(std::to_string(completedWithout) +
                           (completedWithout == 1 ? " completed run has" : " completed runs have") +
                           " no sample (\"samples\": {\"length\": 0}, or trained before "
                           "ParityLab kept samples)");

  for (const auto& [seed, atSeed] : bySeed) {
    SeedSamples row;
    row.seed = seed;
    const auto ref = atSeed.find(report.reference);
    const std::string* refText = ref == atSeed.end() ? nullptr : &samples.at(ref->second->id).text;
    for (const std::string& backend : backends) {
      const auto it = atSeed.find(backend);
      if (it == atSeed.end()) continue;
      const nn::TextSample& s = samples.at(it->second->id);
      if (report.prompt.empty()) {
        report.prompt = s.prompt;
        report.temperature = s.temperature;
      }
      report.length = std::max(report.length, s.text.size());
      BackendSample b{backend, it->second->id, s.text, std::nullopt};
      if (refText && backend != report.reference)
        b.firstDifference = firstDifference(s.text, *refText);
      row.backends.push_back(std::move(b));
    }
    report.seeds.push_back(std::move(row));
  }

  for (const std::string& backend : backends) {
    if (backend == report.reference) continue;
    SampleAgreement a;
    a.backend = backend;
    std::vector<double> agreeingChars;
    for (const auto& [seed, atSeed] : bySeed) {
      const auto x = atSeed.find(backend), r = atSeed.find(report.reference);
      if (x == atSeed.end() || r == atSeed.end()) continue;
      const std::string& tx = samples.at(x->second->id).text;
      const std::string& tr = samples.at(r->second->id).text;
      ++a.seeds;
      if (tx == tr) ++a.identical;
      agreeingChars.push_back(agreeing(tx, tr));
    }
    if (a.seeds == 0) continue;
    a.medianAgreeing = median(agreeingChars);
    report.agreement.push_back(a);
  }

  // The floor: consecutive seeds of the reference.
  std::vector<const std::string*> referenceTexts;
  for (const auto& [seed, atSeed] : bySeed)
    if (const auto r = atSeed.find(report.reference); r != atSeed.end())
      referenceTexts.push_back(&samples.at(r->second->id).text);
  if (referenceTexts.size() >= 2) {
    SampleAgreement floor;
    floor.backend = report.reference;
    std::vector<double> agreeingChars;
    for (std::size_t i = 0; i + 1 < referenceTexts.size(); ++i) {
      ++floor.seeds;
      if (*referenceTexts[i] == *referenceTexts[i + 1]) ++floor.identical;
      agreeingChars.push_back(agreeing(*referenceTexts[i], *referenceTexts[i + 1]));
    }
    floor.medianAgreeing = median(agreeingChars);
    report.seedFloor = floor;
  }
  return report;
}

}  // namespace paritylab::study
