#include "core/nn/flatten.h"
#include "core/nn/linear.h"
#include "core/nn/model.h"
#include "core/nn/relu.h"

namespace paritylab::nn {

// 784-256-128-10 on 28x28 inputs (in = channels*height*width in general).
void buildMlp(ModelBuilder& b, Sequential& net, const ModelSpec& spec) {
  const int in = spec.channels * spec.height * spec.width;
  net.add<Flatten>();
  net.add<Linear>(b, "fc1", in, 256);
  net.add<ReLU>();
  net.add<Linear>(b, "fc2", 256, 128);
  net.add<ReLU>();
  b.head = true;
  net.add<Linear>(b, "fc3", 128, spec.numClasses);
  b.head = false;
}

}  // namespace paritylab::nn
