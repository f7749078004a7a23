"""Regression rules from a pruned model tree (tree/model_tree.py), as Cubist forms them.

1. Each leaf's path becomes a rule: its tests, merged per attribute (the tightest `<=` and
   `>` of a continuous attribute; the intersection of a discrete one's value sets), and the
   leaf's smoothed linear model.
2. Conditions are dropped greedily: each round drops the condition whose removal gives the
   lowest estimated error of the rule's model on the cases it would then cover (mean absolute
   error times (n + v) / (n - v)), while that is not above the current estimate. Choice: the
   model stays the leaf's smoothed one during this search.
3. Each rule's model is then refit on the cases it covers (fit_linear, with elimination)
   when that lowers its estimated error: dropping conditions widened its cases.
4. Rules with the same conditions are merged (the first kept); at most `max_rules` are kept,
   those covering most cases (a choice: Cubist's own reduction is not described); they are
   ordered by their mean target, as Cubist's printed models run.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..tree.model_tree import Columns, Fitted, MNode, estimated_error, fit_linear

# a path test: (attribute position in Columns, "<=" | ">" | "in", threshold or frozenset of codes)
Test = tuple[int, str, object]


@dataclass
class DraftRule:
    """A rule under construction: its tests, its model, the cases it covers and their evidence."""

    tests: list[Test]
    model: Fitted
    covered: np.ndarray
    estimate: float


def path_tests(root: MNode, cols: Columns) -> list[tuple[MNode, list[Test]]]:
    """Each leaf with its path's tests, merged per attribute (step 1)."""
    out = []
    stack: list[tuple[MNode, list[Test]]] = [(root, [])]
    while stack:
        node, tests = stack.pop()
        if node.is_leaf:
            out.append((node, _merged(tests)))
            continue
        a = node.attribute
        if a < cols.n_cont:
            left, right = (a, "<=", node.cut), (a, ">", node.cut)
        else:
            everything = frozenset(range(cols.disc_sizes[a - cols.n_cont]))
            left, right = (a, "in", node.left_values), (a, "in", everything - node.left_values)
        stack.append((node.children[1], tests + [right]))
        stack.append((node.children[0], tests + [left]))
    return out


def _merged(tests: list[Test]) -> list[Test]:
    upper: dict[int, float] = {}
    lower: dict[int, float] = {}
    sets: dict[int, frozenset] = {}
    order: list[tuple[int, str]] = []
    for a, op, v in tests:
        if (a, op) not in order:
            order.append((a, op))
        if op == "<=":
            upper[a] = min(upper.get(a, np.inf), v)
        elif op == ">":
            lower[a] = max(lower.get(a, -np.inf), v)
        else:
            sets[a] = sets.get(a, v) & v
    return [(a, op, upper[a] if op == "<=" else lower[a] if op == ">" else sets[a]) for a, op in order]


def test_mask(cols: Columns, test: Test) -> np.ndarray:
    """Which training cases satisfy a test (an unknown value never does)."""
    a, op, v = test
    if op == "<=":
        return cols.cont[:, a] <= v
    if op == ">":
        return cols.cont[:, a] > v
    codes = cols.disc[:, a - cols.n_cont]
    return np.isin(codes, np.fromiter(v, dtype=codes.dtype, count=len(v)))


def _estimate(pred: np.ndarray, y: np.ndarray, mask: np.ndarray, v: int) -> float:
    n = int(mask.sum())
    if n == 0:
        return np.inf
    return estimated_error(float(np.abs(y[mask] - pred[mask]).mean()), n, v)


def simplify(tests: list[Test], model: Fitted, cols: Columns, y: np.ndarray) -> DraftRule:
    """Drop conditions while the estimated error does not grow (step 2), then refit (step 3)."""
    pred = model.values(cols.xf)
    v = model.columns.size + 1
    masks = [test_mask(cols, t) for t in tests]
    covered = np.logical_and.reduce(masks) if masks else np.ones(y.size, dtype=bool)
    current = _estimate(pred, y, covered, v)
    while masks:
        fails = np.add.reduce([~m for m in masks], dtype=np.int16) if len(masks) > 1 else (~masks[0]).astype(np.int16)
        one = fails == 1
        best, best_i, best_cover = np.inf, -1, None
        for i, m in enumerate(masks):
            cand = covered | (one & ~m)
            e = _estimate(pred, y, cand, v)
            if e < best:
                best, best_i, best_cover = e, i, cand
        if best_i < 0 or best > current:
            break
        current, covered = best, best_cover
        del masks[best_i]
        del tests[best_i]
    refit = fit_linear(cols.xf[covered], y[covered], np.arange(cols.n_cont))
    if refit.estimate < current:
        return DraftRule(tests, refit, covered, refit.estimate)
    return DraftRule(tests, Fitted(model.intercept, model.columns, model.coefs,
                                   float(np.abs(y[covered] - pred[covered]).mean()), current), covered, current)


def rules_from_tree(root: MNode, smoothed: dict[int, tuple[float, np.ndarray]], cols: Columns,
                    y: np.ndarray, max_rules: int | None) -> list[DraftRule]:
    """The rules of a pruned, smoothed model tree (steps 1 to 4 of the module docstring)."""
    drafts = []
    for leaf, tests in path_tests(root, cols):
        b0, dense = smoothed[id(leaf)]
        used = np.flatnonzero(dense)
        model = Fitted(b0, used, dense[used], 0.0, 0.0)
        drafts.append(simplify(list(tests), model, cols, y))
    seen: set = set()
    unique = []
    for d in drafts:
        key = frozenset((a, op, v) for a, op, v in d.tests)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    if max_rules is not None and len(unique) > max_rules:
        unique = sorted(unique, key=lambda d: -int(d.covered.sum()))[:max_rules]
    return sorted(unique, key=lambda d: float(y[d.covered].mean()))
