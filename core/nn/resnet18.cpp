#include <stdexcept>

#include "core/nn/batchnorm.h"
#include "core/nn/conv2d.h"
#include "core/nn/global_avg_pool.h"
#include "core/nn/linear.h"
#include "core/nn/model.h"
#include "core/nn/residual_block.h"

namespace paritylab::nn {

// torchvision ResNet-18 (BasicBlock [2, 2, 2, 2], widths w, 2w, 4w, 8w) with a small-image
// stem: 3x3 conv stride 1 + BN + ReLU, no max-pool; global average pool; fc 8w -> classes.
void buildResNet18(ModelBuilder& b, Sequential& net, const ModelSpec& spec) {
  const int w = spec.resnetWidth;
  if (w < 1)
    throw std::invalid_argument("resnet18: width must be positive, got " + std::to_string(w));
  if (spec.height < 8 || spec.width < 8)
    throw std::invalid_argument("resnet18: images must be at least 8x8");
  net.add<Conv2d>(b, "conv1", spec.channels, w, 3, 1, 1, false, ConvInit::KaimingNormalOut);
  net.add<BatchNorm>(b, "bn1", w, /*fusedRelu=*/true);
  int in = w;
  const int widths[4] = {w, 2 * w, 4 * w, 8 * w};
  for (int stage = 0; stage < 4; ++stage) {
    for (int block = 0; block < 2; ++block) {
      const int stride = (stage > 0 && block == 0) ? 2 : 1;
      net.add<BasicBlock>(b, "layer" + std::to_string(stage + 1) + "." + std::to_string(block), in,
                          widths[stage], stride);
      in = widths[stage];
    }
  }
  net.add<GlobalAvgPool>();
  b.head = true;
  net.add<Linear>(b, "fc", in, spec.numClasses);
  b.head = false;
}

}  // namespace paritylab::nn
