#pragma once
// The one base of core's errors. Every floor throws its own kind (input::InputError, CsvError,
// FileWriteError; data::DataError; nn::CheckpointError; study::SpecError, StoreError), each an
// Error whose message names what it is about: the file, the field or run, and the value. Callers
// that show errors to people (the command line's main, the ui's errorText) catch Error for those
// messages; anything else that escapes (std::bad_alloc) is a failure to name by its kind.
//
// ErrorOf<Std> keeps each kind a standard exception too (std::runtime_error, or
// std::invalid_argument for a refused value), so `catch (const std::exception&)` still sees it.

#include <stdexcept>

namespace paritylab {

class Error {
 public:
  virtual ~Error() = default;
  virtual const char* what() const noexcept = 0;  // the message, as std::exception::what
};

template <typename Std>
class ErrorOf : public Std, public Error {
 public:
  using Std::Std;
  const char* what() const noexcept override { return Std::what(); }
};

}  // namespace paritylab
