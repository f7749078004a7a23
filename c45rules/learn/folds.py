"""Stratified folds: which fold each case is dealt to. Shared by cross-validation and tuning
(crossval.py) and winnowing (winnow.py), below both so that neither imports the other."""
from __future__ import annotations

import numpy as np

from ..errors import InputError


def stratified_folds(y: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """The fold (0..k-1) of every case: each class's cases, shuffled, dealt to the folds in turn,
    continuing where the previous class stopped, so folds differ by at most one case in size
    and in each class's count."""
    y = np.asarray(y)
    if k < 2:
        raise InputError(f"cross-validation needs at least 2 folds, got {k}")
    if len(y) < k:
        raise InputError(f"{k} folds need at least {k} cases, the data has {len(y)}")
    rng = np.random.default_rng(seed)
    fold = np.empty(len(y), dtype=np.int32)
    dealt = 0
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        rng.shuffle(idx)
        fold[idx] = (dealt + np.arange(len(idx))) % k
        dealt += len(idx)
    return fold
