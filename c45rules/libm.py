"""log, exp and log2 of arrays as the C library computes them: the same on every CPU.

numpy picks its vectorised log, exp and log2 by CPU, and on an AVX-512 machine they differ
from the C library's in the last bit for some arguments; c4.5 calls the C library, and a
tie between gains or rule costs can turn on that bit. The compiled `_libm` loops over the C
functions; without it, Python's math module (which calls the same functions) does it.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

try:
    from . import _libm as _native
except ImportError:     # pragma: no cover - depends on the install
    _native = None


def _log(v: float) -> float:
    if v > 0:
        return math.log(v)
    return -math.inf if v == 0 else math.nan


def _log2(v: float) -> float:
    if v > 0:
        return math.log2(v)
    return -math.inf if v == 0 else math.nan


def _exp(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


_PYTHON = {"log": _log, "log2": _log2, "exp": _exp}


def _apply(name: str, x, native: bool | None, out: np.ndarray | None) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float64)
    if out is None:
        out = np.empty_like(x)
    elif out.shape != x.shape or out.dtype != np.float64 or not out.flags.c_contiguous:
        raise ValueError("out must be a contiguous float64 array shaped like x")
    if (_native is not None) if native is None else native:
        getattr(_native, name)(x.reshape(-1), out.reshape(-1))
    else:
        f = _PYTHON[name]
        out.reshape(-1)[:] = [f(v) for v in x.reshape(-1).tolist()]
    return out


def log(x: ArrayLike, native: bool | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Natural log of each element, float64 (-inf at 0, nan below) (into `out` when given, which may be x itself)."""
    return _apply("log", x, native, out)


def log2(x: ArrayLike, native: bool | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Base-2 log of each element, float64 (-inf at 0, nan below) (into `out` when given, which may be x itself)."""
    return _apply("log2", x, native, out)


def exp(x: ArrayLike, native: bool | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """e to the power of each element, float64 (into `out` when given, which may be x itself)."""
    return _apply("exp", x, native, out)
