"""The classic ID3 (the `id3` grower): information gain, no pruning.

Quinlan's ID3 as the textbooks give it: at each node the attribute with the largest
information gain (entropy of the node minus the weighted entropy of its branches) is tested;
a discrete attribute splits the node into one branch per value (a value no case at the node
has becomes a leaf of the node's majority class), a continuous one into two at the cut of
largest gain (`value <= cut` and `> cut`, the cut being the largest value below it, as C4.5
writes it). Growing stops only at a pure node or where no test has a positive gain; nothing
is pruned, so the tree fits the training cases as far as the attributes allow.

ID3 has no rule for unknown values; here the gain of an attribute is measured on the node's
cases with a known value of it, and a case whose value is unknown (or, when classifying, a
discrete value the tree never saw) goes down the branch that received the most training cases.
"""
from __future__ import annotations

import sys

import numpy as np

from ...data.schema import Dataset
from ..node import Node, Tree

# gains below this are taken as none (sums of logarithms are not exact)
_NO_GAIN = 1e-12


def _entropy_sums(counts: np.ndarray) -> np.ndarray:
    """n * entropy (bits) of each row of class counts."""
    n = counts.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        xlogx = np.where(counts > 0, counts * np.log2(np.where(counts > 0, counts, 1)), 0.0).sum(axis=-1)
        nlogn = np.where(n > 0, n * np.log2(np.where(n > 0, n, 1)), 0.0)
    return nlogn - xlogx


class _Id3:
    def __init__(self, data: Dataset):
        self.data = data
        self.y = data.y.astype(np.int64)
        self.C = len(data.schema.classes)
        self.attrs = [i for i, a in enumerate(data.schema.attributes) if a.kind != "ignore"]

    def gain(self, a: int, rows: np.ndarray) -> tuple[float, float | None]:
        """(information gain, cut or None for a discrete attribute) of attribute `a` at a node."""
        col = self.data.columns[a][rows]
        attr = self.data.schema.attributes[a]
        if attr.is_continuous:
            known = ~np.isnan(col)
            x, yk = col[known], self.y[rows[known]]
            if len(x) < 2:
                return 0.0, None
            order = np.argsort(x, kind="stable")
            x, yk = x[order], yk[order]
            onehot = np.zeros((len(x), self.C))
            onehot[np.arange(len(x)), yk] = 1.0
            left = np.cumsum(onehot, axis=0)
            at = np.flatnonzero(x[:-1] != x[1:])
            if not len(at):
                return 0.0, None
            total = left[-1]
            split = _entropy_sums(left[at]) + _entropy_sums(total[None, :] - left[at])
            best = int(np.argmin(split))      # the first (lowest) cut of the largest gain
            gain = (_entropy_sums(total) - split[best]) / len(x)
            return float(gain), float(x[at[best]])
        known = col >= 0
        table = np.bincount(col[known].astype(np.int64) * self.C + self.y[rows[known]],
                            minlength=len(attr.values) * self.C).reshape(len(attr.values), self.C)
        n = known.sum()
        if n == 0:
            return 0.0, None
        return float((_entropy_sums(table.sum(axis=0)) - _entropy_sums(table).sum()) / n), None

    def grow(self, rows: np.ndarray, parent_class: int) -> Node:
        counts = np.bincount(self.y[rows], minlength=self.C).astype(np.float64)
        klass = int(np.argmax(counts)) if len(rows) else parent_class
        node = Node(klass, float(len(rows)), float(len(rows) - counts[klass]) if len(rows) else 0.0, counts)
        if len(rows) == 0 or counts[klass] == len(rows):
            return node
        best, best_a, best_cut = _NO_GAIN, -1, None
        for a in self.attrs:
            g, cut = self.gain(a, rows)
            if g > best:        # ties: the attribute that comes first
                best, best_a, best_cut = g, a, cut
        if best_a < 0:
            return node
        col = self.data.columns[best_a][rows]
        if best_cut is not None:
            node.kind, node.cut = "threshold", best_cut
            with np.errstate(invalid="ignore"):
                branch = np.where(np.isnan(col), -1, np.where(col <= best_cut, 0, 1))
            fanout = 2
        else:
            node.kind = "discrete"
            branch = col.astype(np.int64)
            branch[branch < 0] = -1
            fanout = len(self.data.schema.attributes[best_a].values)
        node.attribute = best_a
        sizes = np.bincount(branch[branch >= 0], minlength=fanout)
        node.majority = int(np.argmax(sizes))
        branch[branch < 0] = node.majority
        node.branches = [self.grow(rows[branch == v], klass) for v in range(fanout)]
        return node


def grow(data: Dataset, options: dict) -> Tree:
    """The ID3 tree of `data` (no options of its own; it is not pruned)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        root = _Id3(data).grow(np.arange(data.n), 0)
    finally:
        sys.setrecursionlimit(limit)
    return Tree(data.schema, root, root, {"grower": "id3"})
