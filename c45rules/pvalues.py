"""Upper-tail p-values of the chi-square and F distributions, from the regularised incomplete
gamma and beta functions (no scipy at run time: the runtime deps are numpy, pandas, pyyaml,
networkx and sqlglot).

The series and continued fractions are the classical ones (Abramowitz & Stegun 6.5.29 and
6.5.31 for the gamma, 26.5.8 for the beta, the fraction evaluated by the modified Lentz
method); each converges to double precision within a few hundred terms for the degrees of
freedom a tree meets.
"""
from __future__ import annotations

import math

_EPS = 1e-15
_TINY = 1e-300
_MAX_TERMS = 10_000


def _lower_gamma_series(a: float, x: float) -> float:
    """P(a, x) by its power series (A&S 6.5.29): good for x < a + 1."""
    term = total = 1.0 / a
    ap = a
    for _ in range(_MAX_TERMS):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_gamma_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction (A&S 6.5.31, Lentz): good for x >= a + 1."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_TERMS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < _EPS:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


def upper_gamma(a: float, x: float) -> float:
    """The regularised upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a)."""
    if a <= 0:
        raise ValueError(f"upper_gamma needs a > 0, got {a}")
    if x <= 0:
        return 1.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_gamma_series(a, x))
    return _upper_gamma_fraction(a, x)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (A&S 26.5.8), by the modified Lentz method."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = _TINY if abs(d) < _TINY else d
    d = 1.0 / d
    h = d
    for m in range(1, _MAX_TERMS):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = _TINY if abs(d) < _TINY else d
        c = 1.0 + aa / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = _TINY if abs(d) < _TINY else d
        c = 1.0 + aa / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < _EPS:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if a <= 0 or b <= 0:
        raise ValueError(f"incomplete_beta needs a, b > 0, got {a}, {b}")
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    # the fraction converges fast for x < (a + 1) / (a + b + 2); beyond, by symmetry
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def chi_square_p(statistic: float, df: float) -> float:
    """P(X >= statistic) for X chi-square with `df` degrees of freedom (1.0 when df is 0)."""
    if df <= 0:
        return 1.0
    return upper_gamma(df / 2.0, max(statistic, 0.0) / 2.0)


def f_p(statistic: float, df1: float, df2: float) -> float:
    """P(F >= statistic) for F with (df1, df2) degrees of freedom (1.0 when either is 0)."""
    if df1 <= 0 or df2 <= 0:
        return 1.0
    if statistic <= 0:
        return 1.0
    if math.isinf(statistic):
        return 0.0
    return incomplete_beta(df2 / 2.0, df1 / 2.0, df2 / (df2 + df1 * statistic))
