#pragma once
// A number a user typed, as a device sees it: parsed straight to the nearest fp32 (the value every
// emulated product starts from), and whether that fp32 is exactly the number written. `bits`,
// `round` and the Formats tab all parse here and then round with the same Rounder.

#include <optional>
#include <string_view>

namespace paritylab::numerics {

// A decimal ("1.5e-3", "-2", ".5", "1e-50", "nan", "-nan", "inf", "-infinity"; a leading '+' is
// allowed) or the raw bits of an fp32 value ("0x3f800000"). Surrounding spaces, tabs, CR and LF
// are ignored. A decimal is rounded once, to nearest-even fp32 (beyond the range: +-inf; below the
// smallest subnormal: +-0); NaN keeps the sign written. nullopt for anything else.
std::optional<float> parseFp32(std::string_view text);

struct Fp32Input {
  float value = 0.0f;
  bool exact = true;  // false: the decimal is not exactly an fp32 (0.1, 1e-50, 1e39)
};
// parseFp32 plus whether the text denotes exactly the fp32 it gave (fp32 bits, nan and inf
// always do; a decimal when its every digit matches the fp32's exact decimal expansion).
std::optional<Fp32Input> parseFp32Input(std::string_view text);

}  // namespace paritylab::numerics
