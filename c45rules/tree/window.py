"""Windowing (c4.5 -t/-w/-i, spec 5): several trees, each grown on a window of the cases.

c4.5 keeps every case in one `Item` array that its loops reorder in place: each trial
shuffles it with glibc's unseeded random() and puts a target class profile at the front
(the initial window); each cycle grows a tree on the window, then moves the other cases
that tree misclassifies to just after the window, which grows by at least half of them.
The shuffle starts from the order the previous trial left, and growing (Group, the
unknown grouping and Quicksort of every continuous attribute at every node) and pruning
(Group) reorder the array too, so the trees after the first depend on those swaps. This
module replays them on an array of case numbers with the compiled loops of _grow.c; the
trees themselves are grown by grow.py and pruned with prune.py's arithmetic.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import numpy as np

from ..data.schema import Dataset
from ..rules.random import GlibcRandom
from .classify import classify
from .grow import _Grower, branch_of, class_sums, collapse
from .node import Node
from .prune import _copy_depth_first, _Pruner, check_possible_values, settle
from .split import F32, forget_tables, seq_sum

try:
    from . import _grow as _native
except ImportError:     # built only where a C compiler was there: _PyLoops does the same, slowly
    _native = None


@dataclass(frozen=True)
class Cycle:
    """One line of c4.5's cycle table: the tree grown on a window and its errors."""

    size: int
    window: int
    other: int
    window_errors: int
    other_errors: int


@dataclass
class Trial:
    """One trial: its cycles, the best tree of its cycles (unpruned) and that tree pruned."""

    cycles: list[Cycle]
    unpruned: Node
    pruned: Node


@dataclass
class Windowing:
    """Every trial and the one whose pruned tree has the fewest estimated errors (spec 5)."""

    trials: list[Trial] = field(default_factory=list)
    best: int = 0
    window: int = 0
    increment: int = 0


def default_window(n: int) -> int:
    """c4.5's initial window: max(2 sqrt(N), N/5), N/5 an integer division (besttree.c)."""
    return int(max(2 * math.sqrt(n), n // 5))


def default_increment(window: int) -> int:
    """c4.5's largest increment per cycle: max(window/5, 1)."""
    return max(window // 5, 1)


def target_profile(y: np.ndarray, n_classes: int, size: int) -> list[int]:
    """c4.5 FormTarget: a window class profile as uniform as the class counts allow.

    The rarest remaining class gets min(its count, size / classes left) (integer division),
    and the others share what is left.
    """
    freq = np.bincount(y, minlength=n_classes).tolist()
    target = [0] * n_classes
    left = sum(1 for f in freq if f)
    while left:
        smallest = min((c for c in range(n_classes) if freq[c]), key=lambda c: (freq[c], c))
        target[smallest] = min(freq[smallest], size // left)
        freq[smallest] = 0
        size -= target[smallest]
        left -= 1
    return target


class _PyLoops:
    """The compiled loops of _grow.c (replay_group, replay_sort, replay_shuffle) in Python, for
    an install without a C compiler: one case at a time, the same swaps, much slower."""

    @staticmethod
    def replay_group(item, weight, code, value, lo, hi, limit):
        for i in range(lo, hi + 1):
            if limit == 0:
                break
            if code[item[i]] == value:
                _PyLoops.swap(item, weight, lo, i)
                lo += 1
                limit -= limit > 0
        return lo

    @staticmethod
    def swap(item, weight, a, b):
        item[a], item[b] = item[b], item[a]
        weight[a], weight[b] = weight[b], weight[a]

    @staticmethod
    def replay_shuffle(item, alt):
        for i, j in enumerate(alt.tolist()):
            item[i], item[j] = item[j], item[i]

    @staticmethod
    def replay_sort(item, weight, X, lo, hi, min_objs, orders, items):
        for j in range(X.shape[1]):
            total = seq_sum(weight[lo:hi + 1])
            xp = lo
            for i in range(lo, hi + 1):
                if np.isnan(X[item[i], j]):
                    _PyLoops.swap(item, weight, xp, i)
                    xp += 1
            if total - seq_sum(weight[lo:xp]) >= 2 * min_objs:
                _PyLoops.quicksort(item, weight, X[:, j], xp, hi)
            orders[j] = np.concatenate([item[xp:hi + 1], item[lo:xp]])
            items[j] = total

    @staticmethod
    def quicksort(item, weight, col, fp, lp):
        """c4.5 sort.c Quicksort: last element as pivot, values equal to it gathered below it."""
        stack = [(fp, lp)]
        while stack:
            fp, lp = stack.pop()
            if fp >= lp:
                continue
            thresh = col[item[lp]]
            middle = fp
            for i in range(fp, lp):
                if col[item[i]] <= thresh:
                    if i != middle:
                        _PyLoops.swap(item, weight, middle, i)
                    middle += 1
            lower = middle - 1
            for i in range(lower, fp - 1, -1):
                if col[item[i]] == thresh:
                    if i != lower:
                        _PyLoops.swap(item, weight, lower, i)
                    lower -= 1
            _PyLoops.swap(item, weight, middle, lp)
            stack.extend([(fp, lower), (middle + 1, lp)])


class _Replay:
    """c4.5's Item and Weight arrays (by position) and the loops that reorder them."""

    def __init__(self, data: Dataset, min_objs: float, gain_ratio: bool, subset: bool, cf: float):
        self.loops = _native if _native is not None else _PyLoops
        self.data = data
        self.n = data.n
        self.y = data.y.astype(np.int64)
        self.C = len(data.schema.classes)
        self.min_objs, self.gain_ratio, self.subset = float(min_objs), gain_ratio, subset
        self.item = np.arange(self.n, dtype=np.int64)
        self.weight = np.ones(self.n, dtype=np.float32)
        self.code = np.zeros(self.n, dtype=np.int32)
        cont = [i for i, a in enumerate(data.schema.attributes) if a.is_continuous]
        # c4.5 holds values as floats; NaN stands for its unknown sentinel
        self.X = (np.column_stack([data.columns[i] for i in cont]).astype(np.float32)
                  if cont else np.zeros((self.n, 0), dtype=np.float32))
        self.X = np.ascontiguousarray(self.X)
        self.pruner = _Pruner(data, cf)
        self.random = GlibcRandom()

    # ---- the compiled loops ------------------------------------------------------
    def group(self, value: int, lo: int, hi: int, limit: int = -1) -> int:
        """c4.5 Group over positions lo..hi for cases whose code is `value`; the next position."""
        return self.loops.replay_group(self.item, self.weight, self.code, value, lo, hi, limit)

    def sort(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """EvalContinuousAtt's swaps at a node (every continuous attribute in turn); each
        attribute's cases in its scan's order (k x n: known sorted, then unknown) and the
        node's weight as that attribute's evaluation sums it (float, in the order before it)."""
        k = self.X.shape[1]
        orders = np.empty((k, hi - lo + 1), dtype=np.int64)
        items = np.empty(k, dtype=np.float32)
        self.loops.replay_sort(self.item, self.weight, self.X, lo, hi, self.min_objs, orders, items)
        return orders, items

    def code_outcomes(self, node: Node, lo: int, hi: int) -> None:
        """Each case at lo..hi gets its branch of `node` as code (-1: unknown)."""
        cases = self.item[lo:hi + 1]
        self.code[cases] = branch_of(node, self.data.columns[node.attribute][cases])

    # ---- FormInitialWindow -------------------------------------------------------
    def initial_window(self, target: list[int]) -> None:
        """Shuffle, then gather each class's target count at the front, class by class."""
        n = self.n
        # Alt = This + Left * Random, Left counting down from N (besttree.c Shuffle)
        alt = np.arange(n, dtype=np.int64) + (np.arange(n, 0, -1) * self.random.uniforms(n)).astype(np.int64)
        self.loops.replay_shuffle(self.item, np.minimum(alt, n - 1))
        self.code[:] = self.y
        start = 0
        for c, more in enumerate(target):
            if more:
                start = self.group(c, start, n - 1, more)

    # ---- FormTree ----------------------------------------------------------------
    def form(self, node: Node, lo: int, hi: int) -> None:
        """FormTree's swaps over positions lo..hi for the (uncollapsed) tree grown there."""
        w = self.weight[lo:hi + 1]
        cases = seq_sum(w)
        dist = class_sums(self.y[self.item[lo:hi + 1]], w, self.C)
        if dist.max() == cases or cases < 2 * self.min_objs:
            return          # spec 2.1: a leaf before any attribute is evaluated
        if self.X.shape[1]:
            self.sort(lo, hi)
        if node.is_leaf:
            return
        self.code_outcomes(node, lo, hi)
        kp = self.group(-1, lo, hi)
        known = cases - seq_sum(self.weight[lo:kp])
        for v, child in enumerate(node.branches):
            ep = self.group(v, kp, hi) - 1
            if kp > ep:
                continue
            factor = seq_sum(self.weight[kp:ep + 1]) / known
            self.weight[lo:kp] *= factor
            self.form(child, lo, ep)
            self.code_outcomes(node, lo, ep)
            self.group(-1, lo, ep)
            self.weight[lo:kp] /= factor

    # ---- Iterate -----------------------------------------------------------------
    def grow(self, window: int) -> Node:
        """The tree of the first `window` positions, as FormTree leaves it (collapsed)."""
        self.weight[:] = 1
        g = _Grower(self.data, self.min_objs, self.gain_ratio, self.subset)
        try:
            if g.clean.all():
                # every sum is an exact integer: grow.py's order of the cases does not
                # matter, and c4.5's swaps are replayed over the finished tree
                root = g.grow(self.item[:window].copy())
                if g.levels is not None:
                    g.levels.run()
                self.form(root, 0, window - 1)
            else:
                root = self.grow_at(g, 0, window - 1)
        finally:
            forget_tables()
        collapse(root)
        return root

    def grow_at(self, g: _Grower, lo: int, hi: int) -> Node:
        """FormTree over positions lo..hi, node by node: fractional weights of cases with
        unknown values are summed in the order c4.5's swaps leave them (spec 2.7, 11.11)."""
        idx = self.item[lo:hi + 1].copy()
        g.weights[idx] = self.weight[lo:hi + 1]

        def reorder() -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
            scans = self.sort(lo, hi) if self.X.shape[1] else None
            return self.item[lo:hi + 1].copy(), scans
        node, forks = g.node_test(idx, reorder)
        if not forks:
            return node
        cases = F32(node.items)
        self.code_outcomes(node, lo, hi)
        kp = self.group(-1, lo, hi)
        known = cases - seq_sum(self.weight[lo:kp])
        g.tested[node.attribute] += 1
        for v in range(forks):
            ep = self.group(v, kp, hi) - 1
            if kp > ep:
                node.branches.append(Node(node.klass, 0.0, 0.0, node.class_dist))
                continue
            factor = seq_sum(self.weight[kp:ep + 1]) / known
            self.weight[lo:kp] *= factor
            node.branches.append(self.grow_at(g, lo, ep))
            self.code_outcomes(node, lo, ep)
            self.group(-1, lo, ep)
            self.weight[lo:kp] /= factor
        g.tested[node.attribute] -= 1
        return node

    def iterate(self, window: int, increment: int) -> tuple[list[Cycle], Node]:
        """c4.5 Iterate: cycles until the tree misclassifies no case outside the window."""
        cycles: list[Cycle] = []
        best, best_total = None, self.n + 1
        while True:
            tree = self.grow(window)
            errors = int(math.floor(tree.errors + 0.5))
            others = self.item[window:]
            wrong = classify(tree, self.data.subset(others)) != self.y[others]
            self.code[others] = wrong
            exceptions = self.group(1, window, self.n - 1) - window if window < self.n else 0
            cycles.append(Cycle(tree.size(), window, self.n - window, errors, exceptions))
            if best is None or errors + exceptions < best_total:
                best, best_total = tree, errors + exceptions
            window = min(window + max(min(exceptions, increment), exceptions // 2), self.n)
            if not exceptions:
                return cycles, best

    # ---- Prune -------------------------------------------------------------------
    def prune(self, tree: Node) -> Node:
        """A pruned copy of `tree` (spec 3.2), with EstimateErrors' swaps over all positions."""
        pruned = _copy_depth_first(tree)[0]
        self.weight[:] = 1
        self.estimate(pruned, 0, self.n - 1, True)
        if any(n.kind == "subset" for n in pruned.walk()):
            check_possible_values(pruned, {})
        return pruned

    def estimate(self, node: Node, lo: int, hi: int, update: bool) -> np.float32:
        """prune.py's `_Pruner.estimate` over a range of positions, grouping as c4.5 does."""
        w = self.weight[lo:hi + 1]
        cases = seq_sum(w)
        dist = class_sums(self.y[self.item[lo:hi + 1]], w, self.C)
        leaf_est = self.pruner.own_estimate(node, dist, cases, update)
        if node.is_leaf:
            return leaf_est
        self.code_outcomes(node, lo, hi)
        kp = self.group(-1, lo, hi)
        known = seq_sum(self.weight[kp:hi + 1])
        tree_est, max_factor, max_branch = F32(0), F32(0), 0
        for v, child in enumerate(node.branches):
            ep = self.group(v, kp, hi) - 1
            if kp > ep:
                continue
            factor = seq_sum(self.weight[kp:ep + 1]) / known
            if factor >= max_factor:   # ties: the later branch
                max_branch, max_factor = v, factor
            self.weight[lo:kp] *= factor
            tree_est = tree_est + self.estimate(child, lo, ep, update)
            self.code_outcomes(node, lo, ep)
            self.group(-1, lo, ep)
            self.weight[lo:kp] /= factor
        if not update:
            return tree_est
        branch_est = self.estimate(node.branches[max_branch], lo, hi, False)
        return settle(node, leaf_est, branch_est, tree_est, node.branches[max_branch],
                      lambda raised: self.estimate(raised, lo, hi, True))


def window_trees(data: Dataset, *, trials: int = 10, window: int | None = None, increment: int | None = None,
                 cf: float = 0.25, min_objs: float = 2, gain_ratio: bool = True,
                 subset: bool = False) -> Windowing:
    """c4.5's windowing (spec 5): `trials` trees grown on windows, each pruned with all cases."""
    if data.y is None or data.n == 0:
        raise ValueError("windowing needs labelled cases")
    n = data.n
    window = min(window or default_window(n), n)
    increment = increment or default_increment(window)
    replay = _Replay(data, min_objs, gain_ratio, subset, cf)
    target = target_profile(replay.y, replay.C, window)
    out = Windowing(window=window, increment=increment)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        for _ in range(trials):
            replay.initial_window(target)
            cycles, raw = replay.iterate(window, increment)
            pruned = replay.prune(raw)
            out.trials.append(Trial(cycles, raw, pruned))
            # the first trial with the fewest estimated errors (strict <, besttree.c)
            if pruned.errors < out.trials[out.best].pruned.errors:
                out.best = len(out.trials) - 1
    finally:
        sys.setrecursionlimit(limit)
    return out


def read_order_tree(data: Dataset, *, cf: float = 0.25, min_objs: float = 2, gain_ratio: bool = True,
                    subset: bool = False) -> tuple[Node, Node]:
    """c4.5's tree without windowing (spec 2-3), unpruned and pruned, grown and pruned over its
    Item array from the order the cases were read: fractional weights summed as c4.5 sums them."""
    if data.y is None or data.n == 0:
        raise ValueError("growing needs labelled cases")
    replay = _Replay(data, min_objs, gain_ratio, subset, cf)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        # one window of every case, unshuffled: FormTree(0, MaxItem) on the cases as read
        raw = replay.grow(data.n)
        return raw, replay.prune(raw)
    finally:
        sys.setrecursionlimit(limit)
