#pragma once
// Binary floating-point formats narrower than (or equal to) fp32: presets and custom eXmY.
// CONTRACT (owned by core/numerics; other floors rely on these names).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paritylab::numerics {

// Special-value encoding of a format.
enum class SpecialEncoding {
  Ieee,            // all-ones exponent = inf (mantissa 0) / NaN (mantissa != 0)
  FiniteOnlyE4M3,  // OCP OFP8 E4M3: no infinities; only S.1111.111 is NaN, so 1111 is a normal
                   // binade
  FiniteOnly,      // OCP MX FP6/FP4 elements (E3M2, E2M3, E2M1): no infinities and no NaN; every
                   // code is a finite number and the all-ones exponent is a normal binade
  Fnuz,            // "fnuz" fp8 (AMD MI300, Graphcore): no infinities, no negative zero; the one
                   // NaN is the negative-zero code (sign bit alone: 0x80) and the all-ones exponent
                   // is a normal binade
};

struct FloatFormat {
  // "fp32", "tf32", "bf16", "fp16", "fp8-e4m3", "fp8-e5m2", "fp6-e3m2", "fp6-e2m3", "fp4-e2m1",
  // "fp8-e4m3fnuz", "fp8-e5m2fnuz", or "eXmY"
  std::string name;
  int exponentBits = 8;   // 2..8
  int mantissaBits = 23;  // explicit fraction bits, 0..23
  int bias = 127;         // 2^(exponentBits-1) - 1; the fnuz formats: 2^(exponentBits-1)
  SpecialEncoding special = SpecialEncoding::Ieee;
  bool hasSubnormals = true;

  bool hasInfinity() const { return special == SpecialEncoding::Ieee; }
  bool hasNaN() const { return special != SpecialEncoding::FiniteOnly; }
  bool hasNegativeZero() const { return special != SpecialEncoding::Fnuz; }
  int totalBits() const { return 1 + exponentBits + mantissaBits; }
  // Largest finite magnitude: fp8-e4m3 448, fp8-e5m2 57344, fp6-e3m2 28, fp6-e2m3 7.5, fp4-e2m1 6,
  // fp8-e4m3fnuz 240, fp8-e5m2fnuz 57344.
  double maxFinite() const;
  double minNormal() const;     // 2^(1 - bias)
  double minSubnormal() const;  // 2^(1 - bias - mantissaBits)
  double epsilon() const;       // 2^-mantissaBits: distance from 1 to the next value
  bool isFp32() const { return exponentBits == 8 && mantissaBits == 23; }
};

// The presets in display order: fp32, tf32, bf16, fp16, fp8-e4m3, fp8-e5m2, fp6-e3m2, fp6-e2m3,
// fp4-e2m1, fp8-e4m3fnuz, fp8-e5m2fnuz.
const std::vector<FloatFormat>& presetFormats();

// Parses a preset name or a custom "eXmY" (2 <= X <= 8, 0 <= Y <= 23, IEEE-like).
// Returns nullopt for anything else; formatNameError() says why, naming the value.
std::optional<FloatFormat> parseFormat(std::string_view name);
std::string formatNameError(std::string_view name);

}  // namespace paritylab::numerics
