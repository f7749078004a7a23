"""The pessimistic error estimate (c4.5 `AddErrs`, spec 3.1): the one home of this formula.

Tree pruning (tree/prune.py) and rule generalisation (rules/generalize.py) both call it.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike

from . import libm

_CF_TABLE = (0.0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00)
_Z_TABLE = (4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00)


@lru_cache(maxsize=None)
def z_squared(cf: float) -> float:
    """Squared normal deviate for confidence level `cf`, interpolated as c4.5 does."""
    if not 0.0 < cf <= 1.0:
        raise ValueError(f"confidence level cf must be in (0, 1], got {cf}")
    i = 0
    while cf > _CF_TABLE[i]:
        i += 1
    z = _Z_TABLE[i - 1] + (_Z_TABLE[i] - _Z_TABLE[i - 1]) * (cf - _CF_TABLE[i - 1]) / (_CF_TABLE[i] - _CF_TABLE[i - 1])
    return z * z


def add_errors(n: ArrayLike, e: ArrayLike, cf: float = 0.25) -> np.ndarray:
    """Extra errors above the observed `e` of `n` cases at confidence `cf` (arrays or scalars).

    The upper limit of a Wilson-type interval with continuity correction 0.5, with
    c4.5's special cases for e ~ 0, 0 < e < 1 and e + 0.5 >= n.
    """
    if np.ndim(n) == 0 and np.ndim(e) == 0:
        # pruning asks one node at a time: plain floats, no array overhead
        return _extra_float(float(n), float(e), z_squared(cf), math.log(cf))
    n, e = np.broadcast_arrays(np.asarray(n, dtype=np.float64), np.asarray(e, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        return _extra(n, e, z_squared(cf), math.log(cf), libm.exp,
                      lambda x: np.sqrt(np.maximum(x, 0.0)), np.where)


def _extra_float(n: float, e: float, z2: float, log_cf: float) -> float:
    """_extra for plain floats, evaluating only the branch taken (the same operations)."""
    def wilson(ee):
        return _wilson(n, ee, z2)
    if e >= 0.9999:
        return 0.67 * (n - e) if e + 0.5 >= n else wilson(e)
    e0 = n * (1.0 - math.exp(log_cf / n))
    if e < 1e-6:
        return e0
    e1 = 0.67 * (n - 1.0) if 1.0 + 0.5 >= n else wilson(1.0)
    return e0 + e * (e1 - e0)


@lru_cache(maxsize=None)
def normal_deviate(cf: float) -> float:
    """The exact normal deviate z with P(Z > z) = cf (Weka's Statistics.normalInverse(1 - cf))."""
    from statistics import NormalDist
    return NormalDist().inv_cdf(1.0 - cf)


def weka_add_errors(n: float, e: float, cf: float = 0.25) -> float:
    """Weka's Stats.addErrs (J48): the same upper limit as `add_errors` with the exact normal
    deviate, interpolation for e < 1 and N - e (no 0.67 factor) when e + 0.5 >= N."""
    if not 0.0 < cf <= 0.5:
        raise ValueError(f"J48's confidence factor must be in (0, 0.5], got {cf}")
    if e < 1:
        base = n * (1.0 - cf ** (1.0 / n))
        return base if e == 0 else base + e * (weka_add_errors(n, 1.0, cf) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = normal_deviate(cf)
    return _wilson(n, e, z * z)


def _wilson(n: float, e: float, z2: float) -> float:
    """Wilson's upper limit with continuity correction 0.5, as extra errors above `e` of `n`."""
    ec = e + 0.5
    p = (ec + z2 / 2 + math.sqrt(max(z2 * (ec * (1 - ec / n) + z2 / 4), 0.0))) / (n + z2)
    return n * p - e


def extra_function(cf: float) -> Callable[[float, float], float]:
    """add_errors(n, e, cf) for plain floats, constants worked out once: what the compiled
    pruning calls back per (cases, errors) pair, thousands of times on a small run."""
    z2, log_cf = z_squared(cf), math.log(cf)

    def extra(n: float, e: float) -> float:
        return _extra_float(n, e, z2, log_cf)
    return extra


def rate_function(cf: float) -> Callable[[float, float], float]:
    """pessimistic_rate(n, e, cf) for plain numbers as a float, constants worked out once."""
    extra = extra_function(cf)

    def rate(n, e) -> float:
        n, e = float(n), float(e)
        return (e + extra(n, e)) / n
    return rate


def _extra(n, e, z2, log_cf, exp, sqrt, where):
    """AddErrs written once for both floats and arrays (`exp`, `sqrt`, `where` supplied)."""
    def wilson(ee):
        ec = ee + 0.5
        p = (ec + z2 / 2 + sqrt(z2 * (ec * (1 - ec / n) + z2 / 4))) / (n + z2)
        return n * p - ee
    e0 = n * (1.0 - exp(log_cf / n))
    e1 = where(1.0 + 0.5 >= n, 0.67 * (n - 1.0), wilson(1.0))
    large = where(e + 0.5 >= n, 0.67 * (n - e), wilson(e))
    return where(e < 1e-6, e0, where(e < 0.9999, e0 + e * (e1 - e0), large))


def pessimistic_rate(n: ArrayLike, e: ArrayLike, cf: float = 0.25) -> np.ndarray:
    """(e + AddErrs(n, e)) / n: a rule's pessimistic error rate (spec 7.3)."""
    return (np.asarray(e, dtype=np.float64) + add_errors(n, e, cf)) / n
