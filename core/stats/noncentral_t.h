// Noncentral t tail probabilities for the power analysis.
// Uses boost::math::non_central_t; where Boost cannot evaluate it (|nc| above ~6.5e4 its Poisson
// series index overflows an int and it throws), falls back to the definition
// T = (Z + nc) / sqrt(V / df), V ~ chi2(df):
//   P(T > x) = E_V[ Phi(nc - x sqrt(V / df)) ],   P(T <= x) = E_V[ Phi(x sqrt(V / df) - nc) ],
// integrated over s = sqrt(V / df) with Boost's adaptive Gauss-Kronrod rule (chi density in
// closed form via lgamma, Phi via erfc).
#pragma once

namespace paritylab::stats {

double noncentralTUpper(double x, double df, double nc);  // P(T > x)
double noncentralTLower(double x, double df, double nc);  // P(T <= x)

// The integral above, exposed so tests can check it against Boost where both work.
double noncentralTByIntegration(double x, double df, double nc, bool upper);

}  // namespace paritylab::stats
