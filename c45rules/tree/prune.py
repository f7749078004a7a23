"""Pessimistic pruning with subtree raising (c4.5 Prune / EstimateErrors, spec 3.2)."""
from __future__ import annotations

import sys

import numpy as np

from ..data.schema import Dataset
from ..estimate import add_errors
from .grow import branch_of
from .node import Node

SLACK = 0.1  # spec 3.2: a simpler tree wins unless it is worse by more than 0.1 error


class _Pruner:
    def __init__(self, data: Dataset, cf: float):
        self.data = data
        self.y = data.y.astype(np.int64)
        self.C = len(data.schema.classes)
        self.cf = cf
        self.weights = np.ones(data.n)

    def estimate(self, node: Node, idx: np.ndarray, update: bool) -> float:
        if idx.size == 0:
            return 0.0
        w = self.weights[idx]
        dist = np.bincount(self.y[idx], weights=w, minlength=self.C)
        cases = float(w.sum())
        best = node.klass
        if dist.max() > dist[best]:   # ties keep the node's current class
            best = int(np.argmax(dist))
        leaf_errors = cases - dist[best]
        leaf_est = leaf_errors + add_errors(cases, leaf_errors, self.cf)
        if update:
            node.items, node.klass, node.class_dist = cases, best, dist
        if node.is_leaf:
            if update:
                node.errors = leaf_est
            return leaf_est
        out = branch_of(node, self.data.columns[node.attribute][idx])
        unknown = idx[out < 0]
        known = out >= 0
        known_w = np.bincount(out[known], weights=w[known], minlength=len(node.branches))
        known_n = np.bincount(out[known], minlength=len(node.branches))
        known_total = float(known_w.sum())
        saved = self.weights[unknown].copy()
        tree_est, max_factor, max_branch = 0.0, 0.0, 0
        for v, child in enumerate(node.branches):
            if known_n[v] == 0:
                continue
            factor = known_w[v] / known_total
            if factor >= max_factor:   # ties: the later branch
                max_branch, max_factor = v, factor
            self.weights[unknown] = saved * factor
            tree_est += self.estimate(child, idx[(out == v) | (out < 0)], update)
            self.weights[unknown] = saved
        if not update:
            return tree_est
        branch_est = self.estimate(node.branches[max_branch], idx, False)
        if leaf_est <= branch_est + SLACK and leaf_est <= tree_est + SLACK:
            node.make_leaf()
            node.errors = leaf_est
        elif branch_est <= tree_est + SLACK:
            # subtree raising: the largest branch, re-pruned with all cases, replaces the node
            raised = node.branches[max_branch]
            self.estimate(raised, idx, True)
            node.__dict__.update(raised.__dict__)
        else:
            node.errors = tree_est
        return node.errors


def prune_tree(tree: Node, data: Dataset, *, cf: float = 0.25) -> Node:
    """A pruned copy of `tree` (spec 3.2); the grown tree is left untouched."""
    pruned = tree.copy()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        _Pruner(data, cf).estimate(pruned, np.arange(data.n), True)
    finally:
        sys.setrecursionlimit(limit)
    return pruned
