#pragma once
// The ui's one way to turn a failure of core into words. Core's errors (paritylab::Error: a
// spec's, a database's, a file's) and the standard ones it throws carry messages that name the
// file, field or run and are shown as they are; an allocation failure, whose message names
// nothing, is said in words ("out of memory").

#include <QString>
#include <exception>

namespace paritylab::ui {

QString errorText(const std::exception& e);

// Runs `body` (core work answering true or false); an exception it throws answers false with
// *error = errorText (when error is given).
template <typename F>
bool guarded(QString* error, F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    if (error) *error = errorText(e);
    return false;
  }
}

}  // namespace paritylab::ui
