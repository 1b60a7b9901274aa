// paritylab-cli playground product: A x B under every backend side by side, each element's bits,
// and where the backends differ, by how many ulps.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>

#include "app/cli/command_registry.h"
#include "app/cli/playground_arguments.h"
#include "core/playground/matrix_text.h"
#include "core/playground/playground_export.h"
#include "core/playground/product_compare.h"

namespace paritylab::cli {
namespace playground_product_command {

struct Options {
  std::vector<std::string> backends;
  std::string a, b, csv;
  bool json = false;
};

void printTable(const playground::ProductComparison& c, bool jaxExample) {
  std::printf("%s%s [%dx%d] x [%dx%d] under each backend's linear forward product (emulated)\n",
              jaxExample ? "The jax issue 9973 example: " : "", "A x B", c.a.rows, c.a.cols,
              c.b.rows, c.b.cols);
  std::printf("A =\n%sB =\n%s\n", playground::formatMatrix(c.a).c_str(),
              playground::formatMatrix(c.b).c_str());
  for (int i = 0; i < c.rows(); ++i)
    for (int j = 0; j < c.cols(); ++j) {
      const std::size_t e = std::size_t(i) * c.cols() + j;
      std::printf("C[%d,%d]  exact %.17g%s\n", i, j, c.exact[e],
                  c.differs[e] ? "   * backends differ" : "   (all backends agree)");
      for (const auto& p : c.products) {
        const float v = p.product.values[e];
        std::printf("  %-14s %-16.9g %s", p.backend.c_str(), double(v),
                    playground::hexBits(v).c_str());
        if (p.ulpsFromReference[e] != 0)
          std::printf("  %lld ulp from %s", static_cast<long long>(p.ulpsFromReference[e]),
                      c.reference.c_str());
        std::printf("\n");
      }
    }
}

void run(const Options& o) {
  if (o.a.empty() != o.b.empty())
    throw CommandError("give both A.csv and B.csv, or neither for the jax issue 9973 example");
  const bool jax = o.a.empty();
  const playground::Matrix a = jax ? playground::jaxExampleA() : playground::readMatrixFile(o.a);
  const playground::Matrix b = jax ? playground::jaxExampleB() : playground::readMatrixFile(o.b);
  for (const auto& [matrix, file] : {std::pair{&a, &o.a}, std::pair{&b, &o.b}}) {
    const std::string note = jax ? "" : playground::valuesNotFp32Note(*matrix, *file);
    if (!note.empty()) std::cerr << "Note: " << note << "\n";
  }
  const playground::ProductComparison c =
      playground::compareProducts(a, b, playgroundBackends(o.backends));
  if (!o.csv.empty()) writeTextFile(o.csv, playground::productCsv(c));
  if (o.json)
    std::cout << playground::productJson(c).dump(2) << "\n";
  else if (o.csv != "-")
    printTable(c, jax);
}

void setup(CLI::App& root) {
  auto opts = std::make_shared<Options>();
  auto* cmd = playgroundGroup(root).add_subcommand(
      "product",
      "A x B (CSV files; default: the jax issue 9973 example) under every backend, with bits and "
      "ulp distances");
  cmd->add_option("A", opts->a, "CSV file of A [m,k]");
  cmd->add_option("B", opts->b, "CSV file of B [k,n]");
  cmd->add_option("--backend,-b", opts->backends,
                  "Preset or policy .json (repeat; default: every preset)");
  cmd->add_flag("--json", opts->json, "Values, bits and ulp distances as JSON");
  cmd->add_option("--csv", opts->csv, "Write one row per element and backend ('-': stdout)");
  cmd->callback([opts] {
    try {
      run(*opts);
    } catch (const std::invalid_argument& e) {
      throw CommandError(e.what());
    }
  });
}

const CommandRegistration reg{"playground product", 48, setup};

}  // namespace playground_product_command
}  // namespace paritylab::cli
