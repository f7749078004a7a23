"""Evaluating candidate tests at a node: information, gain, split information (spec 2.2-2.5).

Pure functions over weight tables. `info(x)` is total weight times entropy, in bits:
I(x_1..x_m) = S log2 S - sum x_i log2 x_i, the quantity c4.5 calls TotalInfo.

Precision (spec 11.11). c4.5 holds case weights, frequency tables, gains and split
information in single precision (C `float`), while `Log(x)` and the products
`x * Log(x)` are double; every assignment to a float variable rounds. Exactly tied
candidates (two attributes inducing the same partition, a perfect split where gain equals
split information) are then decided by that rounding: e.g. TotalInfo(0, 5, 3) and
TotalInfo(0, 3, 5) differ in the last bit because the running sum is rounded to float
after each term. So these functions reproduce the C expression order literally: inputs
and outputs are float32, and each step rounds where the C code assigns to a float.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .. import libm

EPSILON = 1e-3
GAP = 1e-5            # two sorted values must differ by more than this to cut between them
MANY_VALUES = 0.3     # a discrete attribute with >= 0.3 N values is left out of the average gain
_LN2 = 0.69314718055994530942
F32 = np.float32
NO_GAIN = F32(-EPSILON)   # c4.5 stores -Epsilon in a float


def log2_c(x: ArrayLike) -> np.ndarray:
    """c4.5's `Log(x)`: log of the float argument, in double (the C library's); 0 for x <= 0."""
    x = np.asarray(x, dtype=np.float32).astype(np.float64)
    out = np.zeros_like(x)
    pos = x > 0
    out[pos] = libm.log(x[pos]) / _LN2
    return out


def info(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Total weight times entropy along `axis` (c4.5 TotalInfo), in c4.5's precision.

    The running sum of x log x is a float updated with a double term; the total weight
    is a float sum; the result is computed in double and returned as float. Integer
    counts (unit weights) take each x log x from a table, the same doubles without a log.
    """
    x = np.asarray(x)
    total = x.sum(axis=axis) if x.dtype.kind in "iu" else None
    if total is not None and (total.size == 0 or int(total.max()) < _EXACT):
        # the float sums of these integers are exact, so equal to the integer sums
        table = _xlogx_table(int(total.max()) if total.size else 0)
        s = np.zeros(total.shape, dtype=np.float32)
        for k in range(x.shape[axis]):                # the float running sum, term by term
            s = (s + table[np.take(x, k, axis=axis)]).astype(np.float32)
        return (table[total] - s.astype(np.float64)).astype(np.float32)
    x = np.moveaxis(x.astype(np.float32), axis, -1)
    terms = x.astype(np.float64) * log2_c(x)          # every x log x at once, in double
    s = np.zeros(x.shape[:-1], dtype=np.float32)
    for k in range(x.shape[-1]):
        s = (s + terms[..., k]).astype(np.float32)
    total = seq_sum(x, axis=-1)
    return (total.astype(np.float64) * log2_c(total) - s.astype(np.float64)).astype(np.float32)


_EXACT = 1 << 24          # integers below this are exact in single precision
_XLOGX = np.zeros(1)


def _xlogx_table(top: int) -> np.ndarray:
    """k * Log(k) in double for k = 0..>=top, computed exactly as log2_c's callers do."""
    global _XLOGX
    if len(_XLOGX) <= top:
        k = np.arange(max(top + 1, 2 * len(_XLOGX)), dtype=np.float32)
        _XLOGX = k.astype(np.float64) * log2_c(k)
    return _XLOGX


_LOG2 = np.zeros(1)


def log2_table(top: int) -> np.ndarray:
    """Log(k) in double for k = 0..>=top, as threshold_cost computes it for k tries."""
    global _LOG2
    if len(_LOG2) <= top:
        _LOG2 = log2_c(np.arange(max(top + 1, 2 * len(_LOG2)), dtype=np.float32))
    return _LOG2


def forget_tables() -> None:
    """Let go of the k log k and log k tables: sized to the data grown on (16 MB at 1M cases),
    they would otherwise stay for the life of the process, under the rules stage too."""
    global _XLOGX, _LOG2
    _XLOGX, _LOG2 = np.zeros(1), np.zeros(1)


def seq_sum(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Float sum accumulated left to right, as a C loop `Sum += x[i]` does."""
    x = np.asarray(x, dtype=np.float32)
    if x.shape[axis] == 0:
        return np.zeros(np.delete(x.shape, axis), dtype=np.float32)
    # np.add.accumulate, not np.cumsum(dtype=...): the same sums, but np.cumsum with a dtype
    # keeps small blocks in Python's arenas (numpy 2.4; hundreds over a large tree's pruning),
    # each holding a 1 MB arena of the pruning's freed nodes: 60 MB resident after the tree
    return np.take(np.add.accumulate(x, axis=axis), -1, axis=axis)


def _gain(base, unknown_rate, this_info, known) -> np.ndarray:
    """ComputeGain's final line: (1 - UnknFrac) * (BaseInfo - ThisInfo / TotalItems), in float."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (F32(1) - unknown_rate) * (base - this_info / known)


def discrete_gains(tables: np.ndarray, cases: float, min_objs: float,
                   count_items: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Gain and split information of one-branch-per-value tests (spec 2.2).

    `tables[a, v, c]` = weight with value v (v = 0: unknown) and class c for each attribute
    (zero padding beyond an attribute's values is harmless). `count_items` is the node's
    total weight as summed when the table was made (defaults to `cases`). Unusable
    attributes get gain -EPSILON (as float32).
    """
    t = np.asarray(tables, dtype=np.float32)
    cases = F32(cases)
    count = cases if count_items is None else F32(count_items)
    val_freq = seq_sum(t, axis=2)                              # (A, V), classes summed in order
    unknown = val_freq[:, 0]
    known = cases - unknown
    with np.errstate(divide="ignore", invalid="ignore"):
        unknown_rate = unknown / count
        class_count = seq_sum(np.moveaxis(t[:, 1:, :], 1, 2), axis=2)   # (A, C) over values
        # DiscrKnownBaseInfo accumulates its sum in double
        s = np.zeros(t.shape[0])
        for c in range(t.shape[2]):
            s = s + class_count[:, c].astype(np.float64) * log2_c(class_count[:, c])
        base = ((known.astype(np.float64) * log2_c(known) - s) / known.astype(np.float64)).astype(np.float32)
        this_info = seq_sum(info(t[:, 1:, :]), axis=1)
        gain = _gain(base, unknown_rate, this_info, known)
        split = info(val_freq) / cases
    reasonable = (val_freq[:, 1:] >= min_objs).sum(axis=1) >= 2
    usable = (known != 0) & (cases > unknown) & reasonable
    return (np.where(usable, gain, NO_GAIN).astype(np.float32),
            np.where(usable, split, F32(0)).astype(np.float32))


def best_cuts(values: np.ndarray, weights: np.ndarray, classes: np.ndarray, n_classes: int,
              cases: float, min_objs: float, *, unusable: bool = False
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best binary cut of each continuous attribute by penalised gain (spec 2.3).

    Columns of `values` are sorted ascending with unknowns (NaN) last; `weights` (float32)
    and `classes` are in the same order. Returns per column (penalised gain or -EPSILON,
    split information, row index i of the chosen cut between sorted rows i and i+1, or -1),
    gains and split information as float32. `unusable`: also the best cut whose penalised gain
    is not above 0, which c4.5 does not use (tree/explain.py shows it).
    """
    n, k = values.shape
    cases = F32(cases)
    weights = np.asarray(weights, dtype=np.float32)
    known_mask = ~np.isnan(values)
    # with every weight 1 (no unknowns met above this node) all sums are exact integers,
    # so class counts are needed only at candidate rows and in any order; otherwise the
    # float running sums are replayed in c4.5's order over a one-hot table
    unit = bool(n) and bool((weights == 1).all())
    if unit:
        known = known_mask.sum(axis=0).astype(np.float32)
        unknown = cases - known
        low = np.add.accumulate(known_mask, axis=0, dtype=np.float32)
        ki, kj = np.nonzero(known_mask)
        total_c = np.bincount(kj * n_classes + classes[ki, kj],
                              minlength=k * n_classes).reshape(k, n_classes).astype(np.float32)
    else:
        onehot = np.zeros((n, k, n_classes), dtype=np.float32)
        np.put_along_axis(onehot, classes[:, :, None], weights[:, :, None], axis=2)
        known_oh = np.where(known_mask[:, :, None], onehot, F32(0))
        unknown_oh = np.where(known_mask[:, :, None], F32(0), onehot)
        # unknowns: per-class float sums, then ValFreq[0] summed over the classes in order
        unknown = seq_sum(seq_sum(unknown_oh, axis=0) if n else np.zeros((k, n_classes), np.float32), axis=1)
        known = cases - unknown
        low = np.add.accumulate(np.where(known_mask, weights, F32(0)), axis=0, dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        unknown_rate = (1.0 - (known / cases).astype(np.float64)).astype(np.float32)
        if not unit:
            low_c = np.add.accumulate(known_oh, axis=0, dtype=np.float32)         # Freq[1] after row i
            total_c = low_c[-1] if n else np.zeros((k, n_classes), np.float32)
            # Freq[2] is the known total with each row's weight subtracted in turn
            high_c = np.subtract.accumulate(np.concatenate([total_c[None], known_oh]), axis=0,
                                            dtype=np.float32)[1:]
        base = info(total_c) / known
        min_split = min_split_weight(known, n_classes, min_objs)
        # values are floats in c4.5; the 1e-5 gap test is done in double on them
        v32 = values.astype(np.float32).astype(np.float64)
        nxt = np.empty_like(v32)
        nxt[:-1] = v32[1:]
        nxt[-1:] = np.nan
        gap = v32 < nxt - GAP                                # False when either side is unknown
        high = known[None, :] - low
        # the scan stops at the first row whose low weight exceeds K - MinSplit
        cand = gap & (low >= min_split[None, :]) & (low <= (known - min_split)[None, :])
        reasonable = (low >= min_objs) & (high >= min_objs) & (known[None, :] != 0)
        # information only where a cut is possible: usually a small share of the rows
        rows, cols_ = np.nonzero(cand)
        if unit:
            low_sel = _counts_at(classes, known_mask, rows, cols_, k, n_classes)
            high_sel = total_c[cols_] - low_sel
        else:
            low_sel, high_sel = low_c[rows, cols_], high_c[rows, cols_]
        this_info = info(low_sel) + info(high_sel)
        gain = _gain(base[cols_], unknown_rate[cols_], this_info, known[cols_])
        gain = np.where(reasonable[rows, cols_], gain, NO_GAIN)
        thresh_cost = threshold_cost(np.where(cand, 1, 0).sum(axis=0), cases)
        val = np.full((n, k), NO_GAIN, dtype=np.float32)
        val[rows, cols_] = gain
        val = val - thresh_cost[None, :]
    enough = known >= 2 * min_objs
    cols = np.arange(k)
    best = np.argmax(val, axis=0) if n else np.zeros(k, dtype=int)
    best_val = val[best, cols] if n else np.full(k, F32(-1))
    ok = enough & (best_val > 0)
    if unusable and n:
        ok = enough & (cand & reasonable).any(axis=0)
    lo = low[best, cols] if n else np.zeros(k, np.float32)
    split = info(np.stack([unknown, lo, known - lo], axis=1)) / cases
    return (np.where(ok, best_val, NO_GAIN).astype(np.float32),
            np.where(ok, split, F32(0)).astype(np.float32), np.where(ok, best, -1))


def min_split_weight(known: np.ndarray, n_classes: int, min_objs: float) -> np.ndarray:
    """Least weight on each side of a cut: 10% of the known weight per class, within [MinObjs, 25]."""
    m = (0.10 * np.asarray(known).astype(np.float64) / n_classes).astype(np.float32)
    return np.where(m <= min_objs, F32(min_objs), np.where(m > 25, F32(25), m))


def threshold_cost(tries: np.ndarray, cases: np.ndarray) -> np.ndarray:
    """Gain penalty for choosing among `tries` possible cuts: Log(tries) / cases, as a float."""
    return (log2_c(np.asarray(tries).astype(np.float32)) / np.asarray(cases).astype(np.float64)).astype(np.float32)


def _counts_at(classes: np.ndarray, known_mask: np.ndarray, rows: np.ndarray, cols: np.ndarray,
               k: int, n_classes: int) -> np.ndarray:
    """Class counts of the sorted rows 0..r of column c for each (r, c) pair, unit weights.

    Each known case goes to the first candidate row at or after it in its own column;
    counts are then cumulated within each column, all columns at once.
    """
    n = known_mask.shape[0]
    order = np.lexsort((rows, cols))                  # candidates by column, then row
    keys = cols[order].astype(np.int64) * n + rows[order]
    ki, kj = np.nonzero(known_mask)
    seg = np.searchsorted(keys, kj.astype(np.int64) * n + ki, side="left")
    inside = seg < len(keys)
    inside[inside] = cols[order][seg[inside]] == kj[inside]
    counts = np.bincount(seg[inside] * n_classes + classes[ki[inside], kj[inside]],
                         minlength=len(keys) * n_classes).reshape(len(keys), n_classes)
    cum = np.cumsum(counts, axis=0)
    # restart the running count at each column's first candidate
    first = np.r_[True, cols[order][1:] != cols[order][:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(keys)), 0))
    base = np.where((start > 0)[:, None], cum[start - 1], 0)
    out = np.empty((len(rows), n_classes), dtype=np.float32)
    out[order] = cum - base
    return out


def worth(gain: np.ndarray, split: np.ndarray, average_gain: float, gain_ratio: bool) -> np.ndarray:
    """c4.5 Worth: gain ratio behind the average-gain filter, or plain gain (spec 2.5).

    Inputs are float32; the comparisons with `MinGain - Epsilon` and `Epsilon` are made
    in double as in C, the ratio is a float.
    """
    gain = np.asarray(gain, dtype=np.float32)
    split = np.asarray(split, dtype=np.float32)
    if gain_ratio:
        with np.errstate(divide="ignore", invalid="ignore"):
            # average_gain may be one value per row of `gain` (nodes evaluated together)
            avg = np.asarray(average_gain, dtype=np.float32).astype(np.float64)
            ok = ((gain.astype(np.float64) >= avg - EPSILON)
                  & (split.astype(np.float64) > EPSILON))
            return np.where(ok, gain / np.where(ok, split, F32(1)), NO_GAIN).astype(np.float32)
    return np.where((split > 0) & (gain.astype(np.float64) > -EPSILON), gain, NO_GAIN).astype(np.float32)
