#pragma once
// A run's hparams.yaml as PyTorch Lightning writes it beside metrics.csv (yaml.dump of the
// hyperparameters, or OmegaConf.save: block style), read for the keys an import asks for in a
// documented subset of YAML, without a YAML library (docs/import.md):
//
// - `key: value` lines. A key that ends its line (`model:`) opens a nested mapping, its keys more
//   indented; a nested key is named with dots: `model:\n  optimizer:\n    name: adamw` is
//   `model.optimizer.name`. Keys are plain or quoted.
// - A value is a plain scalar (a trailing ` # comment` cut), '...' ('' is a quote) or "..." (the
//   escapes \\ \" \/ \0 \a \b \t \n \v \f \r \e \x \u \U \N \_ \L \P and an escaped space);
//   `null`, `Null`, `NULL`, `~` and no value at all are no value (""). Values are kept as text.
// - Comments, blank lines and the document markers `---` and `...` are skipped.
// - Not read, and skipped with all they hold: lists (`- item`), flow collections (`{a: 1}`,
//   `[1, 2]`), anchors (`&a`), aliases (`*a`), tags (`!!python/object:...`), block scalars (`|`,
//   `>`), a value continued on the next lines, complex keys (`? `), lines indented with a tab,
//   mappings nested deeper than 32 levels and keys longer than 200 characters. A key asked for
//   that is one of these, or lies inside one, or is itself a mapping, is refused (input::CsvError
//   naming the file, line and key, and what it is): a backend is never read from part of a value.

#include <map>
#include <set>
#include <string>

#include "core/study/files/tracked_runs.h"

namespace paritylab::study {

// The keys of `file` (dotted names, the subset above) that are among `keys`, each with its place
// ("FILE:LINE: key"). No file: none. A file larger than 16 MiB is refused (input::CsvError): no
// Lightning writes one.
std::map<std::string, TrackedAttribute> readHparamsYaml(const std::string& file,
                                                        const std::set<std::string>& keys);

}  // namespace paritylab::study
