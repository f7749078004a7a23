"""Significance tests for the statistical growers: Pearson's chi-square of a contingency table,
its p-value, and Kass's (1980) Bonferroni multipliers for merged categories.

The p-value is the chi-square distribution's upper tail, the regularised upper incomplete gamma
function Q(df/2, x/2), by its power series below a + 1 and its continued fraction above
(Numerical Recipes' gser/gcf, here over numpy arrays): numpy is the only dependency at run time.
"""
from __future__ import annotations

import math

import numpy as np

_EPS = 1e-15          # relative size of the last term kept
_MAX_TERMS = 10_000   # the series needs about sqrt(a) * 10 terms; far more than any table needs
_TINY = 1e-300        # Lentz's guard against a zero denominator


def chi2_sf(chi: np.ndarray | float, df: np.ndarray | float) -> np.ndarray:
    """P(X >= chi) for X chi-square with df degrees of freedom (df >= 1), elementwise."""
    x = np.asarray(chi, dtype=np.float64) / 2.0
    a = np.asarray(df, dtype=np.float64) / 2.0
    x, a = np.broadcast_arrays(x, a)
    out = np.ones(x.shape)
    positive = x > 0
    series = positive & (x < a + 1)
    fraction = positive & ~series
    if series.any():
        out[series] = 1.0 - _lower_series(a[series], x[series])
    if fraction.any():
        out[fraction] = _upper_fraction(a[fraction], x[fraction])
    return np.clip(out, 0.0, 1.0)


def _log_prefactor(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    lgamma = np.vectorize(math.lgamma, otypes=[np.float64])
    return a * np.log(x) - x - lgamma(a)


def _lower_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularised lower gamma P(a, x) by its series (converges fast for x < a + 1)."""
    term = 1.0 / a
    total = term.copy()
    ap = a.copy()
    for _ in range(_MAX_TERMS):
        ap += 1.0
        term = term * x / ap
        total += term
        if (np.abs(term) < np.abs(total) * _EPS).all():
            break
    return total * np.exp(_log_prefactor(a, x))


def _upper_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularised upper gamma Q(a, x) by its continued fraction (Lentz; x >= a + 1)."""
    b = x + 1.0 - a
    c = np.full(x.shape, 1.0 / _TINY)
    d = 1.0 / b
    h = d.copy()
    for i in range(1, _MAX_TERMS):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if (np.abs(delta - 1.0) < _EPS).all():
            break
    return np.exp(_log_prefactor(a, x)) * h


def pearson_chi2(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(chi-square, df) of each contingency table in `table` (..., rows, columns), over the
    columns with a case in the table only (a class absent from both rows tells nothing)."""
    table = np.asarray(table, dtype=np.float64)
    cols = table.sum(axis=-2)
    rows = table.sum(axis=-1)
    n = rows.sum(axis=-1)
    present = cols > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = rows[..., :, None] * cols[..., None, :] / n[..., None, None]
        cells = np.where(present[..., None, :], (table - expected) ** 2 / expected, 0.0)
    chi = np.nan_to_num(cells, nan=0.0).sum(axis=(-2, -1))
    nonempty_rows = (rows > 0).sum(axis=-1)
    df = (nonempty_rows - 1) * (present.sum(axis=-1) - 1)
    return chi, df


def table_p_value(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(chi-square, df, p-value) of each table; p is 1 where df is 0 (nothing to tell apart)."""
    chi, df = pearson_chi2(table)
    p = np.ones(np.shape(chi))
    some = np.asarray(df) > 0
    if np.any(some):
        p[some] = chi2_sf(np.asarray(chi)[some], np.asarray(df)[some])
    return chi, df, p


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
