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
integer counts, so the tree equals grow_tree's node for node. With unknowns (and no case
weights), c4.5 adds float32 fractional weights one case at a time in its own order: a pass keeps
the visits of fractional weight whole with their case numbers (_Fractions) and replays that
order (_Replay), the other visits weighing 1 each. A case's weight down each branch is c4.5's:
multiplied by the branch's factor, the branch's whole subtree walked (where the case's value is
unknown again there, its weight makes the same round trips), then divided back, which need not
restore it, before the next branch. The compiled walk (_Flat.route) makes those round trips
through the levels grown so far and, below the open level, through the tree of the growth
before (a ghost tree); the growth is repeated until it remakes that tree bit for bit, and then
every weight, so every sum, is c4.5's (_PassGrower.run; tests/tree/test_grow_passes.py).
"""
from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from ..data.costs import cheapest_class
from ..data.distinct import hash_codes, sorted_distinct
from ..data.passes import reduce_batches
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
_RADIX_RANGE = 1 << 44   # keys spanning less: 4 radix passes of 11 bits, faster than numpy's sort
_CHUNK = 1 << 21               # float64 sums of this many 32-bit halves are exact (< 2^53)

try:
    from . import _grow as _native
except ImportError:     # built only where a C compiler was there: numpy's best_cuts, node by node
    _native = None


_MAX_COUNT32 = (1 << 31) - 1   # visit counts kept as int32, this one standing for "this or more"


def _counts32(counts: np.ndarray) -> np.ndarray:
    """Visit counts as int32, those beyond it as _MAX_COUNT32 (then bounded otherwise)."""
    return np.minimum(counts, _MAX_COUNT32).astype(np.int32)


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


def _pack(keys: np.ndarray, sums: np.ndarray) -> tuple[int, np.ndarray, int, np.ndarray]:
    """A run of sorted distinct keys with their sums in fewer bytes: the first key and the gaps
    between keys, the sums shifted right by their common zero low bits (a count of unit weights
    is a multiple of 2^32), each in the smallest integer type that holds it (often 2-4 bytes an
    entry where the run takes 16)."""
    first = int(keys[0]) if len(keys) else 0
    # as unsigned: a root's keys (_sortable values) may span more than int64 holds; the sums
    # in _unpack wrap back alike
    gaps = np.diff(keys).view(np.uint64)
    shift = 32 if len(sums) and not (sums & 0xFFFFFFFF).any() else 0
    small = sums >> shift
    return (first, gaps.astype(np.min_scalar_type(int(gaps.max())) if len(gaps) else np.uint8), shift,
            small.astype(np.min_scalar_type(int(small.max())) if len(small) and small.min() >= 0 else np.int64))


def _unpack(first: int, gaps: np.ndarray, shift: int, small: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """_pack's run back: (keys, sums) as int64."""
    keys = np.empty(len(small), np.int64)
    if len(keys):
        keys[0] = first
        np.cumsum(gaps.astype(np.int64), out=keys[1:])
        keys[1:] += first
    return keys, small.astype(np.int64) << shift


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
            low, high = int(keys.min()), int(keys.max())
            if high - low <= 2 * len(keys):
                # few possible keys: count them in a dense table, no sort
                counts = np.bincount(keys - low)
                present = np.flatnonzero(counts)
                self.push((present + low, counts[present] * w[0]))
                return
            if _native is not None and high - low < _RADIX_RANGE:
                # a radix sort: most of a pass's time went to numpy's sort of these keys
                k, runs, counts = keys.astype(np.int64), np.empty_like(keys, np.int64), np.empty_like(keys, np.int64)
                n = _native.key_runs(k, np.empty_like(k), runs, counts)
                self.push((runs[:n].copy(), counts[:n] * w[0]))
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

    def absorb(self, other: "_SparseSums") -> None:
        """Add another part's sums."""
        for run in other.runs:
            self.push(run)

    def __getstate__(self) -> dict:
        # one merged run, packed: what a Spark executor sends (learn/spark.py)
        return {"packed": _pack(*self.merged()) if self.runs else None}

    def __setstate__(self, state: dict) -> None:
        self.runs = [] if state["packed"] is None else [_unpack(*state["packed"])]

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
    attribute (-1: closed), kind (threshold or not), cut as float32 and its branches (`width`:
    2 for a threshold, the values of a discrete attribute, 0 closed), which are
    child[first[s]:first[s + 1]] (a node's own only, no padding to the widest test): per
    branch its child's index in the next level (-1: no cases there) and its float32 share of
    the known weight (for cases with an unknown value)."""

    def __init__(self, attr: np.ndarray, threshold: np.ndarray, cut32: np.ndarray, width: np.ndarray,
                 child: np.ndarray, factor: np.ndarray):
        self.attr, self.threshold, self.cut32 = attr.astype(np.int32), threshold, cut32
        self.width = width.astype(np.int32)
        self.first = np.concatenate([[0], np.cumsum(width, dtype=np.int64)])
        self.child, self.factor = child.astype(np.int32), factor.astype(np.float32)
        self.used = np.unique(attr[attr >= 0]).tolist()

    @classmethod
    def tests(cls, attr: np.ndarray, threshold: np.ndarray, cut32: np.ndarray) -> "_Route":
        """The tests alone (no branches), for finding each case's branch (_branches, _sides)."""
        return cls(attr, threshold, cut32, np.zeros(len(attr), np.int32), np.zeros(0, np.int32), np.zeros(0))

    def padded(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The branches of nodes `ids` as rows (ids x their widest): child (-1 past a node's
        own branches) and factor (0 there)."""
        width = self.width[ids]
        cols = np.arange(int(width.max()) if len(ids) else 0)
        own = cols < width[:, None]
        at = np.where(own, self.first[ids][:, None] + cols, 0)
        return np.where(own, self.child[at], -1).astype(np.int64), np.where(own, self.factor[at], np.float32(0))


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


def _shared_weights(w: np.ndarray, factor: np.ndarray, filled: np.ndarray) -> np.ndarray:
    """The float32 weight each case of unknown value takes down each branch (cases x branches):
    c4.5 (and grow.grow) multiplies the case's weight by a branch's factor, grows the branch,
    then divides it back, which need not restore it exactly, before the next branch."""
    out = np.zeros(factor.shape, dtype=np.float32)
    x = w.astype(np.float32)
    for b in range(factor.shape[1]):
        on = filled[:, b]
        out[on, b] = x[on] * factor[on, b]
        x[on] = out[on, b] / factor[on, b]
    return out


def _route(routes: list[_Route], columns: list[np.ndarray], w: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Cases of a batch (its columns, weights w) at the open nodes of the level after `routes`:
    (row, node, float32 weight, known), a case once per node it reaches; bit j of `known` is
    set where the case's value of the level-j test above its node is known (ORDER_LEVELS
    levels at most: deeper bits are dropped)."""
    rows = np.arange(len(w))
    ids = np.zeros(len(w), dtype=np.int64)
    known_bits = np.zeros(len(w), dtype=np.int64)
    for level, route in enumerate(routes):
        attr = route.attr[ids]
        open_ = attr >= 0
        rows, ids, w, attr, known_bits = rows[open_], ids[open_], w[open_], attr[open_], known_bits[open_]
        branch = _branches(route, ids, _tested_values(route, columns, rows, attr))
        known = branch >= 0
        child = np.where(known, route.child[np.minimum(route.first[ids] + np.maximum(branch, 0),
                                                        max(len(route.child) - 1, 0))], -1).astype(np.int64)
        go = known & (child >= 0)
        bit = np.int64(1 << level) if level < ORDER_LEVELS else np.int64(0)
        new_rows, new_ids, new_w, new_bits = [rows[go]], [child[go]], [w[go]], [known_bits[go] | bit]
        if not known.all():
            # an unknown value: down every branch that has cases, with the branch's share
            u = np.flatnonzero(~known)
            to, factor = route.padded(ids[u])
            at, b = np.nonzero(to >= 0)
            new_rows.append(rows[u[at]])
            new_ids.append(to[at, b])
            new_w.append(_shared_weights(w[u], factor, to >= 0)[at, b])
            new_bits.append(known_bits[u[at]])
        rows, ids, w, known_bits = (np.concatenate(a) for a in (new_rows, new_ids, new_w, new_bits))
    return rows, ids, w, known_bits


class _Flat:
    """The routes of every grown level as one tree in level order, for the compiled routing
    (_grow.route_cases): per node its tested attribute (int32, -1 closed or open), threshold
    flag, float32 cut, range of branches and tree level; per branch its child's node (-1: no
    cases) and factor. The open level's nodes come last, from `open_from` on."""

    def __init__(self, routes: list[_Route], prior: "tuple[_Flat, np.ndarray] | None" = None):
        # prior: the whole tree of the growth before (as a _Flat) and each open node's node
        # there (-1: none), whose subtree the exact walk goes on in (with_ghosts)
        sizes = [len(r.attr) for r in routes]
        offsets = np.cumsum([0] + sizes)
        self.open_from, self.depth = int(offsets[-1]), len(routes)
        n_open = int((routes[-1].child >= 0).sum())
        self.attr = np.concatenate([r.attr.astype(np.int32) for r in routes] + [np.full(n_open, -1, np.int32)])
        self.threshold = np.concatenate([r.threshold for r in routes] + [np.zeros(n_open, bool)]).view(np.uint8)
        self.cut32 = np.concatenate([r.cut32 for r in routes] + [np.zeros(n_open, np.float32)])
        self.level = np.concatenate([np.full(n, k, np.int32) for k, n in enumerate(sizes + [n_open])])
        # each node's own branches only (a leaf none, a binary test two): not the routes' padding
        widths = np.concatenate([r.width for r in routes] + [np.zeros(n_open, np.int64)])
        self.first = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
        self.child = np.concatenate([np.where(r.child >= 0, r.child + offsets[k + 1], -1)
                                     for k, r in enumerate(routes)]).astype(np.int64)
        self.factor = np.concatenate([r.factor for r in routes]).astype(np.float32)
        self.used = sorted({a for r in routes for a in r.used})
        self.discrete = {int(a) for r in routes for a in np.unique(r.attr[(r.attr >= 0) & ~r.threshold])}
        self.ghost = np.full(n_open, -1, dtype=np.int64)
        self.through = False
        if prior is not None:
            self.with_ghosts(*prior)

    @classmethod
    def whole(cls, routes: list[_Route]) -> "_Flat":
        """A grown tree (its last level all closed) whose every node the exact walk writes
        (route's ids: the node in level order, self.level its level), for checking its weights."""
        flat = cls(routes)
        flat.open_from, flat.through = 0, True
        flat.ghost = np.full(len(flat.attr), -1, dtype=np.int64)
        return flat

    def with_ghosts(self, before: "_Flat", at: np.ndarray) -> None:
        """Append the nodes of the tree grown before from the open level on (a ghost tree, in
        level order) and link each open node to its node there (`at`, within the level; -1:
        none), so that the exact walk makes the round trips of the subtrees below the open level."""
        start = int(np.searchsorted(before.level, self.depth))      # its open level's first node
        if start >= len(before.attr):
            return
        N, shift = len(self.attr), len(self.attr) - start
        self.ghost = np.where(at >= 0, at + N, -1).astype(np.int64)
        nb = int(self.first[-1])
        tail = slice(start, len(before.attr))
        self.attr = np.concatenate([self.attr, before.attr[tail]])
        self.threshold = np.concatenate([self.threshold, before.threshold[tail]])
        self.cut32 = np.concatenate([self.cut32, before.cut32[tail]])
        self.level = np.concatenate([self.level, before.level[tail]])
        b0 = int(before.first[start])
        self.first = np.concatenate([self.first, before.first[start + 1:] - b0 + nb])
        kids = before.child[b0:]
        self.child = np.concatenate([self.child, np.where(kids >= 0, kids + shift, -1)])
        self.factor = np.concatenate([self.factor, before.factor[b0:]])
        self.used = sorted(set(self.used) | set(before.used))
        self.discrete = self.discrete | before.discrete

    def route(self, columns: list[np.ndarray], w: np.ndarray, known: bool = False) -> tuple[np.ndarray, ...]:
        """As _route, in one compiled walk per case (the outputs in another order): (row, node,
        weight); with `known` the known bits too, and each weight c4.5's depth-first walk's
        (its round trips through earlier branches' subtrees, the ghost tree's included)."""
        cols: list[np.ndarray | None] = [None] * len(columns)
        for a in self.used:
            col = columns[a]
            if col.dtype.kind == "f" and a in self.discrete:
                col = np.where(np.isnan(col), -1, col)
            cols[a] = np.ascontiguousarray(col, dtype=np.int32 if a in self.discrete else np.float64)
        w = np.ascontiguousarray(w, dtype=np.float32)
        cap = len(w) + len(w) // 8 + 16
        while True:
            rows, ids, out = np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.float32)
            # with the known bits, the exact walk (c4.5's round trips, the ghost tree's included)
            bits = (self.level, np.empty(cap, np.int64), self.ghost, self.through) if known else ()
            n = _native.route_cases(self.attr, self.threshold, self.cut32, self.first, self.child, self.factor,
                                    self.open_from, cols, w, rows, ids, out, *bits)
            if n >= 0:
                return (rows[:n], ids[:n], out[:n]) + tuple(b[:n] for b in bits[1:2])
            cap *= 2


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

    def absorb(self, other: "_ContinuousAVC") -> None:
        """Add another part's sums (over the same nodes and values)."""
        if self.values is None:
            self.unknown += other.unknown
            for mine, theirs in zip(self.by_class, other.by_class):
                mine.absorb(theirs)
        else:
            self.table.absorb(other.table)

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


def _unknown_in(batch: Dataset, attrs: Iterable[int]) -> bool:
    """Whether a case of the batch has an unknown value of one of the attributes `attrs`."""
    for a in attrs:
        col = batch.columns[a]
        if (np.isnan(col).any() if col.dtype.kind == "f" else (col < 0).any()):
            return True
    return False


def _sides(flat: "_Flat", tests: _Route, columns: list[np.ndarray], rows: np.ndarray, ids: np.ndarray, U: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """The visits (case `rows` at nodes `ids` of a whole tree `flat`, its tests as `tests`)
    that are at a test, and the branch each goes down there (U: its value is unknown)."""
    inner = np.flatnonzero(flat.attr[ids] >= 0)
    r, g = rows[inner], ids[inner]
    side = _branches(tests, g, _tested_values(tests, columns, r, flat.attr[g]))
    side[side < 0] = U
    return inner, side


WALK_ROWS = 1 << 14   # a batch's cases walked through the whole tree at a time (check, settle): each
                      # case visits a node a level and more, and each visit's arrays are copied a few times


def _walked(flat: "_Flat", batch: Dataset) -> Iterable[tuple]:
    """A batch walked through a whole tree (_Flat.whole) WALK_ROWS cases at a time, so that the
    visits' arrays stay a few MB whatever the tree's depth: per slice its first case, its
    columns and the exact walk's (row within the slice, node, weight, known bits)."""
    for start in range(0, batch.n, WALK_ROWS):
        columns = [c[start:start + WALK_ROWS] for c in batch.columns]
        yield (start, columns) + flat.route(columns, np.ones(min(WALK_ROWS, batch.n - start), np.float32), known=True)


def _preorder(flat: "_Flat") -> np.ndarray:
    """A whole tree's nodes (level order, as _Flat.whole) in depth-first order, each node's
    branches in order: c4.5's growth order. A level at a time, no per-node loop."""
    N, first, child = len(flat.attr), flat.first, flat.child
    owner = np.repeat(np.arange(N), np.diff(first))           # each branch's node
    has = child >= 0
    size = np.ones(N, dtype=np.int64)                         # nodes in each subtree
    depth = int(flat.level.max()) if N else 0
    for k in range(depth - 1, -1, -1):
        at = has & (flat.level[owner] == k)
        np.add.at(size, owner[at], size[child[at]])
    kid = np.where(has, size[np.maximum(child, 0)], 0)
    before = np.cumsum(kid) - kid                              # earlier branches' subtrees, across nodes
    before -= before[np.minimum(first[owner], len(before) - 1)] if len(before) else 0
    pos = np.zeros(N, dtype=np.int64)
    for k in range(depth):
        at = has & (flat.level[owner] == k)
        pos[child[at]] = pos[owner[at]] + 1 + before[at]
    order = np.empty(N, dtype=np.int64)
    order[pos] = np.arange(N)
    return order


def _digest(rows: np.ndarray, ids: np.ndarray, w: np.ndarray, group: np.ndarray, G: int) -> np.ndarray:
    """Per group in [0, G): a digest of its visits (case number `rows`, node `ids` within its
    level, float32 weight), the same for the same visits in any order or batches: (visits,
    sum of m, sum of m x (row + 1)), uint64 sums modulo 2^64, m a splitmix64 mix of the node
    and the weight's bits. A weight off in one bit, or moved to another case, changes it."""
    with np.errstate(over="ignore"):
        x = (ids.astype(np.uint64) << np.uint64(32)) | np.asarray(w, np.float32).view(np.uint32).astype(np.uint64)
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
        out = np.zeros((G, 3), dtype=np.uint64)
        np.add.at(out[:, 0], group, np.uint64(1))
        np.add.at(out[:, 1], group, x)
        np.add.at(out[:, 2], group, x * (rows.astype(np.uint64) + np.uint64(1)))
    return out


def _shifted(digest: np.ndarray, offset: int) -> np.ndarray:
    """_digest's of visits whose case numbers move up by `offset` (a later part of the cases)."""
    out = digest.copy()
    with np.errstate(over="ignore"):
        out[:, 2] += np.uint64(offset) * digest[:, 1]
    return out


ORDER_LEVELS = 62   # tree levels whose known/unknown bits order the fractional visits (an int64)
SETTLE_BYTES = 64   # a visit held while settling (node, known bits, case, side; sorted: twice), _PassGrower.settle
GROWTH_ROUNDS = 8   # growths again with the tree before as the ghost tree, at most (_PassGrower.run)
FRACTION_SHARE = 2  # a pass's fractional visits may hold 1/FRACTION_SHARE of the budget (_LevelScan.fold)
FRACTION_BYTES = 36  # a fractional visit kept (_Fractions: case, known bits, node, class: 8 each; weight: 4)
VALUE_BYTES = 8      # and its value of each of the pass's attributes (a code or a float64)
ORDER_COPIES = 2     # ordering and replaying a pass's visits holds them about twice (_Fractions.ordered, _Replay)
REPLAY_BYTES = 80    # a case at a node with fractional visits while a continuous attribute's cases are replayed
                     # in c4.5's order (_PassGrower.replayed: keys, order, ranks, classes, weights)


def _joined(parts: list[tuple[np.ndarray, ...]]) -> list[np.ndarray]:
    """The parts' arrays joined column by column, `parts` emptied and each part's array let go
    once joined: held about once over, not twice (parts and joined)."""
    columns = [list(part) for part in parts]
    parts.clear()
    out = []
    for k in range(len(columns[0])):
        out.append(np.concatenate([part[k] for part in columns]))
        for part in columns:
            part[k] = None
    return out


class _Fractions:
    """A pass's fractional visits: a case at a node below a test of which its value is unknown
    weighs a fraction (its branch's share), and c4.5 adds such weights one at a time in its
    own order: at a node, the cases whose value of the deepest test above was unknown first,
    within each part those of the next test above likewise, and so on, then by case order
    (tree/grow.py's `grow` passes a node's unknowns first to every branch). Those visits are
    kept whole (case number, known bits, node, weight, class, the pass's attributes' values),
    so the node's sums can be replayed in that order; the cases known at every test above
    weigh 1 and are counted in the tables. `rows` counts the cases seen, so that a part's
    case numbers follow the parts merged before it (reduce_batches merges in case order)."""

    def __init__(self) -> None:
        self.rows = 0
        self.parts: list[tuple[np.ndarray, ...]] = []
        self.folded = False     # summed exactly into the tables instead (_LevelScan.fold)

    def add(self, offset: int, rows: np.ndarray, bits: np.ndarray, ids: np.ndarray, w: np.ndarray, y: np.ndarray,
            codes: np.ndarray, values: np.ndarray) -> None:
        """Keep one batch's fractional visits (`rows` within the batch, which starts at case `offset`)."""
        if len(rows):
            self.parts.append((rows + offset, bits, ids, w, y, codes, values))

    def absorb(self, other: "_Fractions") -> None:
        """Add a later part's visits."""
        for rows, *rest in other.parts:
            self.parts.append((rows + self.rows, *rest))
        self.rows += other.rows
        self.folded = self.folded or other.folded

    def nbytes(self) -> int:
        """Bytes held."""
        return sum(a.nbytes for part in self.parts for a in part)

    def ordered(self) -> tuple[np.ndarray, ...]:
        """All visits, by node, then c4.5's order: (node, weight, class, codes, values). The
        parts are let go as they are joined, and each joined array as it is put in order: the
        visits are held about once over, not three times (parts, joined, ordered), and one
        array more while it is ordered: the plan counts them ORDER_COPIES times."""
        if not self.parts:
            return (np.empty(0, np.int64), np.empty(0, np.float32), np.empty(0, np.int64), None, None)
        rows, bits, ids, w, y, codes, values = _joined(self.parts)
        order = np.lexsort((rows, bits, ids))
        del rows, bits
        ids = ids[order]
        w = w[order]
        y = y[order]
        codes = codes[order]
        values = values[order]
        return ids, w, y, codes, values


def _in_order(keys: np.ndarray, w: np.ndarray, unit_keys: np.ndarray, unit_counts: np.ndarray, size: int
              ) -> np.ndarray:
    """float32 sums per key in [0, size) made as c4.5 makes them, one case at a time: first the
    weights `w` (keys `keys`) in their order, then unit_counts[i] cases of key unit_keys[i]
    weighing 1 each (np.add.at adds in the order given; the cases weighing 1 come after the
    fractional ones at each key, and their order among themselves does not change a sum)."""
    out = np.zeros(size, dtype=np.float32)
    np.add.at(out, keys, w.astype(np.float32, copy=False))
    np.add.at(out, np.repeat(unit_keys, unit_counts), F32(1))
    return out


class _Replay:
    """c4.5's float sums at the nodes of a pass that have fractional visits (_Fractions): each
    sum the in-memory growth makes (tree/grow.py, evaluate and grow) is made over the node's
    cases in its order: the fractional visits as kept, then the cases known at every test above,
    each weighing 1, which the tables count (so their order among themselves does not matter).
    All the nodes' sums at once, one attribute at a time (never per node: a level may have
    thousands of such nodes), never as rows."""

    def __init__(self, fractions: _Fractions, whole: np.ndarray, C: int):
        self.ids, self.w, self.y, self.codes, self.values = fractions.ordered()
        self.whole, self.C = whole, C          # whole: (S x C) fixed-point sums, 2^32 a case
        self.nodes = np.unique(self.ids)       # ascending, as the visits are ordered
        self._sums: dict[int, tuple[np.float32, np.ndarray]] | None = None

    def among(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Those of the ascending `nodes` that have fractional visits, and their numbers 0, 1,
        ... indexed by node (-1 for every other node of the pass)."""
        mine = nodes[np.isin(nodes, self.nodes)]
        number = np.full(len(self.whole), -1, dtype=np.int64)
        number[mine] = np.arange(len(mine))
        return mine, number

    def node_sums(self) -> dict[int, tuple[np.float32, np.ndarray]]:
        """Per node with fractional visits: (its cases, its class weights), as grow.node_counts."""
        if self._sums is None:
            C, R = self.C, len(self.nodes)
            nodes, number = self.among(self.nodes)
            q = number[self.ids]
            units = self.whole[nodes] >> 32
            cases = _in_order(q, self.w, np.arange(R), units.sum(axis=1), R)
            dist = _in_order(q * C + self.y, self.w, np.arange(R * C), units.ravel(), R * C).reshape(R, C)
            self._sums = {s: (cases[i], dist[i]) for i, s in enumerate(nodes.tolist())}
        return self._sums


class _LevelScan:
    """One growth pass's count tables (what _PassGrower.scan reads), counted batch by batch
    and merged part by part (data/passes.reduce_batches): the tree's routes so far and the
    pass's nodes and attributes, no rows. A table: [class weights (S x C, fixed point), cases
    per node, discrete AVC groups, continuous ones, whether no case weighed more than 1, the
    fractional visits (_Fractions)]. Where the cases have no weights, a visit whose value of a
    test above its node was unknown is kept in the last instead of the sums (see _Fractions)."""

    def __init__(self, schema: Schema, routes: list[_Route], flat: "_Flat | None", members: np.ndarray,
                 disc: list[int], cont: list[int], dsel: list[int], csel: list[int], values: list[np.ndarray | None],
                 S: int, C: int, V: int, cap: int | None = None):
        # flat: the same routes for the compiled walk (None: numpy's level-by-level _route);
        # cap: bytes of fractional visits beyond which they are folded into the sums (fold)
        self.schema, self.routes, self.flat, self.members, self.disc, self.cont = schema, routes, flat, members, disc, cont
        self.dsel, self.csel, self.values, self.S, self.C, self.V = dsel, csel, values, S, C, V
        self.every = bool(members.all())
        self.cap = cap

    def zero(self) -> list:
        """Empty tables."""
        S, C = self.S, self.C
        # sparse: at a deep level most of the S x V x C cells of a discrete attribute are empty
        return [np.zeros(S * C, dtype=np.int64), np.zeros(S, dtype=np.int64), {j: _SparseSums() for j in self.dsel},
                {k: _ContinuousAVC(S, C, self.values[k]) for k in self.csel}, True, _Fractions()]

    def count(self, table: list, batch: Dataset) -> list:
        """Add one batch's cases at the pass's nodes (a batch's columns read where needed: no
        matrix of all its columns)."""
        count, fractions = table[1], table[5]
        if batch.schema != self.schema:
            raise InputError(f"batch {batch.source!r} has another schema than the first")
        if batch.y is None:
            raise InputError(f"batch {batch.source!r} has no class column: growing a tree needs labelled cases")
        offset = fractions.rows
        fractions.rows += batch.n
        if batch.n == 0:
            return table
        w = np.ones(batch.n, dtype=np.float32) if batch.weights is None else batch.weights.astype(np.float32)
        if batch.weights is not None and (w > 1).any():
            table[4] = False
        # c4.5's order matters only for the visits of cases with an unknown tested value, and
        # their weights are c4.5's walk's (folded or not: batch boundaries must not matter)
        unknown = batch.weights is None and self.unknown_tested(batch)
        ordered = unknown and not fractions.folded
        if self.flat is not None and not unknown:
            rows, ids, w = self.flat.route(batch.columns, w)
            bits = None
        elif self.flat is not None:
            rows, ids, w, bits = self.flat.route(batch.columns, w, known=True)
        else:
            rows, ids, w, bits = _route(self.routes, batch.columns, w)
        if not self.every:
            keep = self.members[ids]
            rows, ids, w = rows[keep], ids[keep], w[keep]
            bits = None if bits is None else bits[keep]
        count += np.bincount(ids, minlength=self.S)
        if ordered:
            part = (bits != (1 << min(len(self.routes), ORDER_LEVELS)) - 1) | (w != 1)
            at = np.flatnonzero(part)
            r = rows[at]
            codes = np.stack([self.codes(batch, self.disc[j], r) for j in self.dsel], axis=1) if self.dsel else \
                np.zeros((len(at), 0), np.int64)
            values = np.stack([np.asarray(batch.columns[self.cont[k]], dtype=np.float64)[r] for k in self.csel],
                              axis=1) if self.csel else np.zeros((len(at), 0))
            fractions.add(offset, r, bits[at], ids[at], w[at], batch.y[r].astype(np.int64), codes, values)
            rows, ids, w = rows[~part], ids[~part], w[~part]
            if self.cap is not None and fractions.nbytes() > self.cap:
                self.fold(table, fractions)
        if len(rows):
            self.tally(table, ids, batch.y[rows].astype(np.int64), w,
                       lambda i: self.codes(batch, self.disc[self.dsel[i]], rows),
                       lambda i: np.asarray(batch.columns[self.cont[self.csel[i]]], dtype=np.float64)[rows])
        return table

    def tally(self, table: list, ids: np.ndarray, y: np.ndarray, w: np.ndarray, code_of: Callable[[int], np.ndarray],
              value_of: Callable[[int], np.ndarray]) -> None:
        """Add visits (node, class, float32 weight) to the sums, with the pass's i-th discrete
        attribute's codes + 1 code_of(i) and i-th continuous attribute's values value_of(i)."""
        C, V = self.C, self.V
        dist, _, disc, cont = table[:4]
        wf = _fixed(w)
        unit = bool((wf == wf[0]).all())
        dist += _sums(ids * C + y, wf, self.S * C, unit)
        for i, j in enumerate(self.dsel):
            disc[j].add((ids * V + code_of(i)) * C + y, wf, unit)
        for i, k in enumerate(self.csel):
            cont[k].add(ids, value_of(i), y, wf, unit)

    def fold(self, table: list, fractions: _Fractions) -> None:
        """The fractional visits into the sums (exact, not in c4.5's order), and the pass's
        later ones straight there: they outgrew their share of the budget."""
        for _, _, ids, w, y, codes, values in fractions.parts:
            self.tally(table, ids, y, w, lambda i: codes[:, i], lambda i: values[:, i])
        fractions.parts, fractions.folded = [], True

    @staticmethod
    def codes(batch: Dataset, a: int, rows: np.ndarray) -> np.ndarray:
        """Discrete attribute a's value codes + 1 at `rows` (0: unknown)."""
        codes = batch.columns[a][rows]
        if codes.dtype.kind == "f":
            codes = np.where(np.isnan(codes), -1, codes)
        return np.maximum(codes.astype(np.int64) + 1, 0)

    def unknown_tested(self, batch: Dataset) -> bool:
        """Whether a case of the batch has an unknown value of an attribute tested so far."""
        return _unknown_in(batch, sorted({a for r in self.routes for a in r.used}))

    def merge(self, a: list, b: list) -> list:
        """The tables of two parts of the cases as one (into `a`); if either part's fractional
        visits were folded into its sums, both parts' are."""
        if a[5].folded or b[5].folded:
            self.fold(a, a[5])
            self.fold(a, b[5])
        a[0] += b[0]
        a[1] += b[1]
        for j, sums in a[2].items():
            sums.absorb(b[2][j])
        for k, avc in a[3].items():
            avc.absorb(b[3][k])
        a[4] = a[4] and b[4]
        a[5].absorb(b[5])
        return a


SPARSE_BYTES = 32  # an AVC entry: an int64 key and an int64 sum, twice while a batch's runs wait to merge
DENSE_BYTES = 8    # a cell of a group's dense discrete table (node, attribute, value, class), while gains are computed
# What grows with the tree, not the rows (_PassGrower.tree_bytes; measured with tracemalloc on 50k-200k rows of
# make_synth.py --missing 0.05, 30 attributes, 12 branches at most: docs/large-data.md, "What bounds memory"):
NODE_BYTES = 100   # a grown node of the packed table: its _Grown row (class, cases, errors, cut: 20), its
                   # route's and compiled walk's (21 each), case bounds and parent link (32); plus per class
                   # its class weights (4) and per branch its routes (BRANCH_BYTES)
BRANCH_BYTES = 20  # a branch of this growth: its route's child and factor (8), the compiled walk's (12)
GHOST_BYTES = 64   # a node of the growth before (its compiled walk and the ghost tree's copy of it: 21
GHOST_BRANCH_BYTES = 24    # each, ~99 traced at 200k u5), and a branch of it (12 + 12)
OPEN_BYTES = 64    # an open node of the level: + 12 an attribute (gain, split, tested), 20 a branch (its chosen
                   # test's sums), 8 a class (class weights)
CANDIDATE_BYTES = 16       # a node of a pass's group: per discrete attribute and value its candidate sums (dw,
CONT_CANDIDATE_BYTES = 61  # rdw, fdv); per continuous attribute cw, rcw, cv, fcv, ccut, rc_at (candidates)
SETTLE_NODE_BYTES = 100    # a node while settling: its walk's row, factors, visit bounds, order (+ 8 a branch)


def size_text(n: float) -> str:
    """Bytes as a short size: 1.5 GB, 300 MB, 12 kB."""
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{int(n)} bytes"


def too_big(name: str, where: str, need: int, budget: int) -> InputError:
    """The refusal of an attribute whose AVC group alone may exceed the budget, with the remedies."""
    return InputError(f"attribute {name!r}: its AVC group {where} may need {size_text(need)}, beyond the memory"
                      f" budget of {size_text(budget)}: round or bin {name} before learning, or give a larger budget")


def root_counts(batches: Batches, schema: Schema, budget: int) -> tuple[int, dict[int, int]]:
    """One pass: the cases and each continuous attribute's distinct known values (index ->
    count). Raises InputError (too_big) for the first continuous attribute whose root AVC group
    may exceed `budget` (SPARSE_BYTES x min(cases, (distinct + 1) x classes)), as soon as it does."""
    C = len(schema.classes)
    cont = [i for i, a in enumerate(schema.attributes) if a.is_continuous]

    def checked(rows: int, seen: dict[int, np.ndarray]) -> tuple[int, dict[int, np.ndarray]]:
        for a in cont:
            need = SPARSE_BYTES * min(rows, (len(seen[a]) + 1) * C)
            if need > budget:
                raise too_big(schema.attributes[a].name, "at the tree's root", need, budget)
        return rows, seen

    def count(table: tuple[int, dict[int, np.ndarray]], batch: Dataset) -> tuple[int, dict[int, np.ndarray]]:
        seen = table[1]
        for a in cont:
            col = np.asarray(batch.columns[a], dtype=np.float64)
            seen[a] = np.union1d(seen[a], sorted_distinct(col[~np.isnan(col)]))
        return checked(table[0] + batch.n, seen)

    rows, seen = reduce_batches(batches, lambda: (0, {a: np.empty(0) for a in cont}), count,
                                lambda x, y: checked(x[0] + y[0], {a: np.union1d(x[1][a], y[1][a]) for a in cont}))
    return rows, {a: len(v) for a, v in seen.items()}


def grow_in_passes(batches: Batches, schema: Schema, *, min_objs: float = 2, gain_ratio: bool = True,
                   costs: np.ndarray | None = None, memory: int | None = None) -> tuple[Node, dict]:
    """Grow the unpruned C4.5 tree (as grow_tree does, spec 2) in passes over `batches`: a
    zero-argument callable returning a fresh iterable of Dataset batches of `schema`, one call
    per pass. One pass per tree level; memory: the open nodes' AVC tables and one batch.

    With a `memory` budget in bytes, one more pass first counts the cases and the continuous
    attributes' distinct values, and each level's open nodes are split into groups whose tables
    are bounded within the budget, one pass per group (RainForest); a node whose tables alone
    exceed it has its attributes split over passes. The tree does not change.

    Where the cases have unknown values, each pass keeps the visits of fractional weight (their
    case had an unknown value of a test above) to sum them in c4.5's order; the plan bounds
    them per node with their working copies (plan_bytes; a node whose visits cannot fit fails
    naming it); should they pass half the `memory` budget anyway a pass folds them into its
    exact sums instead, which may differ from the
    in-memory sums in the last bit (the levels where that happened: exact_sum_levels). A
    case's weight below an earlier branch's subtree carries that subtree's round trips, known
    only once it is grown: where a pass had fractional visits, the tree is grown again with
    the one before as the ghost tree (_Flat.with_ghosts) until a growth remakes it, at most
    GROWTH_ROUNDS times more.

    Returns the tree and an info dict: passes (all growths'), levels, passes_per_level (the last
    growth's), table_bytes (the largest tables one pass held, bytes, its fractional visits
    counted ORDER_COPIES times), planned_bytes (the most the plan gave one pass), memory (the
    budget or None), exact_sum_levels, growths, exact_weights (False where the growths stopped at their
    limit or sums were folded: a sum may then differ from c4.5's in its last bit), the largest AVC
    group (attribute, level, node within the level, entries: the node's distinct values x
    classes for a continuous attribute, (values + 1) x classes for a discrete one).

    Raises InputError when a batch has another schema, no class, or a total weight of 2^30 or
    more, or when one attribute's AVC group at one node, or one node's fractional visits, may
    exceed `memory` (naming it).
    """
    return _PassGrower(batches, schema, float(min_objs), gain_ratio, costs, memory).run()


class _Grown:
    """One grown level of the packed node table (its tests and branches are its _Route): per
    node its class (c4.5's least cost), cases and errors as float32, float32 class weights
    (nodes x classes) and its test's cut (float64; 0 where it has no threshold test). About 30
    bytes and 4 a class a node, where a Node object, its class_dist array and branches list
    held ~480."""
    __slots__ = ("klass", "items", "errors", "dist", "cut")

    def __init__(self, klass: np.ndarray, items: np.ndarray, errors: np.ndarray, dist: np.ndarray, cut: np.ndarray):
        self.klass, self.items, self.errors = klass.astype(np.int32), items, errors
        self.dist, self.cut = dist, cut


def _size(routes: list[_Route]) -> tuple[int, int]:
    """The nodes and branches of grown levels."""
    return sum(len(r.attr) for r in routes), sum(len(r.child) for r in routes)


def _tested_below(tested: np.ndarray, parent: np.ndarray, attr: np.ndarray) -> np.ndarray:
    """The tested attributes (nodes x attributes) of a level's children: their parent's
    (`parent`: each child's node in the level, `attr` its test) and the parent's test."""
    out = tested[parent]
    out[np.arange(len(parent)), attr[parent]] = True
    return out


def _tree(grown: list[_Grown], routes: list[_Route]) -> Node:
    """The Node tree of a packed node table (grow_tree's, before collapse): built once, from
    the deepest level up; a branch without cases is a leaf of its parent's class, class
    weights (the same array) and no cases, as c4.5 makes it."""
    below: list[Node] = []
    for g, r in zip(reversed(grown), reversed(routes)):
        nodes = []
        for s, (klass, items, errors) in enumerate(zip(g.klass.tolist(), g.items.tolist(), g.errors.tolist())):
            node = Node(klass, items, errors, g.dist[s].copy())
            a = int(r.attr[s])
            if a >= 0:
                node.attribute = a
                if r.threshold[s]:
                    node.kind, node.cut = "threshold", float(g.cut[s])
                else:
                    node.kind = "discrete"
                node.branches = [below[c] if c >= 0 else Node(klass, 0.0, 0.0, node.class_dist)
                                 for c in r.child[r.first[s]:r.first[s + 1]].tolist()]
            nodes.append(node)
        below = nodes
    return below[0]


class _PassGrower:
    def __init__(self, batches: Batches, schema: Schema, min_objs: float, gain_ratio: bool,
                 costs: np.ndarray | None, memory: int | None):
        self.batches, self.schema = batches, schema
        self.min_objs, self.gain_ratio, self.costs, self.memory = min_objs, gain_ratio, costs, memory
        attrs = schema.attributes
        self.A, self.C = len(attrs), len(schema.classes)
        self.cont = [i for i, a in enumerate(attrs) if a.is_continuous]
        self.disc = [i for i, a in enumerate(attrs) if a.is_discrete]
        self.nvals = np.array([len(attrs[i].values) for i in self.disc], dtype=np.int64)
        self.V = int(self.nvals.max()) + 1 if self.disc else 1
        self.F = max([2] + self.nvals.tolist())   # a test's branches at most
        self.routes: list[_Route] = []
        self.flat: _Flat | None = None            # the routes for the compiled routing
        self.values: dict[int, tuple[np.ndarray, np.ndarray]] = {}   # the root's distinct values
        self.largest = {"attribute": None, "level": 0, "node": 0, "entries": 0}
        self.passes, self.per_level, self.peak = 0, [], 0
        self.distinct: dict[int, int] = {}
        self.rows = np.zeros(1, dtype=np.int64)   # at most this many cases reach each open node
        self.frac = np.zeros(1, dtype=np.int64)   # and at most this many of them with fractional weight
        self.root_rows = 0                        # the cases, when a budget's first pass counted them
        self.fractional = False                   # a pass of this growth had fractional visits
        self.visits = 0                           # fractional visits the last check walked
        self.prior_flat: _Flat | None = None      # the growth before's tree compiled (the ghost tree),
                                                  # each open node's node there (prior_at)
        self.prior_at = np.zeros(1, dtype=np.int64)
        self.light = True                         # no case weighs more than 1
        self.fraction_bytes = 0                   # held by the last pass's fractional visits
        self.folded: list[int] = []               # levels whose fractional visits were folded (fold)
        # per node of the level with fractional visits: its cases and class weights summed in
        # c4.5's order (level() sets the per-level arrays of its candidate tests' branch sums)
        self.node_sums: dict[int, tuple[np.float32, np.ndarray]] = {}
        self.planned = 0                          # the most bytes the plan gave one pass (plan)
        self.tree_peak = 0                        # the most bytes the tree took beside the tables (tree_bytes)
        self.accounted = 0                        # the most bytes a pass was given with the tree's (plan, settle)

    def run(self) -> tuple[Node, dict]:
        """Grow the tree; where a pass had fractional visits, check in one more pass that each
        weight it summed is c4.5's walk's over the grown tree (check), else grow it again with
        that tree as the ghost tree (_Flat.with_ghosts), and so on. A growth that passes is
        c4.5's: its sums were made of c4.5's weights in c4.5's order, its tests chosen from them."""
        if self.memory is not None:
            self.root_rows, self.distinct = root_counts(self.batches, self.schema, self.memory)
            self.passes += 1
        prior: _Flat | None = None
        rounds, exact, start, settled = 0, True, 0, 0
        try:
            while True:
                self.grow(prior, start)
                if not self.fractional or self.folded or _native is None:
                    # nothing to replay, sums no longer in c4.5's order (exact_sum_levels), or
                    # no compiled walk (numpy's _route makes each node's own round trips only)
                    exact = not self.fractional
                    break
                start = self.check()
                if start is None:
                    break
                if rounds == GROWTH_ROUNDS:
                    exact = False
                    break
                self.regrowth_fits(start)
                group = self.settle_groups()
                if group is not None:
                    self.settle(group)
                    settled += 1
                # the levels above `start` had c4.5's weights given the tree below: grown again
                # with this tree as the ghost tree, they would come out the same
                prior, rounds = _Flat(self.routes), rounds + 1
        finally:
            forget_tables()
        root = _tree(self.grown, self.routes)
        collapse(root)
        return root, {"passes": self.passes, "levels": len(self.routes), "passes_per_level": list(self.per_level),
                      "table_bytes": self.peak, "planned_bytes": self.planned,
                      "tree_bytes": self.tree_peak, "accounted_bytes": self.accounted, "memory": self.memory,
                      "largest_group": dict(self.largest),
                      "exact_sum_levels": list(self.folded), "growths": rounds + 1, "settled": settled,
                      "exact_weights": exact}

    def grow(self, prior: _Flat | None, start: int = 0) -> None:
        """One growth, level by level, into self.grown and self.routes (the packed node table);
        `prior`: the growth before's tree compiled (the ghost tree; only it is kept of that tree). From level `start` > 0 on
        only: the levels above are the growth before's, whose weights checked (check), so
        growing them again would remake them bit for bit."""
        if start:
            S, tested = self.resume(start)
        else:
            S, tested = 1, np.zeros((1, self.A), dtype=bool)
            self.grown: list[_Grown] = []
            self.routes, self.flat, self.per_level, self.folded = [], None, [], []
            self.rows = np.array([self.root_rows], dtype=np.int64)
            self.frac = np.zeros(1, dtype=np.int64)
            self.light, self.fractional = True, False
            self.digests: dict[int, np.ndarray] = {}        # per level, its fractional visits' _digest
            # per level: its case and fractional visit bounds and `light` as it stood, and how its
            # nodes hang from the level above (parent, branch): where a growth resumes
            self.levels: list[tuple[np.ndarray, np.ndarray, bool]] = []
            self.links: dict[int, tuple[np.ndarray, np.ndarray]] = {}
            self.prior_at = np.zeros(1, dtype=np.int64)     # each open node's node in the prior tree's level
        self.prior_flat = prior
        if start and self.prior_flat is not None:
            self.flat = _Flat(self.routes, (self.prior_flat, self.prior_at))
        while S:
            self.levels.append((self.rows, self.frac, self.light))
            S, tested = self.level(S, tested)
            # the level's tables are freed: glibc would keep their pages under the next one's
            give_back_memory()

    def resume(self, start: int) -> tuple[int, np.ndarray]:
        """Keep the levels above `start` as grown, and fresh nodes at level `start` in place of
        the last growth's (each level-`start` node's own node in that tree: prior_at): their
        count and tested attributes (made again from the routes: not held per level)."""
        tested = np.zeros((1, self.A), dtype=bool)
        for k in range(start):
            tested = _tested_below(tested, self.links[k + 1][0], self.routes[k].attr)
        self.rows, self.frac, self.light = self.levels[start]
        self.levels, self.routes, self.per_level = self.levels[:start], self.routes[:start], self.per_level[:start]
        self.grown = self.grown[:start]
        self.digests = {k: d for k, d in self.digests.items() if k < start}
        self.prior_at = np.arange(len(tested), dtype=np.int64)
        return len(tested), tested

    def check(self) -> int | None:
        """One pass: every case with an unknown tested value walked through the whole grown
        tree as c4.5 walks it (_Flat.whole), its fractional visits digested per level as the
        growth's were (_digest); the first level whose digest is not the growth's (None: none)."""
        flat = _Flat.whole(self.routes)
        L, N = len(self.routes), len(flat.attr)
        starts = np.searchsorted(flat.level, np.arange(L))
        U = int(np.diff(flat.first).max())
        tests = _Route.tests(flat.attr, flat.threshold.view(bool), flat.cut32)
        used = flat.used
        self.passes += 1

        def count(table: list, batch: Dataset) -> list:
            offset = table[0]
            table[0] += batch.n
            if batch.n == 0 or not _unknown_in(batch, used):
                return table
            for start, columns, rows, ids, w, bits in _walked(flat, batch):
                level = flat.level[ids].astype(np.int64)
                shared = (bits != (1 << np.minimum(level, ORDER_LEVELS)) - 1) | (w != 1)
                part = np.flatnonzero(shared)
                lv = level[part]
                table[1] += _digest(rows[part] + offset + start, ids[part] - starts[lv], w[part], lv, L)
                inner, side = _sides(flat, tests, columns, rows, ids, U)
                held = inner[shared[inner] | (side == U)]          # what settle would hold (settle_groups)
                table[2] += np.bincount(ids[held], minlength=N)
            return table

        def merge(a: list, b: list) -> list:
            a[1] += _shifted(b[1], a[0])
            a[0] += b[0]
            a[2] += b[2]
            return a

        _, got, self.held_visits = reduce_batches(
            self.batches, lambda: [0, np.zeros((L, 3), dtype=np.uint64), np.zeros(N, dtype=np.int64)], count, merge)
        want = np.zeros((L, 3), dtype=np.uint64)
        for level, d in self.digests.items():
            want[level] = d
        self.visits = int(self.held_visits.sum())
        off = np.flatnonzero((got != want).any(axis=1))
        return int(off[0]) if off.size else None

    def regrowth_fits(self, start: int) -> None:
        """Before a growth again from level `start` with this tree as its ghost tree: raise
        InputError (tree_too_big) where, at a level from `start` on, that tree and this
        growth's nodes down to the level (the next growth's, as this one made them: the levels
        above `start` are kept, the ones below mostly remade) leave too little of the budget for
        one node's tables in one pass: the next growth would be refused there, after its passes."""
        if self.memory is None:
            return
        total = _size(self.routes)
        rows, frac = self.rows, self.frac
        grown = _size(self.routes[:start])
        try:
            for k in range(start, len(self.routes)):
                S = len(self.routes[k].attr)
                self.rows, self.frac, _ = self.levels[k]
                fixed, dbytes, cbytes, _ = self.plan_bytes(S)
                units = np.concatenate([dbytes, cbytes], axis=1)
                # a node's tables take a pass of one attribute at least (plan)
                need = int((fixed + (units.max(axis=1) if units.shape[1] else 0)).max())
                tree = self.tree_bytes(S, grown, total)
                if tree + need > self.memory:
                    raise self.tree_too_big(S, tree, need, k, grown[0], total[0], ahead=True)
                grown = (grown[0] + S, grown[1] + len(self.routes[k].child))
        finally:
            self.rows, self.frac = rows, frac

    def tree_bytes(self, S: int, grown: int | None = None, prior: int | None = None) -> int:
        """Bytes the tree holds beside a pass's tables while a level of S open nodes is grown
        (docs/large-data.md, "What bounds memory"): this growth's grown and open nodes in the
        packed table (NODE_BYTES each, BRANCH_BYTES a branch: an open node's F at most), the
        growth before's (its routes: GHOST_BYTES, GHOST_BRANCH_BYTES), the open level's
        per-node arrays (OPEN_BYTES) and the root's distinct values (12 bytes each).
        `grown`, `prior`: (nodes, branches) grown and the growth before's, if not this growth's."""
        A, C, F = self.A, self.C, self.F
        if grown is None:
            grown = _size(self.routes)
        if prior is None:
            pf = self.prior_flat
            prior = (0, 0) if pf is None else (len(pf.attr), len(pf.child))
        # the root's distinct values of each continuous attribute (float64 and float32), where cuts snap to
        values = 12 * sum(len(v[0]) for v in self.values.values())
        return (values + (grown[0] + S) * (NODE_BYTES + 4 * C) + (grown[1] + S * F) * BRANCH_BYTES
                + prior[0] * GHOST_BYTES + prior[1] * GHOST_BRANCH_BYTES + S * (OPEN_BYTES + 12 * A + 20 * F + 8 * C))

    def settle_groups(self) -> np.ndarray | None:
        """Each node's settling group (settle): the grown tree's nodes in c4.5's depth-first
        order cut into runs whose held visits (as the check counted them, SETTLE_BYTES each)
        and branch counts fit what the budget leaves beside the tree (settle_bytes); one group
        without a budget; None where a node's visits alone do not fit (then no settling pass:
        the growths converge alone, in more growths)."""
        N = len(self.held_visits)
        if self.memory is None:
            return np.zeros(N, dtype=np.int64)
        left = self.memory - self.settle_bytes()
        need = self.held_visits * SETTLE_BYTES + 8 * (self.F + 1)
        if left <= 0 or int(need.max()) > left:
            return None
        self.accounted = max(self.accounted, self.settle_bytes() + min(int(need.sum()), left))
        flat = _Flat.whole(self.routes)
        order = _preorder(flat)
        # cut where the running sum passes a multiple of `left`: each run holds at most `left`
        ends = np.cumsum(need[order])
        group = np.empty(N, dtype=np.int64)
        at, k = 0, 0
        while at < N:
            stop = int(np.searchsorted(ends, (ends[at - 1] if at else 0) + left, side="right"))
            group[order[at:stop]] = k
            at, k = stop, k + 1
        return group

    def settle_bytes(self) -> int:
        """Bytes the settling pass holds beside its groups' visits, the tree's included: per
        node of the grown tree its walk's row, depth-first order and visit bounds
        (SETTLE_NODE_BYTES, 8 a branch) and per case its weight as c4.5's walk leaves it (4)."""
        nodes = sum(len(r.attr) for r in self.routes)
        return self.tree_bytes(0) + nodes * (SETTLE_NODE_BYTES + 8 * (self.F + 1)) + 4 * self.root_rows

    def settle(self, group: np.ndarray) -> None:
        """The factors c4.5 makes with the grown tree's tests: a pass collects each node's
        visits (the cases weighing 1 at every test above and known at the node as counts per
        branch, the others whole: case number, known bits, branch or unknown), then c4.5's
        depth-first growth is replayed on them with the tests held (as tree/grow.py's `grow`:
        a node's cases and branch sums in c4.5's order, each factor from them, the unknown
        cases' weights multiplied by it, the branch walked, divided back), and the routes
        take its factors. The next growth's ghost tree is then c4.5's wherever its tests
        stay, so the growths needed do not grow with the chains of round trips. The nodes'
        visits are held one `group` (settle_groups: runs of the depth-first order) at a
        time, one pass each, the next group's read when the replay reaches it."""
        flat = _Flat.whole(self.routes)
        N, first, child = len(flat.attr), flat.first, flat.child
        U = int(np.diff(first).max())                 # a node's side for its unknowns
        tests = _Route.tests(flat.attr, flat.threshold.view(bool), flat.cut32)

        def visits(k: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
            """One pass: group k's held visits in c4.5's order at each node (ids, rows, sides),
            and every node's counts per branch of the visits weighing 1."""
            self.passes += 1

            def count(table: list, batch: Dataset) -> list:
                offset = table[0]
                table[0] += batch.n
                for start, columns, rows, ids, w, bits in _walked(flat, batch):
                    inner, side = _sides(flat, tests, columns, rows, ids, U)
                    rows, ids, w, bits = rows[inner], ids[inner], w[inner], bits[inner]
                    level = flat.level[ids].astype(np.int64)
                    # whole: the fractional visits and those whose weight the node shares out
                    whole = (bits != (1 << np.minimum(level, ORDER_LEVELS)) - 1) | (w != 1) | (side == U)
                    table[1] += np.bincount(ids[~whole] * (U + 1) + side[~whole], minlength=N * (U + 1))
                    mine = whole & (group[ids] == k)
                    table[2].append((ids[mine], bits[mine], rows[mine] + offset + start, side[mine]))
                return table

            def merge(a: list, b: list) -> list:
                a[1] += b[1]
                a[2] += [(i, kb, r + a[0], sd) for i, kb, r, sd in b[2]]
                a[0] += b[0]
                return a

            n, units, parts = reduce_batches(self.batches, lambda: [0, np.zeros(N * (U + 1), dtype=np.int64), []],
                                             count, merge)
            ids, bits, rows, side = _joined(parts) if parts else [np.empty(0, np.int64)] * 4
            order = np.lexsort((rows, bits, ids))          # c4.5's order at each node (_Fractions.ordered)
            del bits
            return n, units.reshape(N, U + 1), ids[order], rows[order], side[order]

        n, units, ids, rows, side = visits(0)
        loaded = [0]
        sides = np.arange(U + 1)
        x = np.ones(n, dtype=np.float32)               # each case's weight as c4.5's walk leaves it
        factor = flat.factor.copy()

        def grow(g: int) -> None:
            nonlocal ids, rows, side
            if flat.attr[g] < 0:
                return
            if group[g] != loaded[0]:
                # the depth-first order reached the next group: its visits (the groups are runs of it)
                loaded[0] = int(group[g])
                ids = rows = side = None
                _, _, ids, rows, side = visits(loaded[0])
            lo, hi = np.searchsorted(ids, g), np.searchsorted(ids, g, side="right")
            r, sd = rows[lo:hi], side[lo:hi]
            w = x[r]
            # the node's visits in c4.5's order, then those weighing 1 (_in_order)
            sums = _in_order(sd, w, sides, units[g], U + 1)
            cases = _in_order(np.zeros(len(w), np.int64), w, np.zeros(1, np.int64), units[g].sum(keepdims=True), 1)[0]
            unknown = r[sd == U]
            for b in range(int(first[g]), int(first[g + 1])):
                if child[b] < 0:
                    continue
                f = sums[b - first[g]] / (cases - sums[U])
                factor[b] = f
                if unknown.size:
                    x[unknown] = x[unknown] * f
                grow(int(child[b]))
                if unknown.size:
                    x[unknown] = x[unknown] / f

        grow(0)
        for k, route in enumerate(self.routes):
            lo = int(first[np.searchsorted(flat.level, k)])
            route.factor[:] = factor[lo:lo + len(route.factor)]

    # ---- the passes of a level --------------------------------------------------------------
    def plan(self, S: int) -> list[tuple[np.ndarray, list[int], list[int]]]:
        """The level's passes: (nodes as a mask, discrete and continuous attributes as indices
        into self.disc/self.cont), each pass's tables and working copies bounded within the
        budget (plan_bytes). Raises InputError naming what alone exceeds it."""
        D, K = len(self.disc), len(self.cont)
        if self.memory is None:
            return [(np.ones(S, dtype=bool), list(range(D)), list(range(K)))]
        fixed, dbytes, cbytes, tables = self.plan_bytes(S)
        need = fixed + dbytes.sum(axis=1) + cbytes.sum(axis=1)
        level, tree = len(self.routes), self.tree_bytes(S)
        self.tree_peak = max(self.tree_peak, tree)
        # the tree's nodes and routes grow with the tree, not the rows: the tables get the rest
        budget = self.memory - tree
        groups: list[tuple[np.ndarray, list[int], list[int]]] = []
        members, used = np.zeros(S, dtype=bool), 0

        def close(mask: np.ndarray, d: list[int], c: list[int], planned: int) -> None:
            if mask.any():
                groups.append((mask, d, c))
                self.planned = max(self.planned, planned)
                self.accounted = max(self.accounted, planned + tree)
        for s in range(S):
            if need[s] <= budget:
                if used + need[s] > budget:
                    close(members, list(range(D)), list(range(K)), used)
                    members, used = np.zeros(S, dtype=bool), 0
                members[s], used = True, used + int(need[s])
                continue
            # this node alone exceeds the budget: its attributes over several passes
            one = np.zeros(S, dtype=bool)
            one[s] = True
            units = [(int(dbytes[s, j]), j, self.disc[j], True) for j in range(D)]
            units += [(int(cbytes[s, k]), k, self.cont[k], False) for k in range(K)]
            d: list[int] = []
            c: list[int] = []
            base = int(fixed[s])
            part = base
            units.sort(key=lambda u: u[2])
            # what alone exceeds the whole budget first, then what does not fit beside the tree
            for size, j, a, discrete in units:
                table = int(tables[s, j if discrete else D + j])
                if 16 * self.C + table > self.memory or (base + size > self.memory and not self.frac[s]):
                    raise too_big(self.schema.attributes[a].name, f"at a node of tree level {level}",
                                  16 * self.C + table if 16 * self.C + table > self.memory else base + size,
                                  self.memory)
                if base + size > self.memory:
                    raise InputError(
                        f"node {s} of tree level {level}: its {int(self.frac[s])} visits of fractional weight"
                        f" (cases with an unknown value of a test above it) with attribute"
                        f" {self.schema.attributes[a].name!r} may need {size_text(base + size)}, beyond the memory"
                        f" budget of {size_text(self.memory)}: give a larger budget (--memory), or fill in the"
                        f" unknown values before learning")
            for size, j, a, discrete in units:
                if base + size > budget:
                    raise self.tree_too_big(S, tree, base + size)
                if part + size > budget:
                    close(one, d, c, part)
                    d, c, part = [], [], base
                (d if discrete else c).append(j)
                part += size
            close(one, d, c, part)
        close(members, list(range(D)), list(range(K)), used)
        return groups

    def tree_too_big(self, S: int, tree: int, need: int, level: int | None = None, grown: int | None = None,
                     prior: int | None = None, ahead: bool = False) -> InputError:
        """The refusal of a level whose node's tables (`need` bytes) do not fit beside the tree
        (this growth's level, or with `ahead` the next growth's `level` (regrowth_fits): its
        `grown` nodes above, S open and the `prior` nodes of this growth as its ghost tree)."""
        if level is None:
            level, grown = len(self.routes), sum(len(r.attr) for r in self.routes)
            prior = None if self.prior_flat is None else len(self.prior_flat.attr)
        before = "" if prior is None else f" and the growth before's {prior}"
        where = (f"the next growth's tree at level {level} ({grown} nodes, {S} open, and this growth's {prior} as"
                 f" its ghost tree) would need" if ahead
                 else f"the tree grown to level {level} ({grown} nodes, {S} open{before}) needs")
        return InputError(
            f"{where} {size_text(tree)} of the memory budget of {size_text(self.memory)}, leaving"
            f" {size_text(max(self.memory - tree, 0))} where a node's tables need {size_text(need)}: give a larger"
            f" budget (--memory), or a larger --min-objs (a smaller tree)")

    def plan_bytes(self, S: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Each open node's bound in bytes (docs/large-data.md, "What bounds memory"): what it
        needs in any pass (S), and per discrete and continuous attribute in a pass (S x D,
        S x K), working copies included; and the tables alone (S x (D + K)). Per attribute
        SPARSE_BYTES x min(cases reaching the node, (values + 1) x classes), plus DENSE_BYTES x
        values x classes for a discrete one; per node its class sums and its candidate tests'
        branch sums (CANDIDATE_BYTES a discrete value, CONT_CANDIDATE_BYTES a continuous
        attribute; held for the nodes of one group at a time). Where cases of fractional
        weight reach it, each is kept with its case number, known bits, node, weight and class
        (FRACTION_BYTES) and its value of each attribute of the pass (VALUE_BYTES), about twice
        over while they are put in c4.5's order and replayed (ORDER_COPIES), and while a
        continuous attribute's sums are replayed every case at the node is spelt out
        (REPLAY_BYTES)."""
        D, K, C = len(self.disc), len(self.cont), self.C
        rows, frac = self.rows[:, None], self.frac[:, None]
        dtables = DENSE_BYTES * self.V * C + SPARSE_BYTES * np.minimum(rows, (self.nvals + 1) * C)
        if self.routes:
            m = np.array([len(self.values[a][0]) for a in self.cont], dtype=np.int64)
        else:
            m = np.array([self.distinct[a] for a in self.cont], dtype=np.int64)
        ctables = SPARSE_BYTES * np.minimum(rows, (m + 1) * C)
        value = ORDER_COPIES * VALUE_BYTES * frac
        # its candidate tests' branch sums while its group is grown (candidates)
        fixed = (16 * C + CANDIDATE_BYTES * D * self.V + CONT_CANDIDATE_BYTES * K
                 + ORDER_COPIES * FRACTION_BYTES * self.frac + REPLAY_BYTES * self.rows * (self.frac > 0) * (K > 0))
        tables = np.concatenate([dtables.reshape(S, D), ctables.reshape(S, K)], axis=1)
        return fixed, (dtables + value).reshape(S, D), (ctables + value).reshape(S, K), tables

    def scan(self, S: int, members: np.ndarray, dsel: list[int], csel: list[int]
             ) -> tuple[np.ndarray, np.ndarray, dict[int, _SparseSums], dict[int, _ContinuousAVC], _Fractions]:
        """One pass: class weights (S x C, fixed point) and cases of the nodes in `members`,
        with their discrete AVC groups (keyed (node, value code + 1, class)) and continuous ones
        for the attributes dsel/csel, and the visits of fractional weight (not in those sums). A batch's columns are read where needed: no matrix of
        all its columns."""
        scan = _LevelScan(self.schema, self.routes, self.flat, members, self.disc, self.cont, dsel, csel,
                          [self.values[self.cont[k]][0] if self.routes else None for k in range(len(self.cont))],
                          S, self.C, self.V, None if self.memory is None else self.memory // FRACTION_SHARE)
        self.passes += 1
        dist, count, disc, cont, light, fractions = reduce_batches(self.batches, scan.zero, scan.count, scan.merge)
        self.light = self.light and light
        self.fractional = self.fractional or bool(fractions.parts) or fractions.folded
        level = len(self.routes)
        for rows, _, ids, w, *_ in fractions.parts:
            # part by part (the digest's sums add up modulo 2^64): the visits are not joined once
            # more; a node whose attributes take several passes has its visits digested once
            new = ~self.digested[ids]
            self.digests[level] = self.digests.get(level, 0) + _digest(rows[new], ids[new], w[new],
                                                                       np.zeros(int(new.sum()), np.int64), 1)[0]
        self.digested |= members
        if fractions.folded and len(self.routes) not in self.folded:
            self.folded.append(len(self.routes))
        self.fraction_bytes = fractions.nbytes()
        return dist.reshape(S, self.C), count, disc, cont, fractions

    def active_tables(self, disc: dict[int, _SparseSums], act: np.ndarray, S: int) -> np.ndarray:
        """The discrete AVC groups of the active nodes as one dense table (act, len(disc), V, C)."""
        V, C = self.V, self.C
        where = np.full(S, -1, dtype=np.int64)
        where[act] = np.arange(len(act))
        out = np.zeros((len(act), len(disc), V * C), dtype=np.int64)
        for i, table in enumerate(disc.values()):
            keys, sums = table.merged()
            node, cell = np.divmod(keys, V * C)
            at = where[node]
            keep = at >= 0
            out[at[keep], i, cell[keep]] = sums[keep]
            table.runs = []
        return out.reshape(len(act), len(disc), V, C)

    def held(self, S: int, disc: dict[int, _SparseSums], cont: dict[int, _ContinuousAVC]) -> int:
        """Bytes of a pass's tables as they stand: 16 per sparse entry (runs not yet merged
        included), 8 per class sum and case count, and its fractional visits as ordering them
        holds them (ORDER_COPIES times)."""
        runs = [t.runs for t in disc.values()]
        for avc in cont.values():
            runs += [t.runs for t in avc.by_class] if avc.values is None else [avc.table.runs]
        return 16 * sum(len(r[0]) for rs in runs for r in rs) + 8 * S * (self.C + 1) + ORDER_COPIES * self.fraction_bytes

    # ---- one level --------------------------------------------------------------------------
    def level(self, S: int, tested: np.ndarray) -> tuple[int, np.ndarray]:
        """Label, test and split the level's S nodes (into self.grown and self.routes); return
        the next level's count and tested attributes."""
        C = self.C
        fdist, count = np.zeros((S, C), dtype=np.int64), np.zeros(S, dtype=np.int64)
        gain = np.full((S, self.A), NO_GAIN, dtype=np.float32)
        split = np.zeros((S, self.A), dtype=np.float32)
        # per node its chosen test's branch sums (keep_chosen): the candidates' are held for one
        # group of nodes at a time (candidates), a few hundred bytes a node kept, not kilobytes
        F = max([2] + [len(self.schema.attributes[a].values) for a in self.disc])
        self.bw = np.zeros((S, F + 1), dtype=np.int64)      # fixed point, per branch, unknown last
        self.bw32 = np.zeros((S, F + 1), dtype=np.float32)  # in c4.5's order where brep
        self.bv = np.zeros((S, F + 1), dtype=np.int32)      # visits per branch, unknown last, where brep
        self.bfv = np.zeros((S, F), dtype=np.int32)         # fractional visits per branch, where brep
        self.brep = np.zeros(S, dtype=bool)
        self.bcut = np.zeros(S)
        chosen = np.full(S, -1, dtype=np.int64)
        groups = self.plan(S)
        self.per_level.append(len(groups))
        self.node_sums = {}
        self.digested = np.zeros(S, dtype=bool)      # the nodes whose fractional visits were digested (scan)
        last, last_act = None, np.empty(0, dtype=np.int64)
        for members, dsel, csel in groups:
            if last is None or not np.array_equal(members, last):
                # other nodes (a node's attributes over several passes share its group's arrays)
                self.keep_chosen(last_act, chosen, gain, split)
                self.candidates(S, members)
            gdist, gcount, disc, cont, fractions = self.scan(S, members, dsel, csel)
            at = np.flatnonzero(members)
            fdist[at], count[at] = gdist[at], gcount[at]
            held = self.held(S, disc, cont)
            if not self.routes:
                self.first_level(gdist, cont)
            dist, cases = _f32(gdist), _f32(gdist.sum(axis=1))
            replay = _Replay(fractions, gdist, self.C)
            for s, (n, d) in replay.node_sums().items():
                cases[s], dist[s] = n, d
            self.node_sums.update(replay.node_sums())
            # spec 2.1
            act = np.flatnonzero(members & ~((dist.max(axis=1) == cases) | (cases < 2 * self.min_objs)))
            fdisc = self.active_tables(disc, act, S)
            self.peak = max(self.peak, held + fdisc.nbytes)
            if act.size and dsel:
                self.discrete(act, cases, fdisc, dsel, tested, gain, split)
            if csel:
                self.cuts(act, cases, cont, gain, split)
            self.replayed(replay, act, cases, fdisc, dsel, cont, tested, gain, split)
            del fdisc, disc, cont
            last, last_act = members, act
        self.keep_chosen(last_act, chosen, gain, split)
        self.candidates(S, np.zeros(S, dtype=bool))     # let the last group's go: the plan counted them
        dist = _f32(fdist)
        cases = _f32(fdist.sum(axis=1))
        for s, (n, d) in self.node_sums.items():
            cases[s], dist[s] = n, d
        best_class = np.asarray(cheapest_class(dist, self.costs)).reshape(S)
        errors = cases - dist[np.arange(S), best_class]
        self.grown.append(_Grown(best_class, cases, errors, dist, np.where(chosen >= 0, self.bcut, 0.0)))
        self.note_largest(S, len(self.routes))
        # a node all of whose cases weigh 1 passes exactly its branch's cases (and its unknowns) on
        whole = self.light & (fdist.sum(axis=1) == count << 32)
        return self.divide(chosen, cases, count, whole, tested)

    def candidates(self, S: int, members: np.ndarray) -> None:
        """Fresh arrays of the candidate tests' branch sums, for one group of nodes: per node a
        discrete attribute's per value (0: unknown) and a continuous one's below, above, unknown
        and cut; where the node had fractional visits, the same in c4.5's order (rdw, rcw: rc_at)
        and its fractional visits down each branch (fdv, fcv) and every visit down a continuous
        one's (cv). A row per node of the group (`members`; self.row: a node's row, -1 none), not
        per node of the level: kilobytes a node, beyond the budget at 100k nodes."""
        D, K, V = len(self.disc), len(self.cont), self.V
        self.row = np.full(S, -1, dtype=np.int64)
        Q = int(members.sum())
        self.row[members] = np.arange(Q)
        self.dw = np.zeros((Q, D, V), dtype=np.int64)
        self.cw = np.zeros((Q, K, 3), dtype=np.int64)
        self.ccut = np.zeros((Q, K))
        self.replayed_at = np.zeros(Q, dtype=bool)
        self.rc_at = np.zeros((Q, K), dtype=bool)
        self.rdw = np.zeros((Q, D, V), dtype=np.float32)
        self.rcw = np.zeros((Q, K, 3), dtype=np.float32)
        self.fdv = np.zeros((Q, D, V), dtype=np.int32)
        self.cv = np.zeros((Q, K, 3), dtype=np.int32)
        self.fcv = np.zeros((Q, K, 3), dtype=np.int32)

    def keep_chosen(self, act: np.ndarray, chosen: np.ndarray, gain: np.ndarray, split: np.ndarray) -> None:
        """Choose the tests of a group's active nodes `act` (spec 2.5: one node per row, so group
        by group is all at once) and keep the chosen test's branch sums (bw, bw32, bv, bfv, brep,
        bcut) from the group's candidates for `divide`."""
        if not act.size:
            return
        chosen[act] = choose_tests(gain[act], split[act], self.left_out, self.gain_ratio)
        F = self.bfv.shape[1]
        for j, a in enumerate(self.disc):
            at = act[chosen[act] == a]
            if not at.size:
                continue
            n = int(self.nvals[j])
            t = self.dw[self.row[at], j, :n + 1]
            self.bw[at, :n], self.bw[at, F] = t[:, 1:], t[:, 0]
            rep = at[self.replayed_at[self.row[at]]]
            self.brep[rep] = True
            r, f = self.rdw[self.row[rep], j, :n + 1], self.fdv[self.row[rep], j, :n + 1].astype(np.int64)
            self.bw32[rep, :n], self.bw32[rep, F] = r[:, 1:], r[:, 0]
            # dw: the cases weighing 1 (2^32 each) down each branch, beside the fractional ones
            units = self.dw[self.row[rep], j, :n + 1] >> 32
            self.bv[rep, :n], self.bv[rep, F] = _counts32(units[:, 1:] + f[:, 1:]), _counts32(units[:, 0] + f[:, 0])
            self.bfv[rep, :n] = f[:, 1:]
        for k, a in enumerate(self.cont):
            at = act[chosen[act] == a]
            if not at.size:
                continue
            g = self.row[at]
            self.bcut[at] = self.ccut[g, k]
            self.bw[at, :2], self.bw[at, F] = self.cw[g, k, :2], self.cw[g, k, 2]
            rep = at[self.rc_at[g, k]]
            g = self.row[rep]
            self.brep[rep] = True
            self.bw32[rep, :2], self.bw32[rep, F] = self.rcw[g, k, :2], self.rcw[g, k, 2]
            self.bv[rep, :2], self.bv[rep, F] = self.cv[g, k, :2], self.cv[g, k, 2]
            self.bfv[rep, :2] = self.fcv[g, k, :2]

    def replayed(self, replay: _Replay, act: np.ndarray, cases: np.ndarray, fdisc: np.ndarray, dsel: list[int],
                 cont: dict[int, _ContinuousAVC], tested: np.ndarray, gain: np.ndarray, split: np.ndarray) -> None:
        """The active nodes with fractional visits: the gains, split information, cuts and
        branch sums of the pass's attributes again, from their cases in c4.5's order (_Replay)
        by the in-memory growth's functions (discrete_gains, the compiled cut scan or
        best_cuts, snap_cut): all such nodes of the pass at once, one attribute at a time."""
        C, V = self.C, self.V
        nodes, number = replay.among(act)
        Q = len(nodes)
        if not Q:
            return
        self.replayed_at[self.row[nodes]] = True
        which = np.flatnonzero(number[replay.ids] >= 0)
        q, y, w = number[replay.ids[which]], replay.y[which], replay.w[which]
        pos = np.searchsorted(act, nodes)             # the nodes' rows in fdisc
        for i, j in enumerate(dsel):
            a = self.disc[j]
            code, units = replay.codes[which, i], fdisc[pos, i] >> 32        # units: (Q, V, C) cases weighing 1
            table = _in_order((q * V + code) * C + y, w, np.arange(Q * V * C), units.ravel(), Q * V * C)
            sums = _in_order(q * V + code, w, np.arange(Q * V), units.sum(axis=2).ravel(), Q * V).reshape(Q, V)
            self.rdw[self.row[nodes], j] = sums
            # the fractional visits down each branch (code 0: unknown), for the next level's plan
            self.fdv[self.row[nodes], j] = _counts32(np.bincount(q * V + code, minlength=Q * V).reshape(Q, V))
            g, sp = discrete_gains(table.reshape(Q, V, C), cases[nodes], self.min_objs)
            done = tested[nodes, a]
            gain[nodes, a], split[nodes, a] = np.where(done, NO_GAIN, g), np.where(done, F32(0), sp)
        cases32 = np.ascontiguousarray(cases[nodes], dtype=np.float32)
        for i, k in enumerate(cont):
            a = self.cont[k]
            vals, vals32 = self.values[a]
            m = len(vals)
            node, rank, cls, fixed = cont[k].entries()
            eq = number[node]
            keep = np.flatnonzero(eq >= 0)
            eq, rank, cls, counts = eq[keep], rank[keep], cls[keep], fixed[keep] >> 32
            rf = _ranks(vals, replay.values[which, i])             # rank m: unknown
            # each node's cases sorted by value (unknowns last), stably: its fractional visits
            # in c4.5's order before the cases weighing 1 of the same value, as grow.py sorts them
            key = np.concatenate([q * (m + 1) + rf, np.repeat(eq * (m + 1) + rank, counts)])
            order = np.argsort(key, kind="stable")
            key = key[order]
            ranks = (key % (m + 1)).astype(np.int32)
            ys = np.concatenate([y, np.repeat(cls, counts)])[order]
            ws = np.concatenate([w, np.ones(int(counts.sum()), dtype=np.float32)])[order]
            starts = np.searchsorted(key, np.arange(Q + 1) * (m + 1))
            g, sp = np.full(Q, NO_GAIN, dtype=np.float32), np.zeros(Q, dtype=np.float32)
            lo, hi = np.full(Q, np.nan), np.full(Q, np.nan)
            if _native is not None:
                _native.entry_cuts(starts, ranks, ws, ys, C, vals, vals32, cases32, np.ones(Q, np.uint8),
                                   float(self.min_objs), g, sp, lo, hi)
            else:
                every = np.append(vals, np.nan)
                for r in range(Q):
                    part = slice(starts[r], starts[r + 1])
                    v = every[ranks[part]][:, None]
                    gs, ss, at = best_cuts(v, ws[part, None], ys[part, None], C, cases32[r], self.min_objs)
                    g[r], sp[r] = gs[0], ss[0]
                    if at[0] >= 0:
                        lo[r], hi[r] = v[at[0], 0], v[at[0] + 1, 0]
            gain[nodes, a], split[nodes, a] = g, sp
            has = np.flatnonzero(~np.isnan(lo))
            if not has.size:
                continue
            self.ccut[self.row[nodes[has]], k] = snap_cut(vals, vals32, lo[has], hi[has])
            cut32 = np.full(Q, np.nan, dtype=np.float32)
            cut32[has] = self.ccut[self.row[nodes[has]], k].astype(np.float32)
            with np.errstate(invalid="ignore"):
                side_f = np.where(rf < m, vals32[np.minimum(rf, m - 1)] > cut32[q], 2)
                side_u = np.where(rank < m, vals32[np.minimum(rank, m - 1)] > cut32[eq], 2)
            sums = _in_order(q * 3 + side_f, w, eq * 3 + side_u, counts, Q * 3).reshape(Q, 3)
            fvisits = np.bincount(q * 3 + side_f, minlength=Q * 3).reshape(Q, 3)
            visits = np.bincount(eq * 3 + side_u, weights=counts, minlength=Q * 3).astype(np.int64).reshape(Q, 3)
            at = self.row[nodes[has]]
            self.rc_at[at, k] = True
            self.rcw[at, k] = sums[has]
            self.fcv[at, k] = _counts32(fvisits[has])
            self.cv[at, k] = _counts32(visits[has] + fvisits[has])

    def discrete(self, act: np.ndarray, cases: np.ndarray, fdisc: np.ndarray, dsel: list[int], tested: np.ndarray,
                 gain: np.ndarray, split: np.ndarray) -> None:
        """The active nodes' gains and split information of the discrete attributes `dsel`, and
        their branch sums (self.dw)."""
        D, C = len(dsel), self.C
        attrs = [self.disc[j] for j in dsel]
        self.dw[np.ix_(self.row[act], dsel)] = fdisc.sum(axis=3)
        # discrete_gains' float64 temporaries are ~10 x its table: a block of nodes at a time
        step = max(1, _CELLS // (D * self.V * C))
        for lo in range(0, act.size, step):
            part = act[lo:lo + step]
            tables = _f32(fdisc[lo:lo + step]).transpose(1, 0, 2, 3).reshape(D * part.size, self.V, C)
            g, s = discrete_gains(tables, np.tile(cases[part], D), self.min_objs)
            g, s = g.reshape(D, part.size).T, s.reshape(D, part.size).T
            done = tested[np.ix_(part, attrs)]
            gain[np.ix_(part, attrs)] = np.where(done, NO_GAIN, g)
            split[np.ix_(part, attrs)] = np.where(done, F32(0), s)

    def first_level(self, fdist: np.ndarray, cont: dict[int, _ContinuousAVC]) -> None:
        """From the root's tables: each continuous attribute's distinct values (where cuts snap
        to, and the ranks of the AVC keys) and the many-valued attributes left out of the
        average gain (spec 2.5)."""
        n_all = float(_f32(fdist.sum()))
        if n_all >= _MAX_WEIGHT:
            raise InputError(f"the cases weigh {n_all:g} in all: growing in passes sums weights below 2^30")
        for j, avc in cont.items():
            vals = avc.root_values()
            self.values[self.cont[j]] = (vals, vals.astype(np.float32))
            avc.finish(vals)
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

    def cuts(self, act: np.ndarray, cases: np.ndarray, cont: dict[int, _ContinuousAVC], gain: np.ndarray,
             split: np.ndarray) -> None:
        """Note the largest continuous AVC group, then
        each active node's best cut of each continuous attribute over the node's AVC entries,
        each entry one case weighing its sum (the unknowns' classes last), by the compiled scan
        that grows in memory (entry_cuts), all nodes of the pass in one call per attribute;
        and each cut's branch sums (self.cw, self.ccut)."""
        S, C = len(cases), self.C
        active = np.zeros(S, dtype=np.uint8)
        active[act] = 1
        cases32 = np.ascontiguousarray(cases, dtype=np.float32)
        level = len(self.routes)
        for j, avc in cont.items():
            a = self.cont[j]
            node, rank, cls, sums = avc.entries()
            m = avc.m
            known = rank < m
            if known.any():
                # the largest group: entries are sorted by node and rank, count each node's ranks
                kn, kr = node[known], rank[known]
                counts = np.bincount(kn[np.r_[True, (kn[1:] != kn[:-1]) | (kr[1:] != kr[:-1])]])
                s = int(np.argmax(counts))
                self.bigger(a, level, s, int(counts[s]) * C)
            if not act.size:
                continue
            keep = sums > 0
            knode, krank, kcls, w = node[keep], rank[keep].astype(np.int32), cls[keep], _f32(sums[keep])
            starts = np.searchsorted(knode, np.arange(S + 1))
            vals, vals32 = self.values[a]
            g, sp = np.full(S, NO_GAIN, dtype=np.float32), np.zeros(S, dtype=np.float32)
            lo, hi = np.full(S, np.nan), np.full(S, np.nan)
            if _native is not None:
                _native.entry_cuts(starts, krank, w, kcls, C, vals, vals32, cases32, active, float(self.min_objs),
                                   g, sp, lo, hi)
            else:
                for s in act.tolist():
                    r = krank[starts[s]:starts[s + 1]]
                    v = np.where(r < len(vals), vals[np.minimum(r, len(vals) - 1)], np.nan)[:, None]
                    gs, ss, at = best_cuts(v, w[starts[s]:starts[s + 1], None], kcls[starts[s]:starts[s + 1], None],
                                           C, cases32[s], self.min_objs)
                    g[s], sp[s] = gs[0], ss[0]
                    if at[0] >= 0:
                        lo[s], hi[s] = v[at[0], 0], v[at[0] + 1, 0]
            gain[act, a], split[act, a] = g[act], sp[act]
            cut_at = act[~np.isnan(lo[act])]
            if cut_at.size:
                # each cut's branch sums, should the attribute be chosen: below, above, unknown
                self.ccut[self.row[cut_at], j] = snap_cut(vals, vals32, lo[cut_at], hi[cut_at])
                cut32 = np.full(S, np.nan, dtype=np.float32)
                cut32[cut_at] = self.ccut[self.row[cut_at], j].astype(np.float32)
                on = ~np.isnan(cut32[node])
                side = np.where(known[on], vals32[np.minimum(rank[on], m - 1)] > cut32[node[on]], 2)
                self.cw[self.row[cut_at], j] = _sums(node[on] * 3 + side, sums[on], S * 3, False).reshape(S, 3)[cut_at]

    def divide(self, chosen: np.ndarray, cases: np.ndarray, count: np.ndarray, whole: np.ndarray,
               tested: np.ndarray) -> tuple[int, np.ndarray]:
        """Set each chosen test, number the children and make the routing to them, and bound
        the cases reaching each child (for the next level's plan)."""
        S = len(chosen)
        attrs = self.schema.attributes
        child: list[int] = []           # per branch of each tested node, in node order (_Route)
        factor: list[np.float32] = []
        cut32 = np.zeros(S, dtype=np.float32)
        threshold = np.zeros(S, dtype=bool)
        width = np.zeros(S, dtype=np.int64)
        parents: list[int] = []
        branch_at: list[int] = []
        rows: list[int] = []
        fracs: list[int] = []
        for s in np.flatnonzero(chosen >= 0).tolist():
            a = int(chosen[s])
            if attrs[a].is_continuous:
                threshold[s], cut32[s] = True, np.float32(self.bcut[s])
                n = 2
            else:
                n = int(self.nvals[self.disc.index(a)])
            weights, unknown = self.bw[s, :n], self.bw[s, -1]
            width[s] = n
            # c4.5's factor: the branch's known weight over the node's, in float (grow.grow),
            # its sums in c4.5's order where the node had fractional visits; and the visits
            # down each branch, its unknowns' and its fractional visits (for the next plan)
            seen = None
            if self.brep[s]:
                w32, u32 = self.bw32[s, :n], self.bw32[s, -1]
                if max(int(self.bv[s, :n].max()), int(self.bv[s, -1])) < _MAX_COUNT32:
                    seen = self.bv[s, :n], int(self.bv[s, -1]), self.bfv[s, :n]
            else:
                w32, u32 = _f32(weights), _f32(unknown)
            # sums of non-negative weights: a branch has cases where its sum is not 0
            filled = w32 != 0
            shares = w32 / (F32(cases[s]) - u32)
            for v in range(len(weights)):
                child.append(len(parents) if filled[v] else -1)
                factor.append(shares[v] if filled[v] else F32(0))
                if filled[v]:
                    parents.append(s)
                    branch_at.append(v)
                    if seen is not None:
                        rows.append(int(seen[0][v]) + seen[1])
                        fracs.append(int(seen[2][v]) + seen[1])
                    elif whole[s]:
                        rows.append(int(weights[v] + unknown) >> 32)
                        fracs.append(int(unknown) >> 32)
                    else:
                        rows.append(int(count[s]))
                        fracs.append(int(count[s]))
        parent = np.array(parents, dtype=np.int64)
        self.links[len(self.routes) + 1] = (parent, np.array(branch_at, dtype=np.int64))
        self.prior_at = self.prior_children(parent, np.array(branch_at, dtype=np.int64), chosen, threshold, cut32)
        self.routes.append(_Route(chosen, threshold, cut32, width, np.array(child, np.int32),
                                  np.array(factor, np.float32)))
        ghosts = None if self.prior_flat is None else (self.prior_flat, self.prior_at)
        self.flat = _Flat(self.routes, ghosts) if _native is not None else None
        self.rows = np.array(rows, dtype=np.int64)
        self.frac = np.array(fracs, dtype=np.int64)
        return len(parent), _tested_below(tested, parent, chosen)

    def prior_children(self, parent: np.ndarray, branch: np.ndarray, chosen: np.ndarray, threshold: np.ndarray,
                       cut32: np.ndarray) -> np.ndarray:
        """Each new child's node in the prior tree's next level (-1: none): the prior node's
        child down the same branch where the prior node had the same test and cut."""
        out = np.full(len(parent), -1, dtype=np.int64)
        L, pf = len(self.routes), self.prior_flat
        if pf is None or L >= pf.depth or not len(parent):
            return out
        # the prior tree's level L and L + 1 in its level order
        lo, hi = np.searchsorted(pf.level, [L, L + 1])
        at = self.prior_at[parent]
        p = lo + np.maximum(at, 0)
        same = ((at >= 0) & (pf.attr[p] == chosen[parent]) & (pf.threshold[p].view(bool) == threshold[parent])
                & (pf.cut32[p].view(np.uint32) == cut32[parent].view(np.uint32))
                & (branch < pf.first[p + 1] - pf.first[p]))
        kid = pf.child[pf.first[p[same]] + branch[same]]
        out[same] = np.where(kid >= 0, kid - hi, -1)
        return out
