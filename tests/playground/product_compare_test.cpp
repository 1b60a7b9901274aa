// Any product under every backend and the matrix text it reads.
#include "core/playground/product_compare.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <stdexcept>

#include "core/backends/precision_policy.h"
#include "core/playground/matrix_text.h"

namespace paritylab::playground {
namespace {

float bf16(float x) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  u += 0x7fffu + ((u >> 16) & 1u);
  return std::bit_cast<float>(u & 0xffff0000u);
}

std::string errorOf(const std::string& text) {
  try {
    parseMatrix(text, "A");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(MatrixText, ReadsCsvTypedAndPastedNumpyLiterals) {
  const Matrix csv = parseMatrix("1,2\r\n3,4\n\n", "A.csv");
  const Matrix typed = parseMatrix("1 2; 3 4", "A");
  const Matrix pasted = parseMatrix("[[1, 2],\n [3, 4]]", "A");
  for (const Matrix* m : {&csv, &typed, &pasted}) {
    EXPECT_EQ(m->rows, 2);
    EXPECT_EQ(m->cols, 2);
    EXPECT_EQ(m->values, (std::vector<float>{1, 2, 3, 4}));
  }
  EXPECT_EQ(parseMatrix(formatMatrix(jaxExampleA()), "A").values, jaxExampleA().values);
}

TEST(MatrixText, BadInputNamesRowColumnAndText) {
  EXPECT_EQ(errorOf("1,2\n3,x"), "A: row 2, column 2: 'x' is not a number");
  EXPECT_EQ(errorOf("1,2,\n3,4"), "A: row 1, column 3: empty value (two commas in a row?)");
  EXPECT_EQ(errorOf("1,,2"), "A: row 1, column 2: empty value (two commas in a row?)");
  EXPECT_EQ(errorOf("1,2\n3"), "A: row 2 has 1 values, expected 2 like the first row");
  EXPECT_EQ(errorOf(" \n"), "A: no rows");
}

TEST(ProductCompare, UlpDistanceCountsFp32ValuesBetween) {
  EXPECT_EQ(ulpDistance(1.0f, 1.0f), 0);
  EXPECT_EQ(ulpDistance(1.0f, std::nextafter(1.0f, 2.0f)), 1);
  EXPECT_EQ(ulpDistance(0.0f, -0.0f), 0);
  EXPECT_EQ(ulpDistance(-0x1p-149f, 0x1p-149f), 2);
  EXPECT_EQ(ulpDistance(1.0f, 2.0f), 1 << 23);
  EXPECT_EQ(ulpDistance(NAN, 1.0f), -1);
}

// The jax issue 9973 example: the TPU's default precision (bf16 operands, fp32 accumulation)
// differs from fp32. Independent reference: with k = 2 the bf16 products are exact in fp32 and
// their sum, exact in fp64, is rounded to fp32 once.
TEST(ProductCompare, JaxExampleUnderEveryBackend) {
  const Matrix a = jaxExampleA(), b = jaxExampleB();
  const ProductComparison cmp = compareProducts(a, b, backends::presetPolicies());
  ASSERT_EQ(cmp.products.size(), backends::presetPolicies().size());
  EXPECT_EQ(cmp.reference, "cpu-fp32");
  const Matrix* tpu = nullptr;
  for (const auto& p : cmp.products)
    if (p.backend == "tpu-bf16") tpu = &p.product;
  ASSERT_NE(tpu, nullptr);
  int differing = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      const float expected = float(double(bf16(a.at(i, 0))) * bf16(b.at(0, j)) +
                                   double(bf16(a.at(i, 1))) * bf16(b.at(1, j)));
      EXPECT_EQ(tpu->at(i, j), expected) << i << "," << j;
      const double exact = double(a.at(i, 0)) * b.at(0, j) + double(a.at(i, 1)) * b.at(1, j);
      EXPECT_EQ(cmp.exact[std::size_t(i * 2 + j)], exact);
      differing += cmp.differs[std::size_t(i * 2 + j)];
      EXPECT_EQ(cmp.products[0].ulpsFromReference[std::size_t(i * 2 + j)], 0);
    }
  EXPECT_GT(differing, 0);
  EXPECT_THROW(compareProducts(a, parseMatrix("1 2 3", "B"), backends::presetPolicies()),
               std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::playground
