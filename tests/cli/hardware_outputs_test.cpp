// Outputs measured on real TPUs, reproduced bit for bit by `paritylab-cli
// matmul` (the command's own path: CSV parsing, the preset policy, the one GEMM entry, printing).
// Expected values are copied from the sources cited at each test; fp32 values print as the
// shortest decimal that reads back to them, as NumPy and the CLI both print float32.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli {
namespace {

using testing::runCli;
using testing::TempFolder;

std::string matmul(const std::string& backend, const std::string& a, const std::string& b) {
  const TempFolder folder("matmul");
  const auto r =
      runCli({"matmul", "--backend", backend, folder.write("A.csv", a), folder.write("B.csv", b)});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  return r.out;
}

// The first value of CSV output, read back as the fp32 it prints (shortest round-trip decimal).
double firstValue(const std::string& csv) {
  return std::strtof(csv.c_str(), nullptr);
}

// jax-ml/jax issue 9973 ("TPU cannot do simple arithmetic!", 2022-03-21, jax 0.3.4, libtpu
// 0.1.dev20220315): jnp.dot of two 2x2 float32 matrices at default precision on a TPU printed
// [[0.17405128 0.09669876] [0.21180916 0.10805416]] (float64 on the CPU: 0.17372088 ...).
TEST(RealTpuOutputs, JaxIssue9973DefaultPrecisionProduct) {
  EXPECT_EQ(matmul("tpu-bf16", "0.3744,0.1656\n0.4707,0.1663\n", "0.3946,0.1186\n0.1569,0.3145\n"),
            "0.17405128,0.09669876\n0.21180916,0.10805416\n");
  // The fp32 reference differs: the bf16 operands are what make the TPU's answer.
  EXPECT_NE(matmul("cpu-fp32", "0.3744,0.1656\n0.4707,0.1663\n", "0.3946,0.1186\n0.1569,0.3145\n"),
            "0.17405128,0.09669876\n0.21180916,0.10805416\n");
}

// pytorch/xla docs/source/tutorials/precision_tutorial.ipynb ("Controlling Floating Point
// Precision", executed on a TPU on 2025-05-09; commit 1fa6ca7a5b1829162094812ed08cce1cec1e8af8):
// diagonal matrices multiplied on the MXU, element [0][0] printed as VALUE=...
// - X = Y = 1.00390625 (1 + 2^-8) at default precision: Z = 1.0;
// - the same with set_mat_mul_precision("highest") (6 bf16 passes): Z = 1.0078277587890625;
// - X = Y = 1.2 with "highest": Z = 1.4400001764297485 (the fp32 CPU product is
//   1.440000057220459: the six passes differ from fp32 in the last bit).
TEST(RealTpuOutputs, TorchXlaPrecisionTutorial) {
  const std::string onePlusHalfEps = "1.00390625,0\n0,1\n";
  EXPECT_EQ(matmul("tpu-bf16", onePlusHalfEps, onePlusHalfEps), "1,0\n0,1\n");
  EXPECT_EQ(firstValue(matmul("tpu-bf16x6", onePlusHalfEps, onePlusHalfEps)), 1.0078277587890625);
  const std::string onePointTwo = "1.2,0\n0,1\n";
  EXPECT_EQ(firstValue(matmul("tpu-bf16x6", onePointTwo, onePointTwo)), 1.4400001764297485);
  EXPECT_EQ(firstValue(matmul("cpu-fp32", onePointTwo, onePointTwo)), 1.440000057220459);
}

}  // namespace
}  // namespace paritylab::cli
