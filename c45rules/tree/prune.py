"""Pessimistic pruning with subtree raising (c4.5 Prune / EstimateErrors, spec 3.2)."""
from __future__ import annotations

import sys
from typing import Callable

import numpy as np

from ..data.costs import cheapest_class
from ..data.schema import Dataset
from ..estimate import add_errors, extra_function
from .classify import leaf_of_cases, one_path_each
from .grow import _native, branch_of, node_counts
from .node import _KINDS, FlatTree, Node, linked
from .split import F32, seq_sum

SLACK = 0.1  # spec 3.2: a simpler tree wins unless it is worse by more than 0.1 error



def settle(node: Node, leaf_est: np.float32, branch_est: np.float32, tree_est: np.float32, largest: Node,
           reprune: Callable[[Node], object]) -> np.float32:
    """c4.5's choice at a test node (spec 3.2), float estimates against a double `+ 0.1`: a leaf
    if no worse than both the largest branch and the subtree; else that branch raised into the
    node's place (subtree raising: `reprune` prunes it again with all the node's cases) if no
    worse than the subtree; else the subtree. Returns the node's estimate."""
    if float(leaf_est) <= float(branch_est) + SLACK and float(leaf_est) <= float(tree_est) + SLACK:
        node.make_leaf()
        node.errors = float(leaf_est)
    elif float(branch_est) <= float(tree_est) + SLACK:
        reprune(largest)
        node.become(largest)
    else:
        node.errors = float(tree_est)
    return F32(node.errors)

class _Pruner:
    def __init__(self, data: Dataset, cf: float):
        self.data = data
        self.y = data.y.astype(np.int64)
        self.C = len(data.schema.classes)
        self.cf = cf
        self.costs = data.costs
        # float, as in c4.5 (see split.py); each case starts at its given weight
        self.weights = (np.ones(data.n, dtype=np.float32) if data.weights is None
                        else data.weights.astype(np.float32))
        self.known: dict[tuple[float, float], np.float32] = {}

    def extra_errors(self, cases, errors) -> np.float32:
        key = (float(cases), float(errors))
        # (cases, errors) pairs recur across a large tree's many small nodes
        if key not in self.known:
            self.known[key] = F32(add_errors(key[0], key[1], self.cf))
        return self.known[key]

    def own_estimate(self, node: Node, dist: np.ndarray, cases: np.float32, update: bool) -> np.float32:
        """The node's estimate as a leaf (spec 3.1); with `update`, its weight, class and class
        counts set from these cases (and a leaf's errors)."""
        leaf_est, best = self.leaf_estimate(dist, cases, node.klass)
        if update:
            node.items, node.klass, node.class_dist = float(cases), best, dist
            if node.is_leaf:
                node.errors = float(leaf_est)
        return leaf_est

    def estimate(self, node: Node, idx: np.ndarray, update: bool) -> float:
        if idx.size == 0:
            return F32(0)
        cases, dist = node_counts(self.weights, self.y, idx, self.C)
        leaf_est = self.own_estimate(node, dist, cases, update)
        if node.is_leaf:
            return leaf_est
        out = branch_of(node, self.data.columns[node.attribute][idx])
        unknown = idx[out < 0]
        known_total = seq_sum(self.weights[idx][out >= 0])
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
        return settle(node, leaf_est, branch_est, tree_est, node.branches[max_branch],
                      lambda raised: self.estimate(raised, idx, True))


    def compiled(self, root: Node | FlatTree) -> Node:
        """`estimate(root, all cases, True)` in the compiled module: the pruned tree, made anew
        from the arrays it returns."""
        flat = root if isinstance(root, FlatTree) else FlatTree(root)
        tested = set(flat.attribute[flat.kind > 0].tolist())
        attrs = self.data.schema.attributes
        columns = tuple(None if a not in tested else
                        np.ascontiguousarray(col, dtype=np.float64 if attrs[a].is_continuous else np.int32)
                        for a, col in enumerate(self.data.columns))
        out = _native.prune_nodes(flat.klass, flat.items, flat.errors, flat.kind, flat.attribute, flat.cut,
                                  flat.fanout, np.asarray(flat.dist, dtype=np.float32), columns, self.y, self.weights,
                                  extra_function(self.cf), _subset_maps(flat))
        arrays = [np.frombuffer(b, dtype=t) for b, t in zip(out, (np.int64, np.float64, np.float64, np.int8,
                                                                   np.int64, np.float64, np.int64))]
        # a writable copy: the nodes' class counts are rows of it
        dist = np.frombuffer(out[7], dtype=np.float32).reshape(len(arrays[0]), self.C).copy()
        # a subset test keeps the value blocks of the grown node it came from (raised or not)
        origin = np.frombuffer(out[8], dtype=np.int64).tolist()
        subsets = {i: flat.subsets[o] for i, (o, k) in enumerate(zip(origin, arrays[3].tolist())) if k == _SUBSET}
        return linked(*arrays, dist, subsets)[0]

    def bottom_up(self, nodes: list[Node]) -> None:
        """`estimate(root, all cases, True)` for trees every case follows down one path.

        Each node's class counts come from one routing of all cases (cases sorted by the
        leaf they reach make every subtree's cases one range); nodes are then settled
        children first, with the same arithmetic as `estimate`. What does not depend on
        the children's outcome is computed for all nodes at once: their own estimates, the
        branch weights and largest branch, and the estimate through that branch when it
        is a leaf. Only a branch estimate through a subtree that stayed a subtree, and
        subtree raising, descend case by case. `nodes`: the tree's, root first, depth first.
        """
        N, C = len(nodes), self.C
        # children from the depth-first order: a node's first child follows it, each next
        # one follows the previous one's subtree
        fan = [len(n.branches) for n in nodes]
        span = [1] * N                                      # nodes in each subtree
        kids: list[list[int]] = [[]] * N
        for i in range(N - 1, -1, -1):
            if fan[i]:
                j, mine = i + 1, []
                for _ in range(fan[i]):
                    mine.append(j)
                    j += span[j]
                kids[i], span[i] = mine, j - i
        leaf = leaf_of_cases(nodes, self.data, kids)
        span_a = np.array(span, dtype=np.int64)
        below = np.zeros((N + 1, C), dtype=np.int64)       # class counts of leaves before i
        np.cumsum(np.bincount(leaf * C + self.y, minlength=N * C).reshape(N, C), axis=0, out=below[1:])
        first = np.concatenate([[0], np.cumsum(np.bincount(leaf, minlength=N))])
        by_leaf = np.argsort(leaf, kind="stable")
        every = np.arange(N)
        dists = (below[every + span_a] - below[every]).astype(np.float32)
        reached = first[every + span_a] - first[every]
        all_cases = reached.astype(np.float32)
        klass = np.fromiter((n.klass for n in nodes), dtype=np.int64, count=N)
        leaf_of, best_of = self.leaf_estimates(dists, all_cases, klass)     # every node's own, at once
        # a branch's weight F32(reached) / cases, as estimate computes it
        parent = np.zeros(N, dtype=np.int64)
        inner = [i for i in range(N) if fan[i]]
        for i in inner:
            parent[kids[i]] = i
        factor = (reached.astype(np.float32) / all_cases[parent]).tolist()
        reached_l = reached.tolist()
        largest = [0] * N                  # per test: its branch of the largest weight
        for i in inner:
            low, at = 0.0, 0
            for v, j in enumerate(kids[i]):
                if reached_l[j] and factor[j] >= low:      # ties: the later branch
                    low, at = factor[j], v
            largest[i] = at
        # through the largest branch when it ends in a leaf of the class it has now (its
        # own best, unless raising changed it: then leaf_estimate, below)
        guess = np.array([best_of[kids[i][largest[i]]] if fan[i] else 0 for i in range(N)], dtype=np.int64)
        via_leaf = self.leaf_estimates(dists, all_cases, guess)[0]
        result = [F32(0)] * N
        cases_l, errors_l = all_cases.tolist(), leaf_of.tolist()
        for i in range(N - 1, -1, -1):
            if not reached_l[i]:
                continue                     # reached by no case: estimate skips it
            node = nodes[i]
            node.items, node.klass, node.class_dist = cases_l[i], best_of[i], dists[i]
            if not fan[i]:
                node.errors = errors_l[i]
                result[i] = leaf_of[i]
                continue
            leaf_est = leaf_of[i]
            tree_est = F32(0)
            for j in kids[i]:
                if reached_l[j]:
                    tree_est = tree_est + result[j]
            big = node.branches[largest[i]]
            idx = None
            if not big.is_leaf:
                idx = by_leaf[first[i]:first[i + span[i]]]
                branch_est = self.through(big, idx)
            elif big.klass == guess[i]:
                branch_est = via_leaf[i]
            else:
                branch_est = self.leaf_estimate(dists[i], all_cases[i], big.klass)[0]
            cases = by_leaf[first[i]:first[i + span[i]]] if idx is None else idx
            result[i] = settle(node, leaf_est, branch_est, tree_est, big,
                               lambda raised: self.estimate(raised, cases, True))

    def through(self, node: Node, idx: np.ndarray) -> np.float32:
        """`estimate(node, idx, False)` for cases that weigh 1 and follow one path each."""
        if node.is_leaf:
            dist = np.bincount(self.y[idx], minlength=self.C).astype(np.float32)
            return self.leaf_estimate(dist, F32(len(idx)), node.klass)[0]
        out = branch_of(node, self.data.columns[node.attribute][idx])
        total = F32(0)
        for v, child in enumerate(node.branches):
            mine = idx[out == v]
            if mine.size:
                total = total + self.through(child, mine)
        return total

    def leaf_estimates(self, dists: np.ndarray, cases: np.ndarray, klass: np.ndarray) -> tuple[np.ndarray, list[int]]:
        """leaf_estimate for every row at once, with the same float32 arithmetic (rows of no
        case get 0 extra errors); extra errors are computed once per distinct pair."""
        every = np.arange(len(dists))
        best = cheapest_class(dists, self.costs, klass).tolist()
        errors = cases - dists[every, best]
        where = cases > 0
        extra = np.zeros(len(cases), dtype=np.float32)
        # a pair as one 64-bit key of its two floats' bits: unique over rows (axis=0) compared
        # them as void records, a third of the pruning at 1M cases
        key = (cases[where].astype(np.float32).view(np.uint32).astype(np.uint64) << np.uint64(32)) \
            | errors[where].astype(np.float32).view(np.uint32)
        pairs, back = np.unique(key, return_inverse=True)
        c_bits = (pairs >> np.uint64(32)).astype(np.uint32).view(np.float32).tolist()
        e_bits = (pairs & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32).tolist()
        extra[where] = np.array([self.extra_errors(F32(c), F32(e)) for c, e in zip(c_bits, e_bits)],
                                dtype=np.float32)[back.reshape(-1)]
        return errors + extra, best

    def leaf_estimate(self, dist: np.ndarray, cases: np.float32, klass: int) -> tuple[np.float32, int]:
        """Estimated errors if these cases ended at a leaf of the class of least expected cost (ties keep
        the node's current class `klass`)."""
        best = cheapest_class(dist, self.costs, klass)
        errors = cases - dist[best]
        return errors + self.extra_errors(cases, errors), best


def prune_tree(tree: Node | FlatTree, data: Dataset, *, cf: float = 0.25, flat: FlatTree | None = None) -> Node:
    """A pruned copy of `tree` (spec 3.2); the grown tree is left untouched. `flat`: the
    grown tree as arrays, when the caller has made them (the compiled pruning reads those).
    A grown tree given as a FlatTree without subset tests is pruned from its arrays, by the
    compiled pruning when it is built."""
    if isinstance(tree, FlatTree):
        # a subset tree goes the node way below, which checks its possible values after
        if _native is not None and not tree.subsets and data.costs is None:
            return _Pruner(data, cf).compiled(tree)
        flat, tree = tree, tree.rebuilt()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        pruner = _Pruner(data, cf)
        nodes = list(tree.walk())
        compiled = _native is not None
        if compiled and data.costs is None:
            # reads the grown tree and makes the pruned one anew: no copy to change (bottom_up's
            # copy and per-node lists were 110 MB at 1M cases, issue 33); the compiled pruning
            # labels leaves by count, so costed cases that can go bottom up still do
            pruned = pruner.compiled(tree if flat is None else flat)
        elif data.weights is None and one_path_each(tree, data, nodes):
            # bottom_up counts cases: weighted cases take the case-by-case walk
            nodes = _copy_depth_first(tree)
            pruned = nodes[0]
            pruner.bottom_up(nodes)
        elif compiled:
            pruned = pruner.compiled(tree if flat is None else flat)
        else:
            pruned = _copy_depth_first(tree)[0]
            pruner.estimate(pruned, np.arange(data.n), True)
        if any(n.kind == "subset" for n in pruned.walk()):
            check_possible_values(pruned, {})
    finally:
        sys.setrecursionlimit(limit)
    return pruned


_SUBSET = _KINDS.index("subset")


def _subset_maps(flat: FlatTree) -> tuple[np.ndarray, np.ndarray] | None:
    """The compiled pruning's routing of subset tests: node i sends value code c to branch
    map[map_at[i] + c] (-1: none, as grow.branch_of); None when the tree has no subset test."""
    if not flat.subsets:
        return None
    tests = [(i, s) for i, s in sorted(flat.subsets.items()) if flat.kind[i] == _SUBSET]
    width = np.zeros(len(flat), dtype=np.int64)
    for i, blocks in tests:
        width[i] = max((max(b) for b in blocks if b), default=-1) + 1
    map_at = np.zeros(len(flat) + 1, dtype=np.int64)
    np.cumsum(width, out=map_at[1:])
    branch = np.full(int(map_at[-1]), -1, dtype=np.int32)
    for i, blocks in tests:
        for b, block in enumerate(blocks):
            branch[[map_at[i] + code for code in block]] = b
    return map_at, branch


def _copy_depth_first(tree: Node) -> list[Node]:
    """A copy of `tree` for pruning to change, as its nodes root first, depth first (walk's
    order). The class counts are shared, not copied: pruning replaces them, never changes
    one in place (216k array copies at 1M cases)."""
    def alone(n: Node) -> Node:
        return Node(n.klass, n.items, n.errors, n.class_dist, n.kind, n.attribute, n.cut, n.subsets, [])
    root = alone(tree)
    out, stack = [], [(tree, root)]
    while stack:            # not recursive: trees can be deep and 200k nodes large
        src, dst = stack.pop()
        out.append(dst)
        kids = [alone(b) for b in src.branches]
        dst.branches.extend(kids)
        stack.extend(zip(reversed(src.branches), reversed(kids)))
    return out


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
