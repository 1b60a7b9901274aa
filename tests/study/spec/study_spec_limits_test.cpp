// A study spec's limits: deep nesting and duplicate keys refused, every number checked (finite, in
// range, integral; seeds never wrap), documented limits on every count (refused before anything
// is allocated), a UTF-8 BOM skipped and a directory given as the study named.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "core/study/spec/study_spec.h"

namespace paritylab::study {
namespace {

std::string errorOf(const std::string& text) {
  try {
    parseStudySpec(text, "s.json");
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string spec(const std::string& extra) {
  return R"({"name": "x", "backends": ["cpu-fp32"])" + (extra.empty() ? "" : ", " + extra) + "}";
}

TEST(StudySpecLimits, DeepNestingRefusedBeforeAnythingRecurses) {
  const std::string deep =
      spec("\"dataset\": " + std::string(500'000, '[') + std::string(500'000, ']'));
  const std::string e = errorOf(deep);
  EXPECT_NE(e.find("s.json: dataset"), std::string::npos) << e.substr(0, 300);
  EXPECT_NE(e.find("nested deeper than 64 levels"), std::string::npos) << e.substr(0, 300);
}

TEST(StudySpecLimits, DuplicateKeysRefusedWithKeyAndPath) {
  EXPECT_EQ(
      errorOf(R"({"name": "x", "backends": ["cpu-fp32"], "optimizer": {"lr": 0.1, "lr": 1}})"),
      "s.json: optimizer: duplicate key 'lr'");
  EXPECT_EQ(errorOf(R"({"name": "x", "name": "y", "backends": ["cpu-fp32"]})"),
            "s.json: duplicate key 'name'");
}

TEST(StudySpecLimits, SeedsNeverWrapAndCountsAreBounded) {
  EXPECT_EQ(errorOf(spec(R"("seeds": [18446744073709551615])")),
            "s.json: seeds[0]: expected an integer in [0, 9223372036854775807], got "
            "18446744073709551615");
  EXPECT_NE(errorOf(spec(R"("seeds": [1e300])")).find("s.json: seeds[0]: expected an integer"),
            std::string::npos);
  EXPECT_NE(errorOf(spec(R"("seeds": [-1])")).find("seeds[0]"), std::string::npos);
  EXPECT_NE(errorOf(spec(R"("seeds": [1.5])")).find("seeds[0]"), std::string::npos);
  // "seeds": 1000000000 allocated 8 GB; now refused with the limit before allocating.
  EXPECT_EQ(errorOf(spec(R"("seeds": 1000000000)")),
            "s.json: seeds: expected an integer in [1, 10000], got 1000000000");
  EXPECT_NE(errorOf(spec(R"("seeds": 0)")).find("[1, 10000]"), std::string::npos);
  EXPECT_NE(errorOf(spec(R"("seeds": 1e300)")).find("s.json: seeds:"), std::string::npos);
  const StudySpec s = parseStudySpec(spec(R"("seeds": [9223372036854775807, 0])"), "s.json");
  EXPECT_EQ(s.seeds, (std::vector<std::uint64_t>{9223372036854775807ULL, 0}));
}

TEST(StudySpecLimits, EveryCountHasALimitNamedInTheMessage) {
  EXPECT_EQ(errorOf(spec(R"("dataset": {"source": "synthetic", "train_size": 2147483648})")),
            "s.json: dataset.train_size: expected an integer in [0, 10000000], got 2147483648");
  EXPECT_EQ(errorOf(spec(R"("model": "resnet18", "width": 100000)")),
            "s.json: width: expected an integer in [1, 256], got 100000");
  EXPECT_EQ(errorOf(spec(R"("epochs": 1e9)")),
            "s.json: epochs: expected an integer in [1, 10000], got 1000000000.0");
  EXPECT_NE(errorOf(spec(R"("batch_size": 100000000)")).find("batch_size"), std::string::npos);
  EXPECT_NE(errorOf(spec(R"("threads": -1)")).find("threads"), std::string::npos);
  EXPECT_NE(errorOf(spec(R"("dataset": {"image_size": 100000})")).find("dataset.image_size"),
            std::string::npos);
  EXPECT_NE(errorOf(spec(R"("dataset": {"classes": [0, 2147483648]})")).find("classes[1]"),
            std::string::npos);
  EXPECT_EQ(
      errorOf(R"({"name": "x", "backends": [{"preset": "tpu-bf16", "replicas": 100000}]})"),
      "s.json: backends[0]: policy field 'replicas': expected an integer in [1, 1024], got 100000");
  EXPECT_NE(errorOf(R"({"name": "x", "backends": [{"preset": "fp8-e4m3",
                        "fp8": {"amaxHistoryLength": 1073741824}}]})")
                .find("policy field 'fp8.amaxHistoryLength': expected an integer in [1, 16384]"),
            std::string::npos);
}

TEST(StudySpecLimits, RealsAreFiniteAndInRange) {
  EXPECT_EQ(errorOf(spec(R"("optimizer": {"lr": 0})")),
            "s.json: optimizer.lr: expected a finite number in (0, 1000000], got 0");
  EXPECT_NE(errorOf(spec(R"("optimizer": {"lr": 1e308})")).find("optimizer.lr"), std::string::npos);
  EXPECT_NE(errorOf(spec(R"("optimizer": {"beta1": 1})")).find("optimizer.beta1"),
            std::string::npos);
  EXPECT_NE(errorOf(spec(R"("dataset": {"test_fraction": 1})")).find("dataset.test_fraction"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"name": "x", "backends": [{"name": "a", "policy": "cpu-fp32",
                        "overrides": {"lr": -1}}]})")
                .find("backends[0].overrides.lr"),
            std::string::npos);
}

TEST(StudySpecLimits, LongValuesAreCutInMessages) {  // never dump unbounded values
  const std::string e = errorOf(spec("\"sauce\": \"" + std::string(100'000, 'x') + "\""));
  EXPECT_NE(e.find("s.json: sauce: unknown field"), std::string::npos) << e.substr(0, 200);
  EXPECT_LT(e.size(), 200u);
}

TEST(StudySpecLimits, BomStrippedAndDirectoriesNamed) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("paritylab-spec-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "bom.json";
  std::ofstream(file) << "\xEF\xBB\xBF" << spec("");
  EXPECT_EQ(loadStudySpecFile(file.string()).name, "x");
  try {
    loadStudySpecFile(dir.string());
    ADD_FAILURE() << "a directory was accepted as a study";
  } catch (const SpecError& e) {
    EXPECT_EQ(std::string(e.what()), dir.string() + ": is a directory, not a study file");
  }
  fs::remove_all(dir);
}

// A tiny MNIST-style IDX file: big-endian header, then `bytes`.
void writeIdx(const std::filesystem::path& path, std::vector<std::uint32_t> header,
              std::size_t bytes, std::uint8_t value) {
  std::ofstream out(path, std::ios::binary);
  for (std::uint32_t v : header)
    for (int shift = 24; shift >= 0; shift -= 8) out.put(char((v >> shift) & 0xFF));
  for (std::size_t i = 0; i < bytes; ++i) out.put(char((value + i) % 10));
}

TEST(StudySpecLimits, SmallRealDatasetWithSizesZeroPassesThePreflight) {
  // 20 training and 5 test images: fewer than the preflight's sample of 200 / 100.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("paritylab-small-" + std::to_string(getpid()));
  fs::create_directories(dir);
  writeIdx(dir / "train-images-idx3-ubyte", {0x803, 20, 4, 4}, 20 * 16, 0);
  writeIdx(dir / "train-labels-idx1-ubyte", {0x801, 20}, 20, 0);
  writeIdx(dir / "t10k-images-idx3-ubyte", {0x803, 5, 4, 4}, 5 * 16, 0);
  writeIdx(dir / "t10k-labels-idx1-ubyte", {0x801, 5}, 5, 0);
  const StudySpec s = parseStudySpec(spec("\"dataset\": {\"source\": \"mnist:" + dir.string() +
                                          "\", \"train_size\": 0, "
                                          "\"test_size\": 0, \"normalize\": false}"),
                                     "s.json");
  EXPECT_NO_THROW(validateDataset(s));
  fs::remove_all(dir);
}

// A backend's per-layer override that names no layer of the study's model is refused before
// anything runs, naming the backend, the field and the layers the model has.
TEST(StudySpecLimits, AnOverrideThatNamesNoLayerOfTheModelIsRefusedByThePreflight) {
  const StudySpec s = parseStudySpec(R"({"name": "x", "model": "small-cnn",
      "dataset": {"source": "synthetic", "train_size": 200, "test_size": 100},
      "backends": ["cpu-fp32", {"name": "fp8-edges", "policy": {"preset": "fp8-e4m3",
          "overrides": [{"layers": "first|fc9", "policy": "gpu-amp-bf16"},
                        {"layers": "conv9", "policy": "gpu-amp-bf16"}]}}]})",
                                     "s.json");
  try {
    validateDataset(s);
    FAIL() << "the study passed the preflight";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "backends[1].policy.overrides");
    const std::string what = e.what();
    EXPECT_NE(what.find("backend 'fp8-edges'"), std::string::npos) << what;
    EXPECT_NE(what.find("'overrides[1].layers': 'conv9' names no layer of model 'small-cnn' "
                        "(its layers: conv1, conv2, fc1, fc2; or first, last)"),
              std::string::npos)
        << what;
  }
}

}  // namespace
}  // namespace paritylab::study
