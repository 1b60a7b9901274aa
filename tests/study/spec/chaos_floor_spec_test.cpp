// The chaos floor in a study spec: on by default for two or more emulated backends, its entries
// made by the parser (never written back), refused where it names what is not there, and a stored
// study from before it existed read as having none.
#include <gtest/gtest.h>

#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

std::string spec(const std::string& backends, const std::string& extra = "") {
  return R"({"version": 1, "name": "s", "dataset": {"source": "synthetic"}, "model": "mlp",
    "seeds": 2, "backends": )" +
         backends + extra + "}";
}

std::vector<std::string> names(const StudySpec& s) {
  std::vector<std::string> out;
  for (const BackendEntry& e : s.backends) out.push_back(e.name);
  return out;
}

TEST(ChaosFloorSpec, IsOnByDefaultWithTwoBackendsAndPerturbsTheFirst) {
  const StudySpec s = parseStudySpec(spec(R"(["cpu-fp32", "tpu-bf16"])"));
  ASSERT_TRUE(s.chaosFloor.has_value());
  EXPECT_EQ(s.chaosFloor->reference, "cpu-fp32");
  EXPECT_EQ(names(s), (std::vector<std::string>{"cpu-fp32", "tpu-bf16", "nudged-cpu-fp32",
                                                "reordered-cpu-fp32"}));
  const BackendEntry& nudged = s.backends[2];
  const BackendEntry& reordered = s.backends[3];
  EXPECT_EQ(nudged.perturbation, Perturbation::InitialWeightUlp);
  EXPECT_EQ(nudged.perturbs, "cpu-fp32");
  EXPECT_EQ(backends::policyToJson(nudged.policy), backends::policyToJson(s.backends[0].policy));
  EXPECT_TRUE(trainConfigFor(s, nudged).nudgeFirstWeight);
  EXPECT_FALSE(trainConfigFor(s, s.backends[0]).nudgeFirstWeight);
  EXPECT_EQ(reordered.perturbation, Perturbation::SummationOrder);
  EXPECT_FALSE(trainConfigFor(s, reordered).nudgeFirstWeight);
  for (const auto* product : {&reordered.policy.linear, &reordered.policy.conv})
    for (const auto* g : {&product->forward, &product->backwardData, &product->backwardWeight})
      EXPECT_TRUE(g->reverseSummation);
  EXPECT_FALSE(s.backends[0].policy.linear.forward.reverseSummation);
  EXPECT_NE(chaosFloorCost(s).find("4 of the study's 8 runs"), std::string::npos)
      << chaosFloorCost(s);
}

TEST(ChaosFloorSpec, IsOffForOneBackendOrWhenAskedAndNamesItsReference) {
  EXPECT_FALSE(parseStudySpec(spec(R"(["cpu-fp32"])")).chaosFloor);
  EXPECT_FALSE(
      parseStudySpec(spec(R"(["cpu-fp32", "tpu-bf16"])", R"(, "chaos_floor": false)")).chaosFloor);
  const StudySpec s = parseStudySpec(
      spec(R"(["cpu-fp32", "tpu-bf16"])",
           R"(, "chaos_floor": {"reference": "tpu-bf16", "perturbations": ["summation-order"]})"));
  EXPECT_EQ(names(s), (std::vector<std::string>{"cpu-fp32", "tpu-bf16", "reordered-tpu-bf16"}));
}

TEST(ChaosFloorSpec, RefusesAnUnknownReferenceOrPerturbationNamingTheField) {
  const auto fieldOf = [](const std::string& extra) {
    try {
      parseStudySpec(spec(R"(["cpu-fp32", "tpu-bf16"])", extra), "s.json");
    } catch (const SpecError& e) {
      return e.field() + " | " + e.what();
    }
    return std::string("accepted");
  };
  EXPECT_NE(fieldOf(R"(, "chaos_floor": {"reference": "gpu-tf33"})").find("chaos_floor.reference"),
            std::string::npos);
  EXPECT_NE(fieldOf(R"(, "chaos_floor": {"perturbations": ["bit-flip"]})")
                .find("chaos_floor.perturbations[0]"),
            std::string::npos);
  EXPECT_NE(fieldOf(R"(, "chaos_floor": 3)").find("chaos_floor"), std::string::npos);
  EXPECT_NE(fieldOf(R"(, "chaos_floor": {"referance": "cpu-fp32"})").find("unknown field"),
            std::string::npos);
}

TEST(ChaosFloorSpec, WrittenSpecReadsBackAsTheSameStudyAndAddingAFloorExtendsIt) {
  const StudySpec with = parseStudySpec(spec(R"(["cpu-fp32", "tpu-bf16"])"));
  const nlohmann::json written = studySpecToJson(with);
  EXPECT_EQ(written["backends"].size(), 2u);  // the floor's entries are made again when read
  const StudySpec again = parseStudySpec(written.dump());
  EXPECT_EQ(names(again), names(with));
  EXPECT_EQ(studySpecToJson(again), written);
  const StudySpec without =
      parseStudySpec(spec(R"(["cpu-fp32", "tpu-bf16"])", R"(, "chaos_floor": false)"));
  EXPECT_TRUE(extendsStudy(without, with));   // more runs
  EXPECT_FALSE(extendsStudy(with, without));  // runs dropped
}

TEST(ChaosFloorSpec, StudyStoredBeforeTheFloorExistedHasNone) {
  const std::string path = testing::freshTempPath("pre-chaos.db");
  {
    auto store = ResultsStore::open(path, true);
    store->saveStudySpec(spec(R"(["cpu-fp32", "tpu-bf16"])"));  // as older versions wrote it
  }
  const StudySpec stored = ResultsStore::openReadOnly(path)->loadStudySpec();
  EXPECT_FALSE(stored.chaosFloor);
  EXPECT_EQ(stored.backends.size(), 2u);
}

TEST(ChaosFloorSpec, CommandLineBackendsRebuildTheFloor) {
  StudySpec s = parseStudySpec(spec(R"(["cpu-fp32", "tpu-bf16"])"));
  s.backends.erase(s.backends.begin());  // --backends tpu-bf16,gpu-tf32
  BackendEntry tf32;
  tf32.name = "gpu-tf32";
  tf32.policy = backends::presetPolicy("gpu-tf32");
  s.backends.insert(s.backends.begin() + 1, tf32);
  rebuildChaosFloor(s);
  EXPECT_EQ(names(s), (std::vector<std::string>{"tpu-bf16", "gpu-tf32", "nudged-tpu-bf16",
                                                "reordered-tpu-bf16"}));
}

}  // namespace
}  // namespace paritylab::study
