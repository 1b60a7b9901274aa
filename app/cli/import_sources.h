#pragma once
// The dry run's report of what `paritylab-cli import PATH` read (import --dry-run); the reading
// itself is core's (core/study/files/import_input.h).

#include <ostream>
#include <string>
#include <vector>

#include "core/study/files/import_input.h"

namespace paritylab::cli {

using study::ImportFormat;
using study::ImportInput;
using study::readImportInput;

// The runs found (backend, seed, epochs, final metric, run), what was skipped and why, the notes.
void printDryRun(std::ostream& out, const std::string& path, const ImportInput& input);

// "Skipped 2 run folders:" (TensorBoard; "runs" for the others) and one line each (nothing when
// none was skipped).
void printSkipped(std::ostream& out, const ImportInput& input);

}  // namespace paritylab::cli
