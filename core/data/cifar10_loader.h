#pragma once
// CIFAR-10 binary version: data_batch_1.bin .. data_batch_5.bin (training) and test_batch.bin,
// each a sequence of 3073-byte records: 1 label byte, then 3072 pixel bytes
// [3 channels (R, G, B), 32, 32], row-major. Class names from batches.meta.txt when present.
// DIR may also be the folder that contains cifar-10-batches-bin/.

#include <string>

#include "core/data/source_data.h"

namespace paritylab::data {

// One batch file appended to `out` ([n, 3, 32, 32] pixels / 255). Throws DataError naming the
// file on a missing file, a partial record (truncated) or a label > 9.
void readCifar10Batch(const std::string& path, Dataset& out);

SourceData loadCifar10Directory(const std::string& dir);

}  // namespace paritylab::data
