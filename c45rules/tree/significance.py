"""Significance tests for the statistical growers (chaid, quest): Pearson's chi-square of a
contingency table and its p-value, Kass's (1980) Bonferroni multipliers for merged categories,
and the F distribution's upper tail (from the regularised incomplete beta function, A&S 26.5.8,
its continued fraction evaluated by the modified Lentz method).

The p-value is the chi-square distribution's upper tail for a whole number of degrees of freedom,
by its closed forms (Abramowitz & Stegun 26.4.4-5): with y = x/2,
  df = 2m:      Q = e^-y * sum_{k<m} y^k / k!
  df = 2m + 1:  Q = erfc(sqrt y) + e^-y * sum_{1<=k<=m} y^(k-1/2) / Gamma(k + 1/2)
every term positive (summed in log space, no cancellation): numpy is the only dependency at
run time.
"""
from __future__ import annotations

import math

import numpy as np

_TINY = 1e-300
_EPS = 1e-15
_MAX_TERMS = 10_000


def chi2_sf(chi: np.ndarray | float, df: np.ndarray | int) -> np.ndarray:
    """P(X >= chi) for X chi-square with df (a whole number >= 1) degrees of freedom, elementwise."""
    y = np.asarray(chi, dtype=np.float64) / 2.0
    df = np.asarray(df, dtype=np.int64)
    if y.shape != df.shape:
        y, df = (np.array(a) for a in np.broadcast_arrays(y, df))
    zero = y <= 0
    odd = (df % 2 == 1) & ~zero
    out = np.zeros(y.shape)
    at = np.flatnonzero(odd)
    if len(at):
        out.flat[at] = [math.erfc(math.sqrt(v)) for v in y.flat[at].tolist()]
    m = df // 2
    log_y = np.log(np.maximum(y, _TINY))
    for k in range(int(m.max(initial=0))):
        take = (k < m) & ~zero
        # even df: y^k / k!; odd df: y^(k+1/2) / Gamma(k + 3/2)
        log_term = np.where(odd, (k + 0.5) * log_y - math.lgamma(k + 1.5), k * log_y - math.lgamma(k + 1))
        out += np.where(take, np.exp(np.where(take, log_term - y, 0.0)), 0.0)
    out[zero] = 1.0
    return np.minimum(out, 1.0)


def pearson_chi2(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(chi-square, df) of each contingency table in `table` (..., rows, columns), over the
    columns with a case in the table only (a class absent from both rows tells nothing)."""
    table = np.asarray(table, dtype=np.float64)
    cols = table.sum(axis=-2)
    rows = table.sum(axis=-1)
    n = rows.sum(axis=-1)
    expected = rows[..., :, None] * cols[..., None, :] / np.maximum(n, _TINY)[..., None, None]
    filled = expected > 0
    chi = np.where(filled, (table - expected) ** 2 / np.where(filled, expected, 1.0), 0.0).sum(axis=(-2, -1))
    df = ((rows > 0).sum(axis=-1) - 1) * ((cols > 0).sum(axis=-1) - 1)
    return chi, df


def table_p_value(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(chi-square, df, p-value) of each table; p is 1 where df is 0 (nothing to tell apart)."""
    chi, df = pearson_chi2(table)
    p = chi2_sf(chi, np.maximum(df, 1))
    return chi, df, np.where(df > 0, p, 1.0)


def bonferroni_multiplier(categories: int, groups: int, kind: str) -> int:
    """Kass (1980): the number of ways `categories` categories reduce to `groups` groups, for a
    'nominal' (free), 'ordinal' (monotonic) or 'floating' (ordinal plus one floating category,
    counted in `categories`) predictor."""
    c, r = categories, groups
    if r <= 1 or r > c:
        return 1
    if kind == "ordinal":
        return math.comb(c - 1, r - 1)
    if kind == "floating":
        return math.comb(c - 2, r - 2) + r * math.comb(c - 2, r - 1)
    # a Stirling number of the second kind: partitions of c categories into r groups
    return sum((-1) ** j * math.comb(r, j) * (r - j) ** c for j in range(r + 1)) // math.factorial(r)


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


def f_p(statistic: float, df1: float, df2: float) -> float:
    """P(F >= statistic) for F with (df1, df2) degrees of freedom (1.0 when either is 0)."""
    if df1 <= 0 or df2 <= 0:
        return 1.0
    if statistic <= 0:
        return 1.0
    if math.isinf(statistic):
        return 0.0
    return incomplete_beta(df2 / 2.0, df1 / 2.0, df2 / (df2 + df1 * statistic))
