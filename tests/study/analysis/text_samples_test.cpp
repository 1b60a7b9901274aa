// The Samples comparison from a results database: a hand-made language-model study whose texts
// part from the reference's at positions worked out by hand, the seed floor between two seeds of
// the reference, runs without a sample named in notes, and the samples surviving a migration-free
// round trip through the database as bytes (not only UTF-8).
#include "core/study/analysis/text_samples.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/study/analysis/divergence_analysis.h"
#include "core/study/store/results_store.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;

constexpr const char* kTextSpec = R"({"version": 1, "name": "lm",
  "dataset": {"source": "text:/dev/null"}, "model": "gpt", "steps": 10,
  "backends": ["cpu-fp32", "tpu-bf16", "pure-bf16"], "seeds": 3, "chaos_floor": false})";

std::int64_t addRun(ResultsStore& store, const std::string& backend, std::uint64_t seed,
                    RunState status = RunState::Completed) {
  RunRecord r;
  r.backend = backend;
  r.seed = seed;
  r.status = status;
  return store.addRun(r);
}

TEST(TextSamples, FirstDifferenceIsTheFirstByteThatDiffers) {
  EXPECT_EQ(firstDifference("the king", "the kind"), std::optional<std::size_t>(7));
  EXPECT_EQ(firstDifference("abc", "xbc"), std::optional<std::size_t>(0));
  EXPECT_EQ(firstDifference("abc", "abc"), std::nullopt);
  EXPECT_EQ(firstDifference("ab", "abc"), std::optional<std::size_t>(2));  // one ended first
  EXPECT_EQ(firstDifference("", ""), std::nullopt);
}

// cpu-fp32 (reference): seed 0 "the cat sat", 1 "the dog ran", 2 "a bird flew".
// tpu-bf16: seed 0 "the car sat" (parts at 6), 1 "the dog ran" (identical), 2 "a bird fled" (10).
//   Characters agreeing: 6, 11, 10 -> median 10; 1 identical of 3.
// pure-bf16: seed 0 only, "thx" (parts at 2); seed 1 diverged, seed 2 completed without a sample.
// Floor, consecutive seeds of cpu-fp32: (0, 1) "the " agree 4, (1, 2) agree 0 -> median 2.
TEST(TextSamples, HandMadeStudyGivesWhereEachTextPartsFromTheReference) {
  const std::string path = freshTempPath("text-samples");
  {
    auto store = ResultsStore::open(path, true);
    store->saveStudySpec(kTextSpec);
    const char* ref[] = {"the cat sat", "the dog ran", "a bird flew"};
    const char* tpu[] = {"the car sat", "the dog ran", "a bird fled"};
    for (std::uint64_t seed = 0; seed < 3; ++seed) {
      store->addSample(addRun(*store, "cpu-fp32", seed), {"\n", ref[seed], 0.0});
      store->addSample(addRun(*store, "tpu-bf16", seed), {"\n", tpu[seed], 0.0});
    }
    store->addSample(addRun(*store, "pure-bf16", 0), {"\n", "thx", 0.0});
    addRun(*store, "pure-bf16", 1, RunState::Diverged);
    addRun(*store, "pure-bf16", 2);
  }
  const auto store = ResultsStore::openReadOnly(path);
  const SamplesReport r = compareSamples(*store, "cpu-fp32");
  EXPECT_EQ(r.reference, "cpu-fp32");
  EXPECT_EQ(r.prompt, "\n");
  EXPECT_EQ(r.length, 11u);
  ASSERT_EQ(r.seeds.size(), 3u);
  ASSERT_EQ(r.seeds[0].backends.size(), 3u);
  EXPECT_EQ(r.seeds[0].backends[0].backend, "cpu-fp32");
  EXPECT_EQ(r.seeds[0].backends[0].firstDifference, std::nullopt);
  EXPECT_EQ(r.seeds[0].backends[1].firstDifference, std::optional<std::size_t>(6));
  EXPECT_EQ(r.seeds[0].backends[2].text, "thx");
  EXPECT_EQ(r.seeds[0].backends[2].firstDifference, std::optional<std::size_t>(2));
  EXPECT_EQ(r.seeds[1].backends[1].firstDifference, std::nullopt);  // identical
  EXPECT_EQ(r.seeds[2].backends[1].firstDifference, std::optional<std::size_t>(10));
  ASSERT_EQ(r.agreement.size(), 2u);
  EXPECT_EQ(r.agreement[0].backend, "tpu-bf16");
  EXPECT_EQ(r.agreement[0].seeds, 3u);
  EXPECT_EQ(r.agreement[0].identical, 1u);
  EXPECT_DOUBLE_EQ(r.agreement[0].medianAgreeing, 10.0);
  EXPECT_EQ(r.agreement[1].seeds, 1u);
  EXPECT_DOUBLE_EQ(r.agreement[1].medianAgreeing, 2.0);
  ASSERT_TRUE(r.seedFloor);
  EXPECT_EQ(r.seedFloor->seeds, 2u);
  EXPECT_DOUBLE_EQ(r.seedFloor->medianAgreeing, 2.0);
  const auto noted = [&](const std::string& part) {
    return std::any_of(r.notes.begin(), r.notes.end(),
                       [&](const std::string& n) { return n.find(part) != std::string::npos; });
  };
  EXPECT_TRUE(noted("pure-bf16 seed 1 (run 8) has no sample: the run is diverged"));
  EXPECT_TRUE(noted("1 completed run has no sample"));
  // Another reference: the texts are compared with tpu-bf16's.
  EXPECT_EQ(compareSamples(*store, "tpu-bf16").seeds[0].backends[0].firstDifference,
            std::optional<std::size_t>(6));
  EXPECT_THROW(compareSamples(*store, "gpu-tf32"), std::invalid_argument);
  // The divergence analysis of a language model carries them, against its reference B.
  DivergenceOptions options;
  options.a = "tpu-bf16";
  options.b = "cpu-fp32";
  const DivergenceReport divergence = analyseDivergence(*store, options);
  ASSERT_TRUE(divergence.samples);
  EXPECT_EQ(divergence.samples->agreement.size(), 2u);
}

TEST(TextSamples, ASampleIsKeptAsBytes) {
  const std::string path = freshTempPath("text-samples-bytes");
  const std::string bytes("a\x00\xff\xc3(\n", 6);
  {
    auto store = ResultsStore::open(path, true);
    store->saveStudySpec(kTextSpec);
    store->addSample(addRun(*store, "cpu-fp32", 0), {std::string("\xfe", 1), bytes, 0.75});
  }
  const auto samples = ResultsStore::openReadOnly(path)->loadSamples();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples.begin()->second.text, bytes);
  EXPECT_EQ(samples.begin()->second.prompt, std::string("\xfe", 1));
  EXPECT_EQ(samples.begin()->second.temperature, 0.75);
}

}  // namespace
}  // namespace paritylab::study
