"""Pessimistic pruning with subtree raising (c4.5 Prune / EstimateErrors, spec 3.2)."""
from __future__ import annotations

import sys

import numpy as np

from ..data.schema import Dataset
from ..estimate import add_errors
from .grow import branch_of, class_sums
from .node import Node
from .split import F32, seq_sum

SLACK = 0.1  # spec 3.2: a simpler tree wins unless it is worse by more than 0.1 error


class _Pruner:
    def __init__(self, data: Dataset, cf: float):
        self.data = data
        self.y = data.y.astype(np.int64)
        self.C = len(data.schema.classes)
        self.cf = cf
        self.weights = np.ones(data.n, dtype=np.float32)   # float, as in c4.5 (see split.py)

    def extra_errors(self, cases, errors) -> np.float32:
        return F32(add_errors(float(cases), float(errors), self.cf))

    def estimate(self, node: Node, idx: np.ndarray, update: bool) -> float:
        if idx.size == 0:
            return F32(0)
        w = self.weights[idx]
        dist = class_sums(self.y[idx], w, self.C)
        cases = seq_sum(w)
        best = node.klass
        if dist.max() > dist[best]:   # ties keep the node's current class
            best = int(np.argmax(dist))
        leaf_errors = cases - dist[best]
        leaf_est = leaf_errors + self.extra_errors(cases, leaf_errors)
        if update:
            node.items, node.klass, node.class_dist = float(cases), best, dist
        if node.is_leaf:
            if update:
                node.errors = float(leaf_est)
            return leaf_est
        out = branch_of(node, self.data.columns[node.attribute][idx])
        unknown = idx[out < 0]
        known_total = seq_sum(w[out >= 0])
        tree_est, max_factor, max_branch = F32(0), F32(0), 0
        for v, child in enumerate(node.branches):
            mine = idx[out == v]
            if mine.size == 0:
                continue
            factor = seq_sum(self.weights[mine]) / known_total
            if factor >= max_factor:   # ties: the later branch
                max_branch, max_factor = v, factor
            self.weights[unknown] *= factor
            tree_est = tree_est + self.estimate(child, np.concatenate([unknown, mine]), update)
            self.weights[unknown] /= factor
        if not update:
            return tree_est
        branch_est = self.estimate(node.branches[max_branch], idx, False)
        # float estimates against double `+ 0.1`, as in c4.5
        if float(leaf_est) <= float(branch_est) + SLACK and float(leaf_est) <= float(tree_est) + SLACK:
            node.make_leaf()
            node.errors = float(leaf_est)
        elif float(branch_est) <= float(tree_est) + SLACK:
            # subtree raising: the largest branch, re-pruned with all cases, replaces the node
            raised = node.branches[max_branch]
            self.estimate(raised, idx, True)
            node.__dict__.update(raised.__dict__)
        else:
            node.errors = float(tree_est)
        return F32(node.errors)


def prune_tree(tree: Node, data: Dataset, *, cf: float = 0.25) -> Node:
    """A pruned copy of `tree` (spec 3.2); the grown tree is left untouched."""
    pruned = tree.copy()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        _Pruner(data, cf).estimate(pruned, np.arange(data.n), True)
        if any(n.kind == "subset" for n in pruned.walk()):
            check_possible_values(pruned, {})
    finally:
        sys.setrecursionlimit(limit)
    return pruned


def check_possible_values(node: Node, possible: dict[int, frozenset[int]]) -> None:
    """c4.5 CheckPossibleValues (spec 2.4): trim the last branch of each subset test.

    `possible[a]` holds the value codes of attribute a that can reach `node` through the
    subset tests above it (absent: all values). The last ("missing values") branch of a
    subset test keeps only the possible values, and is dropped when none remains.
    """
    if node.is_leaf:
        return
    if node.kind == "subset":
        a = node.attribute
        reach = possible.get(a)
        last = node.subsets[-1] if reach is None else node.subsets[-1] & reach
        subsets = node.subsets[:-1] + (last,)
        if not last:
            subsets = subsets[:-1]
            node.branches = node.branches[:-1]
        node.subsets = subsets
        for s, child in zip(node.subsets, node.branches):
            check_possible_values(child, {**possible, a: s})
        return
    for child in node.branches:
        check_possible_values(child, possible)
