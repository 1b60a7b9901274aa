// paritylab-cli matmul: multiplies two CSV matrices exactly as an emulated backend's product
// would (through the one GEMM entry) and prints the result as CSV.
#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/cli/backend_argument.h"
#include "app/cli/command_registry.h"
#include "core/input/csv.h"
#include "core/input/input_limits.h"
#include "core/playground/matrix_text.h"
#include "core/playground/product_compare.h"

namespace paritylab::cli {
namespace matmul_command {

struct Options {
  std::string backend = "cpu-fp32", a, b, product = "forward", layer = "linear";
  bool bits = false;
};

void run(const Options& o) {
  const auto policy = loadBackendArgument(o.backend);
  playground::Matrix A, B;
  try {
    A = playground::readMatrixFile(o.a);
    B = playground::readMatrixFile(o.b);
  } catch (const std::invalid_argument& e) {
    throw CommandError(e.what());
  }
  // Said on stderr, so the CSV on stdout stays the product alone.
  for (const auto& [matrix, file] : {std::pair{&A, &o.a}, std::pair{&B, &o.b}}) {
    const std::string note = playground::valuesNotFp32Note(*matrix, *file);
    if (!note.empty()) std::cerr << "Note: " << note << "\n";
  }
  if (A.cols != B.rows)
    throw CommandError("inner dimensions differ: " + o.a + " is " + std::to_string(A.rows) + "x" +
                       std::to_string(A.cols) + " but " + o.b + " is " + std::to_string(B.rows) +
                       "x" + std::to_string(B.cols));
  // A 30000x1 by 1x30000 product would print gigabytes: refuse before allocating the result.
  const auto outputValues = std::int64_t(A.rows) * std::int64_t(B.cols);
  if (outputValues > input::kMaxMatmulOutputValues)
    throw CommandError("the product would be " + std::to_string(A.rows) + "x" +
                       std::to_string(B.cols) + " = " + std::to_string(outputValues) +
                       " values, more than matmul's limit of " +
                       std::to_string(input::kMaxMatmulOutputValues) + " (4096x4096)");
  const auto kind = o.layer == "conv" ? backends::LayerKind::Conv : backends::LayerKind::Linear;
  const auto product = o.product == "backward-data"     ? backends::Product::BackwardData
                       : o.product == "backward-weight" ? backends::Product::BackwardWeight
                                                        : backends::Product::Forward;
  const std::vector<float> C = playground::multiply(policy.gemmFor(kind, product), A, B).values;
  std::string out;
  char buf[64];
  for (int i = 0; i < A.rows; ++i) {
    for (int j = 0; j < B.cols; ++j) {
      const float v = C[std::size_t(i) * B.cols + j];
      if (o.bits) {
        std::uint32_t u;
        std::memcpy(&u, &v, 4);
        std::snprintf(buf, sizeof buf, "0x%08x", u);
        out += buf;
      } else {  // NaN as "nan", never "-nan"
        out.append(buf, std::to_chars(buf, buf + sizeof buf, std::isnan(v) ? std::fabs(v) : v).ptr);
      }
      out += j + 1 < B.cols ? ',' : '\n';
    }
  }
  std::cout << out;
}

void setup(CLI::App& root) {
  auto opts = std::make_shared<Options>();
  auto* cmd = root.add_subcommand(
      "matmul",
      "Multiply A [m,k] x B [k,n] (CSV of numbers) exactly as an emulated backend's product "
      "would, printing the result as CSV (shortest round-trip decimals)");
  cmd->add_option("--backend,-b", opts->backend, "Preset name or a policy .json file")
      ->capture_default_str();
  cmd->add_option("A", opts->a, "CSV file of A [m,k]")->required();
  cmd->add_option("B", opts->b, "CSV file of B [k,n]")->required();
  cmd->add_flag("--bits", opts->bits, "Print fp32 bit patterns (0x%08x) instead of decimals");
  cmd->add_option("--product", opts->product, "Which product's policy to use")
      ->check(CLI::IsMember({"forward", "backward-data", "backward-weight"}))
      ->capture_default_str();
  cmd->add_option("--layer", opts->layer, "Layer kind whose policy to use")
      ->check(CLI::IsMember({"linear", "conv"}))
      ->capture_default_str();
  cmd->callback([opts] { run(*opts); });
}

const CommandRegistration reg{"matmul", 40, setup};

}  // namespace matmul_command
}  // namespace paritylab::cli
