"""Classifying cases with a tree (c4.5 Classify, spec 4): unknowns split by branch weight."""
from __future__ import annotations

import itertools

import numpy as np

from ..data.costs import cheapest_class
from ..data.distinct import sorted_distinct
from ..data.schema import Dataset
from .grow import branch_of
from .node import Node


def class_weights(tree: Node, data: Dataset) -> np.ndarray:
    """Class weight totals per case (rows) as c4.5's ClassSum.

    In single precision like c4.5 (spec 11.11): near-equal class totals of a case that
    went down several branches are ranked as the reference ranks them.
    """
    C = len(data.schema.classes)
    if one_path_each(tree, data):
        # each case ends at one leaf with weight 1: its class weights are that leaf's
        nodes = list(tree.walk())
        table = np.zeros((len(nodes), C), dtype=np.float32)
        for i, n in enumerate(nodes):
            if n.is_leaf:
                table[i] = _leaf_share(n, np.ones(1, dtype=np.float32))[0]
        return table[leaf_of_cases(nodes, data)]
    out = np.zeros((data.n, C), dtype=np.float32)
    _descend(tree, data, np.arange(data.n), np.ones(data.n, dtype=np.float32), out)
    return out


def _leaf_share(node: Node, w: np.ndarray) -> np.ndarray:
    """What cases of weights `w` reaching leaf `node` add to their class weights."""
    C = len(node.class_dist)
    if node.items > 0:
        # ClassSum[c] += Weight * ClassDist[c] / Items, evaluated left to right in float
        dist = np.asarray(node.class_dist, dtype=np.float32)
        return (w[:, None] * dist[None, :]) / np.float32(node.items)
    out = np.zeros((len(w), C), dtype=np.float32)
    out[:, node.klass] = w
    return out


def one_path_each(tree: Node, data: Dataset, nodes: list[Node] | None = None) -> bool:
    """True when no case has an unknown value of a tested attribute and no test is a subset
    (`nodes`: the tree's, when the caller has listed them)."""
    tested = set()
    for n in tree.walk() if nodes is None else nodes:
        if n.kind == "subset":
            return False
        if not n.is_leaf:
            tested.add(n.attribute)
    for a in tested:
        col = data.columns[a]
        if (np.isnan(col).any() if data.schema.attributes[a].is_continuous else (col < 0).any()):
            return False
    return True


def _descend(node: Node, data: Dataset, rows: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:
    if rows.size == 0:
        return
    if node.is_leaf:
        out[rows] += _leaf_share(node, w)
        return
    br = branch_of(node, data.columns[node.attribute][rows])
    unknown = br < 0
    for v, child in enumerate(node.branches):
        sel = br == v
        r = rows[sel]
        ww = w[sel]
        if unknown.any():
            r = np.concatenate([r, rows[unknown]])
            ww = np.concatenate([ww, (w[unknown] * np.float32(child.items)) / np.float32(node.items)])
        _descend(child, data, r, ww, out)


def classify(tree: Node, data: Dataset, costs: np.ndarray | None = None) -> np.ndarray:
    """Predicted class code per case (largest class weight, ties to the lowest index; with
    `costs`, the class of least expected cost over those weights)."""
    return cheapest_class(class_weights(tree, data), costs)


def leaf_of_cases(nodes: list[Node], data: Dataset, kids: list[list[int]] | None = None) -> np.ndarray:
    """Position in `nodes` (a tree's nodes, root first) of the leaf each case reaches.

    For cases with no unknown value of any tested attribute, which follow one path, and
    trees without subset tests: all cases descend one level at a time, a few numpy
    passes per attribute tested at that level rather than per node. `kids`: each node's
    children as positions in `nodes`, when the caller has them.
    """
    if kids is None:
        where = {id(n): i for i, n in enumerate(nodes)}
        kids = [[where[id(b)] for b in n.branches] for n in nodes]
    fan = np.fromiter(map(len, kids), dtype=np.int64, count=len(nodes))
    child = np.full((len(nodes), max(int(fan.max(initial=0)), 1)), -1, dtype=np.int64)
    inner = np.flatnonzero(fan)
    rows = np.repeat(inner, fan[inner])
    cols = np.arange(len(rows)) - np.repeat(np.cumsum(fan[inner]) - fan[inner], fan[inner])
    child[rows, cols] = np.fromiter(itertools.chain.from_iterable(kids), dtype=np.int64, count=len(rows))
    attribute = np.where(fan > 0, np.fromiter((n.attribute for n in nodes), dtype=np.int64, count=len(nodes)), -1)
    cut = np.fromiter((n.cut for n in nodes), dtype=np.float64, count=len(nodes)).astype(np.float32)
    at = np.zeros(data.n, dtype=np.int64)
    moving = np.arange(data.n)
    while moving.size:
        moving = moving[attribute[at[moving]] >= 0]
        node = at[moving]
        tested = attribute[node]
        branch = np.empty(len(moving), dtype=np.int64)
        for a in sorted_distinct(tested):
            sel = np.flatnonzero(tested == a)
            col = data.columns[a][moving[sel]]
            if data.schema.attributes[a].is_continuous:
                # c4.5 holds values and cuts as floats and compares them as such
                branch[sel] = np.where(col.astype(np.float32) <= cut[node[sel]], 0, 1)
            else:
                branch[sel] = col
        at[moving] = child[node, branch]
    return at
