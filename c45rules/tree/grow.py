"""Growing the tree (c4.5 FormTree, spec 2): divide and conquer with fractional weights.

Cases with an unknown value of the tested attribute go down every branch with their
weight scaled by the branch's share of the known weight (2.7); subtrees that do no
better than a leaf are collapsed (2.8). The result is the "unpruned" tree c4.5rules reads.
"""
from __future__ import annotations

import sys

import numpy as np

from ..data.schema import Dataset
from .node import Node
from .split import EPSILON, F32, MANY_VALUES, NO_GAIN, best_cuts, discrete_gains, seq_sum, worth
from .subset import subset_test

# columns x rows x classes above which continuous attributes are evaluated one at a time
_BLOCK = 4_000_000


class _Grower:
    def __init__(self, data: Dataset, min_objs: float, gain_ratio: bool, subset: bool):
        schema = data.schema
        self.data = data
        self.y = data.y.astype(np.int64)
        self.C = len(schema.classes)
        self.min_objs = float(min_objs)
        self.gain_ratio = gain_ratio
        self.subset = subset
        self.weights = np.ones(data.n, dtype=np.float32)   # c4.5 ItemCount is a float
        self.cont = [i for i, a in enumerate(schema.attributes) if a.is_continuous]
        self.disc = [i for i, a in enumerate(schema.attributes) if a.is_discrete]
        self.nvals = np.array([len(schema.attributes[i].values) for i in self.disc], dtype=np.int64)
        self.Xc = np.column_stack([data.columns[i] for i in self.cont]) if self.cont else None
        self.Xd = (np.column_stack([data.columns[i] for i in self.disc]).astype(np.int64)
                   if self.disc else None)
        self.tested = np.zeros(len(schema.attributes), dtype=np.int64)
        self.vals32: dict[int, np.ndarray] = {}
        n_all = data.n
        active = [a for a in schema.attributes if a.kind != "ignore"]
        # spec 2.5: the many-valued exclusion is lifted when every attribute is many-valued
        self.multi_val = subset or all(a.is_discrete and len(a.values) >= MANY_VALUES * n_all
                                       for a in active)
        self.many = np.zeros(len(schema.attributes), dtype=bool)
        for j, i in enumerate(self.disc):
            self.many[i] = self.nvals[j] >= MANY_VALUES * n_all
        self.max_v = int(self.nvals.max()) + 1 if self.disc else 1
        self.offsets = (np.arange(len(self.disc)) * self.max_v * self.C) if self.disc else None

    # ---- evaluation --------------------------------------------------------------
    def evaluate(self, idx: np.ndarray, w: np.ndarray, cases: np.float32):
        A = len(self.data.schema.attributes)
        gain = np.full(A, NO_GAIN, dtype=np.float32)
        split = np.zeros(A, dtype=np.float32)
        cuts: dict[int, float] = {}
        subsets: dict[int, tuple] = {}
        yi = self.y[idx]
        if self.disc:
            codes = self.Xd[idx]                                   # (n, D), -1 unknown
            flat = self.offsets[None, :] + (codes + 1) * self.C + yi[:, None]
            size = len(self.disc) * self.max_v * self.C
            tables = class_sums(flat.ravel(), np.repeat(w, len(self.disc)), size)
            tables = tables.reshape(len(self.disc), self.max_v, self.C)
            g, s = discrete_gains(tables, cases, self.min_objs)
            for j, a in enumerate(self.disc):
                if self.subset and self.nvals[j] > 2:
                    res = subset_test(tables[j, : self.nvals[j] + 1], cases, self.min_objs,
                                      self.gain_ratio)
                    if res is not None:
                        gain[a], split[a], subsets[a] = res
                elif not self.tested[a]:
                    gain[a], split[a] = g[j], s[j]
        if self.cont:
            sub = self.Xc[idx]
            n, k = sub.shape
            step = max(1, _BLOCK // max(1, n * self.C))
            for lo in range(0, k, step):
                cols = sub[:, lo:lo + step]
                order = np.argsort(cols, axis=0, kind="stable")
                vals = np.take_along_axis(cols, order, axis=0)
                g, s, at = best_cuts(vals, w[order], yi[order], self.C, cases, self.min_objs)
                for j in range(cols.shape[1]):
                    a = self.cont[lo + j]
                    gain[a], split[a] = g[j], s[j]
                    if at[j] >= 0:
                        cuts[a] = self.snap(a, vals[at[j], j], vals[at[j] + 1, j])
        return gain, split, cuts, subsets

    def snap(self, a: int, below: float, above: float) -> float:
        """Largest training value of `a` that is <= the midpoint of below/above (spec 2.6).

        The midpoint and the comparison are in single precision as in c4.5: whether a
        training value that lies at the midpoint counts as below it depends on that.
        """
        vals = self.data.sorted_values(a)
        if a not in self.vals32:
            self.vals32[a] = vals.astype(np.float32)
        mid = (np.float32(below) + np.float32(above)) / np.float32(2)
        return float(vals[np.searchsorted(self.vals32[a], mid, side="right") - 1])

    def choose(self, gain: np.ndarray, split: np.ndarray) -> int:
        """c4.5's attribute choice (spec 2.5) with its float arithmetic.

        The average gain is a float running sum over the attributes in order; gain ratios
        are float quotients, so mathematically equal ratios tie or not exactly as in c4.5,
        and ties go to the first attribute (strict `>` against the best so far).
        """
        gain = gain.astype(np.float32)
        split = split.astype(np.float32)
        usable = gain.astype(np.float64) > -EPSILON
        possible = usable & (self.multi_val | ~self.many)
        avg = (seq_sum(gain[possible]) / F32(possible.sum())) if possible.any() else F32(1e6)
        val = worth(gain, split, avg, self.gain_ratio)
        val = np.where(usable, val, -np.inf)
        best = int(np.argmax(val))
        return best if val[best] > NO_GAIN else -1

    # ---- outcomes ----------------------------------------------------------------
    def outcomes(self, node: Node, idx: np.ndarray) -> np.ndarray:
        """Branch index of each case, -1 when its value is unknown (or fits no branch)."""
        return branch_of(node, self.data.columns[node.attribute][idx])

    # ---- recursion ---------------------------------------------------------------
    def grow(self, idx: np.ndarray) -> Node:
        w = self.weights[idx]
        cases = seq_sum(w)
        dist = class_sums(self.y[idx], w, self.C)
        best_class = int(np.argmax(dist))
        no_best = dist[best_class]
        node = Node(best_class, float(cases), float(cases - no_best), dist)
        # spec 2.1; the "one class" test is c4.5's float equality of two separate sums
        if no_best == cases or cases < 2 * self.min_objs:
            return node
        gain, split, cuts, subsets = self.evaluate(idx, w, cases)
        a = self.choose(gain, split)
        if a < 0:
            return node
        attr = self.data.schema.attributes[a]
        node.attribute = a
        if attr.is_continuous:
            node.kind, node.cut = "threshold", cuts[a]
            forks = 2
        elif a in subsets:
            node.kind, node.subsets = "subset", subsets[a]
            forks = len(node.subsets)
        else:
            node.kind = "discrete"
            forks = len(attr.values)
        out = self.outcomes(node, idx)
        # c4.5 groups the cases with unknown outcome at the front of the node's range and
        # passes them first to every branch: that order decides the float sums below it
        unknown = idx[out < 0]
        known_total = cases - seq_sum(w[out < 0])
        self.tested[a] += 1
        errors = F32(0)
        for v in range(forks):
            mine = idx[out == v]
            if mine.size > 0:
                factor = seq_sum(self.weights[mine]) / known_total
                self.weights[unknown] *= factor
                child = self.grow(np.concatenate([unknown, mine]))
                # undone by division as in c4.5 (not always exactly the old weight)
                self.weights[unknown] /= factor
                errors = errors + F32(child.errors)
            else:
                child = Node(best_class, 0.0, 0.0, dist)
            node.branches.append(child)
        self.tested[a] -= 1
        node.errors = float(errors)
        if float(errors) >= float(cases - no_best) - EPSILON:   # spec 2.8: no better than a leaf
            node.make_leaf()
        return node


def class_sums(codes: np.ndarray, w: np.ndarray, size: int) -> np.ndarray:
    """Float sums of weights per code, each accumulated in case order as c4.5's loops do."""
    out = np.zeros(size, dtype=np.float32)
    if w.size and (w == 1).all():      # integer sums are exact in any order
        return np.bincount(codes, minlength=size).astype(np.float32)
    np.add.at(out, codes, w.astype(np.float32))
    return out


def branch_of(node: Node, col: np.ndarray) -> np.ndarray:
    """Branch index for each value of the tested attribute; -1 = unknown or no branch."""
    if node.kind == "threshold":
        # c4.5 holds values and cuts as floats and compares them as such
        with np.errstate(invalid="ignore"):
            out = np.where(col.astype(np.float32) <= np.float32(node.cut), 0, 1)
        out[np.isnan(col)] = -1
        return out
    if node.kind == "discrete":
        out = col.astype(np.int64)
        out[out < 0] = -1          # unknown (-1) and unseen (-2) values
        return out
    lookup = np.full(max(max(s) for s in node.subsets if s) + 3, -1, dtype=np.int64)
    for v, s in enumerate(node.subsets):
        for code in s:
            lookup[code + 2] = v
    col = col.astype(np.int64)
    return np.where(col + 2 < len(lookup), lookup[np.minimum(col + 2, len(lookup) - 1)], -1)


def grow_tree(data: Dataset, *, min_objs: float = 2, gain_ratio: bool = True,
              subset: bool = False) -> Node:
    """Grow the unpruned C4.5 tree on `data` (spec 2)."""
    if data.y is None or data.n == 0:
        raise ValueError("growing a tree needs labelled cases")
    g = _Grower(data, min_objs, gain_ratio, subset)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        return g.grow(np.arange(data.n))
    finally:
        sys.setrecursionlimit(limit)
