"""Significance tests for the statistical growers: Pearson's chi-square of a contingency table,
its p-value, and Kass's (1980) Bonferroni multipliers for merged categories.

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

_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def chi2_sf(chi: np.ndarray | float, df: np.ndarray | int) -> np.ndarray:
    """P(X >= chi) for X chi-square with df (a whole number >= 1) degrees of freedom, elementwise."""
    y, df = np.broadcast_arrays(np.asarray(chi, dtype=np.float64) / 2.0, np.asarray(df, dtype=np.int64))
    y, df = y.astype(np.float64), df.astype(np.int64)
    out = np.zeros(y.shape)
    zero = y <= 0
    odd = (df % 2 == 1) & ~zero
    if odd.any():
        out[odd] = _erfc(np.sqrt(y[odd]))
    m = df // 2
    with np.errstate(divide="ignore"):
        log_y = np.log(np.where(zero, 1.0, y))
    for k in range(int(m.max(initial=0))):
        take = (k < m) & ~zero
        if not take.any():
            break
        # even df: y^k / k!; odd df: y^(k+1/2) / Gamma(k + 3/2)
        power = np.where(odd, k + 0.5, k)
        log_norm = np.where(odd, math.lgamma(k + 1.5), math.lgamma(k + 1))
        out[take] += np.exp(-y[take] + power[take] * log_y[take] - log_norm[take])
    out[zero] = 1.0
    return np.clip(out, 0.0, 1.0)


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
