// MaxPool2d, its vectorised 2x2 path included, against a direct
// reference — values, which element gets the gradient (first maximum in window order, NaN wins
// as in torch), odd sizes whose last row/column belongs to no window, kernels 2 and 3, rows of
// 3 to 33 windows (the AVX-512 and AVX2 paths' masked partial vectors and whole vectors).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/nn/maxpool.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

using testing::Fixture;
using testing::randomTensor;

struct Reference {
  Tensor y, dx;
};

Reference directMaxPool(const Tensor& x, const Tensor& dy, int k) {
  const int n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), oh = h / k, ow = w / k;
  Reference r;
  r.y.resize({n, c, oh, ow});
  r.dx.resize(x.shape());
  r.dx.setZero();
  for (int p = 0; p < n * c; ++p)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox) {
        int best = -1;
        for (int ky = 0; ky < k; ++ky)
          for (int kx = 0; kx < k; ++kx) {
            const int at = p * h * w + (oy * k + ky) * w + ox * k + kx;
            if (best < 0 || x[at] > x[best] || (std::isnan(x[at]) && !std::isnan(x[best])))
              best = at;
          }
        const int o = (p * oh + oy) * ow + ox;
        r.y[o] = x[best];
        r.dx[best] += dy[o];
      }
  return r;
}

bool sameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

TEST(MaxPool, MatchesDirectReferenceWithTiesNaNAndOddSizes) {
  for (const int k : {2, 3})
    for (const int size : {8, 9, 7, 28, 14, 41, 66}) {
      Fixture f;
      Tensor x = randomTensor({3, 4, size, size}, 5 + size, -1, 1);
      for (std::size_t i = 0; i < x.size(); i += 7) x[i] = 0.5f;  // ties within windows
      x[3] = std::numeric_limits<float>::quiet_NaN();
      x[size * size + 10] = std::numeric_limits<float>::quiet_NaN();
      MaxPool2d pool(k);
      StepContext ctx = f.ctx();
      const Tensor& y = pool.forward(x, ctx);
      const Tensor dy = randomTensor(y.shape(), 99);
      const Reference ref = directMaxPool(x, dy, k);
      ASSERT_EQ(y.shape(), ref.y.shape());
      for (std::size_t i = 0; i < y.size(); ++i)
        ASSERT_TRUE(sameBits(y[i], ref.y[i]) || (std::isnan(y[i]) && std::isnan(ref.y[i])))
            << "k " << k << " size " << size << " output " << i;
      const Tensor& dx = pool.backward(dy, ctx);
      for (std::size_t i = 0; i < dx.size(); ++i)
        ASSERT_TRUE(sameBits(dx[i], ref.dx[i])) << "k " << k << " size " << size << " input " << i;
    }
}

TEST(MaxPool, RejectsKernelsOutsideTheWindowCode) {
  EXPECT_THROW(MaxPool2d(0), std::invalid_argument);
  EXPECT_THROW(MaxPool2d(17), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::nn
