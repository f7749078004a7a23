"""Growing the tree (c4.5 FormTree, spec 2): divide and conquer with fractional weights.

Cases with an unknown value of the tested attribute go down every branch with their
weight scaled by the branch's share of the known weight (2.7); subtrees that do no
better than a leaf are collapsed (2.8). The result is the "unpruned" tree c4.5rules reads.
"""
from __future__ import annotations

import sys
from typing import Callable

import numpy as np

from ..data.costs import cheapest_class
from ..data.distinct import count_distinct
from ..data.schema import Dataset
from ..workers import fork_map, give_back_memory, resolve_jobs, shared_empty, thread_map
from .node import _KINDS, FlatTree, Node, linked
from .split import (_EXACT, EPSILON, F32, GAP, MANY_VALUES, NO_GAIN, _gain, _xlogx_table, best_cuts,
                    discrete_gains, forget_tables, info, log2_table, min_split_weight, seq_sum, threshold_cost,
                    worth)
from .subset import subset_test

try:
    from . import _grow as _native
except ImportError:     # built only where a C compiler was there: numpy does the same passes
    _native = None

# columns x rows x classes above which continuous attributes are evaluated one at a time
_BLOCK = 4_000_000
# cases x continuous attributes below which a level's per-attribute work stays in this process
_FORK_WORK = 4_000_000


class _Grower:
    def __init__(self, data: Dataset, min_objs: float, gain_ratio: bool, subset: bool,
                 by_level: bool = True, jobs: int = 1, leaf_ratio: float | None = None):
        schema = data.schema
        # boosting's later trials (rules/boost.py): a node's leaf budget is leaf_ratio x its weight
        self.leaf_ratio = leaf_ratio
        self.data = data
        self.y = data.y.astype(np.int64)
        self.C = len(schema.classes)
        self.min_objs = float(min_objs)
        self.gain_ratio = gain_ratio
        self.subset = subset
        self.jobs = resolve_jobs(jobs)
        self.costs = data.costs     # None: each node's class is its most frequent one
        # c4.5 ItemCount is a float: each case starts at its given weight (data/weights.py)
        self.weights = (np.ones(data.n, dtype=np.float32) if data.weights is None
                        else data.weights.astype(np.float32))
        self.cont = [i for i, a in enumerate(schema.attributes) if a.is_continuous]
        self.disc = [i for i, a in enumerate(schema.attributes) if a.is_discrete]
        self.nvals = np.array([len(schema.attributes[i].values) for i in self.disc], dtype=np.int64)
        # value codes compactly (>= -2, < number of values), filled column by column; the
        # node-by-node search takes rows of continuous values from an (n x k) copy made
        # only if it runs
        self.Xd = None
        if self.disc:
            widest = max(len(schema.attributes[i].values) for i in self.disc)
            self.Xd = np.empty((data.n, len(self.disc)),
                               dtype=np.int8 if widest < 2**7 else np.int16 if widest < 2**15 else np.int64)
            for j, i in enumerate(self.disc):
                self.Xd[:, j] = data.columns[i]
        self._Xc: np.ndarray | None = None
        self._ranked: tuple | None = None           # for the compiled node steps, see ranked
        self.tested = np.zeros(len(schema.attributes), dtype=np.int64)
        self.vals32: dict[int, np.ndarray] = {}
        n_all = data.n if data.weights is None else float(self.weights.sum(dtype=np.float64))
        active = [a for a in schema.attributes if a.kind != "ignore"]
        # spec 2.5: the many-valued exclusion is lifted when every attribute is many-valued
        self.multi_val = subset or all(a.is_discrete and len(a.values) >= MANY_VALUES * n_all
                                       for a in active)
        self.many = np.zeros(len(schema.attributes), dtype=bool)
        for j, i in enumerate(self.disc):
            self.many[i] = self.nvals[j] >= MANY_VALUES * n_all
        self.max_v = int(self.nvals.max()) + 1 if self.disc else 1
        self.offsets = (np.arange(len(self.disc)) * self.max_v * self.C) if self.disc else None
        self.clean = np.ones(data.n, dtype=bool)
        for i in self.cont:
            self.clean &= ~np.isnan(data.columns[i])
        for i in self.disc:
            self.clean &= data.columns[i] >= 0
        # the node-by-node growth in the compiled module, but for subset tests (-s)
        self.compiled = _native is not None and not subset and data.n < 2**31 - 1
        # subset tests (-s) are searched node by node; a leaf budget acts node by node too (the
        # level-wise growth knows none: only unit weights reach it, which boosted trials rarely have)
        self.levels = _Levels(self) if by_level and not subset and leaf_ratio is None else None

    def run(self) -> Node:
        """Grow the whole tree."""
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20_000))
        try:
            root = self.grow(np.arange(self.data.n))
        finally:
            sys.setrecursionlimit(limit)
        # the depth-first growth is over: its value ranks (k x n int32, 80 MB at 1M cases)
        # and row copy must not lie under the level-by-level arrays
        self._ranked = self._Xc = None
        if self.levels is not None:
            give_back_memory()
            self.levels.run()
        collapse(root)
        return root

    # ---- evaluation --------------------------------------------------------------
    def evaluate(self, idx: np.ndarray, w: np.ndarray, cases: np.float32, scans: tuple | None = None):
        """Gain, split information, cuts and subsets of every attribute at a node of cases idx.
        `scans` (windowing): (orders, items), each continuous attribute's cases in the order
        c4.5's scan of it sums them (k x n) and the node weight it starts from (k)."""
        A = len(self.data.schema.attributes)
        gain = np.full(A, NO_GAIN, dtype=np.float32)
        split = np.zeros(A, dtype=np.float32)
        cuts: dict[int, float] = {}
        subsets: dict[int, tuple] = {}
        yi = self.y[idx]
        if _native is not None:
            # the compiled node steps take the node's cases, weights and classes as they are
            idx, w = np.ascontiguousarray(idx, dtype=np.int64), np.ascontiguousarray(w, dtype=np.float32)
        if self.cont and self._Xc is None and (scans is not None or _native is None):
            self._Xc = np.column_stack([self.data.columns[i] for i in self.cont])
        if self.disc and _native is not None:
            # compiled: the same tables and gains (see the continuous attributes below)
            D = len(self.disc)
            tables = np.empty((D, self.max_v, self.C), dtype=np.float32)
            g, s = np.empty(D, np.float32), np.empty(D, np.float32)
            _native.node_discrete(self.Xd, self.Xd.itemsize, idx, w, yi, self.C, self.max_v, float(cases),
                                  self.min_objs, tables, g, s)
        elif self.disc:
            codes = self.Xd[idx].astype(np.int64)                  # (n, D), -1 unknown
            flat = self.offsets[None, :] + (codes + 1) * self.C + yi[:, None]
            size = len(self.disc) * self.max_v * self.C
            tables = class_sums(flat.ravel(), np.repeat(w, len(self.disc)), size)
            tables = tables.reshape(len(self.disc), self.max_v, self.C)
            g, s = discrete_gains(tables, cases, self.min_objs)
        if self.disc:
            for j, a in enumerate(self.disc):
                if self.subset and self.nvals[j] > 2:
                    res = subset_test(tables[j, : self.nvals[j] + 1], cases, self.min_objs,
                                      self.gain_ratio)
                    if res is not None:
                        gain[a], split[a], subsets[a] = res
                elif not self.tested[a]:
                    gain[a], split[a] = g[j], s[j]
        if self.cont and scans is not None:
            # c4.5's own orders, for float sums of fractional weights equal to its own
            rows = scans[0].T
            vals = self._Xc[rows, np.arange(len(self.cont))[None, :]]
            g, s, at = best_cuts(vals, self.weights[rows], self.y[rows], self.C, scans[1], self.min_objs)
            for j, a in enumerate(self.cont):
                gain[a], split[a] = g[j], s[j]
                if at[j] >= 0:
                    cuts[a] = float(self.snap_many(a, vals[at[j], j], vals[at[j] + 1, j]))
        elif self.cont and _native is not None:
            # compiled: the same sorts and float sums, without numpy's per-call costs (which
            # made a tree on data with unknown values take 17 s at 100k cases)
            k = len(self.cont)
            g, s = np.empty(k, np.float32), np.empty(k, np.float32)
            at, below, above = np.empty(k, np.int64), np.empty(k), np.empty(k)
            _native.node_cuts(*self.ranked(), idx, w, yi, self.C, float(cases), self.min_objs,
                              g, s, at, below, above)
            for j, a in enumerate(self.cont):
                gain[a], split[a] = g[j], s[j]
                if at[j] >= 0:
                    cuts[a] = float(self.snap_many(a, below[j], above[j]))
        elif self.cont:
            sub = self._Xc[idx]
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
                        cuts[a] = float(self.snap_many(a, vals[at[j], j], vals[at[j] + 1, j]))
        return gain, split, cuts, subsets

    def ranked(self) -> tuple:
        """The compiled node steps' view of the continuous attributes, made once: their value ranks
        (k x n, int32, value_ranks), their number, and each one's distinct known values (float64,
        then float32; attribute j's at at[j]..at[j + 1], by rank)."""
        if self._ranked is None and self.leaf_ratio is not None:
            # boosting's later trials grow on the same columns: their ranks are made once
            self._ranked = self.data._value_ranks.get(tuple(self.cont))
        if self._ranked is None:
            values = [self.data.sorted_values(a) for a in self.cont]
            at = np.concatenate([[0], np.cumsum([len(v) for v in values])]).astype(np.int64)
            values = np.concatenate(values) if values else np.empty(0)
            ranks = value_ranks([self.data.columns[a] for a in self.cont], self.data.n)
            self._ranked = (ranks, len(self.cont), values, values.astype(np.float32), at)
            if self.leaf_ratio is not None:
                self.data._value_ranks[tuple(self.cont)] = self._ranked
        return self._ranked

    def snap_many(self, a: int, below: np.ndarray, above: np.ndarray) -> np.ndarray:
        """snap_cut over the distinct training values of `a` (spec 2.6)."""
        vals = self.data.sorted_values(a)
        if a not in self.vals32:
            self.vals32[a] = vals.astype(np.float32)
        return snap_cut(vals, self.vals32[a], below, above)

    def choose(self, gain: np.ndarray, split: np.ndarray) -> np.ndarray:
        """choose_tests with this data's many-valued exclusion (spec 2.5), one node per row."""
        return choose_tests(gain, split, self.many & (not self.multi_val), self.gain_ratio)

    # ---- outcomes ----------------------------------------------------------------
    def outcomes(self, node: Node, idx: np.ndarray) -> np.ndarray:
        """Branch index of each case, -1 when its value is unknown (or fits no branch)."""
        return branch_of(node, self.data.columns[node.attribute][idx])

    # ---- recursion ---------------------------------------------------------------
    def node_test(self, idx: np.ndarray, reorder: Callable[[], tuple] | None = None) -> tuple[Node, int]:
        """The node of cases `idx` with its chosen test (spec 2.1-2.5) and its number of
        branches (0: it stays a leaf). `reorder`, called before the attributes are
        evaluated, gives the cases in the order c4.5's evaluation leaves them and each
        continuous attribute's scan order and weight sum (windowing, see `evaluate`)."""
        cases, dist = node_counts(self.weights, self.y, idx, self.C)
        best_class = cheapest_class(dist, self.costs)
        no_best = dist[best_class]
        node = Node(best_class, float(cases), float(cases - no_best), dist)
        # spec 2.1; the "one class" test is c4.5's float equality of two separate sums (of the
        # largest class: with costs, a class of zero cost may label a node of another class)
        if dist.max() == cases or cases < 2 * self.min_objs:
            return node, 0
        budget = self.budget(cases)
        if budget < 2:
            return node, 0
        scans = None
        if reorder is not None:
            idx, scans = reorder()
        w = self.weights[idx]
        gain, split, cuts, subsets = self.evaluate(idx, w, cases, scans)
        self.refuse_wide(gain, subsets, budget)
        a = int(self.choose(gain, split)[0])
        if a < 0:
            return node, 0
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
        return node, forks

    def budget(self, cases: np.float32) -> float:
        """The node's leaf budget: leaf_ratio x its weight (in double, as the compiled growth
        reckons it), infinite without a leaf ratio."""
        return np.inf if self.leaf_ratio is None else self.leaf_ratio * float(cases)

    def refuse_wide(self, gain: np.ndarray, subsets: dict[int, tuple], budget: float) -> None:
        """No discrete test at a node whose branches outnumber its leaf budget (its gain set to
        NO_GAIN, as an attribute tested above: the next best attribute is chosen)."""
        if budget == np.inf:
            return
        for j, a in enumerate(self.disc):
            forks = len(subsets[a]) if a in subsets else self.nvals[j]
            if forks > budget:
                gain[a] = NO_GAIN

    def grow(self, idx: np.ndarray) -> Node:
        if self.levels is not None and self.is_clean(idx):
            node = Node(0, 0.0, 0.0, np.zeros(self.C, dtype=np.float32))
            self.levels.add(node, idx, self.tested > 0)   # grown later, level by level
            return node
        if self.compiled:
            return self.grow_compiled(idx)
        node, forks = self.node_test(idx)
        if not forks:
            return node
        a, best_class, dist, cases = node.attribute, node.klass, node.class_dist, F32(node.items)
        w = self.weights[idx]
        out = self.outcomes(node, idx)
        # c4.5 groups the cases with unknown outcome at the front of the node's range and
        # passes them first to every branch: that order decides the float sums below it
        unknown = idx[out < 0]
        known_total = cases - seq_sum(w[out < 0])
        self.tested[a] += 1
        for v in range(forks):
            mine = idx[out == v]
            if mine.size > 0:
                factor = seq_sum(self.weights[mine]) / known_total
                self.weights[unknown] *= factor
                child = self.grow(np.concatenate([unknown, mine]))
                # undone by division as in c4.5 (not always exactly the old weight)
                self.weights[unknown] /= factor
            else:
                child = Node(best_class, 0.0, 0.0, dist)
            node.branches.append(child)
        self.tested[a] -= 1
        return node

    def grow_compiled(self, idx: np.ndarray) -> Node:
        """grow(idx) in the compiled module, depth first as here: the same nodes and weights,
        without a Python call per node (subtrees left to _Levels are registered with it)."""
        arrays, deferred = self.native_nodes(idx)
        nodes = linked(*arrays, {})
        self.defer(nodes, *deferred)
        return nodes[0]

    def native_nodes(self, idx: np.ndarray) -> tuple[tuple, tuple]:
        """The compiled growth from cases idx: the nodes as FlatTree's arrays (klass, items,
        errors, kind, attribute, cut, fanout, dist) and the subtrees left to _Levels (their
        nodes, case counts, cases and tested attributes)."""
        n, attrs = self.data.n, self.data.schema.attributes
        ranks, k, values, values32, at = self.ranked()
        kind = np.zeros(len(attrs), dtype=np.uint8)
        column = np.zeros(len(attrs), dtype=np.int64)
        kind[self.disc], column[self.disc] = 1, np.arange(len(self.disc))
        kind[self.cont], column[self.cont] = 2, np.arange(len(self.cont))
        Xd = self.Xd if self.Xd is not None else np.empty((n, 0), dtype=np.int8)
        out = _native.grow_nodes(ranks, k, np.ascontiguousarray(Xd), Xd.itemsize, len(self.disc), self.max_v, self.y,
                                 self.C, self.weights, self.clean.view(np.uint8), column, kind,
                                 (self.many & (not self.multi_val)).view(np.uint8), self.nvals, values, values32, at,
                                 self.tested, self.min_objs, self.gain_ratio, self.levels is not None,
                                 np.ascontiguousarray(idx, dtype=np.int64),
                                 0.0 if self.leaf_ratio is None else float(self.leaf_ratio))
        klass, items, errors, kind, attribute, cut, fanout = (
            np.frombuffer(b, dtype=t) for b, t in zip(out, (np.int64, np.float64, np.float64, np.int8, np.int64,
                                                              np.float64, np.int64)))
        # a writable copy: the nodes' class counts are rows of it
        dist = np.frombuffer(out[7], dtype=np.float32).reshape(len(klass), self.C).copy()
        deferred, sizes = np.frombuffer(out[8], dtype=np.int64), np.frombuffer(out[9], dtype=np.int64)
        cases = np.frombuffer(out[10], dtype=np.int64)
        tested = np.frombuffer(out[11], dtype=np.uint8).reshape(len(deferred), len(attrs)).astype(bool)
        return (klass, items, errors, kind, attribute, cut, fanout, dist), (deferred, sizes, cases, tested)

    def defer(self, nodes: list[Node], deferred: np.ndarray, sizes: np.ndarray, cases: np.ndarray,
              tested: np.ndarray) -> None:
        """Register with _Levels the subtrees the compiled growth left to it."""
        for at, lo, hi, done in zip(deferred.tolist(), np.cumsum(sizes) - sizes, np.cumsum(sizes), tested):
            nodes[at].class_dist = np.zeros(self.C, dtype=np.float32)
            self.levels.add(nodes[at], cases[lo:hi], done)

    def run_flat(self) -> Node | FlatTree:
        """run(), as a FlatTree when the compiled growth makes the whole tree (nothing left to
        _Levels): its nodes are never made as objects (400k of them, 300 MB while they were
        made, at 1M cases with unknown values; issue 33)."""
        idx = np.arange(self.data.n)
        if not self.compiled or (self.levels is not None and self.is_clean(idx)):
            return self.run()
        arrays, (deferred, sizes, cases, tested) = self.native_nodes(idx)
        self._ranked = self._Xc = None
        if len(deferred):
            # the subtrees left to _Levels grow as nodes from placeholders made as linked makes
            # them (the fields the levels do not set stay the compiled growth's), then go into
            # the arrays in their placeholders' stead
            klass, items, errors, kind, attribute, cut = (a[deferred].tolist() for a in arrays[:6])
            roots = [Node(klass[i], items[i], errors[i], arrays[7][at], _KINDS[kind[i]], attribute[i], cut[i])
                     for i, at in enumerate(deferred.tolist())]
            self.defer(roots, np.arange(len(roots)), sizes, cases, tested)
            del cases
            give_back_memory()
            self.levels.run()
            arrays = spliced(arrays, deferred, [FlatTree(r) for r in roots])
        return collapsed_flat(*arrays)

    def is_clean(self, idx: np.ndarray) -> bool:
        """True when the cases all weigh 1 and have no unknown value (so neither do any below)."""
        return bool(self.clean[idx].all() and (self.weights[idx] == 1).all())


class _Levels:
    """Grows subtrees whose cases weigh 1 and have no unknowns, one tree level at a time.

    Such a subtree's sums are exact integers, so its tests depend only on which cases
    reach each node, not on the order c4.5 visits them: every node of a level is
    evaluated at once instead of one numpy pass per node. For each continuous attribute
    the level's cases are kept sorted by (node, value): presorted once, then split stably
    into the children's ranges at each level.
    """

    def __init__(self, g: "_Grower"):
        self.g = g
        self.roots: list[tuple[Node, np.ndarray, np.ndarray]] = []
        self.cls_type = np.int8 if g.C < 127 else np.int32

    def add(self, node: Node, idx: np.ndarray, tested: np.ndarray) -> None:
        """Register a placeholder node to be grown over cases `idx`."""
        self.roots.append((node, idx, tested.copy()))

    def run(self) -> None:
        """Grow every registered subtree."""
        if not self.roots:
            return
        g = self.g
        nodes = [r[0] for r in self.roots]
        sizes = np.array([len(r[1]) for r in self.roots], dtype=np.int64)
        members = np.concatenate([r[1] for r in self.roots]).astype(np.int64)
        tested = np.array([r[2] for r in self.roots], dtype=bool).reshape(len(nodes), -1)
        self.roots = []
        self.seg = np.full(g.data.n, -1, dtype=np.int32)
        self.seg[members] = np.repeat(np.arange(len(nodes)), sizes)
        P, K = len(members), len(g.cont)
        self.classes = g.y.astype(self.cls_type)
        self.classes32 = g.y.astype(np.int32)
        position = np.int32 if g.data.n < 2**31 else np.int64
        # the compiled passes count in int and assume those counts exact as floats
        self.native = _native is not None and position == np.int32 and int(sizes.max()) < _EXACT
        # forked workers re-sort their rows in place in shared memory; the compiled passes
        # run in threads instead (they let go of the GIL), which share this process's memory
        empty = shared_empty if g.jobs > 1 and not self.native else np.empty
        self.order = empty((K, P), position)
        # each attribute's distinct values as floats, when every attribute has few enough of them
        # for the rows to hold 16-bit ranks into these tables instead of the float32 values
        self.tables: list[np.ndarray] | None = None
        if self.native:
            self.tables = few_values_tables(g.data, g.cont, g.jobs)
            # the values (floats in c4.5) and classes travel with the orders, so the cut
            # search reads them in order instead of fetching them case by case
            self.sorted_values = empty((K, P), np.float32 if self.tables is None else np.uint16)
            self.sorted_classes = empty((K, P), self.cls_type)
        root_starts = np.concatenate([[0], np.cumsum(sizes)])

        def presort(j: int) -> None:
            col = g.data.columns[g.cont[j]]
            if self.native and col.dtype == np.float64:
                # the permutation np.argsort(col, kind="stable") gives, by a radix sort
                order = np.empty(len(col), dtype=np.int32)
                _native.argsort(np.ascontiguousarray(col), order)
            else:
                order = np.argsort(col, kind="stable")
            if self.native:
                order = order.astype(np.int32, copy=False)
                _native.regroup(order, len(order), self.seg, root_starts)
                self.order[j] = order = order[:P]
                if self.tables is None:
                    self.sorted_values[j] = col[order]
                else:
                    # the level's cases are clean: every value is one of the table's
                    self.sorted_values[j] = np.searchsorted(g.data.sorted_values(g.cont[j]), col[order])
                self.sorted_classes[j] = self.classes[order]
            else:
                self.order[j] = self.regroup(order)

        # the level's cases and their nodes' positions are held here, not by the callers'
        # frames, so that divide lets go of each as soon as it is done with it (the old and
        # new levels' arrays were all alive at the regrouping's peak)
        self.members, self.seg_pos = members, None
        del members
        try:
            self.each_row(presort, P)
            while nodes:
                # a level's temporaries (up to glibc's 32 MB mmap threshold) are freed into the
                # C heap, where they stayed resident under the next level: 100 MB at 1M cases
                give_back_memory()
                nodes, sizes, tested = self.level(nodes, sizes, tested)
        finally:
            # the grower and this object refer to each other, and learn_tree pauses the
            # collector: without this the sorted rows (200 MB at 1M cases) outlive the tree
            self.seg = self.classes = self.classes32 = self.order = None
            self.sorted_values = self.sorted_classes = self.members = self.seg_pos = None

    def rows(self) -> list[np.ndarray]:
        """The arrays sorted by (node, value) per continuous attribute: orders, and in the
        compiled path the values and classes that travel with them."""
        return [self.order, self.sorted_values, self.sorted_classes] if self.native else [self.order]

    def keep(self, count: int) -> None:
        """Narrow the sorted arrays to their first `count` positions (the level's cases)."""
        rows = [narrow(r, count) for r in self.rows()]
        self.order = rows[0]
        if self.native:
            self.sorted_values, self.sorted_classes = rows[1], rows[2]

    def jobs(self, cases: int) -> int:
        """Workers for a level's per-attribute work on `cases` cases (1: not worth a fork)."""
        return self.g.jobs if cases * len(self.g.cont) >= _FORK_WORK else 1

    def each_row(self, fn: Callable[[int], None], cases: int) -> None:
        """fn(j) for every continuous attribute j, by workers for a level of `cases` cases
        worth it (fn writes row j of the sorted arrays, which workers share: threads, or
        forked processes and shared memory)."""
        jobs = self.jobs(cases)
        blocks = self.blocks(1 if jobs > 1 else len(self.g.cont), jobs)

        def block(b: int) -> None:
            for j in range(*blocks[b]):
                fn(j)

        self.map(block, len(blocks), jobs)

    def map(self, fn: Callable[[int], object], count: int, jobs: int) -> list:
        """[fn(0), ..., fn(count - 1)]: in threads when the work is in the compiled passes,
        else in forked workers."""
        return (thread_map if self.native else fork_map)(fn, count, jobs)

    def blocks(self, step: int, jobs: int) -> list[tuple[int, int]]:
        """The continuous attributes in runs [lo, hi) of at most `step`, at least `jobs` runs."""
        K = len(self.g.cont)
        step = max(1, min(step, -(-K // jobs)))
        return [(lo, min(lo + step, K)) for lo in range(0, K, step)]

    def regroup(self, order: np.ndarray) -> np.ndarray:
        """Permutation taking the cases of `order` in a node to node order (self.seg), stable."""
        keys = self.seg[order]
        inside = np.flatnonzero(keys >= 0)
        return order[inside[np.argsort(keys[inside], kind="stable")]]

    def level(self, nodes, sizes, tested):
        """Label, test and split every node of one level (cases self.members); return the
        next level."""
        g = self.g
        members = self.members
        C = g.C
        S = len(nodes)
        seg_pos = np.repeat(np.arange(S), sizes)
        counts = np.bincount(seg_pos * C + g.y[members], minlength=S * C).reshape(S, C)
        dist = counts.astype(np.float32)
        cases = sizes.astype(np.float32)
        best_class = cheapest_class(dist, g.costs)
        no_best = dist[np.arange(S), best_class]
        errors = cases - no_best
        # as Python numbers first: one conversion per array instead of one per node
        for node, klass, items, errs, row in zip(nodes, best_class.tolist(), cases.tolist(), errors.tolist(), dist):
            node.klass, node.items, node.errors = klass, items, errs
            node.class_dist = row.copy()
        # spec 2.1
        active = ~((dist.max(axis=1) == cases) | (cases < 2 * g.min_objs))
        if not active.all():
            # every attribute's array is grouped by node the same way, so one position mask
            stay = np.flatnonzero(active[seg_pos])
            members = self.members = members[stay]
            arrays = self.rows()

            def compact(j: int) -> None:
                # row by row (no second copy of all orders), rows in threads with -j
                for rows in arrays:
                    rows[j, :len(stay)] = rows[j, stay]

            if self.native:
                self.each_row(compact, len(stay))
            else:
                for j in range(len(g.cont)):
                    compact(j)
            self.keep(len(stay))
            del stay, arrays
            nodes = [n for n, ok in zip(nodes, active) if ok]
            sizes, tested, counts, best_class = sizes[active], tested[active], counts[active], best_class[active]
            S = len(nodes)
            if S == 0:
                return [], sizes, tested
            seg_pos = np.repeat(np.arange(S), sizes)
        A = len(g.data.schema.attributes)
        gain = np.full((S, A), NO_GAIN, dtype=np.float32)
        split = np.zeros((S, A), dtype=np.float32)
        cut_at = np.full((S, A), -1, dtype=np.int64)       # position in self.order of the cut
        starts = np.concatenate([[0], np.cumsum(sizes)])
        if g.disc:
            self.discrete(members, seg_pos, sizes.astype(np.float32), tested, gain, split)
        rows = None
        if g.cont:
            rows = _CutRows(seg_pos, starts, C, g.min_objs)
            jobs = self.jobs(len(members))
            blocks = self.blocks(max(1, _BLOCK // max(1, len(members) * C)), jobs)

            def cuts(b: int):
                lo, hi = blocks[b]
                order = self.order[lo:hi]
                if self.native:
                    return native_cuts(self.sorted_values[lo:hi], self.sorted_classes[lo:hi], rows, counts,
                                       g.min_objs, None if self.tables is None else self.tables[lo:hi])
                # c4.5 holds values as floats
                vals = np.stack([g.data.columns[a][o] for a, o in zip(g.cont[lo:hi], order)]).astype(np.float32)
                return segment_cuts(vals, self.classes[order], rows, counts, g.min_objs)

            # attributes are independent: blocks of them may go to workers
            for (lo, hi), found in zip(blocks, self.map(cuts, len(blocks), jobs)):
                attrs = g.cont[lo:hi]
                gain[:, attrs], split[:, attrs], cut_at[:, attrs] = found
        chosen = g.choose(gain, split)
        self.seg_pos = seg_pos
        del members, seg_pos, gain, split, rows
        return self.divide(nodes, chosen, cut_at, tested, best_class)

    def discrete(self, members, seg_pos, cases, tested, gain, split) -> None:
        """Gain and split information of every untested discrete attribute at every node."""
        g = self.g
        S, C = len(cases), g.C
        # attributes tested above every node are out; the rest grouped by number of values,
        # so each table is as wide as its attributes need (the tables grow with the nodes)
        groups: dict[int, list[int]] = {}
        for j, a in enumerate(g.disc):
            if not tested[:, a].all():
                groups.setdefault(int(g.nvals[j]) + 1, []).append(j)
        native = self.native and g.Xd.itemsize <= 2 and g.Xd.flags.c_contiguous
        if native:
            # gathered once: every group of attributes then reads the cases in order
            codes, classes = g.Xd[members], self.classes32[members]
            seg_pos = seg_pos.astype(np.int64, copy=False)
        for V, group in sorted(groups.items()):
            base = None if native else ((seg_pos * V + 1) * C + g.y[members])[:, None]
            # a few attributes at a time bounds both the case x attribute and the table arrays
            step = max(1, min(_BLOCK // max(1, len(members)), _BLOCK // (S * V * C)))
            for lo in range(0, len(group), step):
                js = np.array(group[lo:lo + step], dtype=np.int64)
                attrs = [g.disc[j] for j in js]
                if native:
                    tables = np.zeros(len(js) * S * V * C, dtype=np.int64)
                    _native.value_tables(codes, g.Xd.itemsize, seg_pos, classes, js, S, V, C, tables)
                    gd, sd = np.empty(len(js) * S, dtype=np.float32), np.empty(len(js) * S, dtype=np.float32)
                    _native.value_gains(tables, V, C, np.tile(cases, len(js)), _xlogx_table(len(members)),
                                        g.min_objs, gd, sd)
                else:
                    flat = base + (g.Xd[np.ix_(members, js)].astype(np.int64) * C
                                   + np.arange(len(js)) * (S * V * C))
                    tables = np.bincount(flat.ravel(), minlength=len(js) * S * V * C).astype(np.float32)
                    gd, sd = discrete_gains(tables.reshape(len(js) * S, V, C), np.tile(cases, len(js)),
                                            g.min_objs)
                done = tested[:, attrs]
                gain[:, attrs] = np.where(done, NO_GAIN, gd.reshape(len(js), S).T)
                split[:, attrs] = np.where(done, F32(0), sd.reshape(len(js), S).T)

    def divide(self, nodes, chosen, cut_at, tested, best_class):
        """Set each chosen test, create the children and group the cases by child (the next
        level's in self.members)."""
        g = self.g
        members, seg_pos = self.members, self.seg_pos
        self.members = self.seg_pos = None
        S = len(nodes)
        attrs = g.data.schema.attributes
        branch = np.full(len(members), -1, dtype=np.int64)
        forks = np.zeros(S, dtype=np.int64)
        cuts = np.zeros(S)
        test_of = chosen[seg_pos]                 # attribute tested at each case's node
        for j, a in enumerate(g.cont):
            segs = np.flatnonzero(chosen == a)
            if not segs.size:
                continue
            at = cut_at[segs, a]
            col = g.data.columns[a]
            cuts[segs] = g.snap_many(a, col[self.order[j, at]], col[self.order[j, at + 1]])
            forks[segs] = 2
            mine = test_of == a
            # c4.5 holds values and cuts as floats and compares them as such
            branch[mine] = np.where(col[members[mine]].astype(np.float32)
                                    <= cuts[seg_pos[mine]].astype(np.float32), 0, 1)
        for j, a in enumerate(g.disc):
            segs = np.flatnonzero(chosen == a)
            if not segs.size:
                continue
            forks[segs] = len(attrs[a].values)
            mine = test_of == a
            branch[mine] = g.Xd[members[mine], j]
        F = max(int(forks.max()) if S else 0, 1)
        known = branch >= 0
        counts = np.bincount(seg_pos[known] * F + branch[known], minlength=S * F).reshape(S, F)
        nonempty = counts > 0
        child_id = (np.cumsum(nonempty.ravel()) - 1).reshape(nonempty.shape)
        next_nodes: list[Node] = []
        split = np.flatnonzero(chosen >= 0)
        for s, a, cut, fork, filled, klass in zip(split.tolist(), chosen[split].tolist(), cuts[split].tolist(),
                                                  forks[split].tolist(), nonempty[split].tolist(),
                                                  best_class[split].tolist()):
            node = nodes[s]
            node.attribute = a
            if attrs[a].is_continuous:
                node.kind, node.cut = "threshold", cut
            else:
                node.kind = "discrete"
            for v in range(fork):
                if filled[v]:
                    child = Node(0, 0.0, 0.0, node.class_dist)
                    next_nodes.append(child)
                else:
                    child = Node(klass, 0.0, 0.0, node.class_dist)
                node.branches.append(child)
        self.seg[members] = np.where(known, child_id[seg_pos, np.maximum(branch, 0)], -1)
        del branch, known, test_of
        members = self.regroup(members)
        sizes = counts[nonempty].astype(np.int64)
        P, level_cases = len(members), len(seg_pos)
        if self.native:
            # cases of unsplit nodes have seg -1 and drop out; the rest go to their child's range
            child_starts = np.concatenate([[0], np.cumsum(sizes)])
            width = self.order.shape[1]

            def regroup_row(j: int) -> None:
                _native.regroup(self.order[j], width, self.seg, child_starts, self.sorted_values[j],
                                self.sorted_classes[j])
        else:
            move = _Split(seg_pos, chosen >= 0, nonempty, sizes)

            def regroup_row(j: int) -> None:
                cases = self.order[j, move.kept]
                row = np.empty(P, dtype=self.order.dtype)
                row[move.destinations(self.seg[cases])] = cases
                self.order[j, :P] = row

        del seg_pos
        self.each_row(regroup_row, level_cases)
        self.keep(P)
        parent = np.repeat(np.arange(S), nonempty.sum(axis=1))
        next_tested = tested[parent]
        next_tested[np.arange(len(parent)), chosen[parent]] = True
        self.members = members
        return next_nodes, sizes, next_tested


class _Split:
    """Where each position of a level's sorted arrays goes in the next level's (stable).

    Cases of a node that is split go to its children's ranges in child order, keeping
    their relative order. For a node with two children that is one running count of
    the cases going right; nodes with more children are sorted by child, stably.
    """

    def __init__(self, seg_pos: np.ndarray, split: np.ndarray, nonempty: np.ndarray, sizes: np.ndarray):
        n_children = nonempty.sum(axis=1)
        self.kept = np.flatnonzero(split[seg_pos])
        seg = seg_pos[self.kept]
        starts = np.concatenate([[0], np.cumsum(np.bincount(seg_pos, minlength=len(split)))])
        first_child = np.cumsum(n_children) - n_children
        self.child_start = np.concatenate([[0], np.cumsum(sizes)])[:-1]
        narrow = n_children[seg] <= 2
        self.narrow = np.flatnonzero(narrow)
        self.wide = np.flatnonzero(~narrow)
        k = self.narrow
        self.offset = (self.kept - starts[seg])[k]                  # position within its node
        self.node_first = np.arange(len(k)) - self.offset           # index in k of its node's first
        self.first_child = first_child[seg[k]]
        wide_children = np.flatnonzero(n_children[np.repeat(np.arange(len(n_children)), n_children)] > 2)
        # the wide children's cases, sorted by child, fill their ranges one after another
        self.wide_base = np.zeros(len(sizes), dtype=np.int64)
        self.wide_base[wide_children] = (self.child_start[wide_children]
                                         - (np.cumsum(sizes[wide_children]) - sizes[wide_children]))

    def destinations(self, child: np.ndarray) -> np.ndarray:
        """Next-level position of each kept position, given the child each one goes to."""
        dest = np.empty(len(child), dtype=np.int64)
        c = child[self.narrow]
        right = (c - self.first_child) == 1
        running = np.zeros(len(c) + 1, dtype=np.int64)
        np.cumsum(right, out=running[1:])
        before = running[:-1] - running[self.node_first]          # right-goers before, same node
        dest[self.narrow] = self.child_start[c] + np.where(right, before, self.offset - before)
        if self.wide.size:
            c = child[self.wide]
            order = np.argsort(c, kind="stable")
            dest[self.wide[order]] = self.wide_base[c[order]] + np.arange(len(c))
        return dest


class _CutRows:
    """Where a level's cut search may cut: per sorted position, what does not depend on values."""

    def __init__(self, seg_pos: np.ndarray, starts: np.ndarray, n_classes: int, min_objs: float):
        self.seg_pos, self.starts = seg_pos, starts
        self.sizes = np.diff(starts)
        known = self.sizes.astype(np.float32)
        P = len(seg_pos)
        self.low = (np.arange(P) - starts[seg_pos] + 1).astype(np.float32)
        min_split = min_split_weight(known, n_classes, min_objs)
        # the scan stops at the first row whose low weight exceeds K - MinSplit
        self.inside = ((self.low >= min_split[seg_pos]) & (self.low <= (known - min_split)[seg_pos]))
        self.inside[-1:] = False
        self.inside[:-1] &= seg_pos[:-1] == seg_pos[1:]


def segment_cuts(vals: np.ndarray, classes: np.ndarray, where: _CutRows, counts: np.ndarray,
                 min_objs: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """best_cuts for many nodes and attributes at once, unit weights, no unknowns (spec 2.3).

    Row j of `vals` (float32) holds each node's values of attribute j in ascending order,
    nodes one after another as `where` describes; `classes` is in the same order and
    `counts` holds each node's class counts. Integer counts give the same float results
    as c4.5's sums of unit weights. Returns (nodes x rows) penalised gains or -EPSILON,
    split information, and the position of the best cut's lower value or -1.
    """
    k, P = vals.shape
    S, C = counts.shape
    seg_pos, starts, low = where.seg_pos, where.starts, where.low
    cases = known = where.sizes.astype(np.float32)
    v = vals.astype(np.float64)
    # values are floats in c4.5; the 1e-5 gap test is done in double on them
    gap = np.zeros((k, P), dtype=bool)
    gap[:, :-1] = (v[:, :-1] < v[:, 1:] - GAP) & where.inside[None, :-1]
    del v
    cols, rows = np.nonzero(gap)
    del gap
    sr = seg_pos[rows]
    low_sel = _counts_below(classes, C, cols, rows, starts[sr])      # (classes, candidates)
    high_sel = counts.T[:, sr] - low_sel
    key = cols * S + sr                  # ascending: by attribute, then node, then row
    with np.errstate(divide="ignore", invalid="ignore"):
        unknown_rate = (1.0 - (known / cases).astype(np.float64)).astype(np.float32)
        base = info(counts) / known
        this_info = info(low_sel, axis=0) + info(high_sel, axis=0)
        gain = _gain(base[sr], unknown_rate[sr], this_info, known[sr])
        lo_r = low[rows]
        reasonable = (lo_r >= min_objs) & ((known[sr] - lo_r) >= min_objs) & (known[sr] != 0)
        gain = np.where(reasonable, gain, NO_GAIN)
        thresh_cost = threshold_cost(np.bincount(key, minlength=k * S), np.tile(cases, k))
        val = gain - thresh_cost[key]
    best_val = np.full(k * S, -np.inf, dtype=np.float32)
    at = np.full(k * S, -1, dtype=np.int64)
    if key.size:
        group = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        best_val[key[group]] = np.maximum.reduceat(val, group)
        # the first (lowest) row reaching the maximum, as c4.5's strict > scan keeps it
        top = np.flatnonzero(val == best_val[key])
        first = top[np.r_[True, key[top][1:] != key[top][:-1]]]
        at[key[first]] = rows[first]
    return _cut_results(best_val.reshape(k, S).T, at.reshape(k, S).T, where, min_objs)


def narrow(rows: np.ndarray, count: int) -> np.ndarray:
    """rows[:, :count]. When `rows` is (a leading view of) an array owning its memory and an
    eighth or more of that would go unused, the kept columns move to its front and the
    array is shrunk in place (realloc: glibc gives large blocks' tail pages back), so the
    deep levels, where the tree's nodes pile up, no longer hold the first level's rows
    (171 MB at 1M cases). Otherwise, a view."""
    owner = rows if rows.base is None else rows.base
    K = len(rows)
    if (not isinstance(owner, np.ndarray) or not owner.flags.owndata or not owner.flags.c_contiguous
            or owner.ndim != 2 or len(owner) != K
            or rows.__array_interface__["data"][0] != owner.__array_interface__["data"][0]):
        return rows[:, :count]
    width = owner.shape[1]
    if 8 * (width - count) < width:
        return rows[:, :count]
    flat = owner.reshape(-1)
    for j in range(1, K):       # forward: row j's new place ends before row j + 1's old one
        flat[j * count:(j + 1) * count] = flat[j * width:j * width + count]
    del flat, rows
    # no other view of the rows is alive here (the caller replaces its own with the result)
    owner.resize((K, count), refcheck=False)
    return owner


def few_values_tables(data: Dataset, cont: list[int], jobs: int = 1) -> list[np.ndarray] | None:
    """Each continuous attribute's distinct known values (Dataset.sorted_values) as float32, rank r
    at r, when every attribute has at most 2^16 of them (else None: the ranks would not fit 16 bits)."""
    def distinct(j: int) -> bool:
        a = cont[j]
        if a in data._sorted_values:
            return len(data._sorted_values[a]) <= _RANKS_16
        col = data.columns[a]
        if _native is None or col.dtype != np.float64 or len(col) >= 2**31:
            if count_distinct(col[~np.isnan(col)]) > _RANKS_16:
                return False    # counted without keeping the distinct values of a many-valued column
            return len(data.sorted_values(a)) <= _RANKS_16
        # np.unique's values from the compiled radix argsort (stable, NaN last), which lets go
        # of the GIL: np.unique's comparison sort of every column was 1.4 s of serial growth
        # at 1M cases
        order = np.empty(len(col), dtype=np.int32)
        _native.argsort(np.ascontiguousarray(col), order)
        ranked = col[order]
        del order
        known = len(ranked)
        if known and np.isnan(ranked[-1]):
            known = int(np.searchsorted(np.isnan(ranked), True))
        ranked = ranked[:known]
        new = np.ones(known, dtype=bool)
        np.not_equal(ranked[1:], ranked[:-1], out=new[1:])
        if int(np.count_nonzero(new)) > _RANKS_16:
            return False
        data._sorted_values[a] = ranked[new]
        return True

    if not all(thread_map(distinct, len(cont), jobs)):
        return None
    return [data.sorted_values(a).astype(np.float32) for a in cont]


_RANKS_16 = 1 << 16


def native_cuts(vals: np.ndarray, classes: np.ndarray, where: _CutRows, counts: np.ndarray,
                min_objs: float, tables: list[np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """segment_cuts in the compiled module (same arguments, `classes` int8 or int32); with
    `tables`, `vals` are uint16 ranks into each attribute's table of float32 values."""
    S = len(where.sizes)
    known = where.sizes.astype(np.float32)
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        base = np.ascontiguousarray(info(counts) / known, dtype=np.float32)
    top = int(where.sizes.max()) if S else 0
    xlogx, log2 = _xlogx_table(top), log2_table(top)
    inside = where.inside.view(np.uint8)
    starts = np.ascontiguousarray(where.starts, dtype=np.int64)
    best_val = np.empty((len(vals), S), dtype=np.float32)
    at = np.empty((len(vals), S), dtype=np.int64)
    for j in range(len(vals)):
        _native.cut_search(vals[j], classes[j], classes.itemsize, starts, counts, inside, base, xlogx, log2,
                           float(min_objs), best_val[j], at[j], *(() if tables is None else (tables[j],)))
    return _cut_results(best_val.T, at.T, where, min_objs)


def _cut_results(best_val: np.ndarray, at: np.ndarray, where: _CutRows,
                 min_objs: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """segment_cuts' outputs from each (node, row)'s best penalised gain and its position."""
    starts = where.starts
    cases = known = where.sizes.astype(np.float32)
    ok = (known >= 2 * min_objs)[:, None] & (best_val > 0)
    lo = np.where(at >= 0, at - starts[:-1, None] + 1, 0)
    sizes = where.sizes[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        split = info(np.stack([np.zeros_like(lo), lo, sizes - lo], axis=2)) / cases[:, None]
    return (np.where(ok, best_val, NO_GAIN).astype(np.float32),
            np.where(ok, split, F32(0)).astype(np.float32), np.where(ok, at, -1))


def _counts_below(classes: np.ndarray, n_classes: int, cols: np.ndarray, rows: np.ndarray,
                  starts: np.ndarray) -> np.ndarray:
    """Class counts over positions starts..rows (inclusive) of row `cols` of `classes`.

    Several classes share one int64 running count, each in its own bit field wide
    enough for any count, so one cumulative sum serves them all (fields never borrow:
    each one's running count only grows).
    """
    k, P = classes.shape
    bits = max(1, int(P).bit_length())
    per_word = max(1, 63 // bits)
    out = np.empty((n_classes, len(rows)), dtype=np.int64)
    mask = (1 << bits) - 1
    for c0 in range(0, n_classes, per_word):
        c1 = min(c0 + per_word, n_classes)
        unit = np.zeros(n_classes, dtype=np.int64)        # what one case of each class adds
        unit[c0:c1] = np.left_shift(1, np.arange(c1 - c0, dtype=np.int64) * bits)
        cum = np.zeros((k, P + 1), dtype=np.int64)
        np.cumsum(unit[classes], axis=1, out=cum[:, 1:])
        both = cum[cols, rows + 1] - cum[cols, starts]
        for c in range(c0, c1):
            out[c] = (both >> ((c - c0) * bits)) & mask
    return out


def collapse(root: Node) -> None:
    """Make a leaf of every test that does no better than a leaf, bottom up (spec 2.8).

    A test's errors are the float sum of its branches' errors in branch order; a
    collapsed test keeps that sum as its errors, as c4.5 does.
    """
    stack = [(root, False)]
    while stack:
        node, seen = stack.pop()
        if node.is_leaf:
            continue
        if not seen:
            stack.append((node, True))
            stack.extend((b, False) for b in reversed(node.branches))
            continue
        errors = F32(0)
        for b in node.branches:
            errors = errors + F32(b.errors)
        leaf_errors = node.errors
        node.errors = float(errors)
        if float(errors) >= leaf_errors - EPSILON:
            node.make_leaf()


def spliced(arrays: tuple, at: np.ndarray, subtrees: list[FlatTree]) -> tuple:
    """FlatTree's arrays (klass .. dist, depth first) with the leaf at each position `at`
    (ascending) replaced by the nodes of its subtree, which then lie there in depth-first order."""
    pieces: list[list[np.ndarray]] = [[] for _ in arrays]
    prev = 0
    for a, sub in zip(at.tolist(), subtrees):
        got = (sub.klass, sub.items, sub.errors, sub.kind, sub.attribute, sub.cut, sub.fanout, sub.dist)
        for k, whole in enumerate(arrays):
            pieces[k].append(whole[prev:a])
            pieces[k].append(np.asarray(got[k], dtype=whole.dtype).reshape((-1,) + whole.shape[1:]))
        prev = a + 1
    for k, whole in enumerate(arrays):
        pieces[k].append(whole[prev:])
    return tuple(np.concatenate(p) for p in pieces)


def collapsed_flat(klass: np.ndarray, items: np.ndarray, errors: np.ndarray, kind: np.ndarray, attribute: np.ndarray,
                   cut: np.ndarray, fanout: np.ndarray, dist: np.ndarray) -> FlatTree:
    """collapse() on a tree held as FlatTree's arrays (depth first): the same errors and the same
    tests made leaves (their cut kept, as make_leaf keeps it), their subtrees dropped."""
    N = len(kind)
    fan = fanout.tolist()
    span = [1] * N          # nodes in each subtree; a node's children follow it in turn
    errs = errors.tolist()
    folded = np.zeros(N, dtype=bool)
    for i in range(N - 1, -1, -1):      # children (later in the order) settle first
        if not fan[i]:
            continue
        j, total = i + 1, F32(0)
        for _ in range(fan[i]):
            total = total + F32(errs[j])
            j += span[j]
        span[i] = j - i
        # a test's errors are its branches' float sum, collapsed or not (collapse)
        leaf_errors, errs[i] = errs[i], float(total)
        if float(total) >= leaf_errors - EPSILON:
            folded[i] = True
    # the nodes below a collapsed test: a range after it each, nested ranges counted once
    spans = np.array(span, dtype=np.int64)
    at = np.flatnonzero(folded)
    inside = np.zeros(N + 1, dtype=np.int64)
    np.add.at(inside, at + 1, 1)
    np.add.at(inside, at + spans[at], -1)
    keep = np.cumsum(inside[:N]) == 0
    kind, attribute, fanout = kind.copy(), attribute.copy(), fanout.copy()
    kind[folded], attribute[folded], fanout[folded] = 0, -1, 0
    errors = np.array(errs, dtype=np.float64)
    return FlatTree.of_arrays(klass[keep], items[keep], errors[keep], kind[keep], attribute[keep], cut[keep],
                              fanout[keep], dist[keep])


def value_ranks(columns: list[np.ndarray], n: int) -> np.ndarray:
    """Dense rank of each value within its column (int32, a column a row): equal values (-0.0
    and 0.0 among them) share a rank, rank r is the r-th distinct known value (Dataset.sorted_values)
    and every unknown (NaN) has the one highest, so that sorting a node's cases by rank, ties in
    the node's order, is numpy's stable argsort of the values."""
    ranks = np.empty((len(columns), n), dtype=np.int32)
    for j, col in enumerate(columns):
        col = np.ascontiguousarray(col, dtype=np.float64)
        if _native is not None and n < 2**31:
            order = np.empty(n, dtype=np.int32)
            _native.argsort(col, order)       # the permutation of np.argsort(kind="stable")
        else:
            order = np.argsort(col, kind="stable")
        s = col[order]
        known = ~np.isnan(s)
        new = np.ones(n, dtype=bool)
        new[1:] = s[1:] != s[:-1]
        r = np.cumsum(new) - 1
        r[~known] = r[known].max() + 1 if known.any() else 0
        ranks[j, order] = r
    return ranks


def choose_tests(gain: np.ndarray, split: np.ndarray, left_out: np.ndarray, gain_ratio: bool) -> np.ndarray:
    """c4.5's attribute choice (spec 2.5) with its float arithmetic, one node per row; `left_out`:
    the attributes kept out of the average gain (many-valued, spec 2.5).

    The average gain is a float running sum over the attributes in order (adding the
    0.0 of an excluded attribute leaves a float sum unchanged); gain ratios are float
    quotients, so mathematically equal ratios tie or not exactly as in c4.5, and ties
    go to the first attribute (strict `>` against the best so far). -1: no test.
    """
    gain = np.atleast_2d(gain).astype(np.float32)
    split = np.atleast_2d(split).astype(np.float32)
    usable = gain.astype(np.float64) > -EPSILON
    possible = usable & ~np.asarray(left_out, dtype=bool)[None, :]
    count = possible.sum(axis=1)
    total = seq_sum(np.where(possible, gain, F32(0)), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        avg = np.where(count > 0, total / count.astype(np.float32), F32(1e6)).astype(np.float32)
    val = worth(gain, split, avg[:, None], gain_ratio)
    val = np.where(usable, val, -np.inf)
    best = np.argmax(val, axis=1)
    return np.where(val[np.arange(len(best)), best] > NO_GAIN, best, -1)


def snap_cut(vals: np.ndarray, vals32: np.ndarray, below: np.ndarray, above: np.ndarray) -> np.ndarray:
    """Largest of the distinct training values `vals` (ascending; `vals32` as float32) that is
    <= the midpoint of below/above (spec 2.6).

    The midpoint and the comparison are in single precision as in c4.5: whether a
    training value that lies at the midpoint counts as below it depends on that.
    """
    mid = (np.asarray(below, np.float32) + np.asarray(above, np.float32)) / np.float32(2)
    return vals[np.searchsorted(vals32, mid, side="right") - 1]


def node_counts(weights: np.ndarray, y: np.ndarray, idx: np.ndarray, n_classes: int) -> tuple[np.float32, np.ndarray]:
    """(seq_sum(weights[idx]), class_sums(y[idx], weights[idx], n_classes)): a node's total and
    class weights, float sums in the node's order (one compiled pass when built)."""
    if _native is not None:
        dist = np.empty(n_classes, dtype=np.float32)
        cases = _native.node_counts(weights, y, np.ascontiguousarray(idx, dtype=np.int64), dist)
        return F32(cases), dist
    w = weights[idx]
    return seq_sum(w), class_sums(y[idx], w, n_classes)


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
              subset: bool = False, jobs: int = 1, flat: bool = False,
              leaf_ratio: float | None = None) -> Node | FlatTree:
    """Grow the unpruned C4.5 tree on `data` (spec 2); with `flat`, as a FlatTree where the
    growth can make it without node objects (else as nodes all the same). `leaf_ratio` (boosting's
    later trials, rules/boost.py): a node whose leaf budget, leaf_ratio x its weight, is under 2
    stays a leaf, and no discrete test has more branches than its node's budget."""
    if data.y is None or data.n == 0:
        raise ValueError("growing a tree needs labelled cases")
    try:
        grower = _Grower(data, min_objs, gain_ratio, subset, jobs=jobs, leaf_ratio=leaf_ratio)
        return grower.run_flat() if flat else grower.run()
    finally:
        forget_tables()     # the next tree makes them again (milliseconds at 1M cases)
