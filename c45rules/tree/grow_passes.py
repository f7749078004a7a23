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
from ..data.distinct import hash_codes
from ..data.schema import Dataset, Schema
from ..errors import InputError
from ..workers import give_back_memory
from .grow import choose_tests, collapse, snap_cut
from .node import Node
from .split import F32, MANY_VALUES, NO_GAIN, best_cuts, discrete_gains, forget_tables

Batches = Callable[[], Iterable[Dataset]]

_SCALE = float(1 << 32)        # fixed point: weights are held as multiples of 2^-32
_MAX_WEIGHT = float(1 << 30)   # total weight below this keeps every fixed-point sum in int64
_CELLS = 1 << 20               # discrete table cells (nodes x attributes x values x classes) at a time
_CHUNK = 1 << 21               # float64 sums of this many 32-bit halves are exact (< 2^53)

try:
    from . import _grow as _native
except ImportError:     # built only where a C compiler was there: numpy's best_cuts, node by node
    _native = None


def _fixed(w: np.ndarray) -> np.ndarray:
    """float32 weights as int64 multiples of 2^-32 (rounded to nearest)."""
    return np.rint(w.astype(np.float64) * _SCALE).astype(np.int64)


def _f32(fixed: np.ndarray) -> np.ndarray:
    """Fixed-point sums as float32, rounded once (via double: exact below 2^53 units)."""
    return (np.asarray(fixed).astype(np.float64) / _SCALE).astype(np.float32)


def _sums(keys: np.ndarray, w: np.ndarray, size: int, unit: bool) -> np.ndarray:
    """int64 fixed-point sums of `w` per key in [0, size): exact in any order. `unit`: every
    weight is w[0], so the sums are counts times it."""
    if unit:
        return np.bincount(keys, minlength=size).astype(np.int64) * (w[0] if len(w) else 0)
    # bincount sums in float64: each 32-bit half of the weights, in chunks whose sums stay exact
    out = np.zeros(size, dtype=np.int64)
    hi, lo = w >> 32, w & 0xFFFFFFFF
    for i in range(0, len(keys), _CHUNK):
        part = slice(i, i + _CHUNK)
        out += np.bincount(keys[part], weights=lo[part], minlength=size).astype(np.int64)
        out += np.bincount(keys[part], weights=hi[part], minlength=size).astype(np.int64) << 32
    return out


def _firsts(sorted_keys: np.ndarray) -> np.ndarray:
    """Where each run of equal keys starts in a sorted array (-0.0 and 0.0 are one key)."""
    new = np.empty(len(sorted_keys), dtype=bool)
    new[:1] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=new[1:])
    return np.flatnonzero(new)


def _sortable(x: np.ndarray) -> np.ndarray:
    """float64 values (no NaN) as int64 keys in the same order, -0.0 as 0.0; its own inverse
    (through .view(np.float64))."""
    bits = (x + 0.0).view(np.int64)
    return np.where(bits < 0, bits ^ np.int64(0x7FFFFFFFFFFFFFFF), bits)


def _merge_runs(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
                ) -> tuple[np.ndarray, np.ndarray]:
    """Two runs of sorted distinct keys with sums as one, equal keys' sums added."""
    if _native is not None:
        keys, sums = np.empty(len(a[0]) + len(b[0]), np.int64), np.empty(len(a[0]) + len(b[0]), np.int64)
        n = _native.merge_sums(a[0], a[1], b[0], b[1], keys, sums)
        if n < len(keys) * 3 // 4:
            return keys[:n].copy(), sums[:n].copy()
        return keys[:n], sums[:n]
    keys, sums = np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]])
    order = np.argsort(keys, kind="stable")
    keys, sums = keys[order], sums[order]
    at = _firsts(keys)
    return keys[at], np.add.reduceat(sums, at)


class _SparseSums:
    """Exact int64 sums per distinct int64 key, for keys too many for a dense table. Each
    batch is reduced to a sorted run on arrival; a run is merged with the one before it while
    it is at least as long (a binary counter), so each entry is merged O(log batches) times
    and the runs hold at most about twice the merged entries."""

    def __init__(self) -> None:
        self.runs: list[tuple[np.ndarray, np.ndarray]] = []

    def add(self, keys: np.ndarray, w: np.ndarray, unit: bool) -> None:
        """Add one batch's (key, fixed-point weight) pairs."""
        if not len(keys):
            return
        if unit:
            low = int(keys.min())
            if int(keys.max()) - low <= 2 * len(keys):
                # few possible keys: count them in a dense table, no sort
                counts = np.bincount(keys - low)
                present = np.flatnonzero(counts)
                self.push((present + low, counts[present] * w[0]))
                return
            k = np.sort(keys)
            at = _firsts(k)
            sums = np.diff(np.append(at, len(k))) * w[0]
        else:
            order = np.argsort(keys)
            k = keys[order]
            at = _firsts(k)
            sums = np.add.reduceat(w[order], at)
        self.push((k[at], sums))

    def push(self, run: tuple[np.ndarray, np.ndarray]) -> None:
        self.runs.append(run)
        while len(self.runs) > 1 and len(self.runs[-1][0]) >= len(self.runs[-2][0]):
            top = self.runs.pop()
            self.runs[-1] = _merge_runs(self.runs[-1], top)

    def merged(self) -> tuple[np.ndarray, np.ndarray]:
        """All runs merged into one: (keys, sums)."""
        while len(self.runs) > 1:
            top = self.runs.pop()
            self.runs[-1] = _merge_runs(self.runs[-1], top)
        if not self.runs:
            self.runs.append((np.empty(0, np.int64), np.empty(0, np.int64)))
        return self.runs[0]


class _Route:
    """One grown level's tests, for routing cases to the next level: per node its tested
    attribute (-1: closed), kind (threshold or not), cut as float32, child index per branch
    in the next level (-1: no cases there) and each branch's float32 share of the known
    weight (for cases with an unknown value)."""

    def __init__(self, attr: np.ndarray, threshold: np.ndarray, cut32: np.ndarray, child: np.ndarray,
                 factor: np.ndarray):
        self.attr, self.threshold, self.cut32, self.child, self.factor = attr, threshold, cut32, child, factor
        self.used = np.unique(attr[attr >= 0]).tolist()


def _tested_values(route: _Route, columns: list[np.ndarray], rows: np.ndarray, attr: np.ndarray) -> np.ndarray:
    """Each case's value of its node's tested attribute, as float32 (the cuts' precision; the
    discrete codes are small integers), gathered one attribute at a time from the batch."""
    out = np.empty(len(rows), dtype=np.float32)
    for a in route.used:
        at = np.flatnonzero(attr == a)
        out[at] = columns[a][rows[at]]
    return out


def _branches(route: _Route, ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Branch of each case at its node (value `values` of the node's attribute); -1 unknown."""
    threshold = route.threshold[ids]
    unknown = np.isnan(values) | (~threshold & (values < 0))
    with np.errstate(invalid="ignore"):
        # c4.5 holds values and cuts as floats and compares them as such
        above = (values > route.cut32[ids]).astype(np.int64)
    branch = np.where(threshold, above, np.where(unknown, 0, values).astype(np.int64))
    branch[unknown] = -1
    return branch


def _route(routes: list[_Route], columns: list[np.ndarray], w: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cases of a batch (its columns, weights w) at the open nodes of the level after `routes`:
    (row, node, float32 weight), a case once per node it reaches."""
    rows = np.arange(len(w))
    ids = np.zeros(len(w), dtype=np.int64)
    for route in routes:
        attr = route.attr[ids]
        open_ = attr >= 0
        rows, ids, w, attr = rows[open_], ids[open_], w[open_], attr[open_]
        branch = _branches(route, ids, _tested_values(route, columns, rows, attr))
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
    """One continuous attribute's AVC groups over a level's nodes, as sparse fixed-point sums
    keyed (node, value rank, class): key = (node * (m + 1) + rank) * C + class, rank m for an
    unknown value, m the root's distinct values. The root's pass does not know them yet: it
    sums per class by value (as order-keeping int64 keys), and `finish` turns those into ranks."""

    def __init__(self, S: int, C: int, values: np.ndarray | None):
        self.S, self.C, self.values = S, C, values
        if values is None:
            self.by_class = [_SparseSums() for _ in range(C)]
            self.unknown = np.zeros(C, dtype=np.int64)
        else:
            self.m = len(values)
            if S * (self.m + 1) * C >= 1 << 62:
                raise InputError(f"{S} nodes x {self.m} distinct values x {C} classes are too many AVC entries")
            self.table = _SparseSums()

    def add(self, ids: np.ndarray, col: np.ndarray, y: np.ndarray, w: np.ndarray, unit: bool) -> None:
        """Add one batch's cases (node, value, class, fixed-point weight)."""
        if self.values is None:
            nan = np.isnan(col)
            if nan.any():
                self.unknown += _sums(y[nan], w[nan], self.C, unit)
            for c in range(self.C):
                at = np.flatnonzero((y == c) & ~nan)
                self.by_class[c].add(_sortable(col[at]), w[at], unit)
            return
        self.table.add((ids * (self.m + 1) + _ranks(self.values, col)) * self.C + y, w, unit)

    def root_values(self) -> np.ndarray:
        """The root's distinct known values, ascending (after its pass)."""
        keys = np.unique(np.concatenate([t.merged()[0] for t in self.by_class]))
        return _sortable(keys.view(np.float64)).view(np.float64)

    def finish(self, values: np.ndarray) -> None:
        """The root's sums by class and value as (node, rank, class) keys over `values`."""
        C, m = self.C, len(values)
        order_keys = _sortable(values)
        table = _SparseSums()
        for c, t in enumerate(self.by_class):
            keys, sums = t.merged()
            table.runs.append((np.searchsorted(order_keys, keys) * C + c, sums))
        u = np.flatnonzero(self.unknown)
        table.runs.append((m * C + u, self.unknown[u]))
        self.values, self.m, self.table = values, m, table
        del self.by_class, self.unknown

    def entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(node, rank, class, fixed-point weight) of every entry, sorted by the three."""
        keys, sums = self.table.merged()
        node_rank, cls = np.divmod(keys, self.C)
        node, rank = np.divmod(node_rank, self.m + 1)
        return node, rank, cls, sums


def _ranks(values: np.ndarray, col: np.ndarray) -> np.ndarray:
    """Rank of each value of `col` among the distinct `values` (ascending), len(values) for NaN.
    Hashing (O(values + col)) where the values are few next to the column, else binary search."""
    m = len(values)
    codes = None
    if m <= 2 * len(col):
        # the distinct values first: each is its own first appearance, so its code is its rank
        codes = hash_codes(np.concatenate([values, col]))
    if codes is not None:
        codes = codes[m:]
    else:
        codes = np.searchsorted(values, col)                   # NaN sorts last: rank m
        seen = codes < m
        seen[seen] = values[codes[seen]] == col[seen]
        codes[~seen] = m + 1
    unknown = codes >= m
    if not np.isnan(col[unknown]).all():
        raise InputError("a batch holds a value the first pass did not: the batches changed between passes")
    codes[unknown] = m
    return codes


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
                # the level's tables are freed: glibc would keep their pages under the next one's
                give_back_memory()
        finally:
            forget_tables()
        collapse(root)
        return root, {"passes": self.passes, "levels": len(self.routes), "largest_group": dict(self.largest)}

    # ---- one pass ---------------------------------------------------------------------------
    def scan(self, S: int) -> tuple[np.ndarray, list[_SparseSums], list[_ContinuousAVC]]:
        """One pass: the level's class weights (S x C), discrete AVC groups (keyed (node, value
        code + 1, class)) and continuous ones, all fixed point. A batch's columns are read where needed:
        no matrix of all its columns."""
        C, D, V = self.C, len(self.disc), self.V
        dist = np.zeros(S * C, dtype=np.int64)
        # sparse: at a deep level most of the S x V x C cells of a discrete attribute are empty
        disc = [_SparseSums() for _ in self.disc]
        cont = [_ContinuousAVC(S, C, self.values[a][0] if self.values else None) for a in self.cont]
        self.passes += 1
        for batch in self.batches():
            if batch.schema != self.schema:
                raise InputError(f"batch {batch.source!r} has another schema than the first")
            if batch.y is None:
                raise InputError(f"batch {batch.source!r} has no class column: growing a tree needs labelled cases")
            if batch.n == 0:
                continue
            w = np.ones(batch.n, dtype=np.float32) if batch.weights is None else batch.weights.astype(np.float32)
            rows, ids, w = _route(self.routes, batch.columns, w)
            if not len(rows):
                continue
            y = batch.y[rows].astype(np.int64)
            wf = _fixed(w)
            unit = bool((wf == wf[0]).all())
            dist += _sums(ids * C + y, wf, S * C, unit)
            for j, a in enumerate(self.disc):
                codes = batch.columns[a][rows]
                if codes.dtype.kind == "f":
                    codes = np.where(np.isnan(codes), -1, codes)
                codes = np.maximum(codes.astype(np.int64) + 1, 0)        # 0: unknown
                disc[j].add((ids * V + codes) * C + y, wf, unit)
            for j, a in enumerate(self.cont):
                cont[j].add(ids, np.asarray(batch.columns[a], dtype=np.float64)[rows], y, wf, unit)
        return dist.reshape(S, C), disc, cont

    def active_tables(self, disc: list[_SparseSums], act: np.ndarray, S: int) -> np.ndarray:
        """The discrete AVC groups of the active nodes as one dense table (act, D, V, C)."""
        V, C = self.V, self.C
        where = np.full(S, -1, dtype=np.int64)
        where[act] = np.arange(len(act))
        out = np.zeros((len(act), len(disc), V * C), dtype=np.int64)
        for j, table in enumerate(disc):
            keys, sums = table.merged()
            node, cell = np.divmod(keys, V * C)
            at = where[node]
            keep = at >= 0
            out[at[keep], j, cell[keep]] = sums[keep]
            table.runs = []
        return out.reshape(len(act), len(disc), V, C)

    # ---- one level --------------------------------------------------------------------------
    def level(self, nodes: list[Node], tested: np.ndarray) -> tuple[list[Node], np.ndarray]:
        """Label, test and split the level's nodes; return the next level's."""
        S, C = len(nodes), self.C
        fdist, sparse_disc, cont = self.scan(S)
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
        fdisc = self.active_tables(sparse_disc, act, S)
        if act.size and self.disc:
            D = len(self.disc)
            # discrete_gains' float64 temporaries are ~10 x its table: a block of nodes at a time
            step = max(1, _CELLS // (D * self.V * C))
            for lo in range(0, act.size, step):
                part = act[lo:lo + step]
                tables = _f32(fdisc[lo:lo + step]).transpose(1, 0, 2, 3).reshape(D * part.size, self.V, C)
                g, s = discrete_gains(tables, np.tile(cases[part], D), self.min_objs)
                g, s = g.reshape(D, part.size).T, s.reshape(D, part.size).T
                done = tested[np.ix_(part, self.disc)]
                gain[np.ix_(part, self.disc)] = np.where(done, NO_GAIN, g)
                split[np.ix_(part, self.disc)] = np.where(done, F32(0), s)
        if self.cont:
            self.cuts(act, cases, cont, gain, split, below, above)
        self.note_largest(S, len(self.routes))
        chosen = np.full(S, -1, dtype=np.int64)
        if act.size:
            chosen[act] = choose_tests(gain[act], split[act], self.left_out, self.gain_ratio)
        return self.divide(nodes, chosen, best_class, cases, fdisc, act, cont, below, above, tested)

    def first_level(self, fdist: np.ndarray, cont: list[_ContinuousAVC]) -> None:
        """From the root's tables: each continuous attribute's distinct values (where cuts snap
        to, and the ranks of the AVC keys) and the many-valued attributes left out of the
        average gain (spec 2.5)."""
        n_all = float(_f32(fdist.sum()))
        if n_all >= _MAX_WEIGHT:
            raise InputError(f"the cases weigh {n_all:g} in all: growing in passes sums weights below 2^30")
        for j, a in enumerate(self.cont):
            vals = cont[j].root_values()
            self.values[a] = (vals, vals.astype(np.float32))
            cont[j].finish(vals)
        active = [a for a in self.schema.attributes if a.kind != "ignore"]
        multi_val = all(a.is_discrete and len(a.values) >= MANY_VALUES * n_all for a in active)
        many = np.zeros(self.A, dtype=bool)
        for j, i in enumerate(self.disc):
            many[i] = self.nvals[j] >= MANY_VALUES * n_all
        self.left_out = many & (not multi_val)

    def note_largest(self, S: int, level: int) -> None:
        """Keep the level's largest discrete AVC group if it is the largest so far."""
        for j, a in enumerate(self.disc):
            if S:
                entries = int((self.nvals[j] + 1) * self.C)
                self.bigger(a, level, 0, entries)

    def bigger(self, a: int, level: int, node: int, entries: int) -> None:
        if entries > self.largest["entries"]:
            self.largest.update(attribute=self.schema.attributes[a].name, level=level, node=node, entries=entries)

    def cuts(self, act: np.ndarray, cases: np.ndarray, cont: list[_ContinuousAVC], gain: np.ndarray,
             split: np.ndarray, below: np.ndarray, above: np.ndarray) -> None:
        """Note the largest continuous AVC group, then
        each active node's best cut of each continuous attribute over the node's AVC entries,
        each entry one case weighing its sum (the unknowns' classes last), by the compiled scan
        that grows in memory (entry_cuts), all nodes of the level in one call per attribute."""
        S, C = len(cases), self.C
        active = np.zeros(S, dtype=np.uint8)
        active[act] = 1
        cases32 = np.ascontiguousarray(cases, dtype=np.float32)
        level = len(self.routes)
        for j, a in enumerate(self.cont):
            node, rank, cls, sums = cont[j].entries()
            known = rank < cont[j].m
            if known.any():
                # the largest group: entries are sorted by node and rank, count each node's ranks
                kn, kr = node[known], rank[known]
                counts = np.bincount(kn[np.r_[True, (kn[1:] != kn[:-1]) | (kr[1:] != kr[:-1])]])
                s = int(np.argmax(counts))
                self.bigger(a, level, s, int(counts[s]) * C)
            if not act.size:
                continue
            keep = sums > 0
            node, rank, cls, w = node[keep], rank[keep].astype(np.int32), cls[keep], _f32(sums[keep])
            starts = np.searchsorted(node, np.arange(S + 1))
            vals, vals32 = self.values[a]
            g, sp = np.full(S, NO_GAIN, dtype=np.float32), np.zeros(S, dtype=np.float32)
            lo, hi = np.full(S, np.nan), np.full(S, np.nan)
            if _native is not None:
                _native.entry_cuts(starts, rank, w, cls, C, vals, vals32, cases32, active, float(self.min_objs),
                                   g, sp, lo, hi)
            else:
                for s in act.tolist():
                    r = rank[starts[s]:starts[s + 1]]
                    v = np.where(r < len(vals), vals[np.minimum(r, len(vals) - 1)], np.nan)[:, None]
                    gs, ss, at = best_cuts(v, w[starts[s]:starts[s + 1], None], cls[starts[s]:starts[s + 1], None],
                                           C, cases32[s], self.min_objs)
                    g[s], sp[s] = gs[0], ss[0]
                    if at[0] >= 0:
                        lo[s], hi[s] = v[at[0], 0], v[at[0] + 1, 0]
            gain[act, a], split[act, a], below[act, a], above[act, a] = g[act], sp[act], lo[act], hi[act]

    def divide(self, nodes: list[Node], chosen: np.ndarray, best_class: np.ndarray, cases: np.ndarray,
               fdisc: np.ndarray, act: np.ndarray, cont: list[_ContinuousAVC], below: np.ndarray, above: np.ndarray,
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
                (keys, sums), m = cont[j].table.merged(), cont[j].m
                lo, hi = np.searchsorted(keys, np.array([s, s + 1]) * (m + 1) * C)
                rank, sums = keys[lo:hi] // C % (m + 1), sums[lo:hi]
                known = rank < m
                right = known & (vals32[np.minimum(rank, m - 1)] > np.float32(cut))
                left = known & ~right
                weights = np.array([sums[left].sum(), sums[right].sum()])
                filled = np.array([(sums[left] != 0).any(), (sums[right] != 0).any()])
                unknown = sums[~known].sum()
            else:
                node.kind = "discrete"
                j = self.disc.index(a)
                t = fdisc[np.searchsorted(act, s), j, :self.nvals[j] + 1]
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
