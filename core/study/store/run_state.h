#pragma once
// The state of a run, as the runner reports it and the database stores it (runs.status).

#include <string>
#include <string_view>

namespace paritylab::study {

enum class RunState { Pending, Running, Completed, Diverged, Failed, Cancelled };
std::string_view toString(RunState state);  // "pending", "running", "completed", ...
// Inverse of toString; throws std::invalid_argument "unknown run status 'x'".
RunState runStateFromString(const std::string& text);

}  // namespace paritylab::study
