#pragma once
// A run's hparams.yaml as PyTorch Lightning writes it beside metrics.csv (yaml.dump of the
// hyperparameters, or OmegaConf.save), read with yaml-cpp for the keys an import asks for. A key
// in a nested mapping is named with dots: `model:\n  optimizer:\n    name: adamw` is
// `model.optimizer.name`. Anchors and aliases, tags (`!!python/object:argparse.Namespace`), quoted,
// block and folded scalars are read as YAML reads them; a null (`~`, `null`, nothing) is "".

#include <map>
#include <set>
#include <string>

#include "core/study/files/tracked_runs.h"

namespace paritylab::study {

// The keys of `file` (dotted names) that are among `keys`, each with its place ("FILE:LINE: key").
// No file, or no key asked for: none. Throws input::CsvError naming the file and line for a
// file that is not YAML, a key asked for whose value is a list or a mapping (not one value), and
// a file larger than 16 MiB (no Lightning writes one).
std::map<std::string, TrackedAttribute> readHparamsYaml(const std::string& file,
                                                        const std::set<std::string>& keys);

}  // namespace paritylab::study
