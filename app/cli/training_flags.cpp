#include "app/cli/training_flags.h"

#include "core/nn/training_choices.h"

namespace paritylab::cli {

void applyTrainingFlags(const TrainingFlags& a, study::StudySpec& spec) {
  if (!a.dataset.empty()) spec.dataset.source = a.dataset;
  if (a.trainSize) spec.dataset.trainSize = *a.trainSize;
  if (a.testSize) spec.dataset.testSize = *a.testSize;
  // An evaluation batch left at its model's default follows a new model or batch size.
  const bool evalBatchIsDefault =
      spec.train.evalBatchSize == nn::defaultEvalBatchSize(spec.train.model, spec.train.batchSize);
  if (!a.model.empty()) {
    if (!nn::isOneOf(a.model, nn::kModelNames))
      throw study::SpecError("--model: unknown model '" + a.model + "' (" +
                             nn::joinedNames(nn::kModelNames) + ")");
    spec.train.model = a.model;
  }
  if (a.nLayer) spec.train.gpt.nLayer = *a.nLayer;
  if (a.nHead) spec.train.gpt.nHead = *a.nHead;
  if (a.nEmbd) spec.train.gpt.nEmbd = *a.nEmbd;
  if (a.blockSize) spec.train.gpt.blockSize = *a.blockSize;
  if ((a.nLayer || a.nHead || a.nEmbd || a.blockSize) && !nn::isLanguageModel(spec.train.model))
    throw study::SpecError(
        "--n-layer, --n-head, --n-embd, --block-size: apply to the language "
        "model (--model gpt), not to '" +
        spec.train.model + "'");
  if (spec.train.gpt.nEmbd % spec.train.gpt.nHead != 0)
    throw study::SpecError("--n-embd " + std::to_string(spec.train.gpt.nEmbd) +
                           " is not a multiple of --n-head " +
                           std::to_string(spec.train.gpt.nHead));
  if (a.batch) spec.train.batchSize = *a.batch;
  if (a.evalBatch)
    spec.train.evalBatchSize = *a.evalBatch;
  else if (evalBatchIsDefault)
    spec.train.evalBatchSize = nn::defaultEvalBatchSize(spec.train.model, spec.train.batchSize);
  if (a.lr) spec.train.optimizer.lr = *a.lr;
}

}  // namespace paritylab::cli
