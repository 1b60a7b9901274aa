#pragma once
// The error of the results database: its message names the file and what is wrong ("FILE: damaged
// database: run 1 final_accuracy 5", "FILE: not a ParityLab results database").

#include <stdexcept>

#include "core/input/error.h"

namespace paritylab::study {

class StoreError : public ErrorOf<std::runtime_error> {
 public:
  using ErrorOf::ErrorOf;
};

}  // namespace paritylab::study
