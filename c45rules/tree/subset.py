"""Subset tests for discrete attributes (c4.5 -s, spec 2.4).

The values of a many-valued discrete attribute are grouped into blocks by greedy
pairwise merging under gain ratio; each block becomes one branch. Arithmetic is in
c4.5's single precision (see split.py), so that its ties and its `+ 1e-5` stopping rule
behave as in the reference. The search runs in the compiled `_subset` when it is built
(the same roundings; numpy took most of a `-s` run, issue 32), else in numpy here.
"""
from __future__ import annotations

import numpy as np

from .split import EPSILON, F32, _gain, info, log2_c, seq_sum, worth

try:
    from . import _subset as _native
except ImportError:     # built only where a C compiler was there: numpy does the same search
    _native = None

_PURE_SLACK = 0.1      # a block is "of one class" if all but 0.1 of its weight is
_PRESENT = 0.5         # values with at most this weight at the node are "missing"
_MIN_IMPROVEMENT = 1e-5


class _Evaluator:
    """Gain and split information of a block arrangement (ComputeGain / TotalInfo)."""

    def __init__(self, table: np.ndarray, cases: np.float32, gain_ratio: bool):
        t = np.asarray(table, dtype=np.float32)
        self.cases = F32(cases)
        self.unknown = seq_sum(t[0])
        self.known = self.cases - self.unknown
        self.unknown_rate = self.unknown / self.cases
        class_count = seq_sum(t[1:].T, axis=1)
        s = 0.0
        for c in range(t.shape[1]):
            s += float(class_count[c]) * float(log2_c(class_count[c]))
        k = float(self.known)
        self.base = F32((k * float(log2_c(self.known)) - s) / k) if k else F32(0)
        self.gain_ratio = gain_ratio

    def gain(self, freq: list[np.ndarray], min_objs: float) -> np.float32:
        val_freq = [seq_sum(f) for f in freq]
        if not self.known or sum(v >= min_objs for v in val_freq) < 2:
            return F32(-EPSILON)
        this_info = F32(0)
        for f in freq:
            this_info = this_info + info(f)
        return F32(_gain(self.base, self.unknown_rate, this_info, self.known))

    def split(self, freq: list[np.ndarray]) -> np.float32:
        val_freq = np.array([self.unknown] + [seq_sum(f) for f in freq], dtype=np.float32)
        return F32(info(val_freq) / self.cases)

    def worth(self, freq: list[np.ndarray], gain: np.float32) -> np.float32:
        # the average-gain requirement is disabled: MinGain = Epsilon
        return F32(worth(np.array([gain]), np.array([self.split(freq)]), EPSILON, self.gain_ratio)[0])


def subset_test(table: np.ndarray, cases: float, min_objs: float, gain_ratio: bool
                ) -> tuple[np.float32, np.float32, tuple[frozenset[int], ...]] | None:
    """Evaluate a subset test on one attribute at a node (c4.5 EvalSubset, spec 2.4).

    `table[v, c]`: weight with value v (0 = unknown, 1..k) and class c. Returns
    (gain, split information, subsets) with float32 gain/split and `subsets` a tuple of
    frozensets of 0-based value codes, one per branch, the values absent at the node
    forming an extra last branch; or None when the attribute is unusable.
    """
    if _native is None:
        return _subset_test_numpy(table, cases, min_objs, gain_ratio)
    t = np.ascontiguousarray(table, dtype=np.float32)
    res = _native.subset_test(t, t.shape[0] - 1, t.shape[1], float(F32(cases)), float(min_objs), bool(gain_ratio))
    if res is None:
        return None
    gain, split, blocks = res
    return F32(gain), F32(split), tuple(frozenset(b) for b in blocks)


def _subset_test_numpy(table, cases, min_objs: float, gain_ratio: bool
                       ) -> tuple[np.float32, np.float32, tuple[frozenset[int], ...]] | None:
    """subset_test in numpy: the reference the compiled search is checked against."""
    t = np.asarray(table, dtype=np.float32)
    ev = _Evaluator(t, cases, gain_ratio)
    if float(ev.known) < EPSILON:
        return None
    freq: list[np.ndarray] = []
    blocks: list[set[int]] = []
    missing: set[int] = set()
    for v in range(1, t.shape[0]):
        if seq_sum(t[v]) > _PRESENT:
            freq.append(t[v].copy())
            blocks.append({v - 1})
        else:
            missing.add(v - 1)
    prev_gain = ev.gain(freq, 1)
    prev_val = ev.worth(freq, prev_gain)

    # single-class blocks join the other single-class blocks of the same class
    merged = False
    i = 0
    while i < len(freq) - 1:
        c = int(np.argmax(freq[i].astype(np.float64) >= _PURE_SLACK))
        if float(freq[i][c]) >= float(seq_sum(freq[i])) - _PURE_SLACK:
            j = i + 1
            while j < len(freq):
                if float(freq[j][c]) < float(seq_sum(freq[j])) - _PURE_SLACK:
                    j += 1
                else:
                    _combine(freq, blocks, i, j)
                    merged = True
        i += 1
    if merged:
        prev_gain = ev.gain(freq, 1)
        prev_val = ev.worth(freq, prev_gain)

    min_gain = prev_gain / F32(2)
    while len(freq) > 2:
        weights = [seq_sum(f) for f in freq]
        reasonable = sum(wt >= min_objs for wt in weights)
        # with fewer than 3 reasonable blocks the heaviest (first on ties) may not merge
        barred = -1 if reasonable >= 3 else max(range(len(freq)), key=lambda b: (weights[b], -b))
        best = None
        best_val, best_gain = F32(0), F32(-EPSILON)
        for a in range(len(freq) - 1):
            for b in range(a + 1, len(freq)):
                if barred in (a, b):
                    continue
                trial = _combined(freq, a, b)
                g = ev.gain(trial, 1)
                val = ev.worth(trial, g)
                if ((g >= min_gain and best_gain < min_gain) or val >= best_val
                        or (best is None and (not gain_ratio or reasonable < 2))):
                    best, best_val, best_gain = (a, b), val, g
        if gain_ratio and reasonable >= 2 and (
                best is None or float(best_val) < float(prev_val) + _MIN_IMPROVEMENT
                or (best_val == prev_val and best_gain < prev_gain)):
            break
        prev_gain, prev_val = best_gain, best_val
        _combine(freq, blocks, *best)

    if prev_val <= 0:
        return None
    gain = ev.gain(freq, min_objs)
    if gain <= F32(-EPSILON):
        return None
    split = ev.split(freq)
    subsets = [frozenset(b) for b in blocks]
    if missing:
        subsets.append(frozenset(missing))
    return gain, split, tuple(subsets)


def _combined(freq: list[np.ndarray], a: int, b: int) -> list[np.ndarray]:
    """Blocks with b merged into a and the last block moved into b's place (c4.5 Combine)."""
    out = list(freq)
    out[a] = freq[a] + freq[b]
    out[b] = freq[-1]
    out.pop()
    return out


def _combine(freq: list[np.ndarray], blocks: list[set[int]], a: int, b: int) -> None:
    merged = _combined(freq, a, b)
    freq[:] = merged
    blocks[a] = blocks[a] | blocks[b]
    blocks[b] = blocks[-1]
    blocks.pop()
