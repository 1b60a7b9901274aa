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
};

struct FloatFormat {
  std::string name;       // "fp32", "tf32", "bf16", "fp16", "fp8-e4m3", "fp8-e5m2", or "eXmY"
  int exponentBits = 8;   // 2..8
  int mantissaBits = 23;  // explicit fraction bits, 0..23
  int bias = 127;         // 2^(exponentBits-1) - 1 for every format here
  SpecialEncoding special = SpecialEncoding::Ieee;
  bool hasSubnormals = true;

  bool hasInfinity() const { return special == SpecialEncoding::Ieee; }
  int totalBits() const { return 1 + exponentBits + mantissaBits; }
  double maxFinite() const;     // largest finite magnitude (fp8-e4m3: 448, fp8-e5m2: 57344)
  double minNormal() const;     // 2^(1 - bias)
  double minSubnormal() const;  // 2^(1 - bias - mantissaBits)
  double epsilon() const;       // 2^-mantissaBits: distance from 1 to the next value
  bool isFp32() const { return exponentBits == 8 && mantissaBits == 23; }
};

// The presets in display order: fp32, tf32, bf16, fp16, fp8-e4m3, fp8-e5m2.
const std::vector<FloatFormat>& presetFormats();

// Parses a preset name or a custom "eXmY" (2 <= X <= 8, 0 <= Y <= 23, IEEE-like).
// Returns nullopt for anything else; formatNameError() says why, naming the value.
std::optional<FloatFormat> parseFormat(std::string_view name);
std::string formatNameError(std::string_view name);

}  // namespace paritylab::numerics
