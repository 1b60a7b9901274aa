// A language-model study from the command line as a user runs it: `run --model gpt --dataset
// text:FILE --steps N`, then `stats` on the validation loss (the default of such a study), in
// nats with "lower is better", `stats --metric perplexity` (exp of the loss), `compare` on the
// validation positions and `report`, each working on it as on an image study; and the refusals of
// a model and a dataset that do not go together, naming what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "core/study/store/results_store.h"
#include "tests/cli/cli_runner.h"

namespace paritylab::cli {
namespace {

using nlohmann::json;
using testing::runCli;
using testing::TempFolder;

// About 6,000 bytes of words in a varying order: something a small model learns in a few steps.
std::string corpus() {
  const char* words[] = {"the ", "cat ", "sat ", "on ", "a ", "mat.\n", "dog ", "ran ", "far, "};
  std::string text;
  for (std::size_t i = 0; text.size() < 6000; ++i) text += words[(i * 7 + i / 9) % 9];
  return text;
}

class LanguageModelStudy : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = new TempFolder("language-model");
    text_ = folder_->write("words.txt", corpus());
    const auto run = runCli({"run",
                             "--db",
                             db(),
                             "--model",
                             "gpt",
                             "--dataset",
                             "text:" + text_,
                             "--backends",
                             "cpu-fp32,tpu-bf16",
                             "--seeds",
                             "3",
                             "--steps",
                             "30",
                             "--batch",
                             "4",
                             "--n-layer",
                             "1",
                             "--n-head",
                             "2",
                             "--n-embd",
                             "16",
                             "--block-size",
                             "16",
                             "--threads",
                             "2"});
    ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
    out_ = run.out;
  }
  static void TearDownTestSuite() {
    delete folder_;
    folder_ = nullptr;
  }
  static std::string db() { return folder_->file("lm.db"); }
  static inline TempFolder* folder_ = nullptr;
  static inline std::string text_, out_;
};

TEST_F(LanguageModelStudy, RunSummarisesTheValidationLossInNats) {
  EXPECT_NE(out_.find("mean nats"), std::string::npos) << out_;
  EXPECT_NE(out_.find("12 completed, 0 diverged, 0 failed"), std::string::npos) << out_;
}

// --model gpt without --eval-batch evaluates in batches of the training batch (nanoGPT's
// estimate_loss), not the image default of 1,000 windows; --eval-batch sets it.
TEST_F(LanguageModelStudy, ModelFlagEvaluatesInTrainingBatchesUnlessEvalBatchIsGiven) {
  EXPECT_EQ(study::ResultsStore::openReadOnly(db())->loadStudySpec().train.evalBatchSize, 4);
  const std::string other = folder_->file("eval.db");
  const auto run = runCli({"run",
                           "--db",
                           other,
                           "--model",
                           "gpt",
                           "--dataset",
                           "text:" + text_,
                           "--backends",
                           "cpu-fp32",
                           "--seeds",
                           "1",
                           "--steps",
                           "2",
                           "--batch",
                           "4",
                           "--eval-batch",
                           "7",
                           "--n-layer",
                           "1",
                           "--n-head",
                           "2",
                           "--n-embd",
                           "16",
                           "--block-size",
                           "16"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_EQ(study::ResultsStore::openReadOnly(other)->loadStudySpec().train.evalBatchSize, 7);
}

TEST_F(LanguageModelStudy, StatsComparesTheValidationLossByDefaultLowerBeingBetter) {
  const auto r = runCli({"stats", db(), "--a", "tpu-bf16", "--b", "cpu-fp32", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["metric"], "val_loss");
  EXPECT_EQ(j["lower_is_better"], true);
  EXPECT_EQ(j["n_a"], 3);
  // A character model's loss after 30 steps: between a perfect model and guessing uniformly over
  // the 17 symbols (ln 17 = 2.83 nats).
  EXPECT_GT(j["mean_b"].get<double>(), 0.5);
  EXPECT_LT(j["mean_b"].get<double>(), std::log(17.0));
  const auto words = runCli({"stats", db(), "--a", "tpu-bf16", "--b", "cpu-fp32"});
  EXPECT_NE(words.out.find("on validation loss (lower is better)"), std::string::npos) << words.out;
  EXPECT_NE(words.out.find(" nats"), std::string::npos) << words.out;
}

TEST_F(LanguageModelStudy, PerplexityIsTheExponentialOfTheLossPerToken) {
  const auto loss = runCli({"stats", db(), "--a", "tpu-bf16", "--b", "cpu-fp32", "--json"});
  const auto ppl = runCli(
      {"stats", db(), "--a", "tpu-bf16", "--b", "cpu-fp32", "--metric", "perplexity", "--json"});
  ASSERT_EQ(ppl.exitCode, 0) << ppl.err;
  const json l = json::parse(loss.out), p = json::parse(ppl.out);
  EXPECT_EQ(p["metric"], "perplexity");
  // The mean of exp(loss) is at least exp(mean loss) (Jensen), and close to it for close runs.
  EXPECT_GE(p["mean_b"].get<double>(), std::exp(l["mean_b"].get<double>()) * (1 - 1e-12));
  EXPECT_NEAR(p["mean_b"].get<double>(), std::exp(l["mean_b"].get<double>()), 0.05);
  const auto accuracy = runCli(
      {"stats", db(), "--a", "tpu-bf16", "--b", "cpu-fp32", "--metric", "accuracy", "--json"});
  ASSERT_EQ(accuracy.exitCode, 0) << accuracy.err;
  EXPECT_EQ(json::parse(accuracy.out)["lower_is_better"], false);
}

TEST_F(LanguageModelStudy, CompareAndReportWorkOnTheValidationPositions) {
  const auto compare = runCli({"compare", db(), "--a", "tpu-bf16", "--b", "cpu-fp32", "--json"});
  ASSERT_EQ(compare.exitCode, 0) << compare.err;
  // Per token-frequency band rather than per symbol: every validation position lands in exactly
  // one band, so the bands' accuracies weighted by their positions give back the runs' mean
  // next-token accuracy.
  const json divergence = json::parse(compare.out);
  EXPECT_EQ(divergence["class_grouping"], "token_frequency_bands");
  EXPECT_NE(divergence["headline"].get<std::string>().find("of next-token predictions"),
            std::string::npos)
      << divergence["headline"];
  ASSERT_FALSE(divergence["classes"].empty()) << compare.out;
  EXPECT_EQ(divergence["classes"][0]["name"], "frequent tokens");
  double positions = 0, weighted = 0;
  for (const json& band : divergence["classes"]) {
    EXPECT_NE(band["members"].get<std::string>().find("of the positions"), std::string::npos);
    positions += band["examples"].get<double>();
    weighted += band["examples"].get<double>() * band["mean_a"].get<double>();
  }
  EXPECT_NEAR(weighted / positions, divergence["welch"]["mean_a"].get<double>(), 1e-12);
  const auto report = runCli({"report", db(), "--csv", folder_->file("report.csv")});
  ASSERT_EQ(report.exitCode, 0) << report.out << report.err;
}

// Every completed run wrote a sample from the default prompt; every text starts with the same
// tokens where the models agree, and a backend's text is compared with the reference's at its
// own seed. The texts use only the corpus's symbols.
TEST_F(LanguageModelStudy, EveryRunWritesASampleComparedWithTheReferencesAtItsSeed) {
  const auto samples = runCli({"samples", db(), "--b", "cpu-fp32", "--json"});
  ASSERT_EQ(samples.exitCode, 0) << samples.err;
  const json r = json::parse(samples.out);
  EXPECT_EQ(r["reference"], "cpu-fp32");
  EXPECT_EQ(r["prompt"], "\n");
  EXPECT_EQ(r["temperature"], 0.8);
  ASSERT_EQ(r["seeds"].size(), 3u) << samples.out;
  const std::string symbols = corpus();
  for (const json& seed : r["seeds"]) {
    // cpu-fp32, tpu-bf16 and the chaos floor's two perturbations of cpu-fp32.
    ASSERT_EQ(seed["backends"].size(), 4u);
    EXPECT_EQ(seed["backends"][0]["backend"], "cpu-fp32");
    EXPECT_TRUE(seed["backends"][0]["first_difference"].is_null());
    EXPECT_EQ(seed["backends"][1]["backend"], "tpu-bf16");
    const std::string ref = seed["backends"][0]["text"], tpu = seed["backends"][1]["text"];
    EXPECT_EQ(ref.size(), 200u);
    for (char c : ref + tpu) EXPECT_NE(symbols.find(c), std::string::npos) << int(c);
    const json& at = seed["backends"][1]["first_difference"];
    if (ref == tpu) {
      EXPECT_TRUE(at.is_null());
    } else {
      ASSERT_TRUE(at.is_number()) << samples.out;
      const std::size_t first = at;
      EXPECT_EQ(ref.substr(0, first), tpu.substr(0, first));
      EXPECT_NE(ref[first], tpu[first]);
    }
  }
  const auto text = runCli({"samples", db(), "--seed", "1"});
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("tpu-bf16 writes what cpu-fp32 writes for"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("\nseed 1\n"), std::string::npos) << text.out;
  EXPECT_NE(runCli({"samples", db(), "--b", "gpu-tf32"}).exitCode, 0);
}

// A prompt with a character the text does not have is refused before any run trains, naming the
// field and the character; the database is not created.
TEST_F(LanguageModelStudy, APromptTheTextCannotSpellIsRefusedBeforeTraining) {
  const std::string spec = folder_->write(
      "prompt.json", R"({"version": 1, "name": "p", "dataset": {"source": "text:)" + text_ +
                         R"("}, "model": "gpt", "n_layer": 1, "n_head": 2, "n_embd": 16,
      "block_size": 16, "steps": 5, "batch_size": 4, "backends": ["cpu-fp32"], "seeds": 1,
      "samples": {"prompt": "the Zebra"}})");
  const auto run = runCli({"run", spec, "--db", folder_->file("prompt.db")});
  EXPECT_NE(run.exitCode, 0);
  EXPECT_NE(run.err.find("samples.prompt: 'Z' (byte 0x5a) at position 4 is not in the text's "
                         "vocabulary"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(std::filesystem::exists(folder_->file("prompt.db")));
}

TEST_F(LanguageModelStudy, AModelAndADatasetThatDoNotGoTogetherAreRefused) {
  const auto images = runCli(
      {"run", "--db", folder_->file("x.db"), "--model", "gpt", "--seeds", "1", "--steps", "2"});
  EXPECT_NE(images.exitCode, 0);
  EXPECT_NE(images.err.find("'fashion-mnist' is images: the language model 'gpt' trains on "
                            "\"text:FILE\""),
            std::string::npos)
      << images.err;
  const auto text = runCli({"run", "--db", folder_->file("y.db"), "--dataset", "text:" + text_,
                            "--seeds", "1", "--epochs", "1"});
  EXPECT_NE(text.exitCode, 0);
  EXPECT_NE(text.err.find("is text: it trains the language model"), std::string::npos) << text.err;
  const auto heads = runCli({"run", "--db", folder_->file("z.db"), "--model", "gpt", "--dataset",
                             "text:" + text_, "--n-embd", "10", "--n-head", "3"});
  EXPECT_NE(heads.exitCode, 0);
  EXPECT_NE(heads.err.find("--n-embd 10 is not a multiple of --n-head 3"), std::string::npos)
      << heads.err;
  EXPECT_FALSE(std::filesystem::exists(folder_->file("x.db")));
  const auto csvMetric = runCli({"stats", folder_->write("runs.csv", "backend,final_accuracy\n"),
                                 "--a", "x", "--b", "y", "--metric", "val_loss"});
  EXPECT_NE(csvMetric.err.find("holds final accuracies only"), std::string::npos) << csvMetric.err;
}

TEST(LanguageModelBench, ReportsTokensPerSecondOnTheExampleCorpus) {
  if (!std::filesystem::exists("/usr/share/games/fortunes/songs-poems"))
    GTEST_SKIP() << "Debian package fortunes is missing (./setup.sh installs it)";
  const auto r = runCli({"bench", "--model", "gpt", "--steps", "2", "--warmup", "1", "--batch", "4",
                         "--threads", "1", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["dataset"], "text:/usr/share/games/fortunes/songs-poems");
  EXPECT_EQ(j["block_size"], 64);
  EXPECT_FALSE(j.contains("images_per_second"));
  EXPECT_GT(j["tokens_per_second"].get<double>(), 0.0);
  EXPECT_NEAR(j["tokens_per_second"].get<double>(), 64 * j["windows_per_second"].get<double>(),
              1e-9 * j["tokens_per_second"].get<double>());
  EXPECT_TRUE(j["parameter_shapes"].contains("transformer.wte.weight"));
  const auto images = runCli({"bench", "--model", "gpt", "--input", "32x32x3"});
  EXPECT_NE(images.exitCode, 0);
  EXPECT_NE(images.err.find("no input for the language model"), std::string::npos) << images.err;
}

}  // namespace
}  // namespace paritylab::cli
