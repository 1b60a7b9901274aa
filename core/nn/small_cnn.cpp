#include <stdexcept>

#include "core/nn/batchnorm.h"
#include "core/nn/conv2d.h"
#include "core/nn/flatten.h"
#include "core/nn/linear.h"
#include "core/nn/maxpool.h"
#include "core/nn/model.h"
#include "core/nn/relu.h"

namespace paritylab::nn {

// conv3x3 C->32 pad 1, BN, ReLU, maxpool 2; conv3x3 32->64 pad 1, BN, ReLU, maxpool 2;
// linear 64*(H/4)*(W/4) (3136 for 28x28) -> 128, ReLU, linear 128 -> classes. BN+ReLU fused.
void buildSmallCnn(ModelBuilder& b, Sequential& net, const ModelSpec& spec) {
  if (spec.height < 4 || spec.width < 4)
    throw std::invalid_argument("small-cnn: images must be at least 4x4, got " +
                                std::to_string(spec.height) + "x" + std::to_string(spec.width));
  net.add<Conv2d>(b, "conv1", spec.channels, 32, 3, 1, 1, true);
  net.add<BatchNorm>(b, "bn1", 32, /*fusedRelu=*/true);
  net.add<MaxPool2d>(2);
  net.add<Conv2d>(b, "conv2", 32, 64, 3, 1, 1, true);
  net.add<BatchNorm>(b, "bn2", 64, /*fusedRelu=*/true);
  net.add<MaxPool2d>(2);
  net.add<Flatten>();
  net.add<Linear>(b, "fc1", 64 * (spec.height / 4) * (spec.width / 4), 128);
  net.add<ReLU>();
  b.head = true;
  net.add<Linear>(b, "fc2", 128, spec.numClasses);
  b.head = false;
}

}  // namespace paritylab::nn
