#include "core/study/run/run_scheduler.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/study/spec/spec_difference.h"

namespace paritylab::study {
namespace {

// A rough relative cost of one run, only to order the runs of one seed (results never depend on
// the order): epochs, times the products' passes (XLA bf16x3/x6 multiply each product), times the
// replicas' smaller per-shard products, times a little for operand rounding.
double relativeRunCost(const StudySpec& spec, const BackendEntry& entry) {
  const backends::PrecisionPolicy& p = entry.policy;
  const auto passes = [](const backends::GemmPolicy& g) {
    return g.passes == backends::MultiPass::Bf16x6   ? 6.0
           : g.passes == backends::MultiPass::Bf16x3 ? 3.0
                                                     : 1.0;
  };
  const double products = std::max(passes(p.linear.forward), passes(p.conv.forward));
  const bool rounds = p.linear.forward.operands || p.conv.forward.operands;
  const nn::TrainConfig config = trainConfigFor(spec, entry);
  return double(config.steps > 0 ? config.steps : config.epochs) * products *
         (1.0 + 0.15 * double(std::max(p.topology.replicas, 1) - 1)) * (rounds ? 1.1 : 1.0);
}

// Sorting key of the order workers take runs in: the seed's place, then the costliest first.
std::pair<std::ptrdiff_t, double> runOrderRank(const StudySpec& spec, const PlannedRun& p) {
  const auto seedAt = std::find(spec.seeds.begin(), spec.seeds.end(), p.seed);
  return {seedAt - spec.seeds.begin(), -relativeRunCost(spec, spec.backends[p.backendIndex])};
}

}  // namespace

std::vector<PlannedRun> plannedRunsOf(const StudySpec& spec) {
  std::vector<PlannedRun> out;
  for (std::uint64_t seed : spec.seeds)
    for (std::size_t b = 0; b < spec.backends.size(); ++b) out.push_back({b, seed});
  return out;
}

std::vector<PlannedRun> firstRoundRunsOf(const StudySpec& spec) {
  std::vector<PlannedRun> runs = plannedRunsOf(spec);
  if (!spec.sequential) return runs;
  const std::size_t seeds = spec.sequential->design.looks().front();
  std::erase_if(runs, [&](const PlannedRun& p) {
    return std::size_t(std::find(spec.seeds.begin(), spec.seeds.end(), p.seed) -
                       spec.seeds.begin()) >= seeds;
  });
  return runs;
}

std::vector<PlannedRun> costliestFirstRunsOf(const StudySpec& spec) {
  std::vector<PlannedRun> runs = plannedRunsOf(spec);
  std::stable_sort(runs.begin(), runs.end(), [&](const PlannedRun& a, const PlannedRun& b) {
    return runOrderRank(spec, a) < runOrderRank(spec, b);
  });
  return runs;
}

std::vector<PlannedRun> shardRunsOf(const StudySpec& spec, const StudyShard& shard) {
  if (shard.whole()) return plannedRunsOf(spec);
  std::set<std::pair<std::size_t, std::uint64_t>> owned;
  std::vector<double> load(std::size_t(shard.count), 0.0);  // relative cost dealt to each shard
  for (const PlannedRun& p : costliestFirstRunsOf(spec)) {
    const auto least = std::min_element(load.begin(), load.end());  // the first on a tie
    *least -= runOrderRank(spec, p).second;                         // += the run's cost
    if (least - load.begin() + 1 == shard.index) owned.insert({p.backendIndex, p.seed});
  }
  std::vector<PlannedRun> out;
  for (const PlannedRun& p : plannedRunsOf(spec))
    if (owned.count({p.backendIndex, p.seed}) != 0) out.push_back(p);
  return out;
}

void requireDistinctRuns(const StudySpec& spec) {
  std::set<std::string> names;
  for (const BackendEntry& b : spec.backends) {
    if (!names.insert(b.name).second)
      throw SpecError("backends: '" + b.name +
                      "' is listed twice (each backend once; give a custom one another \"name\")");
  }
  std::set<std::uint64_t> seeds;
  for (std::uint64_t seed : spec.seeds)
    if (!seeds.insert(seed).second)
      throw SpecError("seeds: " + std::to_string(seed) + " is listed twice");
}

RunScheduler::RunScheduler(const StudySpec& spec, ResultsStore& store, std::string owner,
                           StudyShard shard)
    : spec_(spec), store_(store), owner_(std::move(owner)), shard_(shard) {}

void RunScheduler::adoptSpec(bool resume) {
  const std::string specJson = studySpecToJson(spec_).dump();
  // The study as stored must read back: a spec edited in code (a command line's --backends
  // without a backend its sequential design compares) is refused before it is stored, not found
  // when the database is opened.
  parseStudySpec(specJson, "the study as it would be stored");
  // Atomic: concurrent processes agree on one spec.
  const bool saved = store_.saveStudySpecIfNone(specJson);
  if (!saved) checkStoredSpec(resume, specJson);
  recordOrCheckShard(store_, shard_, saved);
}

void RunScheduler::checkStoredSpec(bool resume, const std::string& specJson) {
  StudySpec stored = store_.loadStudySpec();
  // A database holds one study: results measured on hardware are not continued with emulations
  // trained under their backends' names (they would be counted as measurements).
  std::set<std::string> importedBackends;
  for (const RunRecord& r : store_.loadRuns())
    if (r.source != "emulated") importedBackends.insert(r.backend);
  if (!stored.origin.empty() || !importedBackends.empty()) {
    std::string names;
    for (const std::string& name : importedBackends) names += (names.empty() ? "" : ", ") + name;
    throw StoreError(store_.path() + ": holds results imported from " +
                     (stored.origin.empty() ? std::string("another tool") : stored.origin) +
                     (names.empty() ? "" : " (" + names + ")") +
                     "; `run --resume` would train emulations under their names and mix them "
                     "with the measurements. Run the emulated study into a database of its own");
  }
  if (!resume) {
    throw StoreError(store_.path() +
                     ": already holds a study; pass --resume to continue it, or use a new "
                     "database");
  }
  nlohmann::json a = studySpecToJson(stored), b = studySpecToJson(spec_);
  a.erase("threads");
  b.erase("threads");
  if (a == b) return;
  if (!extendsStudy(stored, spec_)) {
    throw SpecError(store_.path() + ": the stored study differs from this one at " +
                    firstSpecDifference(a.dump(), b.dump()) +
                    " (first difference; stored value against this one): resuming a database "
                    "needs its study, or the same study with more seeds or backends");
  }
  store_.saveStudySpec(specJson);  // extended: the same study with more seeds/backends
}

void RunScheduler::planRuns(bool resume, bool reclaim) {
  // Unfinished runs of earlier processes run again (not those another live process works on).
  if (resume) store_.releaseUnfinishedRuns(reclaim);
  std::map<std::pair<std::string, std::uint64_t>, RunRecord> existing;
  for (const RunRecord& r : store_.loadRuns())
    if (r.source == "emulated") existing[{r.backend, r.seed}] = r;

  std::lock_guard lock(mutex_);
  todo_.clear();
  nextIndex_ = 0;
  planned_ = skipped_ = 0;
  for (const PlannedRun& p : shardRunsOf(spec_, shard_)) {
    const auto seedAt = std::find(spec_.seeds.begin(), spec_.seeds.end(), p.seed);
    if (std::size_t(seedAt - spec_.seeds.begin()) >= seedLimit_) continue;
    ++planned_;
    const BackendEntry& entry = spec_.backends[p.backendIndex];
    auto it = existing.find({entry.name, p.seed});
    if (it != existing.end() &&
        (it->second.status == RunState::Completed || it->second.status == RunState::Diverged)) {
      ++skipped_;
      continue;
    }
    RunRecord r;
    r.backend = entry.name;
    r.policyJson = backends::policyToJson(entry.policy).dump();
    r.seed = p.seed;
    // Pending in the database until a worker claims it (next()), here or in another process.
    todo_.push_back({p, it != existing.end() ? it->second.id : store_.ensureRun(r)});
  }
  // Seed by seed as planned, but each seed's costliest backend first: a long run left for last
  // would keep one worker busy while the others idle (the quick study's 8-replica tpu-bf16 runs
  // take twice as long as the others).
  std::stable_sort(todo_.begin(), todo_.end(), [this](const RunJob& a, const RunJob& b) {
    return runOrderRank(spec_, a.planned) < runOrderRank(spec_, b.planned);
  });
}

int RunScheduler::elsewhere() const {
  std::lock_guard lock(mutex_);
  return elsewhere_;
}

std::optional<RunJob> RunScheduler::next(const std::atomic<bool>& cancel) {
  std::lock_guard lock(mutex_);
  while (nextIndex_ < todo_.size() && !cancel) {
    const RunJob& job = todo_[nextIndex_++];
    if (store_.claimRun(job.runId, owner_)) return job;
    ++elsewhere_;  // another process has it, or finished it meanwhile
  }
  return std::nullopt;
}

bool RunScheduler::handedOutAll() const {
  std::lock_guard lock(mutex_);
  return nextIndex_ >= todo_.size();
}

std::vector<RunJob> RunScheduler::remaining() const {
  std::lock_guard lock(mutex_);
  return {todo_.begin() + std::ptrdiff_t(nextIndex_), todo_.end()};
}

}  // namespace paritylab::study
