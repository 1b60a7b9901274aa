// The spec's "sweep": each backend crossed with every combination of the swept hyperparameters'
// values, one entry per cell with the cell's hyperparameters; written back as the backends and
// the sweep (the same study read again); extended by more values; refused, naming the field,
// for an unknown hyperparameter, an empty or repeated list, a backend that overrides a swept
// field, a grid past the run limit, and epochs swept in a study that counts steps. A factor may
// be a field of the backends' own policies ("policy.replicas"): each cell's policy is its
// backend's adjusted by the field, and a value a backend's policy does not take is named.

#include <gtest/gtest.h>

#include <string>

#include "core/study/spec/study_spec.h"
#include "tests/study/spec/spec_message.h"

namespace paritylab::study {
namespace {

std::string sweepSpec(const std::string& sweep, const std::string& more = "") {
  return R"({"version": 1, "name": "s", "backends": ["gpu-tf32", "tpu-bf16"], "seeds": 3,
    "model": "mlp", "epochs": 2, "dataset": {"source": "synthetic"}, "sweep": )" +
         sweep + more + "}";
}

std::string sweepMessageOf(const std::string& text) {
  return testing::specMessage(text, "s.json");
}

TEST(SweepSpec, EachBackendBecomesOneEntryPerCellWithTheCellsHyperparameters) {
  const StudySpec s =
      parseStudySpec(sweepSpec(R"({"weight_decay": [0.0005, 0.000125], "batch_size": [64, 512]})",
                               R"(, "chaos_floor": false)"));
  ASSERT_EQ(s.sweep.size(), 2u);
  EXPECT_EQ(s.sweep[0].field, "batch_size");  // in name order
  EXPECT_EQ(s.sweep[1].field, "weight_decay");
  ASSERT_EQ(s.backends.size(), 8u);
  EXPECT_EQ(s.backends[0].name, "gpu-tf32 batch_size=64 weight_decay=0.0005");
  EXPECT_EQ(s.backends[1].name, "gpu-tf32 batch_size=64 weight_decay=0.000125");
  EXPECT_EQ(s.backends[2].name, "gpu-tf32 batch_size=512 weight_decay=0.0005");
  EXPECT_EQ(s.backends[7].name, "tpu-bf16 batch_size=512 weight_decay=0.000125");
  EXPECT_EQ(s.backends[7].sweptFrom, "tpu-bf16");
  EXPECT_EQ(s.backends[7].policy.name, "tpu-bf16");
  ASSERT_EQ(s.backends[7].cell.size(), 2u);
  EXPECT_EQ(s.backends[7].cell[0].value, 512);
  const nn::TrainConfig c = trainConfigFor(s, s.backends[7]);
  EXPECT_EQ(c.batchSize, 512);
  EXPECT_EQ(c.optimizer.weightDecay, 0.000125);
  EXPECT_EQ(trainConfigFor(s, s.backends[0]).batchSize, 64);
}

TEST(SweepSpec, WrittenBackAsTheBackendsAndTheSweepReadsAsTheSameStudy) {
  const StudySpec s = parseStudySpec(sweepSpec(R"({"lr": [0.001, 0.01, 0.1], "grad_clip": [1]})"));
  const nlohmann::json j = studySpecToJson(s);
  ASSERT_EQ(j["backends"].size(), 2u);
  EXPECT_EQ(j["backends"][0]["name"], "gpu-tf32");
  EXPECT_FALSE(j["backends"][0].contains("overrides"));
  EXPECT_EQ(j["sweep"]["lr"].size(), 3u);
  const StudySpec again = parseStudySpec(j.dump(), "written.json");
  EXPECT_EQ(studySpecToJson(again), j);
  ASSERT_EQ(again.backends.size(), s.backends.size());
  for (std::size_t i = 0; i < s.backends.size(); ++i)
    EXPECT_EQ(again.backends[i].name, s.backends[i].name);
  EXPECT_EQ(trainConfigFor(again, again.backends[2]).optimizer.lr, 0.1);
  EXPECT_EQ(trainConfigFor(again, again.backends[2]).gradClipNorm, 1.0);
}

TEST(SweepSpec, TheChaosFloorPerturbsTheFirstCellWithItsHyperparameters) {
  const StudySpec s = parseStudySpec(sweepSpec(R"({"lr": [0.001, 0.01]})"));
  ASSERT_TRUE(s.chaosFloor);
  EXPECT_EQ(s.chaosFloor->reference, "gpu-tf32 lr=0.001");
  const BackendEntry& nudged = s.backends[4];
  EXPECT_EQ(nudged.name, "nudged-gpu-tf32 lr=0.001");
  EXPECT_TRUE(nudged.cell.empty());  // not a cell of the grid: the analysis leaves it out
  EXPECT_EQ(trainConfigFor(s, nudged).optimizer.lr, 0.001);
  EXPECT_EQ(sweepBases(s).size(), 2u);
}

TEST(SweepSpec, AChaosFloorReferenceNamedAsWrittenMeansThatBackendsFirstCell) {
  const StudySpec s = parseStudySpec(
      sweepSpec(R"({"lr": [0.001, 0.01]})", R"(, "chaos_floor": {"reference": "tpu-bf16"})"));
  ASSERT_TRUE(s.chaosFloor);
  EXPECT_EQ(s.chaosFloor->reference, "tpu-bf16 lr=0.001");
  EXPECT_EQ(s.backends[4].perturbs, "tpu-bf16 lr=0.001");
}

TEST(SweepSpec, MoreValuesExtendTheStudyOtherFactorsDoNot) {
  const StudySpec stored = parseStudySpec(sweepSpec(R"({"lr": [0.001, 0.01]})"));
  EXPECT_TRUE(extendsStudy(stored, parseStudySpec(sweepSpec(R"({"lr": [0.001, 0.01, 0.1]})"))));
  EXPECT_FALSE(extendsStudy(stored, parseStudySpec(sweepSpec(R"({"lr": [0.001]})"))));
  EXPECT_FALSE(
      extendsStudy(stored, parseStudySpec(sweepSpec(R"({"weight_decay": [0.001, 0.01]})"))));
  EXPECT_FALSE(
      extendsStudy(stored, parseStudySpec(sweepSpec(R"({"lr": [0.001, 0.01], "epochs": [1]})"))));
}

TEST(SweepSpec, ALockstepMayNameTheBackendASweepWasMadeFrom) {
  const StudySpec s = parseStudySpec(
      sweepSpec(R"({"lr": [0.001, 0.01]})", R"(, "lockstep": {"backend": "tpu-bf16"})"));
  EXPECT_EQ(lockstepPolicy(s, "tpu-bf16").name, "tpu-bf16");
}

TEST(SweepSpec, APolicyFieldSetsTheFieldInEachCellsPolicy) {
  const StudySpec s = parseStudySpec(
      sweepSpec(R"({"policy.replicas": [1, 8], "lr": [0.01]})", R"(, "chaos_floor": false)"));
  ASSERT_EQ(s.sweep.size(), 2u);
  EXPECT_EQ(s.sweep[1].field, "policy.replicas");
  ASSERT_EQ(s.backends.size(), 4u);
  EXPECT_EQ(s.backends[0].name, "gpu-tf32 lr=0.01 policy.replicas=1");
  EXPECT_EQ(s.backends[3].name, "tpu-bf16 lr=0.01 policy.replicas=8");
  EXPECT_EQ(s.backends[0].policy.topology.replicas, 1);
  EXPECT_EQ(s.backends[1].policy.topology.replicas, 8);
  EXPECT_EQ(s.backends[2].policy.topology.replicas, 1);
  EXPECT_EQ(s.backends[3].policy.topology.replicas, 8);
  // Everything else is the preset's: the cell's products are tpu-bf16's.
  const backends::PrecisionPolicy tpu = backends::presetPolicy("tpu-bf16");
  EXPECT_EQ(backends::policyToJson(s.backends[2].policy)["linear"],
            backends::policyToJson(tpu)["linear"]);
  EXPECT_EQ(trainConfigFor(s, s.backends[2]).optimizer.lr, 0.01);
  // Written back: the backends as written, the sweep with the field's values as given.
  const nlohmann::json j = studySpecToJson(s);
  EXPECT_EQ(j["backends"][1]["policy"], "tpu-bf16");
  EXPECT_EQ(j["sweep"]["policy.replicas"], nlohmann::json::parse("[1, 8]"));
  const StudySpec again = parseStudySpec(j.dump(), "written.json");
  EXPECT_EQ(studySpecToJson(again), j);
  EXPECT_EQ(again.backends[3].policy.topology.replicas, 8);
}

TEST(SweepSpec, APolicyFieldsPathSetsANestedFieldAndNullMeansNoRounding) {
  const StudySpec s = parseStudySpec(
      R"({"version": 1, "name": "s", "backends": ["gpu-amp-bf16"], "seeds": 2, "model": "mlp",
          "dataset": {"source": "synthetic"}, "chaos_floor": false,
          "sweep": {"policy.storage.activations": ["bf16", null]}})");
  ASSERT_EQ(s.backends.size(), 2u);
  EXPECT_EQ(s.backends[0].name, "gpu-amp-bf16 policy.storage.activations=bf16");
  EXPECT_EQ(s.backends[1].name, "gpu-amp-bf16 policy.storage.activations=none");
  ASSERT_TRUE(s.backends[0].policy.storage.activations.has_value());
  EXPECT_EQ(s.backends[0].policy.storage.activations->format.name, "bf16");
  EXPECT_FALSE(s.backends[1].policy.storage.activations.has_value());
  // The rest of storage is the preset's (the path sets one field, not the whole object).
  const backends::PrecisionPolicy amp = backends::presetPolicy("gpu-amp-bf16");
  EXPECT_EQ(backends::policyToJson(s.backends[1].policy)["storage"]["weights"],
            backends::policyToJson(amp)["storage"]["weights"]);
  EXPECT_EQ(backends::policyToJson(s.backends[1].policy)["linear"],
            backends::policyToJson(amp)["linear"]);
}

TEST(SweepSpec, APolicyFieldsValueABackendDoesNotTakeIsNamed) {
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"policy.replicas": [1, 0]})"))
                .find("sweep.policy.replicas[1]: backend 'gpu-tf32' does not take 0: "),
            std::string::npos);
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"policy.storage.activations": ["bf17"]})"))
                .find("sweep.policy.storage.activations[0]: backend 'gpu-tf32' does not take bf17"),
            std::string::npos);
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"policy.": [1]})"))
                .find("sweep.policy.: not a policy field's path"),
            std::string::npos);
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"policy.a..b": [1]})")).find("not a policy field's path"),
            std::string::npos);
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"policy.replicas": [8, 8]})"))
                .find("sweep.policy.replicas[1]: 8 is listed twice"),
            std::string::npos);
  EXPECT_NE(
      sweepMessageOf(sweepSpec(R"({"policy.replicaz": [8]})")).find("sweep.policy.replicaz[0]"),
      std::string::npos);
}

TEST(SweepSpec, RefusalsNameTheField) {
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"momentum": [0.9]})"))
                .find("sweep.momentum: not a hyperparameter a sweep can vary (one of: lr, "
                      "weight_decay, batch_size, epochs, warmup_epochs, grad_clip; or a field of "
                      "the backends' policies, \"policy.replicas\")"),
            std::string::npos);
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"lr": []})"))
                .find("sweep.lr: expected a list of 1 to 1000 values"),
            std::string::npos);
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"lr": [0.1, 0.1]})"))
                .find("sweep.lr[1]: 0.1 is listed twice (at 0 and 1; each value once)"),
            std::string::npos);
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"lr": [0.1, -1]})")).find("sweep.lr[1]"),
            std::string::npos);
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"batch_size": [64, 1.5]})")).find("sweep.batch_size[1]"),
            std::string::npos);
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"lr": [0.1]})")).find("accepted"), std::string::npos);
  EXPECT_NE(sweepMessageOf(R"({"version": 1, "name": "s", "model": "mlp",
    "dataset": {"source": "synthetic"}, "seeds": 2, "sweep": {"lr": [0.1, 0.2]},
    "backends": [{"policy": "cpu-fp32", "overrides": {"lr": 0.5}}]})")
                .find("backends[0].overrides.lr: is swept too"),
            std::string::npos);
  // 1000 x 1000 cells x 2 backends x 3 seeds: past the limit, refused before anything is made.
  std::string many = "[";
  for (int i = 1; i <= 1000; ++i) many += (i > 1 ? "," : "") + std::to_string(i);
  many += "]";
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"epochs": )" + many + R"(, "batch_size": )" + many + "}"))
                .find("sweep: a grid of 1000000 cells x 2 backends x 3 seeds is more than the "
                      "100000 runs a study may have"),
            std::string::npos);
  EXPECT_NE(sweepMessageOf(R"({"version": 1, "name": "s", "model": "mlp", "steps": 10,
    "dataset": {"source": "synthetic"}, "backends": ["cpu-fp32"], "sweep": {"epochs": [1, 2]}})")
                .find("sweep.epochs: the study counts steps"),
            std::string::npos);
  EXPECT_NE(sweepMessageOf(sweepSpec(R"({"warmup_epochs": [1, 3]})"))
                .find("warms up for 3 epochs, more than its 2"),
            std::string::npos);
  EXPECT_NE(
      sweepMessageOf(sweepSpec(R"([0.1])")).find("sweep: expected an object of hyperparameters"),
      std::string::npos);
}

}  // namespace
}  // namespace paritylab::study
