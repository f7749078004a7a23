"""Misclassification costs (issue 34, point 4): C5.0's `.costs` file, the option's checked form,
the cost matrix, and the class of least expected cost.

A `.costs` file has one line per pair, `predicted class, true class: cost` (C5.0's format:
names escaped with a backslash as in a `.names` file, `|` starts a comment). A pair not listed
costs 1; a correct prediction costs 0 and cannot be given another cost. The option form is
a tuple of (predicted, true, cost) triples, sorted, holding only the pairs whose cost is not
1: all-1 costs are no costs at all, so that their model is today's, byte for byte.
"""
from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, shown
from .names import _read_text, _tokens
from .schema import Dataset

Costs = tuple[tuple[str, str, float], ...]


def _cost_value(v: Any, where: str) -> float:
    """`v` as a finite cost >= 0, or InputError starting with `where`."""
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            raise InputError(f"{where}: cost {v!r} is not a number") from None
    elif isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise InputError(f"{where}: cost {shown(v)} is not a number")
    v = float(v)
    if not math.isfinite(v):
        raise InputError(f"{where}: cost {v!r} is not a finite number")
    if v < 0:
        raise InputError(f"{where}: cost {v!r} is negative; costs must be >= 0")
    return v


def _checked_pair(pred: str, true: str, cost: float, where: str, seen: dict, first: str) -> None:
    if (pred, true) in seen:
        raise InputError(f"{where}: the cost of predicting {pred!r} when the class is {true!r} is given"
                         f" twice (first {first.format(seen[(pred, true)])})")
    if pred == true and cost != 0:
        raise InputError(f"{where}: predicting {pred!r} when the class is {true!r} is correct and costs 0;"
                         f" it cannot cost {cost:g}")


def read_costs(path: str | os.PathLike, classes: tuple[str, ...]) -> dict[tuple[str, str], float]:
    """{(predicted, true): cost} from a C5.0 `.costs` file, or InputError naming file and line."""
    path = Path(path)
    toks = list(_tokens(_read_text(path)))
    out: dict[tuple[str, str], float] = {}
    lines: dict[tuple[str, str], int] = {}
    for i in range(0, len(toks), 3):
        group = toks[i:i + 3]
        line = group[0][2]
        delims = tuple(d for _, d, _ in group)
        if len(group) < 3 or delims[:2] != (",", ":") or delims[2] in (",", ":") \
                or len({ln for _, _, ln in group}) > 1:
            raise InputError(f"{path}:{line}: expected 'predicted class, true class: cost',"
                             f" found {' '.join(t for t, _, _ in group)!r}")
        (pred, _, _), (true, _, _), (text, _, _) = group
        for name in (pred, true):
            if name not in classes:
                raise InputError(f"{path}:{line}: unknown class {name!r} (classes: {', '.join(classes)})")
        where = f"{path}:{line}"
        cost = _cost_value(text, where)
        _checked_pair(pred, true, cost, where, lines, "on line {}")
        lines[(pred, true)] = line
        out[(pred, true)] = cost
    return out


def cost_option(costs: Any) -> Costs | None:
    """The checked, recorded form of the `costs` option: sorted (predicted, true, cost) triples of
    the costs that are not 1, or None when there are none. Takes {(predicted, true): cost} or
    (predicted, true, cost) triples (a model file's); InputError for anything else."""
    if costs is None:
        return None
    if isinstance(costs, Mapping):
        items = []
        for key, cost in costs.items():
            if not (isinstance(key, tuple) and len(key) == 2):
                raise InputError(f"option costs: key {shown(key)} must be a pair (predicted class, true class)")
            items.append((*key, cost))
    elif isinstance(costs, (list, tuple)):
        items = list(costs)
    else:
        raise InputError(f"option costs must be a mapping {{(predicted, true): cost}}, got {type(costs).__name__}")
    out: dict[tuple[str, str], float] = {}
    for item in items:
        if not (isinstance(item, (list, tuple)) and len(item) == 3):
            raise InputError(f"option costs: {shown(item)} is not (predicted class, true class, cost)")
        pred, true, cost = item
        for name in (pred, true):
            if not isinstance(name, str):
                raise InputError(f"option costs: class {shown(name)} must be text")
        cost = _cost_value(cost, f"option costs: ({pred!r}, {true!r})")
        _checked_pair(pred, true, cost, "option costs", out, "as {:g}")
        out[(pred, true)] = cost
    kept = tuple(sorted((p, t, c) for (p, t), c in out.items() if p != t and c != 1.0))
    return kept or None


def resolved(costs: Any, classes: tuple[str, ...]) -> Costs | None:
    """cost_option of `costs`, a `.costs` file's path read first (InputError naming its file and line)."""
    if isinstance(costs, (str, os.PathLike)):
        costs = read_costs(costs, classes)
    return cost_option(costs)


def cost_matrix(costs: Costs | None, classes: tuple[str, ...]) -> np.ndarray | None:
    """matrix[k, c]: the cost of predicting class k when the class is c (1 off the diagonal unless
    given, 0 on it), from the option's form; None for no costs; InputError for a class not in `classes`."""
    if costs is None:
        return None
    m = 1.0 - np.eye(len(classes))
    for pred, true, cost in costs:
        for name in (pred, true):
            if name not in classes:
                raise InputError(f"option costs: unknown class {name!r} (classes: {', '.join(classes)})")
        m[classes.index(pred), classes.index(true)] = cost
    return m


def cheapest_class(dist: np.ndarray, costs: np.ndarray | None, keep: np.ndarray | int | None = None
                   ) -> int | np.ndarray:
    """The class of least expected cost, argmin_k sum_c dist[c] costs[k, c], for one class
    distribution or a row of each; ties go to the lowest class, or stay with `keep` (the current
    class) when given. Without costs, the class of most cases, with the same ties: the choice
    c4.5 makes, unchanged."""
    if costs is None:
        score = dist                 # the most cases is the least expected cost at unit costs
        best = np.argmax(dist, axis=-1)
    else:
        score = -expected_costs(dist, costs)
        best = np.argmax(score, axis=-1)
    if keep is None:
        return int(best) if np.ndim(best) == 0 else best
    if np.ndim(best) == 0:
        return int(keep) if score[best] <= score[keep] else int(best)
    rows = np.arange(len(dist))
    return np.where(score[rows, best] > score[rows, keep], best, keep)


def expected_costs(dist: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """sum_c dist[c] costs[k, c] for each class k: what predicting k costs on these cases."""
    return dist.astype(np.float64) @ costs.T


def vote_costs(totals: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """(cases, classes): what predicting each class costs given the boosted vote's class totals
    (cases, classes): for class k, the sum over the classes c that predicting k gets wrong, in
    class order from 0.0, of costs[k, c] * totals[:, c] (terms of cost 0 left out). The order is
    fixed, unlike expected_costs' matrix product, so that an export adding the same terms left to
    right in IEEE double gets the same bits (boosted.py)."""
    out = np.zeros(totals.shape, dtype=np.float64)
    for k, c in vote_cost_terms(costs):
        out[:, k] += costs[k, c] * totals[:, c]
    return out


def vote_cost_terms(costs: np.ndarray) -> list[tuple[int, int]]:
    """The (predicted k, true c) terms of vote_costs, in the order they are added."""
    K = len(costs)
    return [(k, c) for k in range(K) for c in range(K) if c != k and costs[k, c] != 0]


def total_cost(confusion: np.ndarray, costs: np.ndarray) -> float:
    """The cost of the decisions a confusion matrix counts (rows true class, columns predicted)."""
    return float((confusion * costs.T).sum())


def with_costs(data: Dataset, costs: Costs | None) -> Dataset:
    """`data` learning with the cost matrix of the option `costs` (None: with none); `data` itself
    when that is already so, else a new Dataset sharing its arrays."""
    matrix = cost_matrix(costs, data.schema.classes)
    if matrix is None and data.costs is None:
        return data
    return replace(data, costs=matrix)
