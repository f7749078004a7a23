"""Soft thresholds (c4.5 -p): a [lower, upper] band around each cut (st-thresh.c).

For the cases with a known value that reach a cut (cases with an unknown value of a
tested attribute stop at that test), each case is classified by each of the two
branches as if it went there. With the cases sorted by value, the errors the node would
make if the cut were at each value are running sums. The band's ends are where those
errors cross `base + se`, with base the errors at the actual cut and
se = sqrt((base + 0.5) (n - base + 0.5) / (n + 1)), interpolated linearly between the two
values at the crossing: the lower end below the cut (the first crossing from above the
limit to within it), the upper end above it (the last crossing out of it), never inside
the cut. c4.5's Classify ignores the bands (spec 4); `explain` reports them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data.schema import Dataset
from .classify import classify
from .grow import branch_of
from .node import Node

F32 = np.float32
BELOW_SLACK = 1e-6     # st-thresh.c Below(v, t): v <= t + 1e-6


@dataclass(frozen=True)
class Band:
    """The soft band of one cut: where it sits in the tree (depth-first position) and its ends."""

    node: int
    lower: float
    upper: float


def soften_thresholds(tree: Node, data: Dataset) -> list[Band]:
    """The band of every threshold test of `tree` in c4.5's order (pre-order, branches in order)."""
    position = {id(n): i for i, n in enumerate(tree.walk())}
    bands: list[Band] = []
    stack = [(tree, np.arange(data.n))]
    while stack:
        node, rows = stack.pop()
        if node.is_leaf:
            continue
        out = branch_of(node, data.columns[node.attribute][rows])
        if node.kind == "threshold":
            known = rows[out >= 0]
            lower, upper = _band(node, data, known)
            bands.append(Band(position[id(node)], lower, upper))
        stack.extend((child, rows[out == v]) for v, child in reversed(list(enumerate(node.branches))))
    return bands


def _band(node: Node, data: Dataset, rows: np.ndarray) -> tuple[float, float]:
    """Lower and upper ends of the band of `node`'s cut, from the known cases `rows` reaching it."""
    cut = F32(node.cut)
    if rows.size == 0:
        return float(cut), float(cut)
    values = data.columns[node.attribute][rows].astype(np.float32)
    order = np.argsort(values, kind="stable")
    rows, values = rows[order], values[order]
    sub = data.subset(rows)
    left_wrong = (classify(node.branches[0], sub) != sub.y).astype(np.int64)
    right_wrong = (classify(node.branches[1], sub) != sub.y).astype(np.int64)
    below = values.astype(np.float64) <= float(cut) + BELOW_SLACK
    base = int(np.where(below, left_wrong, right_wrong).sum())
    n = len(rows)
    se = F32(np.sqrt((base + 0.5) * (n - base + 0.5) / (n + 1)))
    limit = F32(base) + se
    # errors if the cut were at each case's value: those up to it go left
    at = int(right_wrong.sum()) + np.cumsum(left_wrong - right_wrong)
    # one entry per distinct value, at the last case holding it
    ends = np.flatnonzero(np.append(values[1:] != values[:-1], True))
    vals, errs = values[ends], at[ends]
    lower, upper = min(cut, values[0]), max(cut, values[-1])
    found_lower = False
    for k in range(1, len(ends)):
        a, b = vals[k - 1], vals[k]
        ea, eb = errs[k - 1], errs[k]
        cut_below = float(b) <= float(cut) + BELOW_SLACK
        if not found_lower and ea > limit and eb <= limit and cut_below:
            lower = F32(b - (b - a) * (limit - F32(eb)) / F32(ea - eb))
            found_lower = True
        elif ea <= limit and eb > limit and not cut_below:
            upper = F32(a + (b - a) * (limit - F32(ea)) / F32(eb - ea))
            upper = max(upper, cut)
    return float(lower), float(upper)


def soften(tree: Node, data: Dataset) -> None:
    """Give each threshold test of `tree` its band (`Node.soft`), as c4.5 -p softens its pruned tree:
    what `tree -p` prints and `fit -p --keep-tree` keeps (pipeline.soft_tree)."""
    nodes = list(tree.walk())
    for b in soften_thresholds(tree, data):
        nodes[b.node].soft = (b.lower, b.upper)
