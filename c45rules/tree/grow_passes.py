"""Growing the C4.5 tree in passes over batches of cases (issue 50): one pass per tree level.

Each pass routes every batch's cases through the tree grown so far to the open nodes of the
level (a case with an unknown tested value goes down every branch that has cases, its weight
scaled by the branch's share of the known weight, spec 2.7) and adds its weight to the AVC
groups of its node (RainForest: Gehrke, Ramakrishnan, Ganti): per discrete attribute the
(value, class) weights, unknowns included; per continuous attribute the (distinct value,
class) weights and the unknowns' class weights. The merged tables then decide each node's
test with the functions the in-memory growth uses (split.py, grow.choose_tests/snap_cut).
Memory is bounded by the tables of one level's open nodes and one batch's arrays, never by
the rows.

Sums do not depend on batch boundaries: weights are added as int64 fixed point (multiples of
2^-32, each case's float32 weight rounded once to that grid), exact and associative, and each
sum is rounded once to float32. With unit weights and no unknowns the sums are the exact
integer counts, so the tree equals grow_tree's node for node. With unknowns, c4.5 adds float32
fractional weights one case at a time in its own order, which a level-wise pass cannot replay:
see tests/tree/test_grow_passes.py for the sets where the trees agree.
"""
from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from ..data.costs import cheapest_class
from ..data.distinct import sorted_distinct
from ..data.schema import Dataset, Schema
from ..errors import InputError
from .grow import choose_tests, collapse, snap_cut
from .node import Node
from .split import F32, MANY_VALUES, NO_GAIN, best_cuts, discrete_gains, forget_tables

Batches = Callable[[], Iterable[Dataset]]

_SCALE = float(1 << 32)        # fixed point: weights are held as multiples of 2^-32
_MAX_WEIGHT = float(1 << 30)   # total weight below this keeps every fixed-point sum in int64
_BLOCK = 4_000_000             # rows x attributes x classes per best_cuts call


def _fixed(w: np.ndarray) -> np.ndarray:
    """float32 weights as int64 multiples of 2^-32 (rounded to nearest)."""
    return np.rint(w.astype(np.float64) * _SCALE).astype(np.int64)


def _f32(fixed: np.ndarray) -> np.ndarray:
    """Fixed-point sums as float32, rounded once (via double: exact below 2^53 units)."""
    return (np.asarray(fixed).astype(np.float64) / _SCALE).astype(np.float32)


def _sums(keys: np.ndarray, w: np.ndarray, size: int) -> np.ndarray:
    """int64 fixed-point sums of `w` per key in [0, size): exact in any order."""
    out = np.zeros(size, dtype=np.int64)
    if w.size and (w == w[0]).all():
        # one weight for all (unit weights): counts times it
        return np.bincount(keys, minlength=size).astype(np.int64) * w[0]
    np.add.at(out, keys, w)
    return out


class _Route:
    """One grown level's tests, for routing cases to the next level: per node its tested
    attribute (-1: closed), kind (threshold or not), cut as float32, child index per branch
    in the next level (-1: no cases there) and each branch's float32 share of the known
    weight (for cases with an unknown value)."""

    def __init__(self, attr: np.ndarray, threshold: np.ndarray, cut32: np.ndarray, child: np.ndarray,
                 factor: np.ndarray):
        self.attr, self.threshold, self.cut32, self.child, self.factor = attr, threshold, cut32, child, factor


def _branches(route: _Route, ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Branch of each case at its node (value `values` of the node's attribute); -1 unknown."""
    threshold = route.threshold[ids]
    unknown = np.isnan(values) | (~threshold & (values < 0))
    with np.errstate(invalid="ignore"):
        # c4.5 holds values and cuts as floats and compares them as such
        above = (values.astype(np.float32) > route.cut32[ids]).astype(np.int64)
    branch = np.where(threshold, above, np.where(unknown, 0, values).astype(np.int64))
    branch[unknown] = -1
    return branch


def _route(routes: list[_Route], X: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cases of a batch (rows of X, weights w) at the open nodes of the level after `routes`:
    (row, node, float32 weight), a case once per node it reaches."""
    rows = np.arange(len(X))
    ids = np.zeros(len(X), dtype=np.int64)
    for route in routes:
        attr = route.attr[ids]
        open_ = attr >= 0
        rows, ids, w, attr = rows[open_], ids[open_], w[open_], attr[open_]
        branch = _branches(route, ids, X[rows, attr])
        known = branch >= 0
        child = np.where(known, route.child[ids, np.maximum(branch, 0)], -1)
        go = known & (child >= 0)
        new_rows, new_ids, new_w = [rows[go]], [child[go]], [w[go]]
        if not known.all():
            # an unknown value: down every branch that has cases, with the branch's share
            u = np.flatnonzero(~known)
            to = route.child[ids[u]]
            at, b = np.nonzero(to >= 0)
            new_rows.append(rows[u[at]])
            new_ids.append(to[at, b])
            new_w.append(w[u[at]] * route.factor[ids[u[at]], b])
        rows, ids, w = (np.concatenate(a) for a in (new_rows, new_ids, new_w))
    return rows, ids, w


class _ContinuousAVC:
    """One continuous attribute's AVC groups over a level's nodes: (node, value) sorted entries
    with their fixed-point class weights, and the unknowns' class weights per node."""

    def __init__(self, S: int, C: int):
        self.S, self.C = S, C
        self.node = np.empty(0, dtype=np.int64)
        self.value = np.empty(0, dtype=np.float64)
        self.table = np.empty((0, C), dtype=np.int64)
        self.unknown = np.zeros(S * C, dtype=np.int64)
        self.pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.pending_size = 0

    def add(self, ids: np.ndarray, values: np.ndarray, y: np.ndarray, w: np.ndarray) -> None:
        """Add one batch's cases (node, value, class, fixed-point weight)."""
        nan = np.isnan(values)
        if nan.any():
            self.unknown += _sums(ids[nan] * self.C + y[nan], w[nan], self.S * self.C)
        keep = ~nan
        part = _reduce(ids[keep], values[keep], y[keep, None] == np.arange(self.C)[None, :], w[keep], self.C)
        self.pending.append(part)
        self.pending_size += len(part[0])
        if self.pending_size > max(len(self.node), 1 << 16):
            self.merge()

    def merge(self) -> None:
        """Fold the pending batches' entries into the merged ones."""
        if not self.pending:
            return
        parts = [(self.node, self.value, self.table)] + self.pending
        node = np.concatenate([p[0] for p in parts])
        value = np.concatenate([p[1] for p in parts])
        table = np.concatenate([p[2] for p in parts])
        self.node, self.value, self.table = _reduce_table(node, value, table)
        self.pending, self.pending_size = [], 0


def _reduce(ids: np.ndarray, values: np.ndarray, onehot: np.ndarray, w: np.ndarray, C: int) -> tuple:
    """Entries (node, value, class weights) of cases, one per distinct (node, value)."""
    return _reduce_table(ids, values, np.where(onehot, w[:, None], 0))


def _reduce_table(node: np.ndarray, value: np.ndarray, table: np.ndarray) -> tuple:
    """Entries summed per distinct (node, value) (-0.0 and 0.0 are one value), sorted by both."""
    if not len(node):
        return node, value, table
    order = np.lexsort((value, node))
    node, value, table = node[order], value[order], table[order]
    new = np.ones(len(node), dtype=bool)
    new[1:] = (node[1:] != node[:-1]) | (value[1:] != value[:-1])
    at = np.flatnonzero(new)
    return node[at], value[at], np.add.reduceat(table, at, axis=0)


def grow_in_passes(batches: Batches, schema: Schema, *, min_objs: float = 2, gain_ratio: bool = True,
                   costs: np.ndarray | None = None) -> tuple[Node, dict]:
    """Grow the unpruned C4.5 tree (as grow_tree does, spec 2) in passes over `batches`: a
    zero-argument callable returning a fresh iterable of Dataset batches of `schema`, one call
    per pass. One pass per tree level; memory: the open nodes' AVC tables and one batch.

    Returns the tree and an info dict: passes, levels, and the largest AVC group (attribute,
    level, node within the level, entries: the node's distinct values x classes for a continuous
    attribute, (values + 1) x classes for a discrete one; 8 bytes each).

    Raises InputError when a batch has another schema, no class, or a total weight of 2^30 or more.
    """
    return _PassGrower(batches, schema, float(min_objs), gain_ratio, costs).run()


class _PassGrower:
    def __init__(self, batches: Batches, schema: Schema, min_objs: float, gain_ratio: bool,
                 costs: np.ndarray | None):
        self.batches, self.schema = batches, schema
        self.min_objs, self.gain_ratio, self.costs = min_objs, gain_ratio, costs
        attrs = schema.attributes
        self.A, self.C = len(attrs), len(schema.classes)
        self.cont = [i for i, a in enumerate(attrs) if a.is_continuous]
        self.disc = [i for i, a in enumerate(attrs) if a.is_discrete]
        self.nvals = np.array([len(attrs[i].values) for i in self.disc], dtype=np.int64)
        self.V = int(self.nvals.max()) + 1 if self.disc else 1
        self.routes: list[_Route] = []
        self.values: dict[int, tuple[np.ndarray, np.ndarray]] = {}   # the root's distinct values
        self.largest = {"attribute": None, "level": 0, "node": 0, "entries": 0}
        self.passes = 0

    def run(self) -> tuple[Node, dict]:
        root = Node(0, 0.0, 0.0, np.zeros(self.C, dtype=np.float32))
        nodes, tested = [root], np.zeros((1, self.A), dtype=bool)
        try:
            while nodes:
                nodes, tested = self.level(nodes, tested)
        finally:
            forget_tables()
        collapse(root)
        return root, {"passes": self.passes, "levels": len(self.routes), "largest_group": dict(self.largest)}

    # ---- one pass ---------------------------------------------------------------------------
    def scan(self, S: int) -> tuple[np.ndarray, np.ndarray, list[_ContinuousAVC]]:
        """One pass: the level's class weights (S x C), discrete tables (S, D, V, C) and
        continuous AVC groups, all fixed point."""
        C, D, V = self.C, len(self.disc), self.V
        dist = np.zeros(S * C, dtype=np.int64)
        disc = np.zeros(S * D * V * C, dtype=np.int64)
        cont = [_ContinuousAVC(S, C) for _ in self.cont]
        self.passes += 1
        for batch in self.batches():
            if batch.schema != self.schema:
                raise InputError(f"batch {batch.source!r} has another schema than the first")
            if batch.y is None:
                raise InputError(f"batch {batch.source!r} has no class column: growing a tree needs labelled cases")
            n = batch.n
            if n == 0:
                continue
            X = np.column_stack([c.astype(np.float64) for c in batch.columns]) if self.A else np.empty((n, 0))
            w = np.ones(n, dtype=np.float32) if batch.weights is None else batch.weights.astype(np.float32)
            rows, ids, w = _route(self.routes, X, w)
            y = batch.y[rows].astype(np.int64)
            wf = _fixed(w)
            dist += _sums(ids * C + y, wf, S * C)
            if D:
                codes = X[rows][:, self.disc]
                codes = np.where(np.isnan(codes) | (codes < 0), -1, codes).astype(np.int64) + 1
                keys = ((ids[:, None] * D + np.arange(D)[None, :]) * V + codes) * C + y[:, None]
                disc += _sums(keys.ravel(), np.repeat(wf, D), S * D * V * C)
            for j, a in enumerate(self.cont):
                cont[j].add(ids, X[rows, a], y, wf)
        for avc in cont:
            avc.merge()
        return dist.reshape(S, C), disc.reshape(S, D, V, C), cont

    # ---- one level --------------------------------------------------------------------------
    def level(self, nodes: list[Node], tested: np.ndarray) -> tuple[list[Node], np.ndarray]:
        """Label, test and split the level's nodes; return the next level's."""
        S, C = len(nodes), self.C
        fdist, fdisc, cont = self.scan(S)
        if not self.routes:
            self.first_level(fdist, cont)
        dist = _f32(fdist)
        cases = _f32(fdist.sum(axis=1))
        best_class = np.asarray(cheapest_class(dist, self.costs)).reshape(S)
        errors = cases - dist[np.arange(S), best_class]
        for node, klass, items, errs, row in zip(nodes, best_class.tolist(), cases.tolist(), errors.tolist(), dist):
            node.klass, node.items, node.errors, node.class_dist = klass, items, errs, row.copy()
        # spec 2.1
        active = ~((dist.max(axis=1) == cases) | (cases < 2 * self.min_objs))
        gain = np.full((S, self.A), NO_GAIN, dtype=np.float32)
        split = np.zeros((S, self.A), dtype=np.float32)
        below, above = np.zeros((S, self.A)), np.zeros((S, self.A))
        act = np.flatnonzero(active)
        self.note_largest(fdisc, cont, len(self.routes))
        if act.size and self.disc:
            D = len(self.disc)
            tables = _f32(fdisc[act]).transpose(1, 0, 2, 3).reshape(D * act.size, self.V, C)
            g, s = discrete_gains(tables, np.tile(cases[act], D), self.min_objs)
            g, s = g.reshape(D, act.size).T, s.reshape(D, act.size).T
            done = tested[np.ix_(act, self.disc)]
            gain[np.ix_(act, self.disc)] = np.where(done, NO_GAIN, g)
            split[np.ix_(act, self.disc)] = np.where(done, F32(0), s)
        if act.size and self.cont:
            self.cuts(act, cases, cont, gain, split, below, above)
        chosen = np.full(S, -1, dtype=np.int64)
        if act.size:
            chosen[act] = choose_tests(gain[act], split[act], self.left_out, self.gain_ratio)
        return self.divide(nodes, chosen, best_class, cases, fdisc, cont, below, above, tested)

    def first_level(self, fdist: np.ndarray, cont: list[_ContinuousAVC]) -> None:
        """From the root's tables: each continuous attribute's distinct values (where cuts snap
        to) and the many-valued attributes left out of the average gain (spec 2.5)."""
        n_all = float(_f32(fdist.sum()))
        if n_all >= _MAX_WEIGHT:
            raise InputError(f"the cases weigh {n_all:g} in all: growing in passes sums weights below 2^30")
        for j, a in enumerate(self.cont):
            vals = sorted_distinct(cont[j].value)
            self.values[a] = (vals, vals.astype(np.float32))
        active = [a for a in self.schema.attributes if a.kind != "ignore"]
        multi_val = all(a.is_discrete and len(a.values) >= MANY_VALUES * n_all for a in active)
        many = np.zeros(self.A, dtype=bool)
        for j, i in enumerate(self.disc):
            many[i] = self.nvals[j] >= MANY_VALUES * n_all
        self.left_out = many & (not multi_val)

    def note_largest(self, fdisc: np.ndarray, cont: list[_ContinuousAVC], level: int) -> None:
        """Keep the level's largest AVC group if it is the largest so far."""
        for j, a in enumerate(self.cont):
            if len(cont[j].node):
                counts = np.bincount(cont[j].node)
                s = int(np.argmax(counts))
                self.bigger(a, level, s, int(counts[s]) * self.C)
        for j, a in enumerate(self.disc):
            if fdisc.shape[0]:
                entries = int((self.nvals[j] + 1) * self.C)
                self.bigger(a, level, 0, entries)

    def bigger(self, a: int, level: int, node: int, entries: int) -> None:
        if entries > self.largest["entries"]:
            self.largest.update(attribute=self.schema.attributes[a].name, level=level, node=node, entries=entries)

    def cuts(self, act: np.ndarray, cases: np.ndarray, cont: list[_ContinuousAVC], gain: np.ndarray,
             split: np.ndarray, below: np.ndarray, above: np.ndarray) -> None:
        """Each active node's best cut of each continuous attribute, by best_cuts over the node's
        AVC entries: a row per (value, class) with its weight, the unknowns' classes last."""
        C, k = self.C, len(self.cont)
        # every attribute's entries as rows (node, value, class, weight) once for the level
        entries = []
        for avc in cont:
            table = _f32(avc.table)
            at, cls = np.nonzero(table > 0)          # by node, value, then class
            node = avc.node[at]
            entries.append((np.searchsorted(node, np.arange(len(cases) + 1)), avc.value[at], table[at, cls], cls,
                            _f32(avc.unknown).reshape(len(cases), C)))
        for s in act.tolist():
            cols = []
            for bounds, value, weight, cls, unknown in entries:
                lo, hi = bounds[s], bounds[s + 1]
                uc = np.flatnonzero(unknown[s] > 0)
                cols.append((np.concatenate([value[lo:hi], np.full(len(uc), np.nan)]),
                             np.concatenate([weight[lo:hi], unknown[s, uc]]),
                             np.concatenate([cls[lo:hi], uc])))
            n = max(len(c[0]) for c in cols)
            step = max(1, _BLOCK // max(1, n * C))
            for b in range(0, k, step):
                block = cols[b:b + step]
                vals = np.full((n, len(block)), np.nan)
                w = np.zeros((n, len(block)), dtype=np.float32)
                y = np.zeros((n, len(block)), dtype=np.int64)
                for j, (v, wt, c) in enumerate(block):
                    vals[:len(v), j], w[:len(v), j], y[:len(v), j] = v, wt, c
                g, sp, at = best_cuts(vals, w, y, C, cases[s], self.min_objs)
                attrs = self.cont[b:b + step]
                gain[s, attrs], split[s, attrs] = g, sp
                ok = np.flatnonzero(at >= 0)
                below[s, [attrs[j] for j in ok]] = vals[at[ok], ok]
                above[s, [attrs[j] for j in ok]] = vals[at[ok] + 1, ok]

    def divide(self, nodes: list[Node], chosen: np.ndarray, best_class: np.ndarray, cases: np.ndarray,
               fdisc: np.ndarray, cont: list[_ContinuousAVC], below: np.ndarray, above: np.ndarray,
               tested: np.ndarray) -> tuple[list[Node], np.ndarray]:
        """Set each chosen test, make the children and the routing to them."""
        S, C = len(nodes), self.C
        attrs = self.schema.attributes
        F = max([2] + [len(attrs[a].values) for a in self.disc])
        child = np.full((S, F), -1, dtype=np.int64)
        factor = np.zeros((S, F), dtype=np.float32)
        cut32 = np.zeros(S, dtype=np.float32)
        threshold = np.zeros(S, dtype=bool)
        next_nodes: list[Node] = []
        parents: list[int] = []
        for s in np.flatnonzero(chosen >= 0).tolist():
            a, node = int(chosen[s]), nodes[s]
            node.attribute = a
            if attrs[a].is_continuous:
                j = self.cont.index(a)
                vals, vals32 = self.values[a]
                cut = float(snap_cut(vals, vals32, below[s, a], above[s, a]))
                node.kind, node.cut = "threshold", cut
                threshold[s], cut32[s] = True, np.float32(cut)
                avc = cont[j]
                lo, hi = np.searchsorted(avc.node, [s, s + 1])
                right = avc.value[lo:hi].astype(np.float32) > np.float32(cut)
                table = avc.table[lo:hi]
                weights = np.array([table[~right].sum(), table[right].sum()])
                filled = np.array([(table[~right] != 0).any(), (table[right] != 0).any()])
                unknown = avc.unknown[s * C:(s + 1) * C].sum()
            else:
                node.kind = "discrete"
                j = self.disc.index(a)
                t = fdisc[s, j, :self.nvals[j] + 1]
                weights = t[1:].sum(axis=1)
                filled = (t[1:] != 0).any(axis=1)
                unknown = t[0].sum()
            # c4.5's factor: the branch's known weight over the node's, in float (grow.grow)
            known_total = F32(cases[s]) - _f32(unknown)
            for v in range(len(weights)):
                if filled[v]:
                    child[s, v] = len(next_nodes)
                    factor[s, v] = _f32(weights[v]) / known_total
                    next_nodes.append(Node(0, 0.0, 0.0, node.class_dist))
                    parents.append(s)
                    branch = next_nodes[-1]
                else:
                    branch = Node(int(best_class[s]), 0.0, 0.0, node.class_dist)
                node.branches.append(branch)
        self.routes.append(_Route(chosen, threshold, cut32, child, factor))
        parent = np.array(parents, dtype=np.int64)
        next_tested = tested[parent]
        next_tested[np.arange(len(parent)), chosen[parent]] = True
        return next_nodes, next_tested
