#!/usr/bin/env python3
"""Reference sums of squares for tests/stats/two_way_anova_test.cpp, computed independently of
the C++ code: exact rational arithmetic (fractions.Fraction), the normal equations of each
effect-coded model solved by Gauss-Jordan elimination, no floating point until the print.
Type II: each main effect against the model of both main effects, the interaction against the
full model; type III: each effect against the full model (statsmodels anova_lm typ=2 / typ=3
with C(a, Sum) * C(b, Sum)). Run: python3 tests/stats/two_way_anova_reference.py"""
from fractions import Fraction as F

# (a, b, y): a 2 x 3 design with unequal cells (3, 2, 4 / 2, 3, 3 observations).
DATA = [(0, 0, "5.1"), (0, 0, "4.8"), (0, 0, "5.6"), (0, 1, "6.2"), (0, 1, "6.9"),
        (0, 2, "7.1"), (0, 2, "7.4"), (0, 2, "6.8"), (0, 2, "7.9"),
        (1, 0, "4.2"), (1, 0, "4.9"), (1, 1, "5.0"), (1, 1, "5.4"), (1, 1, "4.7"),
        (1, 2, "8.3"), (1, 2, "8.8"), (1, 2, "7.9")]
LA, LB = 2, 3


def code(level, column, levels):
    return F(-1) if level == levels - 1 else F(1 if level == column else 0)


def row(a, b, terms):
    r = [F(1)]
    if "a" in terms:
        r += [code(a, j, LA) for j in range(LA - 1)]
    if "b" in terms:
        r += [code(b, k, LB) for k in range(LB - 1)]
    if "ab" in terms:
        r += [code(a, j, LA) * code(b, k, LB) for j in range(LA - 1) for k in range(LB - 1)]
    return r


def rss(terms):
    xs = [row(a, b, terms) for a, b, _ in DATA]
    ys = [F(y) for _, _, y in DATA]
    p = len(xs[0])
    # Normal equations [X'X | X'y], solved exactly.
    m = [[sum(x[i] * x[j] for x in xs) for j in range(p)] + [sum(x[i] * y for x, y in zip(xs, ys))]
         for i in range(p)]
    for c in range(p):
        pivot = next(r for r in range(c, p) if m[r][c] != 0)
        m[c], m[pivot] = m[pivot], m[c]
        m[c] = [v / m[c][c] for v in m[c]]
        for r in range(p):
            if r != c and m[r][c] != 0:
                m[r] = [v - m[r][c] * w for v, w in zip(m[r], m[c])]
    beta = [m[i][p] for i in range(p)]
    return sum((y - sum(b * v for b, v in zip(beta, x))) ** 2 for x, y in zip(xs, ys))


full = rss({"a", "b", "ab"})
main = rss({"a", "b"})
print("residual", float(full), "df", len(DATA) - LA * LB)
print("type II ", "A", float(rss({"b"}) - main), "B", float(rss({"a"}) - main), "A:B",
      float(main - full))
print("type III", "A", float(rss({"b", "ab"}) - full), "B", float(rss({"a", "ab"}) - full), "A:B",
      float(rss({"a", "b"}) - full))
