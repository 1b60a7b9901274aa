#pragma once
// Train under one backend, serve under another: a trained model's answers under its own
// arithmetic against the same parameters served by another backend (its forward products and its
// storage of weights and activations; evaluation mode), and against itself evaluated in batches of
// another size (batch invariance: only the products' reduction order can change). Per prediction
// (an image, or a language model's position) the true class's log-probability, the softmax
// distributions' KL divergence and the argmax are compared, in double.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/training_session.h"

namespace paritylab::nn {

struct ServingComparison {
  std::int64_t predictions = 0;  // compared: items x targets per item
  std::int64_t flips = 0;        // predictions whose argmax differs
  // Mean over the predictions of |log p'(true) - log p(true)|, nats (p: the trained model's
  // answers as trained, p': as served).
  double meanAbsLogProbChange = 0.0;
  double meanKl = 0.0;          // mean KL(p || p'), nats
  double servedAccuracy = 0.0;  // the served answers' accuracy, fraction
};

// A session of `trained`'s model under `serving`, holding `trained`'s parameters (the weights'
// master values and the batch-norm statistics) as `serving` stores them.
std::unique_ptr<TrainingSession> servedCopy(const TrainingSession& trained,
                                            const backends::PrecisionPolicy& serving);

// A model's answers: the logits of every prediction, [predictions, classes] row-major.
struct Answers {
  std::vector<float> logits;
  std::size_t classes = 0;
  std::size_t predictions() const { return classes ? logits.size() / classes : 0; }
};

// `items` [count, ...] as TrainingSession::evaluate takes them, in batches of `batchSize` (>= 1,
// else std::invalid_argument), each batch's input stream the one evaluate() gives it.
Answers answersOf(TrainingSession& session, const float* items, std::size_t count, int batchSize);

// `trained` against `served` (the same predictions), `labels` [predictions] the true classes.
// Throws std::invalid_argument when the two do not have the same shape.
ServingComparison compareAnswers(const Answers& trained, const Answers& served,
                                 const std::int32_t* labels);

}  // namespace paritylab::nn
