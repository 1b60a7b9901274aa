// JSON <-> PrecisionPolicy. Schema (camelCase, mirrors the structs in precision_policy.h):
//   "tpu-bf16"                                  a preset by name
//   {"preset": "tpu-bf16", "replicas": 1}       a preset adjusted field by field
//   {"name": "...", "linear": {...}, ...}       a custom policy (unset fields: cpu-fp32 defaults)
// Fields: name, description, linear|conv|attention: {forward|backwardData|backwardWeight: gemm}
//   (no "attention": attention's products are the policy's linear ones, as every policy meant
//   before attention had its own field),
//   gemm: {operands, operandsB, passes: "none"|"bf16x3"|"bf16x6", accumulationChunk,
//          accumulation, fp32Promotion, accumulationModel: "hopper-fp8-fast" (sets
//          accumulationChunk, accumulation and fp32Promotion), output, addend,
//          reverseSummation, scaling|scalingA|scalingB: {recipe,
//          element, block, scale, square, rounding} or a recipe name, hadamard}; passes is XLA's
//          multi-pass bf16
//          product, written only when there is one ("none", or absent: one product of the operands
//          as `operands` rounds them; "bf16", the old spelling of one pass, is still read as
//          "none")
//   storage: {activations, weights, gradients, optimizerState, fp32MasterWeights}
//   elementwise: {softmax, layerNormStatistics, loss, residual} (absent: fp32, as before these
//                fields existed)
//   sources: ["where a choice comes from", ...] (a preset's citations; kept, never interpreted)
//   batchNormStatsFp32, stochasticWeightUpdate, replicas,
//   lossScaling: {kind: "none"|"static"|"dynamic", initialScale, growthFactor, backoffFactor,
//                 growthInterval}
//   fp8: {enabled, amaxHistoryLength, margin}
//   reduction: {allReduce: spec, order: "tree"|"ring"}, gradAccumulation: {steps, format},
//   runningSums: spec (written only when any differs from fp32, tree, 1 step)
//   overrides: [{layers: "first|last|h*.attn.qkv", products: "forward|dgrad|wgrad" (default
//               "all"), policy: a preset name (its products for the layer's kind) or a gemm
//               (from fp32, the same for every kind)}]; written back with the products spelled
//               out per kind: {layers, products, preset?, linear, conv, attention}
// A rounding spec is null (no rounding), a format name ("bf16": nearest-even), or
//   {"format": "bf16", "rounding": "nearest-even", "overflow": "inf", "subnormals": "keep"}.
// Errors throw std::invalid_argument naming the field path and the bad value (an excerpt: never
// an unbounded dump). Counts have the limits of core/input/input_limits.h.
#include <algorithm>
#include <cfloat>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/backends/precision_policy.h"
#include "core/input/input_limits.h"
#include "core/input/json_input.h"

namespace paritylab::backends {
namespace {

using nlohmann::json;
using numerics::RoundingSpec;

[[noreturn]] void fail(const std::string& path, const json& value, const std::string& why) {
  throw std::invalid_argument("policy field '" + path + "': " + why + " (got " +
                              input::jsonExcerpt(value) + ")");
}

void checkKeys(const json& j, const std::string& path, std::initializer_list<const char*> keys) {
  if (!j.is_object()) fail(path, j, "expected an object");
  for (const auto& [k, v] : j.items()) {
    bool known = false;
    for (const char* key : keys) known = known || k == key;
    if (!known) {
      std::string list;
      for (const char* key : keys) list += std::string(list.empty() ? "" : ", ") + key;
      fail(path.empty() ? k : path + "." + k, v, "unknown field; expected one of " + list);
    }
  }
}

std::string join(const std::string& path, const char* key) {
  return path.empty() ? key : path + "." + key;
}

bool getBool(const json& v, const std::string& path) {
  if (!v.is_boolean()) fail(path, v, "expected true or false");
  return v.get<bool>();
}
// A finite number in [min, max] (never nan, inf or a value that overflows later).
double getNumber(const json& v, const std::string& path, double min,
                 double max = input::kMaxHyperparameter) {
  try {
    return input::requireJsonReal(v, "policy field '" + path + "'", {min, max});
  } catch (const input::InputError& e) {
    throw std::invalid_argument(e.what());
  }
}
// An integer in [min, max]: fractions, 1e300 and values past the limit are refused.
int getInt(const json& v, const std::string& path, int min,
           std::int64_t max = input::kMaxPolicyInteger) {
  try {
    return int(input::requireJsonInteger(v, "policy field '" + path + "'", {min, max}));
  } catch (const input::InputError& e) {
    throw std::invalid_argument(e.what());
  }
}
std::string getString(const json& v, const std::string& path) {
  if (!v.is_string()) fail(path, v, "expected a string");
  return v.get<std::string>();
}

std::optional<RoundingSpec> specFromJson(const json& j, const std::string& path) {
  if (j.is_null()) return std::nullopt;
  RoundingSpec s;
  const json* format = &j;
  std::string formatPath = path;
  if (j.is_object()) {
    checkKeys(j, path, {"format", "rounding", "overflow", "subnormals"});
    if (!j.contains("format")) fail(path, j, "missing \"format\"");
    format = &j["format"];
    formatPath = join(path, "format");
  } else if (!j.is_string()) {
    fail(path, j, "expected null, a format name or {\"format\": ...}");
  }
  const std::string name = getString(*format, formatPath);
  auto f = numerics::parseFormat(name);
  if (!f) fail(formatPath, *format, numerics::formatNameError(name));
  s.format = *f;
  if (j.is_object()) {
    if (j.contains("rounding")) {
      auto m = numerics::parseRoundingMode(getString(j["rounding"], join(path, "rounding")));
      if (!m)
        fail(join(path, "rounding"), j["rounding"],
             "expected nearest-even, nearest-away, toward-zero or stochastic");
      s.mode = *m;
    }
    if (j.contains("overflow")) {
      auto m = numerics::parseOverflowMode(getString(j["overflow"], join(path, "overflow")));
      if (!m) fail(join(path, "overflow"), j["overflow"], "expected inf or saturate");
      s.overflow = *m;
    }
    if (j.contains("subnormals")) {
      auto m = numerics::parseSubnormalMode(getString(j["subnormals"], join(path, "subnormals")));
      if (!m) fail(join(path, "subnormals"), j["subnormals"], "expected keep or flush");
      s.subnormals = *m;
    }
  }
  return s;
}

json specToJson(const std::optional<RoundingSpec>& s) {
  if (!s) return nullptr;
  return {{"format", s->format.name},
          {"rounding", std::string(numerics::toString(s->mode))},
          {"overflow", std::string(numerics::toString(s->overflow))},
          {"subnormals", std::string(numerics::toString(s->subnormals))}};
}

void readSpec(const json& j, const char* key, const std::string& path,
              std::optional<RoundingSpec>& out) {
  if (j.contains(key)) out = specFromJson(j[key], join(path, key));
}

// {"recipe": "mx", "element": "fp8-e4m3", "block": 32, "scale": "e8m0", "square": false,
//  "rounding": "nearest-even"}: the recipe's defaults with what is given replacing them (null: no
// block scaling). Refusals name the field.
std::optional<numerics::BlockScaling> scalingFromJson(const json& j, const std::string& path) {
  if (j.is_null()) return std::nullopt;
  if (j.is_string()) {
    try {
      return numerics::parseBlockScaling(getString(j, path));
    } catch (const std::exception& e) {
      fail(path, j, e.what());
    }
  }
  checkKeys(j, path, {"recipe", "element", "block", "scale", "square", "rounding"});
  if (!j.contains("recipe"))
    fail(path, j, "missing \"recipe\" (mx, nvfp4, current, rowwise or blockwise)");
  numerics::BlockScaling scaling;
  try {
    scaling = numerics::parseBlockScaling(
        getString(j["recipe"], join(path, "recipe")),
        j.contains("element") ? getString(j["element"], join(path, "element")) : std::string(),
        j.contains("block") ? std::optional<int>(getInt(j["block"], join(path, "block"), 1))
                            : std::nullopt,
        j.contains("scale") ? getString(j["scale"], join(path, "scale")) : std::string());
    if (j.contains("square")) scaling.squareBlocks = getBool(j["square"], join(path, "square"));
    if (j.contains("rounding")) {
      const auto mode =
          numerics::parseRoundingMode(getString(j["rounding"], join(path, "rounding")));
      if (!mode) fail(join(path, "rounding"), j["rounding"], "expected nearest-even or stochastic");
      scaling.rounding = *mode;
    }
    numerics::validateBlockScaling(scaling);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    if (what.rfind("policy field", 0) == 0) throw;
    fail(path, j, what);
  }
  return scaling;
}

json scalingToJson(const numerics::BlockScaling& s) {
  return {{"recipe", std::string(numerics::toString(s.kind))},
          {"element", s.element.name},
          {"block", s.blockSize},
          {"scale", std::string(numerics::toString(s.scale))},
          {"square", s.squareBlocks},
          {"rounding", std::string(numerics::toString(s.rounding))}};
}

void gemmFromJson(const json& j, const std::string& path, GemmPolicy& g) {
  checkKeys(j, path,
            {"operands", "operandsB", "passes", "accumulationChunk", "accumulation", "output",
             "addend", "reverseSummation", "scaling", "scalingA", "scalingB", "hadamard",
             "accumulationModel", "fp32Promotion"});
  // A named accumulation model sets the fields it stands for; fields given beside it adjust it.
  if (j.contains("accumulationModel")) {
    const std::string model = getString(j["accumulationModel"], join(path, "accumulationModel"));
    if (model != "hopper-fp8-fast")
      fail(join(path, "accumulationModel"), j["accumulationModel"], "expected hopper-fp8-fast");
    const AccumulationModel hopper = hopperFp8FastAccumulation();
    g.accumulationChunk = hopper.chunk;
    g.accumulation = hopper.partialSums;
    g.fp32Promotion = true;
  }
  if (j.contains("fp32Promotion"))
    g.fp32Promotion = getBool(j["fp32Promotion"], join(path, "fp32Promotion"));
  // "scaling" sets both operands' recipe; scalingA / scalingB set one.
  if (j.contains("scaling"))
    g.scalingA = g.scalingB = scalingFromJson(j["scaling"], join(path, "scaling"));
  if (j.contains("scalingA")) g.scalingA = scalingFromJson(j["scalingA"], join(path, "scalingA"));
  if (j.contains("scalingB")) g.scalingB = scalingFromJson(j["scalingB"], join(path, "scalingB"));
  if (j.contains("hadamard")) g.hadamard = getBool(j["hadamard"], join(path, "hadamard"));
  readSpec(j, "operands", path, g.operands);
  readSpec(j, "operandsB", path, g.operandsB);
  readSpec(j, "accumulation", path, g.accumulation);
  readSpec(j, "output", path, g.output);
  readSpec(j, "addend", path, g.addend);
  if (j.contains("passes")) {
    const std::string p = getString(j["passes"], join(path, "passes"));
    if (p == "none" || p == "bf16")  // "bf16": how older policy files wrote one pass
      g.passes = MultiPass::None;
    else if (p == "bf16x3")
      g.passes = MultiPass::Bf16x3;
    else if (p == "bf16x6")
      g.passes = MultiPass::Bf16x6;
    else
      fail(join(path, "passes"), j["passes"], "expected none, bf16x3 or bf16x6");
  }
  if (j.contains("accumulationChunk"))
    g.accumulationChunk = getInt(j["accumulationChunk"], join(path, "accumulationChunk"), 0);
  if (j.contains("reverseSummation"))
    g.reverseSummation = getBool(j["reverseSummation"], join(path, "reverseSummation"));
}

// A single-pass product has no "passes" (it is one product of the operands as rounded, fp32 or
// tf32 included, not a bf16 one); multi-pass products say which.
json gemmToJson(const GemmPolicy& g) {
  json j = {{"operands", specToJson(g.operands)},
            {"operandsB", specToJson(g.operandsB)},
            {"accumulationChunk", g.accumulationChunk},
            {"accumulation", specToJson(g.accumulation)},
            {"output", specToJson(g.output)}};
  if (g.passes != MultiPass::None)
    j["passes"] = g.passes == MultiPass::Bf16x3 ? "bf16x3" : "bf16x6";
  // Written only when set, like passes: a policy stored before these fields existed reads and
  // writes the same.
  if (g.addend) j["addend"] = specToJson(g.addend);
  if (g.reverseSummation) j["reverseSummation"] = true;
  if (g.fp32Promotion) j["fp32Promotion"] = true;
  if (g.scalingA) j["scalingA"] = scalingToJson(*g.scalingA);
  if (g.scalingB) j["scalingB"] = scalingToJson(*g.scalingB);
  if (g.hadamard) j["hadamard"] = true;
  return j;
}

json productToJson(const ProductPolicy& pp) {
  return json{{"forward", gemmToJson(pp.forward)},
              {"backwardData", gemmToJson(pp.backwardData)},
              {"backwardWeight", gemmToJson(pp.backwardWeight)}};
}

void productFromJson(const json& j, const std::string& path, ProductPolicy& p) {
  checkKeys(j, path, {"forward", "backwardData", "backwardWeight"});
  if (j.contains("forward")) gemmFromJson(j["forward"], join(path, "forward"), p.forward);
  if (j.contains("backwardData"))
    gemmFromJson(j["backwardData"], join(path, "backwardData"), p.backwardData);
  if (j.contains("backwardWeight"))
    gemmFromJson(j["backwardWeight"], join(path, "backwardWeight"), p.backwardWeight);
}

// "forward|dgrad|wgrad" (or "all") -> which products an override selects.
void productsFromJson(const json& j, const std::string& path, ProductOverride& o) {
  const std::string list = getString(j, path);
  o.forward = o.backwardData = o.backwardWeight = false;
  std::size_t from = 0;
  while (from <= list.size()) {
    const std::size_t bar = std::min(list.find('|', from), list.size());
    const std::string one = list.substr(from, bar - from);
    if (one == "all")
      o.forward = o.backwardData = o.backwardWeight = true;
    else if (one == "forward")
      o.forward = true;
    else if (one == "dgrad" || one == "backwardData")
      o.backwardData = true;
    else if (one == "wgrad" || one == "backwardWeight")
      o.backwardWeight = true;
    else
      fail(path, j,
           "unknown product '" + one +
               "'; expected forward, dgrad, wgrad or all, "
               "joined by '|'");
    from = bar + 1;
  }
}

std::string productsToJson(const ProductOverride& o) {
  if (o.forward && o.backwardData && o.backwardWeight) return "all";
  std::string list;
  for (const auto& [on, name] :
       {std::pair{o.forward, "forward"}, {o.backwardData, "dgrad"}, {o.backwardWeight, "wgrad"}})
    if (on) list += (list.empty() ? "" : "|") + std::string(name);
  return list;
}

// {"layers": "first|last", "products": "wgrad", "policy": "gpu-amp-bf16" or {gemm fields}}, or,
// as policyToJson writes it, the products spelled out per kind: {"layers", "products",
// "preset"?, "linear", "conv", "attention"}.
ProductOverride overrideFromJson(const json& j, const std::string& path, bool fp8Enabled) {
  checkKeys(j, path, {"layers", "products", "policy", "preset", "linear", "conv", "attention"});
  ProductOverride o;
  if (!j.contains("layers")) fail(join(path, "layers"), j, "missing: the layers it applies to");
  o.layers = getString(j["layers"], join(path, "layers"));
  if (o.layers.empty() || o.layers.front() == '|' || o.layers.back() == '|' ||
      o.layers.find("||") != std::string::npos)
    fail(join(path, "layers"), j["layers"],
         "expected layer names or patterns joined by '|' (\"first|last|h*.attn.qkv\")");
  if (j.contains("products")) productsFromJson(j["products"], join(path, "products"), o);
  const bool spelledOut = j.contains("linear") || j.contains("conv") || j.contains("attention");
  if (j.contains("policy") == spelledOut)
    fail(path, j,
         "expected either \"policy\" (a preset name or a product's fields) or the "
         "products per kind (\"linear\", \"conv\", \"attention\")");
  if (spelledOut) {
    if (j.contains("preset")) o.preset = getString(j["preset"], join(path, "preset"));
    if (j.contains("linear")) productFromJson(j["linear"], join(path, "linear"), o.linear);
    if (j.contains("conv")) productFromJson(j["conv"], join(path, "conv"), o.conv);
    if (j.contains("attention"))
      productFromJson(j["attention"], join(path, "attention"), o.attention);
    return o;
  }
  const json& with = j["policy"];
  const std::string at = join(path, "policy");
  if (with.is_string()) {
    const std::string name = with.get<std::string>();
    PrecisionPolicy preset;
    try {
      preset = presetPolicy(name);
    } catch (const std::invalid_argument& e) {
      fail(at, with, e.what());
    }
    if (preset.fp8.enabled && !fp8Enabled)
      fail(at, with,
           "its fp8 products are scaled per tensor by delayed scaling, which is the whole "
           "policy's choice (fp8.enabled): enable it on the policy, or take a block-scaled "
           "recipe (mxfp8)");
    o.preset = name;
    o.linear = preset.linear;
    o.conv = preset.conv;
    o.attention = preset.attention;
    return o;
  }
  GemmPolicy g;  // from fp32: the product as the override writes it, nothing inherited
  gemmFromJson(with, at, g);
  o.linear.forward = o.linear.backwardData = o.linear.backwardWeight = g;
  o.conv = o.attention = o.linear;
  return o;
}

json overrideToJson(const ProductOverride& o) {
  json j = {{"layers", o.layers}, {"products", productsToJson(o)}};
  if (!o.preset.empty()) j["preset"] = o.preset;
  j["linear"] = productToJson(o.linear);
  j["conv"] = productToJson(o.conv);
  j["attention"] = productToJson(o.attention);
  return j;
}

void applyFields(const json& j, PrecisionPolicy& p) {
  checkKeys(j, "",
            {"preset", "name", "description", "linear", "conv", "attention", "storage",
             "elementwise", "batchNormStatsFp32", "lossScaling", "stochasticWeightUpdate", "fp8",
             "replicas", "sources", "overrides", "reduction", "gradAccumulation", "runningSums"});
  if (j.contains("name")) p.name = getString(j["name"], "name");
  if (j.contains("description")) p.description = getString(j["description"], "description");
  if (j.contains("linear")) productFromJson(j["linear"], "linear", p.linear);
  if (j.contains("conv")) productFromJson(j["conv"], "conv", p.conv);
  if (j.contains("attention"))
    productFromJson(j["attention"], "attention", p.attention);
  else if (!j.contains("preset"))  // a policy of its own (or one written before attention had
    p.attention = p.linear;        // its own products): attention rounds as its linear layers
  // (an adjusted preset keeps the preset's attention, which may differ: fp8's bf16 attention)
  if (j.contains("storage")) {
    const json& s = j["storage"];
    checkKeys(s, "storage",
              {"activations", "weights", "gradients", "optimizerState", "fp32MasterWeights"});
    readSpec(s, "activations", "storage", p.storage.activations);
    readSpec(s, "weights", "storage", p.storage.weights);
    readSpec(s, "gradients", "storage", p.storage.gradients);
    readSpec(s, "optimizerState", "storage", p.storage.optimizerState);
    if (s.contains("fp32MasterWeights"))
      p.storage.fp32MasterWeights = getBool(s["fp32MasterWeights"], "storage.fp32MasterWeights");
  }
  if (j.contains("elementwise")) {
    const json& e = j["elementwise"];
    checkKeys(e, "elementwise", {"softmax", "layerNormStatistics", "loss", "residual"});
    readSpec(e, "softmax", "elementwise", p.elementwise.softmax);
    readSpec(e, "layerNormStatistics", "elementwise", p.elementwise.layerNormStatistics);
    readSpec(e, "loss", "elementwise", p.elementwise.loss);
    readSpec(e, "residual", "elementwise", p.elementwise.residual);
  }
  if (j.contains("sources")) {
    const json& list = j["sources"];
    if (!list.is_array() || list.size() > 64) fail("sources", list, "expected a list of strings");
    p.sources.clear();
    for (std::size_t i = 0; i < list.size(); ++i)
      p.sources.push_back(getString(list[i], "sources[" + std::to_string(i) + "]"));
  }
  if (j.contains("batchNormStatsFp32"))
    p.batchNormStatsFp32 = getBool(j["batchNormStatsFp32"], "batchNormStatsFp32");
  if (j.contains("stochasticWeightUpdate"))
    p.stochasticWeightUpdate = getBool(j["stochasticWeightUpdate"], "stochasticWeightUpdate");
  if (j.contains("replicas"))
    p.topology.replicas = getInt(j["replicas"], "replicas", 1, input::kMaxReplicas);
  if (j.contains("lossScaling")) {
    const json& l = j["lossScaling"];
    checkKeys(l, "lossScaling",
              {"kind", "initialScale", "growthFactor", "backoffFactor", "growthInterval"});
    auto& ls = p.lossScaling;
    if (l.contains("kind")) {
      const std::string k = getString(l["kind"], "lossScaling.kind");
      if (k == "none")
        ls.kind = LossScalingKind::None;
      else if (k == "static")
        ls.kind = LossScalingKind::Static;
      else if (k == "dynamic")
        ls.kind = LossScalingKind::Dynamic;
      else
        fail("lossScaling.kind", l["kind"], "expected none, static or dynamic");
    }
    if (l.contains("initialScale")) {
      ls.initialScale = getNumber(l["initialScale"], "lossScaling.initialScale", 0.0, FLT_MAX);
      if (ls.initialScale == 0.0)  // would scale every gradient to zero
        fail("lossScaling.initialScale", l["initialScale"], "expected a number in (0, FLT_MAX]");
    }
    if (l.contains("growthFactor"))
      ls.growthFactor = getNumber(l["growthFactor"], "lossScaling.growthFactor", 1.0);
    if (l.contains("backoffFactor")) {
      ls.backoffFactor = getNumber(l["backoffFactor"], "lossScaling.backoffFactor", 0.0);
      if (ls.backoffFactor >= 1.0 || ls.backoffFactor == 0.0)
        fail("lossScaling.backoffFactor", l["backoffFactor"], "expected a number in (0, 1)");
    }
    if (l.contains("growthInterval"))
      ls.growthInterval = getInt(l["growthInterval"], "lossScaling.growthInterval", 1);
  }
  if (j.contains("fp8")) {
    const json& f = j["fp8"];
    checkKeys(f, "fp8", {"enabled", "amaxHistoryLength", "margin"});
    if (f.contains("enabled")) p.fp8.enabled = getBool(f["enabled"], "fp8.enabled");
    if (f.contains("amaxHistoryLength"))
      p.fp8.amaxHistoryLength =
          getInt(f["amaxHistoryLength"], "fp8.amaxHistoryLength", 1, input::kMaxAmaxHistoryLength);
    if (f.contains("margin")) p.fp8.margin = getNumber(f["margin"], "fp8.margin", 0.0, 64.0);
  }
  if (j.contains("reduction")) {
    const json& r = j["reduction"];
    checkKeys(r, "reduction", {"allReduce", "order"});
    readSpec(r, "allReduce", "reduction", p.reduction.allReduce);
    if (r.contains("order")) {
      const std::string order = getString(r["order"], "reduction.order");
      if (order == "tree")
        p.reduction.order = ReduceOrder::Tree;
      else if (order == "ring")
        p.reduction.order = ReduceOrder::Ring;
      else
        fail("reduction.order", r["order"], "expected tree or ring");
    }
  }
  if (j.contains("gradAccumulation")) {
    const json& a = j["gradAccumulation"];
    checkKeys(a, "gradAccumulation", {"steps", "format"});
    if (a.contains("steps"))
      p.reduction.accumulationSteps =
          getInt(a["steps"], "gradAccumulation.steps", 1, int(input::kMaxBatchSize));
    readSpec(a, "format", "gradAccumulation", p.reduction.accumulationFormat);
  }
  readSpec(j, "runningSums", "", p.reduction.runningSums);
  if (j.contains("overrides")) {  // replaces a preset's overrides, as every field does
    const json& list = j["overrides"];
    if (!list.is_array() || list.size() > 256)
      fail("overrides", list, "expected a list of {layers, products, policy}");
    p.overrides.clear();
    for (std::size_t i = 0; i < list.size(); ++i)
      p.overrides.push_back(
          overrideFromJson(list[i], "overrides[" + std::to_string(i) + "]", p.fp8.enabled));
  }
}

// A product that block-scales its operands has neither the multi-pass split nor the per-tensor
// delayed fp8 scales: it has one of them.
void checkBlockScaled(const GemmPolicy& g, const std::string& path, const PrecisionPolicy& p,
                      const json& j) {
  if (!g.blockScaled()) return;
  if (g.passes != MultiPass::None)
    fail(path + ".passes", j, "a block-scaled product cannot also be a multi-pass product");
  if (p.fp8.enabled)
    fail("fp8.enabled", j,
         "per-tensor delayed fp8 scaling and block scaling (" + path +
             ") cannot both scale a product");
}

void checkProducts(const ProductPolicy& pp, const std::string& path, const PrecisionPolicy& p,
                   const json& j) {
  checkBlockScaled(pp.forward, path + ".forward", p, j);
  checkBlockScaled(pp.backwardData, path + ".backwardData", p, j);
  checkBlockScaled(pp.backwardWeight, path + ".backwardWeight", p, j);
}

}  // namespace

PrecisionPolicy policyFromJson(const json& j) {
  if (j.is_string()) return presetPolicy(j.get<std::string>());
  if (!j.is_object()) fail("(policy)", j, "expected a preset name or an object");
  PrecisionPolicy p;
  p.name = "custom";
  p.description = "Custom emulated policy";
  if (j.contains("preset")) {
    p = presetPolicy(getString(j["preset"], "preset"));
    if (j.size() > 1 && !j.contains("name")) p.name += " (adjusted)";
    if (j.size() > 1 && !j.contains("description")) p.description += "; adjusted";
    if (j.size() > 1 && !j.contains("sources"))
      p.sources.push_back("Adjusted: the fields this policy gives differ from the preset's");
  }
  applyFields(j, p);
  checkProducts(p.linear, "linear", p, j);
  checkProducts(p.conv, "conv", p, j);
  checkProducts(p.attention, "attention", p, j);
  for (std::size_t i = 0; i < p.overrides.size(); ++i) {
    const std::string path = "overrides[" + std::to_string(i) + "]";
    checkProducts(p.overrides[i].linear, path + ".linear", p, j);
    checkProducts(p.overrides[i].conv, path + ".conv", p, j);
    checkProducts(p.overrides[i].attention, path + ".attention", p, j);
  }
  return p;
}

json policyToJson(const PrecisionPolicy& p) {
  const auto& ls = p.lossScaling;
  json j = {{"name", p.name},
            {"description", p.description},
            {"linear", productToJson(p.linear)},
            {"conv", productToJson(p.conv)},
            {"attention", productToJson(p.attention)},
            {"storage",
             {{"activations", specToJson(p.storage.activations)},
              {"weights", specToJson(p.storage.weights)},
              {"gradients", specToJson(p.storage.gradients)},
              {"optimizerState", specToJson(p.storage.optimizerState)},
              {"fp32MasterWeights", p.storage.fp32MasterWeights}}},
            {"elementwise",
             {{"softmax", specToJson(p.elementwise.softmax)},
              {"layerNormStatistics", specToJson(p.elementwise.layerNormStatistics)},
              {"loss", specToJson(p.elementwise.loss)},
              {"residual", specToJson(p.elementwise.residual)}}},
            {"batchNormStatsFp32", p.batchNormStatsFp32},
            {"lossScaling",
             {{"kind", ls.kind == LossScalingKind::None     ? "none"
                       : ls.kind == LossScalingKind::Static ? "static"
                                                            : "dynamic"},
              {"initialScale", ls.initialScale},
              {"growthFactor", ls.growthFactor},
              {"backoffFactor", ls.backoffFactor},
              {"growthInterval", ls.growthInterval}}},
            {"stochasticWeightUpdate", p.stochasticWeightUpdate},
            {"fp8",
             {{"enabled", p.fp8.enabled},
              {"amaxHistoryLength", p.fp8.amaxHistoryLength},
              {"margin", p.fp8.margin}}},
            {"replicas", p.topology.replicas}};
  if (!p.sources.empty()) j["sources"] = p.sources;
  if (!p.reduction.isDefault()) {  // written only when set, as before these fields existed
    const ReductionPolicy& r = p.reduction;
    j["reduction"] = {{"allReduce", specToJson(r.allReduce)},
                      {"order", r.order == ReduceOrder::Tree ? "tree" : "ring"}};
    j["gradAccumulation"] = {{"steps", r.accumulationSteps},
                             {"format", specToJson(r.accumulationFormat)}};
    j["runningSums"] = specToJson(r.runningSums);
  }
  if (!p.overrides.empty()) {  // written only when there are some, as before they existed
    j["overrides"] = json::array();
    for (const ProductOverride& o : p.overrides) j["overrides"].push_back(overrideToJson(o));
  }
  return j;
}

}  // namespace paritylab::backends
