#pragma once
// A run's start exported for another engine: its model's initial parameters, the order in which
// each epoch visits the training examples, the training settings and, on request, the data split
// as trained on, so that PyTorch (bench/validate_autocast.py) or any other framework can train
// the same model from the same weights on the same batches. The layout is in docs/study-spec.md
// ("Exporting a run's start"):
//   DIR/manifest.json             what the files are, the run, the model and its training settings
//   DIR/params/NAME.npy           float32 [shape as PyTorch's]: every parameter and buffer at step
//   0 DIR/batch_order.npy           uint32 [epochs, n]: epoch e's step i trains on order[e][i*B
//   ...] DIR/{train,test}_{images,labels}.npy   with data: float32 [n, C, H, W] as normalised for
//                                 training, int32 [n]

#include <cstdint>
#include <string>

namespace paritylab::study {

struct RunStartExport {
  std::string directory;
  std::int64_t runId = 0;
  std::string backend;
  std::uint64_t seed = 0;
  std::size_t parameters = 0;  // parameter and buffer files written
  std::size_t trainExamples = 0, testExamples = 0;
  int epochs = 0;
  bool data = false;  // the split's images and labels (or tokens and windows) were written too
  // A language model: the steps whose windows window_offsets.npy lists (0 for an image model),
  // and with `data` the training tokens and the validation positions written.
  std::int64_t steps = 0;
  int batchSize = 0;
  std::size_t trainTokens = 0, validationPositions = 0;
};

// Exports run `runId` of the study in `databasePath` (opened read-only) into `directory`, which
// must not exist or be an empty folder: the files are written into a new folder beside it and
// renamed to `directory` once complete, so a failure leaves nothing behind and never touches an
// existing file. The data set is loaded as the study loads it. Throws StoreError naming the
// database (no such run, an imported run, a backend not in the stored study, a missing pretrained
// backbone), std::runtime_error naming `directory` when it holds files, FileWriteError when a
// file cannot be written.
RunStartExport exportRunStart(const std::string& databasePath, std::int64_t runId,
                              const std::string& directory, bool withData);

}  // namespace paritylab::study
