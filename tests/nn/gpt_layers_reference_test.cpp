// The GPT layers and the whole tiny GPT against PyTorch (fp32, CPU) on the same weights and inputs:
// the values pinned here are printed by bench/gpt_layers_reference.py (nanoGPT's
// CausalSelfAttention, F.layer_norm, F.gelu(approximate='tanh'), GPT). Both sides build every
// tensor from the formula amplitude * sin(i * step + phase) (i the row-major index, in double,
// rounded to fp32) and take the gradient of sum(y * R), R(i) = cos(i * 0.29). Compared: each
// tensor's sum and sum of absolute values (to 1e-5 of the latter) and four of its values (to 1e-5
// relative, plus 1e-6 of the tensor's mean absolute value for values near zero).

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/nn/causal_self_attention.h"
#include "core/nn/gelu.h"
#include "core/nn/gpt_model.h"
#include "core/nn/layer_norm.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

using testing::Fixture;

// sum, sum of |.|, values at 0, 7, n/2, n-1
using Summary = std::vector<double>;
using Reference = std::map<std::string, Summary>;

void formula(float* out, std::size_t n, double amplitude, double step, double phase = 0.0) {
  for (std::size_t i = 0; i < n; ++i)
    out[i] = float(amplitude * std::sin(double(i) * step + phase));
}

Tensor formulaTensor(const Shape& s, double amplitude, double step, double phase = 0.0) {
  Tensor t(s);
  formula(t.data(), t.size(), amplitude, step, phase);
  return t;
}

Tensor upstream(const Shape& s) {
  Tensor t(s);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = float(std::cos(double(i) * 0.29));
  return t;
}

// Largest difference to the reference, in units of its tolerance (<= 1 passes).
// Values near zero get `nearZero` of the tensor's mean absolute value on top of 1e-5 relative.
double expectMatches(const std::string& what, const float* v, std::size_t n, const Summary& ref,
                     double nearZero = 1e-6) {
  double sum = 0.0, abs = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += v[i], abs += std::abs(double(v[i]));
  const double meanAbs = ref[1] / double(n);
  const std::size_t picks[4] = {0, 7, n / 2, n - 1};
  double worst = 0.0;
  auto check = [&](double got, double want, double tol, const std::string& name) {
    EXPECT_NEAR(got, want, tol) << what << " " << name;
    worst = std::max(worst, std::abs(got - want) / tol);
  };
  check(sum, ref[0], 1e-5 * ref[1], "sum");
  check(abs, ref[1], 1e-5 * ref[1], "sum of |.|");
  for (int k = 0; k < 4; ++k)
    check(v[picks[k]], ref[std::size_t(2 + k)],
          1e-5 * std::abs(ref[std::size_t(2 + k)]) + nearZero * meanAbs,
          "[" + std::to_string(picks[k]) + "]");
  return worst;
}

TEST(GptLayersAgainstPyTorch, CausalSelfAttentionForwardAndBackward) {
  const Reference ref = {
      {"y", {-0.931308629, 10.5610147, -0.205619931, 0.153121859, -0.0250033662, -0.214421183}},
      {"dx",
       {0.0655122208, 1.51512052, 0.0386256874, -0.0353373699, -0.00450089853, -0.00860485248}},
      {"c_attn.weight",
       {0.0625606105, 10.891171, -0.028996231, 0.0452555865, 0.000250180979, -0.242724821}},
      {"c_attn.bias",
       {-0.0799311681, 0.951643772, 0.0302443076, 0.0368554182, 3.95812094e-09, -0.0978655741}},
      {"c_proj.weight",
       {0.550987631, 64.37273, -2.1583097, 0.375745565, -0.404839396, -1.16880798}},
      {"c_proj.bias",
       {-2.52518219, 3.94303936, 0.473368287, -0.893333197, -0.510038495, -0.893333197}},
  };
  Fixture f;
  CausalSelfAttention layer(f.builder, "attn", 8, 2);
  f.params.finalize(false);
  const int wAttn = layer.qkvProjection().weightId(), bAttn = layer.qkvProjection().biasId();
  const int wProj = layer.outputProjection().weightId(), bProj = layer.outputProjection().biasId();
  formula(f.params.master(wAttn), 24 * 8, 0.3, 0.41, 0.1);
  formula(f.params.master(bAttn), 24, 0.1, 0.23, 0.5);
  formula(f.params.master(wProj), 8 * 8, 0.3, 0.53, 0.2);
  formula(f.params.master(bProj), 8, 0.1, 0.71, 0.3);
  const Tensor x = formulaTensor({2, 5, 8}, 1.0, 0.37);
  StepContext ctx = f.ctx();
  const Tensor& y = layer.forward(x, ctx);
  double worst = expectMatches("y", y.data(), y.size(), ref.at("y"));
  const Tensor& dx = layer.backward(upstream(y.shape()), ctx);
  worst = std::max(worst, expectMatches("dx", dx.data(), dx.size(), ref.at("dx")));
  for (const auto& [name, id] :
       {std::pair{"c_attn.weight", wAttn}, std::pair{"c_attn.bias", bAttn},
        std::pair{"c_proj.weight", wProj}, std::pair{"c_proj.bias", bProj}})
    worst = std::max(worst,
                     expectMatches(name, f.params.grad(id), f.params.info(id).size, ref.at(name)));
  RecordProperty("worst_fraction_of_tolerance", std::to_string(worst));
  std::printf("attention: largest difference to PyTorch = %.3g of the tolerance\n", worst);
}

TEST(GptLayersAgainstPyTorch, LayerNormForwardAndBackward) {
  const Reference ref = {
      {"y", {2.27728364, 28.4619218, -0.381762862, 0.730245888, 0.821154892, 0.526880205}},
      {"dx", {-6.40749931e-07, 14.8005546, 0.312325537, -0.187330395, -0.22614412, -0.0916149914}},
      {"weight", {0.974376976, 8.64960426, -1.32503307, -1.54383636, 1.67544067, -1.54383636}},
      {"bias", {-2.52518204, 3.94303939, 0.473368376, -0.893333137, -0.510038555, -0.893333137}},
  };
  Fixture f;
  LayerNorm layer(f.builder, "ln", 8);
  f.params.finalize(false);
  formula(f.params.master(layer.weightId()), 8, 0.5, 0.61, 1.0);
  formula(f.params.master(layer.biasId()), 8, 0.2, 0.83, 0.2);
  const Tensor x = formulaTensor({2, 5, 8}, 2.0, 0.37, 0.4);
  StepContext ctx = f.ctx();
  const Tensor& y = layer.forward(x, ctx);
  double worst = expectMatches("y", y.data(), y.size(), ref.at("y"));
  const Tensor& dx = layer.backward(upstream(y.shape()), ctx);
  worst = std::max(worst, expectMatches("dx", dx.data(), dx.size(), ref.at("dx")));
  worst = std::max(worst,
                   expectMatches("weight", f.params.grad(layer.weightId()), 8, ref.at("weight")));
  worst = std::max(worst, expectMatches("bias", f.params.grad(layer.biasId()), 8, ref.at("bias")));
  std::printf("layer norm: largest difference to PyTorch = %.3g of the tolerance\n", worst);
}

TEST(GptLayersAgainstPyTorch, GeluTanhForwardAndBackward) {
  const Reference ref = {
      {"y", {288.238143, 306.780944, 1.8812083, -0.145805523, -0.166255325, -0.0629577413}},
      {"dx", {0.671312296, 110.335302, 1.09332848, -0.0746308863, -0.0459241904, 0.0174975116}},
  };
  Fixture f;
  f.params.finalize(false);
  Gelu layer;
  const Tensor x = formulaTensor({2, 5, 32}, 3.0, 0.37, 0.7);
  StepContext ctx = f.ctx();
  const Tensor& y = layer.forward(x, ctx);
  double worst = expectMatches("y", y.data(), y.size(), ref.at("y"));
  const Tensor& dx = layer.backward(upstream(y.shape()), ctx);
  worst = std::max(worst, expectMatches("dx", dx.data(), dx.size(), ref.at("dx")));
  std::printf("gelu: largest difference to PyTorch = %.3g of the tolerance\n", worst);
}

// The whole tiny GPT (gpt_model.h), tied head, against bench/gpt_layers_reference.py's
// gpt_parameters() and gpt(): parameter k of the state_dict order is
// offset + 0.3 * sin(i * (0.37 + 0.05 k) + 0.3 k), offset 1 for the LayerNorm weights. Values near
// zero get 1e-5 of their tensor's mean absolute value (not 1e-6 as one layer's): the fp32 sums of
// two blocks, in another order than torch's, leave c_fc.bias[7] of block 1 (1/12 of its tensor's
// mean) 1.8e-8 from torch's.
TEST(GptLayersAgainstPyTorch, TinyGptLossLogitsAndGradients) {
  const Reference ref = {
      {"logits", {5.4428994, 59.1453926, 0.358945608, 0.468947619, 0.500375926, 0.977169216}},
      {"transformer.wte.weight",
       {9.31158218, 126.034023, 1.67158282, -6.07196665, 4.80312729, 1.81236064}},
      {"transformer.wpe.weight",
       {-3.75322998e-07, 16.9241056, 0.384448171, -1.13300955, -0.090303719, 0.271227419}},
      {"transformer.h.0.ln_1.weight",
       {0.91397068, 1.00650825, 0.012352773, 0.252680272, 0.211264342, 0.252680272}},
      {"transformer.h.0.attn.c_attn.weight",
       {-1.58269387, 77.2121763, 1.01850665, 0.895258725, -0.427880973, -0.12441121}},
      {"transformer.h.1.mlp.c_fc.bias",
       {0.0560855496, 0.234441906, -0.00917074457, -0.00062703318, -0.00809996016, -0.00431103818}},
      {"transformer.h.1.mlp.c_proj.weight",
       {-1.13621354e-07, 12.0088201, -0.0239627585, 0.0879618004, -0.0864409655, -0.0528034531}},
      {"transformer.ln_f.bias",
       {0.564127903, 0.564127903, 0.012522459, 0.0442268103, 0.1054511, 0.0442268103}},
  };
  Fixture f;
  GptConfig config;
  config.vocab = 7, config.blockSize = 5, config.nLayer = 2, config.nHead = 2, config.nEmbd = 8;
  GptModel model(f.builder, config);
  f.params.finalize(false);
  for (std::size_t k = 0; k < f.params.infos().size(); ++k) {
    const ParamInfo& p = f.params.infos()[k];
    const bool lnWeight = p.name.ends_with(".weight") && p.shape.rank == 1;
    float* w = f.params.master(int(k));
    for (std::size_t i = 0; i < p.size; ++i)
      w[i] = float((lnWeight ? 1.0 : 0.0) +
                   0.3 * std::sin(double(i) * (0.37 + 0.05 * double(k)) + 0.3 * double(k)));
  }
  Tensor ids({2, 5});
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = float((i * 3 + 1) % 7);
  StepContext ctx = f.ctx();
  const Tensor& logits = model.forward(ids, ctx);
  const Tensor r = upstream(logits.shape());
  double loss = 0.0;
  for (std::size_t i = 0; i < logits.size(); ++i) loss += double(logits[i]) * double(r[i]);
  EXPECT_NEAR(loss, 1.78173208, 1e-5 * std::abs(1.78173208));
  double worst = expectMatches("logits", logits.data(), logits.size(), ref.at("logits"), 1e-5);
  model.backward(r, ctx);
  for (std::size_t k = 0; k < f.params.infos().size(); ++k) {
    const ParamInfo& p = f.params.infos()[k];
    if (ref.count(p.name))
      worst = std::max(worst,
                       expectMatches(p.name, f.params.grad(int(k)), p.size, ref.at(p.name), 1e-5));
  }
  std::printf("tiny gpt: largest difference to PyTorch = %.3g of the tolerance\n", worst);
}

}  // namespace
}  // namespace paritylab::nn
