#pragma once
// A trained model's per-example answers on the test set, from the evaluation
// pass that also gives the test loss and accuracy (no second pass).

#include <cstdint>
#include <vector>

namespace paritylab::nn {

struct TestPredictions {
  std::vector<std::int32_t> predicted;  // [test examples]: argmax of the logits (the class
                                        // counted as correct or not by the accuracy)
  // [test examples]: softmax probability of the label; empty when not known (predictions imported
  // from real hardware without it).
  std::vector<float> trueClassProbability;
};

}  // namespace paritylab::nn
