#include "core/study/run/run_serving.h"

#include <algorithm>
#include <map>
#include <string>

#include "core/data/text_split.h"
#include "core/nn/serving_comparison.h"

namespace paritylab::study {
namespace {

ServingRecord rowOf(const std::string& servedBy, int batchSize, const nn::ServingComparison& c) {
  return {servedBy, batchSize,       c.predictions, c.flips, c.meanAbsLogProbChange,
          c.meanKl, c.servedAccuracy};
}

}  // namespace

std::vector<ServingRecord> servingRows(const StudySpec& spec, const BackendEntry& trainedBy,
                                       const data::DataSplit& data, int evalBatch,
                                       nn::TrainingSession& trained) {
  const float* items = data.text ? data.text->validationInputs.data() : data.test.images.data();
  const std::int32_t* labels =
      data.text ? data.text->validationTargets.data() : data.test.labels.data();
  const std::size_t count = data.text ? data.text->validationWindows() : data.test.size();
  std::vector<ServingRecord> rows;
  if (count == 0) return rows;
  const nn::Answers own = nn::answersOf(trained, items, count, evalBatch);
  // Entries of one arithmetic (a sweep's cells of a backend) serve the model alike: each policy
  // is evaluated once and its comparison given to every entry that has it.
  std::map<std::string, nn::ServingComparison> byPolicy;
  for (const BackendEntry& entry : spec.backends) {
    if (entry.perturbation != Perturbation::None || entry.name == trainedBy.name) continue;
    const std::string policy = backends::policyToJson(entry.policy).dump();
    auto known = byPolicy.find(policy);
    if (known == byPolicy.end()) {
      const auto served = nn::servedCopy(trained, entry.policy);
      // fp8 delayed scaling takes its scales from the amax of earlier batches: a served copy
      // starts with none, so one evaluation batch calibrates it first, as a deployment would.
      if (entry.policy.fp8.enabled)
        nn::answersOf(*served, items, std::min(count, std::size_t(evalBatch)), evalBatch);
      known =
          byPolicy
              .emplace(policy, nn::compareAnswers(
                                   own, nn::answersOf(*served, items, count, evalBatch), labels))
              .first;
    }
    rows.push_back(rowOf(entry.name, evalBatch, known->second));
  }
  // Batch invariance: the first items one at a time against the same items in batches.
  const std::size_t first = std::min(count, kBatchInvarianceItems);
  const std::size_t perItem = own.predictions() / count;
  nn::Answers ownFirst;
  ownFirst.classes = own.classes;
  ownFirst.logits.assign(own.logits.begin(),
                         own.logits.begin() + std::ptrdiff_t(first * perItem * own.classes));
  rows.push_back(
      rowOf(trainedBy.name, 1,
            nn::compareAnswers(ownFirst, nn::answersOf(trained, items, first, 1), labels)));
  return rows;
}

}  // namespace paritylab::study
