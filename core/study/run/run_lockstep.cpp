#include "core/study/run/run_lockstep.h"

#include <algorithm>

#include "core/nn/lockstep.h"

namespace paritylab::study {

std::vector<std::string> runStudyLockstep(
    const StudySpec& spec, const data::DataSplit& data, ResultsStore& store,
    const std::atomic<bool>& cancel, const std::function<void(const LockstepRecord&)>& onStored) {
  std::vector<std::string> stored;
  if (!spec.lockstep || spec.seeds.empty()) return stored;
  const LockstepStudy& l = *spec.lockstep;
  std::vector<std::string> have;
  for (const LockstepRecord& r : store.loadLockstep())
    if (r.backend == l.backend && r.reference == l.reference) have.push_back(r.mode);
  const backends::PrecisionPolicy policy = lockstepPolicy(spec, l.backend);
  const bool fp64 = l.reference == nn::kFp64Reference;
  const backends::PrecisionPolicy reference =
      fp64 ? backends::PrecisionPolicy{} : lockstepPolicy(spec, l.reference);
  nn::TrainConfig config = spec.train;
  config.seed = spec.seeds.front();
  config.xrayEverySteps = 0;
  config.signalsEverySteps = 0;
  for (const std::string& name : l.modes) {
    if (cancel) break;
    if (std::find(have.begin(), have.end(), name) != have.end()) continue;
    nn::LockstepOptions options;
    options.mode = *nn::parseLockstepMode(name);
    options.steps = l.steps;
    options.everySteps = l.every;
    options.tolerance = l.tolerance;
    nn::LockstepCallbacks callbacks;
    callbacks.shouldCancel = [&cancel] { return cancel.load(); };
    LockstepRecord record{
        name,
        l.backend,
        l.reference,
        config.seed,
        l.tolerance,
        fp64 ? nn::runLockstepAgainstFp64(config, policy, data, options, callbacks)
             : nn::runLockstep(config, policy, reference, data, options, callbacks)};
    if (cancel) break;  // cut short: not kept
    store.saveLockstep(record);
    stored.push_back(name);
    if (onStored) onStored(record);
  }
  return stored;
}

}  // namespace paritylab::study
