#include <stdexcept>
#include <string>

#include "core/nn/gpt_model.h"
#include "core/nn/model.h"

namespace paritylab::nn {
namespace {

// The X-ray's name of a GEMM site of the GPT, short as the products are spoken of:
// "transformer.h.0.attn.c_attn" -> "h0.attn.qkv", "transformer.h.2.mlp.c_fc" -> "h2.mlp.fc",
// "transformer.h.1.attn.qk" -> "h1.attn.qk", "lm_head" as it is. Parameter names stay nanoGPT's.
std::string xraySiteName(std::string name) {
  const auto replace = [&name](const std::string& from, const std::string& to) {
    const std::size_t at = name.find(from);
    if (at != std::string::npos) name.replace(at, from.size(), to);
  };
  name = xrayLayerName(name);
  replace(".attn.c_attn", ".attn.qkv");
  replace(".attn.c_proj", ".attn.proj");
  replace(".mlp.c_fc", ".mlp.fc");
  replace(".mlp.c_proj", ".mlp.proj");
  return name;
}

}  // namespace

// The language model of a study: nanoGPT's GPT as one layer of the model's stack, its vocabulary
// the corpus's (spec.numClasses) and its shape spec.gpt.
void buildGpt(ModelBuilder& b, Sequential& net, const ModelSpec& spec) {
  const GptShape& g = spec.gpt;
  const auto refuse = [](const std::string& what) {
    throw std::invalid_argument("model 'gpt': " + what);
  };
  if (g.nLayer < 1) refuse("n_layer = " + std::to_string(g.nLayer) + " (at least 1)");
  if (g.nHead < 1) refuse("n_head = " + std::to_string(g.nHead) + " (at least 1)");
  if (g.blockSize < 1) refuse("block_size = " + std::to_string(g.blockSize) + " (at least 1)");
  if (g.nEmbd < 1 || g.nEmbd % g.nHead != 0)
    refuse("n_embd = " + std::to_string(g.nEmbd) +
           " is not a positive multiple of n_head = " + std::to_string(g.nHead));
  GptConfig config;
  config.vocab = spec.numClasses;
  config.blockSize = spec.gpt.blockSize;
  config.nLayer = spec.gpt.nLayer;
  config.nHead = spec.gpt.nHead;
  config.nEmbd = spec.gpt.nEmbd;
  config.tieWeights = spec.gpt.tieWeights;
  net.add<GptModel>(b, config);
  for (std::string& site : b.siteNames) site = xraySiteName(site);
}

std::size_t gptActivationsPerWindow(const GptShape& g, int vocab) {
  const std::size_t t = std::size_t(g.blockSize), c = std::size_t(g.nEmbd);
  // Per block and position: ln_1, q, k, v, the heads' output, c_proj, the residual sum, ln_2,
  // c_fc, gelu, c_proj, the residual sum (about 20 C floats with the layer norms' statistics) and
  // the attention's scores and probabilities (2 n_head T). Around them: the embedding, ln_f, the
  // logits and their gradient.
  const std::size_t perBlock = t * (20 * c + 2 * std::size_t(g.nHead) * t);
  return std::size_t(g.nLayer) * perBlock + t * (2 * c + 2 * std::size_t(vocab));
}

}  // namespace paritylab::nn
