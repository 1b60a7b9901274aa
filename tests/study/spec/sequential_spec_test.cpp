// The spec's "sequential": read with its defaults and the seeds it sets, written back the same,
// and refused with the field named without a margin, with seeds of its own, with a sweep, or
// comparing a backend the study has not or a backend with itself.

#include <gtest/gtest.h>

#include <string>

#include "core/study/spec/study_spec.h"
#include "tests/study/spec/spec_message.h"

namespace paritylab::study {
namespace {

std::string sequentialSpec(const std::string& sequential, const std::string& more = "") {
  return R"({"version": 1, "name": "q", "backends": ["cpu-fp32", "tpu-bf16", "pure-bf16"],
    "model": "mlp", "dataset": {"source": "synthetic"}, "sequential": )" +
         sequential + more + "}";
}

std::string sequentialMessageOf(const std::string& text) {
  return testing::specMessage(text, "q.json");
}

TEST(SequentialSpec, ReadWithItsDefaultsSetsItsSeedsAndIsWrittenBackTheSame) {
  const StudySpec s = parseStudySpec(sequentialSpec(R"({"margin": 0.01})"));
  ASSERT_TRUE(s.sequential);
  EXPECT_EQ(s.sequential->design.margin, 0.01);
  EXPECT_EQ(s.sequential->design.alpha, 0.05);
  EXPECT_EQ(s.sequential->design.maxSeeds, 20u);
  EXPECT_EQ(s.sequential->design.lookEvery, 5u);
  EXPECT_EQ(s.seeds.size(), 20u);
  EXPECT_EQ(sequentialBackends(s), (std::pair<std::string, std::string>{"tpu-bf16", "cpu-fp32"}));
  const nlohmann::json j = studySpecToJson(s);
  EXPECT_FALSE(j.contains("seeds"));
  EXPECT_EQ(studySpecToJson(parseStudySpec(j.dump(), "written.json")), j);
  const StudySpec named = parseStudySpec(sequentialSpec(
      R"({"margin": 0.01, "b": "tpu-bf16", "max_seeds": 12, "spending": "pocock"})"));
  EXPECT_EQ(sequentialBackends(named),
            (std::pair<std::string, std::string>{"cpu-fp32", "tpu-bf16"}));
  EXPECT_EQ(named.sequential->design.spending, stats::AlphaSpending::Pocock);
  EXPECT_EQ(named.seeds.size(), 12u);
}

TEST(SequentialSpec, RefusalsNameTheField) {
  EXPECT_NE(sequentialMessageOf(sequentialSpec("{}"))
                .find("sequential.margin: missing (the equivalence margin"),
            std::string::npos);
  EXPECT_NE(sequentialMessageOf(sequentialSpec(R"({"margin": 0.01})", R"(, "seeds": 5)"))
                .find("seeds: a sequential study sets its seeds"),
            std::string::npos);
  EXPECT_NE(
      sequentialMessageOf(sequentialSpec(R"({"margin": 0.01})", R"(, "sweep": {"lr": [0.1, 0.2]})"))
          .find("sequential: not with a \"sweep\""),
      std::string::npos);
  EXPECT_NE(sequentialMessageOf(sequentialSpec(R"({"margin": 0.01, "a": "gpu-x"})"))
                .find("sequential.a: 'gpu-x' is not a backend of the study"),
            std::string::npos);
  EXPECT_NE(
      sequentialMessageOf(sequentialSpec(R"({"margin": 0.01, "a": "tpu-bf16", "b": "tpu-bf16"})"))
          .find("sequential.b: 'tpu-bf16' is backend a itself"),
      std::string::npos);
  EXPECT_NE(sequentialMessageOf(sequentialSpec(R"({"margin": 0.01, "max_seeds": 1})"))
                .find("sequential.max_seeds"),
            std::string::npos);
  EXPECT_NE(sequentialMessageOf(sequentialSpec(R"({"margin": 0.01, "spending": "haybittle"})"))
                .find("sequential.spending: unknown value 'haybittle'"),
            std::string::npos);
}

}  // namespace
}  // namespace paritylab::study
