#include "core/study/files/tensorboard_run_scalars.h"

namespace paritylab::study {

RunScalars readRunScalars(const EventRunFolder& folder, std::vector<std::string>& notes) {
  RunScalars run{folder, {}, 0};
  for (std::size_t f = 0; f < folder.files.size(); ++f) {
    const EventFileScalars file = readEventFileScalars(folder.files[f]);
    notes.insert(notes.end(), file.notes.begin(), file.notes.end());
    for (const auto& [tag, points] : file.scalars) {
      auto& steps = run.tags[tag];
      for (const ScalarPoint& p : points) {
        auto [it, added] = steps.try_emplace(p.step, LoggedScalar{p, f});
        if (added) continue;
        ++run.repeatedSteps;
        if (p.wallTime >= it->second.point.wallTime) it->second = {p, f};
      }
    }
  }
  return run;
}

}  // namespace paritylab::study
