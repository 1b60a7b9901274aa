// Through the command line: `formats --help` documents that flush to zero comes
// after rounding (a choice), a single-pass policy's JSON no longer claims "passes": "bf16", and
// `backends NAME --model M` shows each layer's products with its overrides resolved.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli {
namespace {

using testing::runCli;

TEST(FormatsHelp, DocumentsFlushAfterRoundingAndOverflow) {
  const auto help = runCli({"formats", "--help"});
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("is applied AFTER rounding"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("rounds up to it is kept as the min normal"), std::string::npos);
  EXPECT_NE(help.out.find("toward-zero never"), std::string::npos);
}

TEST(BackendsJson, PassesOnlyForMultiPassProducts) {
  for (const char* singlePass : {"cpu-fp32", "gpu-tf32", "tpu-bf16", "gpu-amp-fp16"}) {
    const auto r = runCli({"backends", singlePass});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out.find("\"passes\""), std::string::npos) << singlePass << ":\n" << r.out;
  }
  const auto six = runCli({"backends", "tpu-bf16x6"});
  EXPECT_NE(six.out.find("\"passes\": \"bf16x6\""), std::string::npos) << six.out;
}

// A policy file in the temporary folder, removed when the test ends.
class PolicyFile {
 public:
  explicit PolicyFile(const char* text)
      : path_(std::filesystem::temp_directory_path() /
              ("paritylab-policy-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++) +
               ".json")) {
    std::ofstream(path_) << text;
  }
  ~PolicyFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

TEST(BackendsModel, ShowsEachLayersProductsAndWhichOverrideDecidedThem) {
  const PolicyFile file(R"({"preset": "fp8-e4m3", "overrides": [
      {"layers": "first|last", "policy": "gpu-amp-bf16"},
      {"layers": "fc1", "products": "wgrad", "policy": {"operands": "bf16"}}]})");
  const auto r = runCli({"backends", file.path(), "--model", "small-cnn"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // conv1 (first) under autocast bf16; conv2 the preset's fp8; fc1's weight gradient bf16.
  EXPECT_NE(r.out.find("conv1  conv       forward  bf16 x bf16 -> bf16"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("overrides[0] gpu-amp-bf16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conv2  conv       forward  fp8-e4m3 x fp8-e4m3"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("wgrad    bf16 x bf16                                   overrides[1]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("first = conv1 and last = fc2"), std::string::npos) << r.out;

  const PolicyFile typo(R"({"overrides": [{"layers": "fc9", "policy": "gpu-tf32"}]})");
  const auto refused = runCli({"backends", typo.path(), "--model", "mlp"});
  EXPECT_NE(refused.exitCode, 0);
  EXPECT_NE(refused.err.find("'fc9' names no layer of model 'mlp' (its layers: fc1, fc2, fc3"),
            std::string::npos)
      << refused.err;
}

}  // namespace
}  // namespace paritylab::cli
