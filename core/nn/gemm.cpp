// THE one GEMM entry: operand rounding fused into packing, XLA multi-pass products, chunked
// low-precision accumulation, output rounding; and the one store step. See gemm.h.
#include "core/nn/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <utility>

#include "core/nn/blas_setup.h"
#include "core/nn/gemm_impl.h"
#include "core/nn/gemm_xray.h"

namespace paritylab::nn {
namespace {

using numerics::Rounder;
using numerics::RoundingSpec;

const RoundingSpec& bf16Nearest() {
  static const RoundingSpec spec = [] {
    RoundingSpec s;
    s.format = *numerics::parseFormat("bf16");
    return s;
  }();
  return spec;
}

// An operand as stored: `rows` x `cols` row-major with leading dimension `ld` (cols <= ld).
struct StoredOperand {
  const float* data;
  int rows, cols, ld;
};

// Copies `src` into a dense [rows, cols] buffer, scaling by `scale` and rounding with `rounder`
// (null: no rounding). Stochastic draws are indexed by the element's dense position.
void packRounded(const StoredOperand& src, float scale, const Rounder* rounder, std::uint64_t seed,
                 float* dst) {
  for (int r = 0; r < src.rows; ++r) {
    const float* in = src.data + std::size_t(r) * src.ld;
    float* out = dst + std::size_t(r) * src.cols;
    const std::size_t cols = std::size_t(src.cols);
    const std::uint64_t offset = std::uint64_t(r) * cols;
    if (scale != 1.0f) {
      for (std::size_t c = 0; c < cols; ++c) out[c] = in[c] * scale;
      if (rounder) rounder->apply({out, cols}, seed, offset);
    } else if (rounder) {
      rounder->applyCopy({in, cols}, {out, cols}, seed, offset);
    } else {
      std::memcpy(out, in, cols * sizeof(float));
    }
  }
}

// Scales and rounds a stored operand where it lies (the caller made it writable); same bits as
// packRounded, whose stochastic draws are indexed by the same dense positions.
void roundInPlace(const StoredOperand& src, float* data, float scale, const Rounder* rounder,
                  std::uint64_t seed) {
  const std::size_t cols = std::size_t(src.cols);
  for (int r = 0; r < src.rows; ++r) {
    float* row = data + std::size_t(r) * src.ld;
    if (scale != 1.0f)
      for (std::size_t c = 0; c < cols; ++c) row[c] *= scale;
    if (rounder) rounder->apply({row, cols}, seed, std::uint64_t(r) * cols);
  }
}

// The operand as the product reads it: rounded in place when `writable`, else packed densely into
// `buffer`. Returns it with its leading dimension.
std::pair<const float*, int> preparedOperand(const StoredOperand& src, float* writable, float scale,
                                             const Rounder* rounder, std::uint64_t seed,
                                             std::vector<float>& buffer) {
  if (writable) {
    roundInPlace(src, writable, scale, rounder, seed);
    return {writable, src.ld};
  }
  if (!rounder && scale == 1.0f) return {src.data, src.ld};  // nothing to change: read in place
  float* packed = grow(buffer, std::size_t(src.rows) * src.cols);
  packRounded(src, scale, rounder, seed, packed);
  return {packed, src.cols};
}

// Splits a stored operand into bf16 parts hi = bf16(x), mid = bf16(x - hi), lo = bf16(x - hi - mid)
// (x scaled first), each dense [rows, cols]; `lo` may be null when not needed.
void splitParts(const StoredOperand& src, float scale, const Rounder& bf16, float* hi, float* mid,
                float* lo, float* residual) {
  const std::size_t cols = std::size_t(src.cols);
  for (int r = 0; r < src.rows; ++r) {
    const float* in = src.data + std::size_t(r) * src.ld;
    const std::size_t at = std::size_t(r) * cols;
    float* h = hi + at;
    float* md = mid + at;
    for (std::size_t c = 0; c < cols; ++c) residual[c] = in[c] * scale;
    bf16.applyCopy({residual, cols}, {h, cols});
    for (std::size_t c = 0; c < cols; ++c) md[c] = residual[c] - h[c];
    bf16.applyCopy({md, cols}, {md, cols});
    if (lo) {
      float* l = lo + at;
      for (std::size_t c = 0; c < cols; ++c) l[c] = (residual[c] - h[c]) - md[c];
      bf16.apply({l, cols});
    }
  }
}

// Rounds the [m, n] block at `out` (leading dimension ld) as the dense [m, n] span it would be:
// row i from dense index i * n (the stochastic draws' offsets).
void roundRows(const Rounder& r, float* out, int m, int n, int ld, std::uint64_t seed = 0) {
  if (ld == n) return r.apply({out, std::size_t(m) * n}, seed);
  for (int i = 0; i < m; ++i)
    r.apply({out + std::size_t(i) * ld, std::size_t(n)}, seed, std::uint64_t(i) * n);
}

// C[i, :] = round(C[i, :] + bias) row by row, while the row is in cache; the draws' offsets are
// those of roundRows (row i from dense index i * n).
void addBiasAndRound(const float* bias, const Rounder& output, float* C, int m, int n, int ld,
                     std::uint64_t seed) {
  for (int i = 0; i < m; ++i) {
    float* row = C + std::size_t(i) * ld;
    for (int j = 0; j < n; ++j) row[j] += bias[j];
    output.apply({row, std::size_t(n)}, seed, std::uint64_t(i) * n);
  }
}

// PackedProduct: the product [m,n] (ld `ldo`, n unless said; chunked accumulation: n) of dense
// packed operands, honouring the chunked accumulation.
struct PackedProduct {
  const backends::GemmPolicy& policy;
  const Rounder* accumulation;  // null: fp32 partial sums
  CBLAS_TRANSPOSE ta, tb;
  int m, n, k;
  int lda, ldb;  // of the dense packed operands
  int ldo = n;   // of the output
  // Non-null: the operands as bf16 values and their scale, which the product runs on instead of
  // A and B (no chunked accumulation: gemmOfScaledBf16).
  const Bf16ScaledOperands* bf16 = nullptr;

  void operator()(const float* A, const float* B, float* out, float* chunk) const {
    if (bf16) {
      bf16Product(ta == CblasTrans ? Trans::Yes : Trans::No,
                  tb == CblasTrans ? Trans::Yes : Trans::No, m, n, k, bf16->scale, bf16->a,
                  bf16->lda, bf16->b, bf16->ldb, out, ldo);
      return;
    }
    const std::size_t mn = std::size_t(m) * n;
    const int step = policy.accumulationChunk;
    if (step <= 0 || step >= k) {
      cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, out, ldo);
      if (accumulation && step > 0) roundRows(*accumulation, out, m, n, ldo);
      return;
    }
    for (int k0 = 0; k0 < k; k0 += step) {
      const int kc = std::min(step, k - k0);
      const float* a = ta == CblasNoTrans ? A + k0 : A + std::size_t(k0) * lda;
      const float* b = tb == CblasNoTrans ? B + std::size_t(k0) * ldb : B + k0;
      float* dst = k0 == 0 ? out : chunk;
      cblas_sgemm(CblasRowMajor, ta, tb, m, n, kc, 1.0f, a, lda, b, ldb, 0.0f, dst, n);
      if (accumulation) accumulation->apply({dst, mn});
      if (k0 == 0) continue;
      for (std::size_t i = 0; i < mn; ++i) out[i] += chunk[i];
      if (accumulation && !policy.fp32Promotion) accumulation->apply({out, mn});
    }
  }
};

bool isIdentity(const std::optional<RoundingSpec>& spec) {
  return !spec || cachedRounder(*spec).isIdentity();
}

}  // namespace

const numerics::Rounder& cachedRounder(const numerics::RoundingSpec& spec) {
  // Few distinct specs exist per policy; a linear scan beats hashing. Deque-like stability:
  // entries are never moved (reserved up front) so references stay valid.
  constexpr std::size_t kCapacity = 64;
  thread_local std::vector<std::pair<RoundingSpec, Rounder>> cache = [] {
    std::vector<std::pair<RoundingSpec, Rounder>> v;
    v.reserve(kCapacity);
    return v;
  }();
  for (const auto& [s, r] : cache)
    if (numerics::sameRounding(s, spec)) return r;
  if (cache.size() == kCapacity) {
    // Pathological number of specs on one thread: keep a stable overflow list instead.
    thread_local std::vector<std::unique_ptr<Rounder>> overflow;
    for (const auto& r : overflow)
      if (numerics::sameRounding(r->spec(), spec)) return *r;
    overflow.push_back(std::make_unique<Rounder>(spec));
    return *overflow.back();
  }
  cache.emplace_back(spec, Rounder(spec));
  return cache.back().second;
}

namespace {

// GemmPolicy::reverseSummation: op(A) [m,k] and op(B) [k,n] copied with k reversed, then the
// policy's product of the copies (without the reversal): every dot product sums the same terms,
// rounded the same way, in the opposite order. Writable operands are not rounded in place here
// (callers that rely on it, GemmExtras::writableARounded, then round the same values again, which
// leaves them as they are).
void gemmReversedSummation(const backends::GemmPolicy& policy, Trans transA, Trans transB, int m,
                           int n, int k, float alpha, const float* A, int lda, const float* B,
                           int ldb, float beta, float* C, int ldc, GemmWorkspace& ws,
                           const GemmExtras& extras) {
  thread_local std::vector<float> reversedA, reversedB;
  const std::size_t kk = std::size_t(k), nn = std::size_t(n);
  float* const ra = grow(reversedA, std::size_t(m) * kk);
  float* const rb = grow(reversedB, kk * nn);
  for (std::size_t i = 0; i < std::size_t(m); ++i)
    for (std::size_t p = 0; p < kk; ++p)
      ra[i * kk + (kk - 1 - p)] =
          transA == Trans::No ? A[i * std::size_t(lda) + p] : A[p * std::size_t(lda) + i];
  for (std::size_t p = 0; p < kk; ++p)
    for (std::size_t j = 0; j < nn; ++j)
      rb[(kk - 1 - p) * nn + j] =
          transB == Trans::No ? B[p * std::size_t(ldb) + j] : B[j * std::size_t(ldb) + p];
  backends::GemmPolicy inOrder = policy;
  inOrder.reverseSummation = false;
  GemmExtras plain = extras;
  plain.writableA = plain.writableB = nullptr;
  plain.writableARounded = plain.writableBRounded = false;
  plain.roundedA = plain.roundedB = nullptr;
  gemm(inOrder, Trans::No, Trans::No, m, n, k, alpha, ra, k, rb, n, beta, C, ldc, ws, plain);
}

// Whether gemm() can add GemmExtras::bias to the product in C and round each row in one pass
// (the path writing round(P) straight into C) with the bits of its definition: one fp32 product
// under an output rounding, unscaled, no X-ray, and an addend rounding that gives every row's
// copy of the bias the same value (not stochastic).
bool biasFusesWithProduct(const backends::GemmPolicy& policy, int m, int n, int k, float alpha,
                          float beta, int ldc, const GemmExtras& extras) {
  const bool chunked = policy.accumulationChunk > 0 && policy.accumulationChunk < k;
  const bool stochasticAddend =
      policy.addend && policy.addend->mode == numerics::RoundingMode::Stochastic;
  return m > 0 && k > 0 && beta == 0.0f && !policy.reverseSummation && !policy.blockScaled() &&
         policy.passes == backends::MultiPass::None && !extras.xray && !isIdentity(policy.output) &&
         !stochasticAddend && alpha * (1.0f / (extras.scaleA * extras.scaleB)) == 1.0f &&
         (ldc == n || !chunked);
}

// gemm(), or gemmOfScaledBf16() when bf16 is set.
void gemmWith(const backends::GemmPolicy& policy, Trans transA, Trans transB, int m, int n, int k,
              float alpha, const float* A, int lda, const float* B, int ldb, float beta, float* C,
              int ldc, GemmWorkspace& ws, const GemmExtras& extras,
              const Bf16ScaledOperands* bf16) {
  if (m <= 0 || n <= 0) return;
  if (extras.bias && !biasFusesWithProduct(policy, m, n, k, alpha, beta, ldc, extras)) {
    // GemmExtras::bias by its definition: C pre-filled with it, row by row, and beta 1.
    for (int i = 0; i < m; ++i) std::copy(extras.bias, extras.bias + n, C + std::size_t(i) * ldc);
    GemmExtras rest = extras;
    rest.bias = nullptr;
    gemmWith(policy, transA, transB, m, n, k, alpha, A, lda, B, ldb, 1.0f, C, ldc, ws, rest, bf16);
    return;
  }
  if (policy.reverseSummation && k > 1) {
    gemmReversedSummation(policy, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, ws,
                          extras);
    return;
  }
  if (policy.blockScaled()) {
    gemmBlockScaled(policy, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, ws,
                    extras);
    return;
  }
  configureBlas();
  // GemmPolicy::addend: what is added (a layer's bias, pre-filled in C) is rounded first. C's old
  // values are read only as this addend, so they are rounded where they lie.
  if (beta != 0.0f && policy.addend && !isIdentity(policy.addend))
    roundRows(cachedRounder(*policy.addend), C, m, n, ldc, extras.seed ^ 0xd1b54a32d192ed03ull);
  const CBLAS_TRANSPOSE ta = transA == Trans::Yes ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = transB == Trans::Yes ? CblasTrans : CblasNoTrans;
  const bool scaled = extras.scaleA != 1.0f || extras.scaleB != 1.0f;
  const bool multiPass = policy.passes != backends::MultiPass::None;
  const bool chunked = policy.accumulationChunk > 0 && policy.accumulationChunk < k;
  const Rounder* operands =
      policy.operands && !isIdentity(policy.operands) ? &cachedRounder(*policy.operands) : nullptr;
  const std::optional<RoundingSpec>& specB = policy.operandsB ? policy.operandsB : policy.operands;
  const Rounder* operandsB = specB && !isIdentity(specB) ? &cachedRounder(*specB) : nullptr;
  const Rounder* output =
      policy.output && !isIdentity(policy.output) ? &cachedRounder(*policy.output) : nullptr;
  const Rounder* accumulation = policy.accumulation && !isIdentity(policy.accumulation)
                                    ? &cachedRounder(*policy.accumulation)
                                    : nullptr;
  const bool roundsAccumulation = policy.accumulationChunk > 0 && accumulation;

  // Operands as stored, packed densely (transposes are kept and handed to sgemm).
  const StoredOperand sa{A, transA == Trans::No ? m : k, transA == Trans::No ? k : m, lda};
  const StoredOperand sb{B, transB == Trans::No ? k : n, transB == Trans::No ? n : k, ldb};
  const std::uint64_t seedB = extras.seed ^ 0x9e3779b97f4a7c15ull;
  if (extras.xray && k > 0) {
    // Measured before packing (which may round in place), as the product will read them.
    const Rounder* bf16 = multiPass ? (policy.operands ? &cachedRounder(*policy.operands)
                                                       : &cachedRounder(bf16Nearest()))
                                    : nullptr;
    GemmXraySlot& x = *extras.xray;
    xrayOperand(sa.data, sa.rows, sa.cols, sa.ld, extras.scaleA, multiPass ? bf16 : operands,
                extras.seed, policy.passes, x.a);
    xrayOperand(sb.data, sb.rows, sb.cols, sb.ld, extras.scaleB, multiPass ? bf16 : operandsB,
                seedB, policy.passes, x.b);
    x.formatA = xrayFormatName(multiPass ? bf16 : operands, policy.passes);
    x.formatB = xrayFormatName(multiPass ? bf16 : operandsB, policy.passes);
  }
  // The output of a product without output rounding, as stored in C.
  const auto xrayStoredOutput = [&] {
    if (!extras.xray) return;
    xrayOutput(C, ldc, C, ldc, m, n, *numerics::parseFormat("fp32"), extras.xray->output);
    extras.xray->formatOutput = "fp32";
  };

  if (k <= 0 || (!operands && !operandsB && !multiPass && !chunked && !roundsAccumulation &&
                 !output && !scaled && !bf16)) {
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, std::max(k, 0), alpha, A, lda, B, ldb, beta, C, ldc);
    xrayStoredOutput();
    return;
  }

  const std::size_t na = std::size_t(sa.rows) * sa.cols, nb = std::size_t(sb.rows) * sb.cols;
  const std::size_t mn = std::size_t(m) * n;
  const float unscale = 1.0f / (extras.scaleA * extras.scaleB);
  float* const writableA = extras.writableA == A ? extras.writableA : nullptr;
  // A rounded in place by an earlier call (GemmExtras::writableARounded) or by the store step
  // (GemmExtras::roundedA): read as it is.
  const Rounder* const roundA =
      (writableA && extras.writableARounded) || (extras.roundedA && extras.roundedA == A)
          ? nullptr
          : operands;
  float* const writableB = extras.writableB == B ? extras.writableB : nullptr;
  const Rounder* const roundB =
      (writableB && extras.writableBRounded) || (extras.roundedB && extras.roundedB == B)
          ? nullptr
          : operandsB;

  // Fast path: rounding fused into packing, one sgemm with alpha/beta.
  if (!multiPass && !chunked && !roundsAccumulation && !output && !bf16) {
    const auto [pa, lda2] =
        preparedOperand(sa, writableA, extras.scaleA, roundA, extras.seed, ws.a);
    const auto [pb, ldb2] = preparedOperand(sb, writableB, extras.scaleB, roundB, seedB, ws.b);
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha * unscale, pa, lda2, pb, ldb2, beta, C, ldc);
    xrayStoredOutput();
    return;
  }

  // C = round(P) straight into C when nothing is added to P but a GemmExtras::bias (and C is
  // dense if the accumulation is chunked): the same sgemm calls (only their output pointer and
  // leading dimension differ) and the same one rounding, row by row at the dense offsets, without
  // the scratch and copy.
  const float scale = alpha * unscale;
  if (!multiPass && beta == 0.0f && scale == 1.0f && (ldc == n || !chunked) && !extras.xray) {
    const auto [pa, lda2] =
        preparedOperand(sa, writableA, extras.scaleA, roundA, extras.seed, ws.a);
    const auto [pb, ldb2] = preparedOperand(sb, writableB, extras.scaleB, roundB, seedB, ws.b);
    const PackedProduct product{policy, accumulation, ta, tb, m, n, k, lda2, ldb2, ldc, bf16};
    product(pa, pb, C, chunked ? grow(ws.accumulator, mn) : nullptr);
    if (extras.bias) {
      const float* bias = extras.bias;
      if (policy.addend && !isIdentity(policy.addend)) {
        float* rounded = grow(ws.bias, std::size_t(n));
        cachedRounder(*policy.addend).applyCopy({bias, std::size_t(n)}, {rounded, std::size_t(n)});
        bias = rounded;
      }
      // biasFusesWithProduct: only under an output rounding.
      addBiasAndRound(bias, *output, C, m, n, ldc, extras.seed ^ 0x5851f42d4c957f2dull);
    } else if (output) {
      roundRows(*output, C, m, n, ldc, extras.seed ^ 0x5851f42d4c957f2dull);
    }
    return;
  }

  float* acc = grow(ws.accumulator, 3 * mn);
  float* sum = acc;
  float* pass = acc + mn;
  float* chunk = acc + 2 * mn;
  if (!multiPass) {
    const auto [pa, lda2] =
        preparedOperand(sa, writableA, extras.scaleA, roundA, extras.seed, ws.a);
    const auto [pb, ldb2] = preparedOperand(sb, writableB, extras.scaleB, roundB, seedB, ws.b);
    const PackedProduct product{policy, accumulation, ta, tb, m, n, k, lda2, ldb2, n, bf16};
    product(pa, pb, sum, chunk);
  } else {
    const PackedProduct product{policy, accumulation, ta, tb, m, n, k, sa.cols, sb.cols};
    const bool six = policy.passes == backends::MultiPass::Bf16x6;
    const Rounder& bf16 =
        policy.operands ? cachedRounder(*policy.operands) : cachedRounder(bf16Nearest());
    float* parts = grow(ws.parts, 3 * (na + nb));
    float* aHi = parts;
    float* aMid = aHi + na;
    float* aLo = aMid + na;
    float* bHi = aLo + na;
    float* bMid = bHi + nb;
    float* bLo = bMid + nb;
    float* residual = grow(ws.a, std::size_t(std::max({sa.cols, sb.cols, 1})));
    splitParts(sa, extras.scaleA, bf16, aHi, aMid, six ? aLo : nullptr, residual);
    splitParts(sb, extras.scaleB, bf16, bHi, bMid, six ? bLo : nullptr, residual);
    // Smallest first, each pass a full fp32-accumulated product:
    // bf16x3 = (hi*mid + mid*hi) + hi*hi
    // bf16x6 = ((((hi*lo + lo*hi) + mid*mid) + hi*mid) + mid*hi) + hi*hi
    const std::pair<const float*, const float*> x3[] = {{aHi, bMid}, {aMid, bHi}, {aHi, bHi}};
    const std::pair<const float*, const float*> x6[] = {{aHi, bLo},  {aLo, bHi},  {aMid, bMid},
                                                        {aHi, bMid}, {aMid, bHi}, {aHi, bHi}};
    using Pass = std::pair<const float*, const float*>;
    const std::span<const Pass> passes =
        six ? std::span<const Pass>(x6) : std::span<const Pass>(x3);
    product(passes[0].first, passes[0].second, sum, chunk);
    for (std::size_t p = 1; p < passes.size(); ++p) {
      product(passes[p].first, passes[p].second, pass, chunk);
      for (std::size_t i = 0; i < mn; ++i) sum[i] += pass[i];
    }
  }

  // C = round(scale * P + beta * C): beta * C (a bias, already rounded to `addend` if set) is added
  // in fp32 inside the one output rounding, as cuBLAS/cuDNN epilogues do.
  for (int i = 0; i < m; ++i) {
    float* p = sum + std::size_t(i) * n;
    const float* c = C + std::size_t(i) * ldc;
    if (scale != 1.0f)
      for (int j = 0; j < n; ++j) p[j] *= scale;
    if (beta != 0.0f)
      for (int j = 0; j < n; ++j) p[j] += beta * c[j];
  }
  if (extras.xray) {
    if (output) {
      // Before and after the one output rounding.
      float* before = grow(ws.parts, mn);
      std::memcpy(before, sum, mn * sizeof(float));
      output->apply({sum, mn}, extras.seed ^ 0x5851f42d4c957f2dull);
      xrayOutput(before, n, sum, n, m, n, output->spec().format, extras.xray->output);
    } else {
      xrayOutput(sum, n, sum, n, m, n, *numerics::parseFormat("fp32"), extras.xray->output);
    }
    extras.xray->formatOutput = xrayFormatName(output);
  } else if (output) {
    output->apply({sum, mn}, extras.seed ^ 0x5851f42d4c957f2dull);
  }
  for (int i = 0; i < m; ++i)
    std::memcpy(C + std::size_t(i) * ldc, sum + std::size_t(i) * n, std::size_t(n) * sizeof(float));
}

}  // namespace

void gemm(const backends::GemmPolicy& policy, Trans transA, Trans transB, int m, int n, int k,
          float alpha, const float* A, int lda, const float* B, int ldb, float beta, float* C,
          int ldc, GemmWorkspace& ws, const GemmExtras& extras) {
  gemmWith(policy, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, ws, extras,
           nullptr);
}

void gemmOfScaledBf16(const backends::GemmPolicy& policy, Trans transA, Trans transB, int m, int n,
                      int k, float alpha, const float* A, int lda, const float* B, int ldb,
                      float beta, float* C, int ldc, GemmWorkspace& ws, const GemmExtras& extras,
                      const Bf16ScaledOperands& bf16) {
  const bool chunked = policy.accumulationChunk > 0 && policy.accumulationChunk < k;
  if (policy.blockScaled() || policy.operands || policy.operandsB || chunked ||
      policy.passes != backends::MultiPass::None || policy.reverseSummation ||
      extras.scaleA != 1.0f || extras.scaleB != 1.0f)
    throw std::logic_error(
        "a product of bf16 operands takes no operand rounding, scaling, "
        "multi-pass, reversed or chunked accumulation");
  gemmWith(policy, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, ws, extras, &bf16);
}

bool canPreroundOperand(const backends::GemmPolicy& policy, Operand which,
                        const GemmExtras& extras) {
  const std::optional<RoundingSpec>& spec =
      which == Operand::A || !policy.operandsB ? policy.operands : policy.operandsB;
  const float scale = which == Operand::A ? extras.scaleA : extras.scaleB;
  return !extras.xray && !policy.blockScaled() && policy.passes == backends::MultiPass::None &&
         scale == 1.0f && spec && spec->mode != numerics::RoundingMode::Stochastic &&
         !isIdentity(spec);
}

bool preroundOperand(const backends::GemmPolicy& policy, Operand which, const GemmExtras& extras,
                     const float* src, float* dst, std::size_t n) {
  if (!canPreroundOperand(policy, which, extras)) return false;
  const RoundingSpec& spec =
      which == Operand::A || !policy.operandsB ? *policy.operands : *policy.operandsB;
  cachedRounder(spec).applyCopy({src, n}, {dst, n});
  return true;
}

void storeTensor(const std::optional<numerics::RoundingSpec>& format, float* data, std::size_t n,
                 std::uint64_t seed) {
  if (!format || n == 0) return;
  const Rounder& r = cachedRounder(*format);
  if (!r.isIdentity()) r.apply({data, n}, seed);
}

}  // namespace paritylab::nn
