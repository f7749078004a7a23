"""Evaluating candidate tests at a node: information, gain, split information (spec 2.2-2.5).

Pure functions over weight tables. `info(x)` is total weight times entropy, in bits:
I(x_1..x_m) = S log2 S - sum x_i log2 x_i, the quantity c4.5 calls TotalInfo.
"""
from __future__ import annotations

import numpy as np

EPSILON = 1e-3
GAP = 1e-5            # two sorted values must differ by more than this to cut between them
MANY_VALUES = 0.3     # a discrete attribute with >= 0.3 N values is left out of the average gain


def xlogx(x: np.ndarray) -> np.ndarray:
    """x log2 x with 0 log 0 = 0 (c4.5's Log(x) is 0 for x <= 0)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    pos = x > 0
    out[pos] = x[pos] * np.log2(x[pos])
    return out


def info(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Total weight times entropy along `axis` (c4.5 TotalInfo)."""
    s = np.sum(x, axis=axis)
    return xlogx(s) - np.sum(xlogx(x), axis=axis)


def discrete_gains(tables: np.ndarray, cases: float, min_objs: float) -> tuple[np.ndarray, np.ndarray]:
    """Gain and split information of one-branch-per-value tests (spec 2.2).

    `tables[a, v, c]` = weight with value v (v = 0: unknown) and class c for each attribute.
    Unusable attributes get gain -EPSILON.
    """
    wv = tables.sum(axis=2)                       # (A, V)
    unknown = wv[:, 0]
    known_by_class = tables[:, 1:, :].sum(axis=1)  # (A, C)
    known = known_by_class.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        base = info(known_by_class) / known
        after = info(tables[:, 1:, :]).sum(axis=1) / known
        gain = (1.0 - unknown / cases) * (base - after)
        split = info(wv) / cases
    reasonable = (wv[:, 1:] >= min_objs).sum(axis=1) >= 2
    usable = (known > 0) & (cases > unknown) & reasonable
    return np.where(usable, gain, -EPSILON), np.where(usable, split, 0.0)


def best_cuts(values: np.ndarray, weights: np.ndarray, classes: np.ndarray, n_classes: int,
              cases: float, min_objs: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best binary cut of each continuous attribute by penalised gain (spec 2.3).

    Columns of `values` are sorted ascending with unknowns (NaN) last; `weights` and
    `classes` are in the same order, weights of unknowns are ignored. Returns per column
    (penalised gain or -EPSILON, split information, row index i of the chosen cut between
    sorted rows i and i+1, or -1).
    """
    n, k = values.shape
    known_mask = ~np.isnan(values)
    w = np.where(known_mask, weights, 0.0)
    known = w.sum(axis=0)                                   # K per column
    unknown = cases - known
    onehot = np.zeros((n, k, n_classes))
    np.put_along_axis(onehot, classes[:, :, None], w[:, :, None], axis=2)
    low_c = np.cumsum(onehot, axis=0)                       # (n, k, C)
    total_c = low_c[-1]
    high_c = total_c[None, :, :] - low_c
    low = np.cumsum(w, axis=0)
    high = known[None, :] - low
    min_split = np.clip(0.10 * known / n_classes, None, 25.0)
    min_split = np.where(min_split <= min_objs, min_objs, min_split)
    # c4.5 holds values in single precision: whether two neighbours differ by more
    # than GAP is decided on their float32 forms (it matters for data like 1.51793)
    v32 = values.astype(np.float32).astype(np.float64)
    nxt = np.empty_like(v32)
    nxt[:-1] = v32[1:]
    nxt[-1] = np.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = v32 < nxt - GAP                                # False when either side is unknown
        cand = gap & (low >= min_split[None, :]) & (low <= (known - min_split)[None, :])
        base = info(total_c) / known
        after = (info(low_c) + info(high_c)) / known[None, :]
        gain = (1.0 - unknown / cases)[None, :] * (base[None, :] - after)
        tries = cand.sum(axis=0)
        penalty = np.where(tries > 0, np.log2(np.maximum(tries, 1)), 0.0) / cases
        val = np.where(cand, gain, -EPSILON) - penalty[None, :]
    enough = known >= 2 * min_objs
    best = np.argmax(val, axis=0) if n else np.zeros(k, dtype=int)
    best_val = val[best, np.arange(k)] if n else np.full(k, -1.0)
    ok = enough & (best_val > 0)
    w_un = np.maximum(unknown, 0.0)
    lo = low[best, np.arange(k)] if n else np.zeros(k)
    split = info(np.stack([w_un, lo, known - lo], axis=1)) / cases
    return (np.where(ok, best_val, -EPSILON), np.where(ok, split, 0.0), np.where(ok, best, -1))


def worth(gain: np.ndarray, split: np.ndarray, average_gain: float, gain_ratio: bool) -> np.ndarray:
    """c4.5 Worth: gain ratio behind the average-gain filter, or plain gain (spec 2.5)."""
    if gain_ratio:
        with np.errstate(divide="ignore", invalid="ignore"):
            ok = (gain >= average_gain - np.float32(EPSILON)) & (split > np.float32(EPSILON))
            return np.where(ok, gain / np.where(ok, split, np.float32(1.0)), np.float32(-EPSILON))
    return np.where((split > 0) & (gain > -EPSILON), gain, np.float32(-EPSILON))
