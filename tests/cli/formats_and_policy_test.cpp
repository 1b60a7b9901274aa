// Through the command line: `formats --help` documents that flush to zero comes
// after rounding (a choice), and a single-pass policy's JSON no longer claims "passes": "bf16".
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace paritylab::cli
