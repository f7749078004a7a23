"""The pessimistic error estimate (c4.5 `AddErrs`, spec 3.1): the one home of this formula.

Tree pruning (tree/prune.py) and rule generalisation (rules/generalize.py) both call it.
"""
from __future__ import annotations

import math

import numpy as np

_CF_TABLE = (0.0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00)
_Z_TABLE = (4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00)


def z_squared(cf: float) -> float:
    """Squared normal deviate for confidence level `cf`, interpolated as c4.5 does."""
    if not 0.0 < cf <= 1.0:
        raise ValueError(f"confidence level cf must be in (0, 1], got {cf}")
    i = 0
    while cf > _CF_TABLE[i]:
        i += 1
    z = _Z_TABLE[i - 1] + (_Z_TABLE[i] - _Z_TABLE[i - 1]) * (cf - _CF_TABLE[i - 1]) / (_CF_TABLE[i] - _CF_TABLE[i - 1])
    return z * z


def add_errors(n, e, cf: float = 0.25):
    """Extra errors above the observed `e` of `n` cases at confidence `cf` (arrays or scalars).

    The upper limit of a Wilson-type interval with continuity correction 0.5, with
    c4.5's special cases for e ~ 0, 0 < e < 1 and e + 0.5 >= n.
    """
    scalar = np.ndim(n) == 0 and np.ndim(e) == 0
    n = np.asarray(n, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    n, e = np.broadcast_arrays(n, e)
    z2 = z_squared(cf)
    with np.errstate(divide="ignore", invalid="ignore"):
        e0 = n * (1.0 - np.exp(math.log(cf) / n))
        # the value at e = 1, used to interpolate for 0 < e < 1
        e1 = _wilson(n, np.ones_like(n), z2)
        e1 = np.where(1.0 + 0.5 >= n, 0.67 * (n - 1.0), e1)
        out = np.where(e < 1e-6, e0,
              np.where(e < 0.9999, e0 + e * (e1 - e0),
              np.where(e + 0.5 >= n, 0.67 * (n - e), _wilson(n, e, z2))))
    return float(out) if scalar else out


def _wilson(n: np.ndarray, e: np.ndarray, z2: float) -> np.ndarray:
    ec = e + 0.5
    p = (ec + z2 / 2 + np.sqrt(np.maximum(z2 * (ec * (1 - ec / n) + z2 / 4), 0.0))) / (n + z2)
    return n * p - e


def pessimistic_rate(n, e, cf: float = 0.25):
    """(e + AddErrs(n, e)) / n: a rule's pessimistic error rate (spec 7.3)."""
    return (np.asarray(e, dtype=np.float64) + add_errors(n, e, cf)) / n
