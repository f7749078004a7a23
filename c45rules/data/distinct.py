"""Distinct values of an array: codes numbered by first appearance, and counts of distinct values.

Hashing is O(n) where numpy sorts (O(n log n)): small arrays are sorted with numpy, large
ones hashed, numbers by the compiled _distinct (64-bit keys) and texts by pandas. Importing
pandas costs 0.3 s and some 80 MB resident (issue 33), so a C4.5 file is read and learnt
from without it when _distinct is built. Every way gives the same codes
(tests/data/test_distinct.py).
"""
from __future__ import annotations

import numpy as np

from .._lazy import LazyModule

pd = LazyModule("pandas")

try:
    from . import _distinct as _native
except ImportError:     # pragma: no cover - depends on the install
    _native = None

# numpy's sort is 4-10x slower than hashing (3-10 ms for 60,000 values against
# 1-2 ms), so it pays only while the calls are few and small: below this many values, or when
# the caller says so (a file small enough that importing pandas would cost more than it saves)
HASH_FROM = 50_000


def factorize(values: np.ndarray, hashed: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(codes, distinct values) with codes 0, 1, ... in order of first appearance.

    `values` is a 1-D array of numbers or of texts (object); None/NaN count as a value of their
    own. `hashed`: hash (True) or sort with numpy (False); None decides by the size.
    """
    if hashed if hashed is not None else len(values) >= HASH_FROM:
        keys = _keys(values)
        if keys is not None:
            codes = np.empty(len(values), dtype=np.int64)
            _native.factorize(keys, codes)
            return codes.astype(np.intp, copy=False), values[first_positions(codes)]
        codes, uniques = pd.factorize(values, use_na_sentinel=False)
        return codes, np.asarray(uniques, dtype=values.dtype)
    if values.dtype == object:
        # hashing by a dict, as pandas hashes objects (1 == 1.0, every missing value one value)
        seen: dict = {}
        codes = np.fromiter((seen.setdefault(_NAN if is_missing(v) else v, len(seen)) for v in values),
                            dtype=np.intp, count=len(values))
        return codes, values[first_positions(codes)]
    _, first, inverse = np.unique(values, return_index=True, return_inverse=True, equal_nan=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[inverse.reshape(-1)].astype(np.intp), values[first[order]]


def hash_codes(values: np.ndarray) -> np.ndarray | None:
    """factorize's codes of 1-D numbers by hashing (no distinct values made), or None when
    _distinct is not built or the values are not 64-bit numbers."""
    keys = _keys(values)
    if keys is None:
        return None
    codes = np.empty(len(values), dtype=np.int64)
    _native.factorize(keys, codes)
    return codes


def _keys(values: np.ndarray) -> np.ndarray | None:
    """`values` as 64-bit keys equal exactly where the values are (-0.0 as 0.0, every NaN one
    key, as pandas hashes them), or None when _distinct is not built or they are not numbers."""
    if _native is None or values.ndim != 1 or values.dtype.kind not in "uif" or values.dtype.itemsize != 8:
        return None
    if values.dtype.kind == "f":
        values = values + 0.0   # -0.0 + 0.0 is 0.0
        values[np.isnan(values)] = np.nan
    return np.ascontiguousarray(values).view(np.uint64)


def first_positions(codes: np.ndarray) -> np.ndarray:
    """Position of the first occurrence of each code (codes numbered by first appearance)."""
    return np.flatnonzero(np.diff(np.maximum.accumulate(codes), prepend=-1) > 0)


def is_missing(v: object) -> bool:
    """None, NaN, pandas' NA or NaT: a value not equal to itself, or one that cannot say."""
    if v is None:
        return True
    try:
        return bool(v != v)
    except (TypeError, ValueError):   # pd.NA's comparisons are NA, which has no truth value
        return True


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """np.unique(values) for 1-D numbers without NaN, by the same sort and mask, without numpy.ma:
    np.unique asks np.ma.is_masked, whose import costs every command 1.2 MB and 10 ms."""
    ordered = np.sort(values)
    new = np.empty(len(ordered), dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    return ordered[new]


def count_distinct(values: np.ndarray) -> int:
    """How many distinct values `values` (1-D numbers, no NaN) holds."""
    if len(values) >= HASH_FROM:
        keys = _keys(values)
        if keys is not None:
            return int(_native.factorize(keys, np.empty(len(values), dtype=np.int64)))
        return len(pd.unique(values))
    return len(sorted_distinct(values))


_NAN = object()   # the one key of every missing value
