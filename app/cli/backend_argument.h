#pragma once
// The `--backend` argument shared by commands: a preset name or a policy .json file.

#include <string>

#include "core/backends/precision_policy.h"

namespace paritylab::cli {

// A preset (`tpu-bf16`) or a file ending in .json holding a policy (preset name, preset +
// overrides, or a custom policy). Throws CommandError naming the file or the unknown name.
backends::PrecisionPolicy loadBackendArgument(const std::string& backend);

}  // namespace paritylab::cli
