#include "core/study/store/run_state.h"

#include <stdexcept>
#include <string>

namespace paritylab::study {

std::string_view toString(RunState state) {
  switch (state) {
    case RunState::Pending:
      return "pending";
    case RunState::Running:
      return "running";
    case RunState::Completed:
      return "completed";
    case RunState::Diverged:
      return "diverged";
    case RunState::Failed:
      return "failed";
    case RunState::Cancelled:
      return "cancelled";
  }
  return "pending";
}

RunState runStateFromString(const std::string& text) {
  for (RunState s : {RunState::Pending, RunState::Running, RunState::Completed, RunState::Diverged,
                     RunState::Failed, RunState::Cancelled})
    if (toString(s) == text) return s;
  throw std::invalid_argument("unknown run status '" + text + "'");
}

}  // namespace paritylab::study
