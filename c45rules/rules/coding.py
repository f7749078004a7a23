"""Description-length costs of c4.5rules (spec 7.1, 7.6.2, 7.6.3): the one home of these formulas."""
from __future__ import annotations

import math

import numpy as np

from ..data.schema import Dataset
from .extract import SUBSET, CondTest

CODE_WEIGHT = 0.5   # theory bits count half (spec 7.6.3)


def branch_bits(data: Dataset) -> np.ndarray:
    """Bits to code the outcome of a test on each attribute (spec 7.1)."""
    n = data.n
    out = np.zeros(len(data.schema.attributes))
    for a, attr in enumerate(data.schema.attributes):
        col = data.columns[a]
        if attr.is_discrete:
            counts = np.bincount(col[col >= 0], minlength=len(attr.values)).astype(float)
            counts = counts[counts > 0]
            out[a] = float(np.sum(counts / n * (math.log2(n) - np.log2(counts))))
        elif attr.is_continuous:
            known = col[~np.isnan(col)]
            # c4.5 stores unknown as a value of its own (-999), so it counts as one more value
            p = len(np.unique(known)) + (1 if len(known) < n else 0)
            out[a] = 1 + math.log2(p) / 2 if p > 1 else 0.0
    return out


def attribute_test_bits(bbits: np.ndarray) -> float:
    """Bits to code which attribute a condition tests (entropy of BranchBits shares)."""
    total = bbits.sum()
    if total <= 0:
        return 0.0
    p = bbits[bbits > 0] / total
    return float(-np.sum(p * np.log2(p)))


def rule_bits(conditions: tuple[CondTest, ...], bbits: np.ndarray, att_bits: float, n_values: list[int],
              redundancy: float) -> float:
    """Bits to code a rule's conditions, credited for their order (spec 7.6.2)."""
    total = 0.0
    for c in conditions:
        total += att_bits / redundancy + (n_values[c.attribute] if c.kind == SUBSET else bbits[c.attribute])
    m = len(conditions)
    return total + _log2(m) - log_fact(m)


def _log2(x: float) -> float:
    return math.log2(x) if x > 0 else 0.0


def log_fact(n: int) -> float:
    """log2(n!)."""
    return math.lgamma(n + 1) / math.log(2) if n > 1 else 0.0


def _b(n: np.ndarray, e: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Bits to code e exceptions among n when x are expected (spec 7.6.3), vectorised."""
    q = x / n
    val = -e * np.log2(q) - (n - e) * np.log2(1 - q)
    low = x <= 1e-6
    high = x >= n - 1e-6
    if low.any() or high.any():
        val = np.where(low, np.where(e == 0, 0.0, 1e6), np.where(high, np.where(e == n, 0.0, 1e6), val))
    return val


def exception_bits(n: int, fires, fp, fn):
    """ExceptionBits(F, fp, fn) over n training cases (biased ML'95 form, spec 7.6.3)."""
    fires = np.asarray(fires, dtype=np.float64)
    fp = np.asarray(fp, dtype=np.float64)
    fn = np.asarray(fn, dtype=np.float64)
    mean = (fp + fn) / 2
    big = fires > n / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        bits = _b(fires, fp, np.where(big, mean, fp)) + _b(n - fires, fn, np.where(big, fn, mean))
    return _log2(n) + bits
