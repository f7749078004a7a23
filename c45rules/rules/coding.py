"""Description-length costs of c4.5rules (spec 7.1, 7.6.2, 7.6.3): the one home of these formulas."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike

from .. import libm
from ..data.distinct import count_distinct
from ..data.schema import Dataset
from .extract import SUBSET, CondTest

CODE_WEIGHT = 0.5   # theory bits count half (spec 7.6.3)


def branch_bits(data: Dataset) -> np.ndarray:
    """Bits to code the outcome of a test on each attribute (spec 7.1), over the cases' weights."""
    n = data.total_weight if data.weights is not None else data.n
    tallies: list[np.ndarray | int | None] = []
    for a, attr in enumerate(data.schema.attributes):
        col = data.columns[a]
        if attr.is_discrete:
            known = col >= 0
            tallies.append(np.bincount(col[known], weights=None if data.weights is None else data.weights[known],
                                       minlength=len(attr.values)))
        elif attr.is_continuous:
            known = col[~np.isnan(col)]
            # c4.5 stores unknown as a value of its own (-999), so it counts as one more value
            tallies.append(count_distinct(known) + (1 if len(known) < data.n else 0))
        else:
            tallies.append(None)
    return branch_bits_of(n, tallies)


def branch_bits_of(n: float, tallies: list[np.ndarray | int | None]) -> np.ndarray:
    """branch_bits from each attribute's tally over `n` cases (or their summed weight): a
    discrete one's weight per value, a continuous one's number of values (unknown counting
    as one), None for one that is neither."""
    out = np.zeros(len(tallies))
    for a, tally in enumerate(tallies):
        if isinstance(tally, np.ndarray):
            counts = tally.astype(float)
            counts = counts[counts > 0]
            out[a] = float(np.sum(counts / n * (math.log2(n) - libm.log2(counts))))
        elif tally is not None:
            out[a] = 1 + math.log2(tally) / 2 if tally > 1 else 0.0
    return out


def attribute_test_bits(bbits: np.ndarray) -> float:
    """Bits to code which attribute a condition tests (entropy of BranchBits shares)."""
    total = bbits.sum()
    if total <= 0:
        return 0.0
    p = bbits[bbits > 0] / total
    return float(-np.sum(p * libm.log2(p)))


def rule_bits(conditions: tuple[CondTest, ...], bbits: np.ndarray, att_bits: float, n_values: list[int],
              redundancy: float) -> float:
    """Bits to code a rule's conditions, credited for their order (spec 7.6.2)."""
    total = 0.0
    for c in conditions:
        total += att_bits / redundancy + (n_values[c.attribute] if c.kind == SUBSET else bbits[c.attribute])
    m = len(conditions)
    return total + log2_or_zero(m) - log_fact(m)


def log2_or_zero(x: float) -> float:
    """log2(x), and 0 for x <= 0 (c4.5rules' Log of an empty count)."""
    return math.log2(x) if x > 0 else 0.0


def log_fact(n: int) -> float:
    """log2(n!)."""
    return math.lgamma(n + 1) / math.log(2) if n > 1 else 0.0


class ExceptionCoder:
    """ExceptionBits(F, fp, fn) over n training cases (biased ML'95 form, spec 7.6.3).

    Every argument of a log is a whole or half count (the expected count on one side is
    the mean (fp + fn) / 2), so log2 is read from a table of log2(j / 2), j = 0..2n:
    the subset search evaluates it for every rule at every step.
    """

    def __init__(self, n: int):
        self.n = n
        # in place: the tables are 24 MB at 1M cases, their temporaries were twice that
        self.log2_half = lg = np.arange(2 * n + 1, dtype=np.float64)
        np.divide(lg, 2, out=lg)
        libm.log2(lg, out=lg)
        lg[0] = 0.0
        self.total_log2 = np.arange(n + 1, dtype=np.float64)        # t * log2(t), the first term of B
        np.multiply(self.total_log2, lg[0::2], out=self.total_log2)
        self.log2_n = log2_or_zero(n)

    _COUNT = np.int64       # the type of the counts `bits` takes

    def _lg(self, twice: np.ndarray | int) -> np.ndarray | float:
        """log2(twice / 2), 0 at 0 (whole or half counts: read from the table)."""
        return self.log2_half[twice]

    def _b(self, total: np.ndarray, e: np.ndarray, twice_x: np.ndarray) -> np.ndarray:
        """B(total, e, x) with x = twice_x / 2: bits for e exceptions among total cases."""
        lg = self._lg
        t2 = 2 * total
        val = total * lg(t2) - e * lg(twice_x) - (total - e) * lg(t2 - twice_x)
        # spec 7.6.3: x ~ 0 or x ~ total are free only when e agrees, else "infinite"
        val = np.where(twice_x == 0, np.where(e == 0, 0.0, 1e6), val)
        return np.where((twice_x == t2) & (twice_x > 0), np.where(e == total, 0.0, 1e6), val)

    def bits(self, fires: ArrayLike, fp: ArrayLike, fn: ArrayLike) -> np.ndarray:
        """ExceptionBits for arrays (or scalars) of whole counts."""
        if np.ndim(fires) == 0 and np.ndim(fp) == 0 and np.ndim(fn) == 0:
            return self.bits_one(*(self._COUNT(v).item() for v in (fires, fp, fn)))
        fires = np.asarray(fires, dtype=self._COUNT)
        fp = np.asarray(fp, dtype=self._COUNT)
        fn = np.asarray(fn, dtype=self._COUNT)
        big = 2 * fires > self.n
        mean2 = fp + fn
        covered = self._b(fires, fp, np.where(big, mean2, 2 * fp))
        rest = self._b(self.n - fires, fn, np.where(big, 2 * fn, mean2))
        return self.log2_n + covered + rest

    def subset_bits(self, fires: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
        """`bits` for int arrays of counts that some subset of the cases has (fp <= fires, fn <= n - fires).

        There B's guards never apply: its x is 0 only when e is 0 and is total only when e
        is total, and the formula itself gives exactly 0 then; the subset search calls this
        at every step, where the guards' passes cost more than the formula.
        """
        lg, tlg = self.log2_half, self.total_log2
        big = fires > self.n // 2
        mean2 = fp + fn
        twice_x = np.where(big, mean2, 2 * fp)
        covered = tlg[fires] - fp * lg[twice_x] - (fires - fp) * lg[2 * fires - twice_x]
        rest_n = self.n - fires
        twice_x = np.where(big, 2 * fn, mean2)
        rest = tlg[rest_n] - fn * lg[twice_x] - (rest_n - fn) * lg[2 * rest_n - twice_x]
        return self.log2_n + covered + rest

    def bits_one(self, fires: int, fp: int, fn: int) -> float:
        """The same for one subset, in plain floats (the search costs its current subset often)."""
        lg = self.log2_half if type(self) is ExceptionCoder else _Lookup(self._lg)

        def b(total: int, e: int, twice_x: int) -> float:
            if twice_x == 0:
                return 0.0 if e == 0 else 1e6
            if twice_x == 2 * total:
                return 0.0 if e == total else 1e6
            return total * lg[2 * total] - e * lg[twice_x] - (total - e) * lg[2 * total - twice_x]

        big = 2 * fires > self.n
        mean2 = fp + fn
        return float(self.log2_n + b(fires, fp, mean2 if big else 2 * fp)
                     + b(self.n - fires, fn, 2 * fn if big else mean2))


class _Lookup:
    """A function read as a table (lg[j]), for bits_one's formula."""

    def __init__(self, f: Callable[[float], float]):
        self.f = f

    def __getitem__(self, j: float) -> float:
        return self.f(j)


class WeightedExceptionCoder(ExceptionCoder):
    """ExceptionBits over cases of summed weight `total` (counts are sums of weights).

    The same formula; log2 is computed for each count instead of read from a table, with the
    same C library log2 on the same doubles, so whole counts give the table's values exactly
    (integer weights cost what the repeated cases cost).
    """

    _COUNT = np.float64

    def __init__(self, total: float):
        self.n = float(total)
        self.log2_n = log2_or_zero(self.n)

    def _lg(self, twice: np.ndarray | float) -> np.ndarray | float:
        half = np.asarray(twice, dtype=np.float64) / 2
        # an empty (or, by rounding, slightly negative) count: 0, as the table's lg[0]
        out = libm.log2(np.where(half > 0, half, 1.0))
        return out.reshape(half.shape) if half.ndim else float(out[0])

    def subset_bits(self, fires: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
        """`bits` (no table to read unguarded here)."""
        return self.bits(fires, fp, fn)


def exception_bits(n: int, fires: ArrayLike, fp: ArrayLike, fn: ArrayLike) -> np.ndarray:
    """ExceptionBits(F, fp, fn) over n training cases (spec 7.6.3)."""
    return ExceptionCoder(n).bits(fires, fp, fn)
