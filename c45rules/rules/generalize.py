"""Generalising each candidate rule by dropping conditions (c4.5rules PruneRule, spec 7.3-7.5).

Counts are unweighted, over all training cases, and a condition on an unknown value is
false. For a rule with conditions S only cases failing at most one condition of S matter
(those failing none are covered; those failing only d decide whether d is needed). Paths
of neighbouring leaves share prefixes, so that "pool" of cases is kept on a stack along
the current tree path and narrowed one condition at a time instead of rescanning every
case for every rule. After a deletion the tables are recounted with bit arrays (64 cases
per word) for all remaining conditions at once.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..data.schema import Dataset
from ..estimate import pessimistic_rate
from ..tree.node import Node
from .extract import CondTest, leaf_paths

F32 = np.float32


@dataclass
class CandidateRule:
    """A generalised rule before selection: conditions in c4.5's sorted order."""

    number: int
    conditions: tuple[CondTest, ...]
    klass: int
    error: float              # pessimistic error rate P0 (c4.5rules "Error")
    covered: int              # T0
    errors: int               # E0
    cover: np.ndarray = field(repr=False)   # indices of the training cases it covers


class _PathPools:
    """Condition truth arrays and <=1-fail pools along the current tree path."""

    def __init__(self, data: Dataset):
        self.data = data
        self.n = data.n
        self.tests: list[CondTest] = []
        self.truth: list[np.ndarray] = []
        self.coverage: list[int] = []
        self.pools: list[tuple[np.ndarray, np.ndarray]] = []   # (case indices, failed level or -1)
        self.packed: list[np.ndarray] = []      # truth arrays as bits, 64 cases per word
        self.words = (self.n + 63) // 64
        pad = np.zeros(self.words * 64, dtype=bool)
        pad[: self.n] = True
        self.valid = self.pack(pad[: self.n])
        self._wrong: dict[int, np.ndarray] = {}

    def pack(self, mask: np.ndarray) -> np.ndarray:
        """A boolean array over the cases as uint64 words (padding bits 0)."""
        out = np.zeros(self.words * 8, dtype=np.uint8)
        b = np.packbits(mask, bitorder="little")
        out[: len(b)] = b
        return out.view(np.uint64)

    def unpack(self, words: np.ndarray) -> np.ndarray:
        """Indices of the cases whose bit is set."""
        return np.flatnonzero(np.unpackbits(words.view(np.uint8), count=self.n, bitorder="little"))

    def wrong_bits(self, y: np.ndarray, target: int) -> np.ndarray:
        """Cases not of class `target`, as bits (cached per class)."""
        if target not in self._wrong:
            self._wrong[target] = self.pack(y != target)
        return self._wrong[target]

    def tables(self, levels: list[int], wrong: np.ndarray):
        """T0/E0 and, per level, the extra cases/errors of those failing only it (bit counts).

        Every remaining condition at once: F = failures, A1 = failing any, A2 = failing
        two or more (OR of each row with the prefix OR of the rows before it).
        """
        fail = ~np.stack([self.packed[j] for j in levels]) & self.valid
        prefix = np.bitwise_or.accumulate(fail, axis=0)
        any_fail = prefix[-1]
        two = (np.bitwise_or.reduce(fail[1:] & prefix[:-1], axis=0) if len(levels) > 1
               else np.zeros_like(any_fail))
        none = ~any_fail & self.valid
        only = fail & ~two
        t0 = int(np.bitwise_count(none).sum())
        e0 = int(np.bitwise_count(none & wrong).sum())
        td = np.bitwise_count(only).sum(axis=1, dtype=np.int64)
        ed = np.bitwise_count(only & wrong).sum(axis=1, dtype=np.int64)
        return t0, e0, t0 + td, e0 + ed, none

    def follow(self, path: tuple[CondTest, ...]) -> None:
        keep = 0
        while keep < min(len(path), len(self.tests)) and path[keep] is self.tests[keep]:
            keep += 1
        del self.tests[keep:], self.truth[keep:], self.coverage[keep:], self.pools[keep:], self.packed[keep:]
        for t in path[keep:]:
            j = len(self.tests)
            sat = t.satisfied(self.data)
            if j == 0:
                cand = np.arange(self.n, dtype=np.int64)
                failed = np.where(sat, -1, 0).astype(np.int32)
            else:
                cand, failed = self.pools[-1]
                s = sat[cand]
                ok = (failed < 0) | s
                failed = np.where((failed < 0) & ~s, j, failed)[ok]
                cand = cand[ok]
            self.tests.append(t)
            self.truth.append(sat)
            self.coverage.append(int(sat.sum()))
            self.pools.append((cand, failed))
            self.packed.append(self.pack(sat))


def _before(t1: CondTest, t2: CondTest) -> bool:
    # c4.5rules' comparison for sorting kept conditions (not a strict order, spec 7.3)
    return (t1.attribute < t2.attribute or t1.kind < t2.kind
            or (t1.attribute == t2.attribute and t1.cut < t2.cut))


def sort_conditions(path: tuple[CondTest, ...] | list[CondTest], kept: list[int] | None = None) -> tuple[CondTest, ...]:
    """Order the kept conditions (positions `kept` of `path`) as c4.5rules prints them (7.3).

    A selection sort with swaps over the whole path, deleted positions skipped: each kept
    position takes the first "smallest" kept condition at or after it. The comparison
    is not a strict order, so the procedure decides the result when discrete and
    continuous tests mix; this one reproduces the reference best of the procedures tried:
    1230 of the 1241 rules c4.5rules printed on the shared datasets list their conditions
    in the same order (the other 11, in credit-g and synth_10k, in another order).
    """
    arr = list(path)
    live = [True] * len(arr) if kept is None else [j in set(kept) for j in range(len(arr))]
    for d in range(len(arr)):
        if not live[d]:
            continue
        best = d
        for i in range(d + 1, len(arr)):
            if live[i] and _before(arr[i], arr[best]):
                best = i
        arr[d], arr[best] = arr[best], arr[d]
        live[d], live[best] = live[best], live[d]
    return tuple(c for c, ok in zip(arr, live) if ok)


def fisher_tail(t11: int, t12: int, t21: int, t22: int) -> float:
    """One-sided Fisher exact test of a 2x2 table in c4.5rules' canonical orientation (7.4)."""
    if t11 + t12 > t21 + t22:
        A, B = t11 + t12, t21 + t22
        a0, r = (t11, t11 + t21) if t11 * (t21 + t22) > t21 * (t11 + t12) else (t12, t12 + t22)
    else:
        A, B = t21 + t22, t11 + t12
        a0, r = (t21, t21 + t11) if t21 * (t11 + t12) > t11 * (t21 + t22) else (t22, t22 + t12)
    lf = math.lgamma
    total = 0.0
    for a in range(a0, min(r, A) + 1):
        if r - a > B or r - a < 0:
            continue
        total += math.exp(lf(A + 1) + lf(B + 1) + lf(r + 1) + lf(A + B - r + 1)
                          - lf(a + 1) - lf(r - a + 1) - lf(A - a + 1) - lf(B - r + a + 1) - lf(A + B + 1))
    return total


def _generalise(pools: _PathPools, y: np.ndarray, target: int, default_error: F32, rates: "_Rates",
                fisher: float | None):
    """Drop conditions while the pessimistic error does not get worse; return the survivors."""
    levels = list(range(len(pools.tests)))
    m = len(levels)
    # first round from the path's pool of cases failing at most one condition
    cand, failed = pools.pools[-1]
    wrong = y[cand] != target
    total = np.bincount(failed + 1, minlength=m + 1)
    errs = np.bincount(failed + 1, weights=wrong, minlength=m + 1).astype(np.int64)
    t0, e0 = int(total[0]), int(errs[0])
    td, ed = t0 + total[1:], e0 + errs[1:]
    cover = None
    wrong_bits = pools.wrong_bits(y, target)
    while levels:
        actual, pess = rates(np.append(t0, td), np.append(e0, ed), default_error)
        a0, ad, p0, pd = actual[0], actual[1:], pess[0], pess[1:]
        # best = lowest pessimistic error, ties to the later condition
        best = len(levels) - 1 - int(np.argmin(pd[::-1]))
        drop = bool(np.any(pd <= p0) or np.any(ad <= a0))
        if fisher is not None and not drop:
            for k in range(len(levels)):
                sig = fisher_tail(e0, int(ed[k]) - e0, t0 - e0, int(td[k] - t0) - (int(ed[k]) - e0))
                if sig > fisher:
                    drop = True
                    break
        if not drop:
            covered = cand[failed < 0] if cover is None else pools.unpack(cover)
            return levels, t0, e0, float(p0), covered
        del levels[best]
        if levels:
            t0, e0, td, ed, cover = pools.tables(levels, wrong_bits)
    return levels, 0, 0, float(default_error), np.empty(0, dtype=np.int64)


class _Rates:
    """Actual and pessimistic error rates of (cases, errors) pairs, in single precision as
    c4.5rules keeps them; pairs recur across rules, so each is computed once."""

    def __init__(self, cf: float):
        self.cf = cf
        self.known: dict[tuple[int, int], tuple[F32, F32]] = {}

    def __call__(self, t: np.ndarray, e: np.ndarray, default_error: F32) -> tuple[np.ndarray, np.ndarray]:
        pairs = list(zip(t.tolist(), e.tolist()))
        new = sorted({p for p in pairs if p[0] > 0 and p not in self.known})
        if new:
            tt = np.array([p[0] for p in new], dtype=np.float64)
            ee = np.array([p[1] for p in new], dtype=np.float64)
            actual = (ee / tt).astype(F32)
            pess = pessimistic_rate(tt, ee, self.cf).astype(F32)
            self.known.update(zip(new, zip(actual, pess)))
        # a condition set no case satisfies: actual 0, pessimistic = the default error
        got = [self.known[p] if p[0] > 0 else (F32(0), default_error) for p in pairs]
        return (np.array([g[0] for g in got], dtype=F32), np.array([g[1] for g in got], dtype=F32))


def generalise_rules(tree: Node, data: Dataset, *, cf: float = 0.25,
                     fisher: float | None = None) -> list[CandidateRule]:
    """Extract, generalise and de-duplicate the rules of the unpruned tree (spec 7.2-7.5)."""
    y = data.y
    n = data.n
    class_n = np.bincount(y, minlength=len(data.schema.classes))
    pools = _PathPools(data)
    rates = _Rates(cf)
    rules: list[CandidateRule] = []
    index: dict[tuple, list[CandidateRule]] = {}
    for path, leaf in leaf_paths(tree):
        if not path:
            continue
        pools.follow(path)
        target = leaf.klass
        default_error = F32(1.0 - (class_n[target] + 1.0) / (n + 2.0))
        levels, t0, e0, p0, cover = _generalise(pools, y, target, default_error, rates, fisher)
        if not levels or t0 == 0 or F32(p0) >= default_error:
            continue   # no conditions left, covers nothing, or too inaccurate
        conds = sort_conditions(path, levels)
        key = (target, tuple((c.attribute, c.kind, c.cut if c.kind == 2 else 0.0,
                              c.outcome if c.kind == 1 else (c.node, c.outcome) if c.kind == 3 else 0)
                             for c in conds))
        # spec 7.5: a duplicate (direction of thresholds ignored) only raises the error
        dup = index.get(key)
        if dup:
            dup[0].error = max(dup[0].error, p0)
            continue
        rule = CandidateRule(len(rules) + 1, conds, target, p0, t0, e0, cover.astype(np.int64))
        rules.append(rule)
        index[key] = [rule]
    return rules
