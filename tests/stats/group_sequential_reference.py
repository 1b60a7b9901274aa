#!/usr/bin/env python3
"""Independent reference for the group-sequential boundaries in group_sequential_test.cpp.

Python's standard library only (no SciPy on the build machine). The C++ code integrates the
sub-density of the score process S_k on a grid; this script works in the Z scale instead: the
looks' statistics are jointly normal with corr(Z_i, Z_j) = sqrt(t_i / t_j), so
  P(Z_1 < c_1, Z_2 >= c_2) = int_{-inf}^{c_1} phi(z) Q((c_2 - r z) / sqrt(1 - r^2)) dz,  r = sqrt(t1/t2)
and for three looks the same with an inner integral over z_2 given z_1. Each c_k is solved by
bisection so that the probability of first crossing at look k equals the alpha spent between
looks (Lan-DeMets O'Brien-Fleming-like spending, 2 - 2 Phi(z_{1-alpha/2} / sqrt(t))).

Run: python3 tests/stats/group_sequential_reference.py
"""
import math
from statistics import NormalDist

N = NormalDist()


def Q(z):
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def phi(z):
    return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


def spent(alpha, t):
    return 2.0 - 2.0 * N.cdf(N.inv_cdf(1.0 - alpha / 2.0) / math.sqrt(t))


def integrate(f, a, b, n=4000):
    h = (b - a) / n
    s = f(a) + f(b)
    for i in range(1, n):
        s += (4 if i % 2 else 2) * f(a + i * h)
    return s * h / 3.0


def cross2(c1, c2, t1, t2):
    r = math.sqrt(t1 / t2)
    return integrate(lambda z: phi(z) * Q((c2 - r * z) / math.sqrt(1 - r * r)), -10.0, c1)


def cross3(c1, c2, c3, t1, t2, t3, n=400):
    # z1 ~ N(0,1); z2 | z1 ~ N(r12 z1, 1 - r12^2); z3 | z2 (Markov in S) ~ N(r23 z2, 1 - r23^2)
    r12, r23 = math.sqrt(t1 / t2), math.sqrt(t2 / t3)

    def inner(z1):
        m, s = r12 * z1, math.sqrt(1 - r12 * r12)
        return integrate(lambda z2: phi((z2 - m) / s) / s * Q((c3 - r23 * z2) / math.sqrt(1 - r23 * r23)),
                         m - 10 * s, c2, n)

    return integrate(lambda z1: phi(z1) * inner(z1), -10.0, c1, n)


def solve(f, target, lo=0.0, hi=10.0):
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if f(mid) > target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def boundaries(alpha, ts):
    cs = [N.inv_cdf(1.0 - spent(alpha, ts[0]))]
    if len(ts) >= 2:
        inc = spent(alpha, ts[1]) - spent(alpha, ts[0])
        cs.append(solve(lambda c: cross2(cs[0], c, ts[0], ts[1]), inc))
    if len(ts) >= 3:
        inc = spent(alpha, ts[2]) - spent(alpha, ts[1])
        cs.append(solve(lambda c: cross3(cs[0], cs[1], c, ts[0], ts[1], ts[2]), inc))
    return cs


if __name__ == "__main__":
    for alpha, ts in [(0.025, [0.5, 1.0]), (0.05, [1 / 3, 2 / 3, 1.0]), (0.05, [0.25, 0.6, 1.0])]:
        print(alpha, ts, ["%.6f" % c for c in boundaries(alpha, ts)])
