#include "core/nn/fp64_model_layers.h"

#include <stdexcept>
#include <string>

#include "core/nn/batchnorm.h"
#include "core/nn/conv2d.h"
#include "core/nn/flatten.h"
#include "core/nn/fp64_conv_layers.h"
#include "core/nn/fp64_dense_layers.h"
#include "core/nn/fp64_residual_layers.h"
#include "core/nn/global_avg_pool.h"
#include "core/nn/linear.h"
#include "core/nn/maxpool.h"
#include "core/nn/relu.h"
#include "core/nn/residual_block.h"

namespace paritylab::nn {
namespace {

// Walks the containers; `where` names the place of a layer in messages ("layer 5, main path's
// layer 2").
class LayerWalk {
 public:
  explicit LayerWalk(const Model& model) : model_(model) {}

  std::unique_ptr<Fp64Sequential> sequence(const Sequential& net, const std::string& where) {
    auto out = std::make_unique<Fp64Sequential>();
    for (std::size_t i = 0; i < net.layers().size(); ++i)
      out->add(layer(*net.layers()[i], where + "layer " + std::to_string(i + 1)));
    return out;
  }

 private:
  static std::unique_ptr<Fp64BatchNorm> batchNorm(const BatchNorm& bn) {
    return std::make_unique<Fp64BatchNorm>(
        bn.channels(), bn.fusedRelu(), bn.momentum(), bn.eps(),
        Fp64BatchNorm::Ids{bn.weightId(), bn.biasId(), bn.runningMeanId(), bn.runningVarId()});
  }

  static std::unique_ptr<Fp64Linear> linear(const Linear& l) {
    return std::make_unique<Fp64Linear>(l.site(), l.inFeatures(), l.outFeatures(), l.weightId(),
                                        l.biasId());
  }

  std::unique_ptr<Fp64Layer> layer(const Layer& layer, const std::string& where) {
    if (const auto* inner = dynamic_cast<const Sequential*>(&layer))
      return sequence(*inner, where + ", ");
    if (dynamic_cast<const Flatten*>(&layer)) return std::make_unique<Fp64Flatten>();
    if (dynamic_cast<const ReLU*>(&layer)) return std::make_unique<Fp64Relu>();
    if (const auto* l = dynamic_cast<const Linear*>(&layer)) return linear(*l);
    if (const auto* c = dynamic_cast<const Conv2d*>(&layer))
      return std::make_unique<Fp64Conv2d>(
          c->site(),
          Fp64Conv2d::Geometry{c->inChannels(), c->outChannels(), c->kernel(), c->stride(),
                               c->padding()},
          c->weightId(), c->biasId());
    if (const auto* bn = dynamic_cast<const BatchNorm*>(&layer)) return batchNorm(*bn);
    if (const auto* pool = dynamic_cast<const MaxPool2d*>(&layer))
      return std::make_unique<Fp64MaxPool2d>(pool->kernel());
    if (dynamic_cast<const GlobalAvgPool*>(&layer)) return std::make_unique<Fp64GlobalAvgPool>();
    if (const auto* block = dynamic_cast<const BasicBlock*>(&layer))
      return std::make_unique<Fp64BasicBlock>(
          sequence(block->mainPath(), where + ", main path's "), batchNorm(block->closingNorm()),
          block->projection() ? sequence(*block->projection(), where + ", projection's ")
                              : nullptr);
    throw std::invalid_argument("the fp64 reference computes " + std::string(kFp64Layers) +
                                "; model '" + model_.name + "' has another kind of layer (" +
                                where + "): compare it with a backend as the reference instead");
  }

  const Model& model_;
};

}  // namespace

std::unique_ptr<Fp64Sequential> fp64LayersOf(const Model& model) {
  std::unique_ptr<Fp64Sequential> net = LayerWalk(model).sequence(*model.net, "");
  net->setNeedInputGrad(false);
  return net;
}

}  // namespace paritylab::nn
