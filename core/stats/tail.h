// Hypothesis-test vocabulary shared by every test in paritylab::stats.
#pragma once

namespace paritylab::stats {

// Alternative hypothesis, always about sample a relative to sample b (a - b):
//   TwoSided: mean_a != mean_b;  Less: mean_a < mean_b;  Greater: mean_a > mean_b.
// For Mann-Whitney U "less"/"greater" are about stochastic order (as in SciPy).
enum class Tail { TwoSided, Less, Greater };

// Welch: unequal variances, Welch-Satterthwaite df.  Student: pooled variance, df = n_a + n_b - 2.
enum class TTestKind { Welch, Student };

const char* tailName(Tail tail);       // "two-sided", "less", "greater"
const char* kindName(TTestKind kind);  // "Welch", "Student"

}  // namespace paritylab::stats
