"""Weka 3.6's J48 (its C4.5 revision 8 port) as a grower: the `j48` grower (`--weka-compat`).

The same divide and conquer as c4.5 (gain ratio among the tests of at least average gain,
fractional weights for unknown values, pessimistic pruning with subtree raising), in
double precision, with the points where Weka's J48 decides differently from C4.5 R8:

* a cut's MDL penalty is log2(number of candidate cuts that hold minSplit cases on each
  side) / the node's weight (R8: log2 of the distinct cut points, spec 2.3); `-J` drops it;
* a test needs two branches holding >= minNumObj (-M); for a cut each side needs
  minSplit = 0.1 x known weight / classes, clamped to [-M, 25], and the number of known
  cases must reach 2 x minSplit;
* the cut is the largest value of the whole training set <= the midpoint (R8 too, but in
  single precision); nominal attributes tested above a node are not excluded below it;
* Weka compares with a tolerance of 1e-6 (Utils.gr/sm/eq) and ties go to the first
  candidate; the gain average counts the tests that hold (numeric ones after the penalty);
* after growing, subtrees whose leaves make no fewer training errors than the node
  (within 1e-3) are collapsed top down (`-O` keeps them); pruning then uses Weka's
  Stats.addErrs: the exact normal deviate for CF and no 0.67 factor (estimate.py);
* `-B`: binary tests on nominal attributes, one value against the rest;
* `-R`: reduced-error pruning. Weka stratifies the cases (its class-grouping swap pass,
  then every `folds`-th case), grows on all folds but the last (shuffled by java.util.Random
  with the seed, default 1: the order only moves the last bits of sums of fractional weights)
  and prunes on the last, bottom up, where the held-out errors of a leaf do not exceed the
  subtree's;
* `-A` (Laplace) changes the class probabilities of the leaves, never the tree.

Sums are taken in Weka's order where the classification depends on their last bits (see
FIDELITY.md, "J48 vs Weka 3.6.14", where every reference pair agrees).
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from ...data.schema import Dataset
from ...errors import InputError
from ...estimate import weka_add_errors
from ..node import Node, Tree
from .options import OPTIONS

DEFAULTS = OPTIONS["j48"]
# Weka's Utils.SMALL: every gr/sm/eq comparison allows this much
SMALL = 1e-6


def check(options: dict) -> dict:
    """The j48 options with defaults filled in, or InputError."""
    o = {**DEFAULTS, **{k: v for k, v in options.items() if k in DEFAULTS}}
    for key in ("unpruned", "binary_splits", "reduced_error_pruning", "subtree_raising", "mdl_correction",
                "laplace", "collapse"):
        if not isinstance(o[key], (bool, np.bool_)):
            raise InputError(f"option {key} must be True or False, got {o[key]!r}")
        o[key] = bool(o[key])
    folds = o["folds"]
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
        raise InputError(f"option folds must be a whole number >= 2 (reduced-error pruning), got {folds!r}")
    o["folds"] = int(folds)
    m = o["min_objs"]
    if isinstance(m, bool) or not isinstance(m, (int, float, np.integer, np.floating)) or not m >= 1:
        raise InputError(f"option min_objs must be >= 1, got {m!r}")
    if o["reduced_error_pruning"] and o["unpruned"]:
        raise InputError("options unpruned and reduced_error_pruning exclude each other (as J48's -U and -R)")
    return o


def _seq(values: np.ndarray, start: float = 0.0) -> float:
    """start + values[0] + values[1] + ..., added one at a time as Java does."""
    if len(values) == 0:
        return float(start)
    return float(np.cumsum(np.concatenate([[start], values]))[-1])


def _lf(x: np.ndarray | float) -> np.ndarray:
    """Weka's logFunc: x log2 x, 0 below 1e-6."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros(x.shape)
    big = x >= SMALL
    out[big] = x[big] * np.log2(x[big])
    return out


def _info_gain(table: np.ndarray, total: float) -> float:
    """InfoGainSplitCrit: (old - new entropy) of the known cases' bags x known share / known weight."""
    known = float(table.sum())
    old = float(_lf(known) - _lf(table.sum(axis=0)).sum())
    new = float((_lf(table.sum(axis=1)) - _lf(table).sum(axis=1)).sum())
    gain = old - new
    if abs(gain) < SMALL or known <= 0:
        return 0.0
    return (1.0 - (total - known) / total) * gain / known


def _split_info(bags: np.ndarray, total: float) -> float:
    """EntropyBasedSplitCrit.splitEnt: bags' entropy with the unknown weight as one more bag."""
    known = float(bags.sum())
    if known <= SMALL:
        return 0.0
    return float(-_lf(bags).sum() - _lf(total - known) + _lf(total))


def _gain_ratio(bags: np.ndarray, total: float, gain: float) -> float:
    """GainRatioSplitCrit: gain / (split info per case), 0 when the split info is 0."""
    si = _split_info(bags, total)
    if abs(si) < SMALL:
        return 0.0
    return gain / (si / total)


@dataclass
class _Test:
    """A chosen test: attribute, kind (discrete, threshold, value) and its cut or value."""

    attribute: int
    kind: str
    cut: float = 0.0
    value: int = -1
    fanout: int = 2


class _T:
    """A J48 node while growing and pruning: its cases (`idx`, weights `w`), test, sons."""

    __slots__ = ("idx", "w", "dist", "test", "sons", "empty", "held", "cls", "tot", "bags")

    def __init__(self, idx: np.ndarray, w: np.ndarray, dist: np.ndarray):
        self.idx, self.w, self.dist = idx, w, dist
        self.test: _Test | None = None
        self.sons: list[_T] = []
        self.empty = bool(abs(float(w.sum())) < SMALL)
        self.held: np.ndarray | None = None     # reduced-error pruning: held-out bags x classes
        # the node's Distribution as Weka holds it (class weights, total, branch weights), its
        # sums in Weka's order: what the tree classifies with
        self.cls, self.tot, self.bags = dist, _seq(w), np.zeros(0)


class _J48:
    def __init__(self, data: Dataset, o: dict):
        self.data, self.o = data, o
        self.y = data.y.astype(np.int64)
        self.C = len(data.schema.classes)
        self.m = float(o["min_objs"])
        self.attrs = [i for i, a in enumerate(data.schema.attributes) if a.kind != "ignore"]
        n_all = data.n
        # C45ModelSelection: the many-valued exclusion only when some attribute is numeric or
        # has fewer values than 0.3 x all training cases
        self.many = {i: len(data.schema.attributes[i].values) >= 0.3 * n_all - SMALL
                     for i in self.attrs if data.schema.attributes[i].is_discrete}
        self.multi_val = all(data.schema.attributes[i].is_discrete and self.many[i] for i in self.attrs)
        self.sorted_all: dict[int, np.ndarray] = {}
        self.cont = [i for i in self.attrs if data.schema.attributes[i].is_continuous]
        self.Xc = np.column_stack([data.columns[i] for i in self.cont]) if self.cont else None
        # cases with a value of every continuous attribute: their cuts are searched together
        self.clean = ~np.isnan(self.Xc).any(axis=1) if self.cont else np.ones(data.n, dtype=bool)

    # ---- tests -------------------------------------------------------------------
    def branch(self, test: _Test, idx: np.ndarray) -> np.ndarray:
        """Branch of each case under `test`, -1 for an unknown value."""
        col = self.data.columns[test.attribute][idx]
        if test.kind == "threshold":
            out = np.where(col - test.cut < SMALL, 0, 1)
            out[np.isnan(col)] = -1
            return out
        col = col.astype(np.int64)
        if test.kind == "value":
            return np.where(col < 0, -1, np.where(col == test.value, 0, 1))
        return np.where(col < 0, -1, col)

    def model(self, test: _Test, idx: np.ndarray, w: np.ndarray, built: bool = False
              ) -> tuple[np.ndarray, float, np.ndarray]:
        """The split's Distribution (class weights, total, branch weights) with its sums in Weka's
        order: the known cases (in sorted order for a cut as built, one value against the rest
        by subtraction), then addInstWithUnknown's unknown cases one by one. `built`: as
        selectModel makes it, else as resetDistribution does."""
        out = self.branch(test, idx)
        known = out >= 0
        wk, yk = w[known], self.y[idx][known]
        if built and test.kind == "threshold":
            x = self.data.columns[test.attribute][idx][known]
            order = np.argsort(x, kind="stable")
            below = int((out[known] == 0).sum())
            ws = wk[order]
            b0, b1 = _seq(ws[:below]), _seq(ws[below:])
            cls, tot, bags = np.bincount(yk[order], ws, self.C), (0.0 + b0) + b1, np.array([b0, b1])
        elif built and test.kind == "value":
            col = self.data.columns[test.attribute][idx][known].astype(np.int64)
            cls, tot = np.bincount(yk, wk, self.C), _seq(wk)
            first = float(np.bincount(col, wk, test.value + 1)[test.value])
            bags = np.array([first, tot - first])
        else:
            cls, tot = np.bincount(yk, wk, self.C), _seq(wk)
            bags = np.bincount(out[known], wk, test.fanout)
        cls, bags = cls.astype(np.float64), bags.astype(np.float64)
        unknown = ~known
        if unknown.any():
            probs = bags / tot if abs(tot) >= SMALL else np.full(test.fanout, 1.0 / test.fanout)
            wu, yu = w[unknown], self.y[idx][unknown]
            for c in np.unique(yu):
                cls[c] = _seq(wu[yu == c], cls[c])
            tot = _seq(wu, tot)
            bags = np.array([_seq(probs[j] * wu, bags[j]) for j in range(test.fanout)])
        return cls, tot, bags

    def split(self, test: _Test, idx: np.ndarray, w: np.ndarray, shares: np.ndarray | None = None
              ) -> list[tuple[np.ndarray, np.ndarray]]:
        """ClassifierSplitModel.split: each branch's cases and weights, a case with an unknown
        value in every branch of share > 1e-6, weighted by it (`shares`: the model's branch
        weights / total; None: from these cases, as after resetDistribution)."""
        out = self.branch(test, idx)
        unknown = out < 0
        if shares is None:
            _, tot, bags = self.model(test, idx, w)
            shares = bags / tot if tot != 0 else np.zeros(test.fanout)
        parts = []
        for j in range(test.fanout):
            sel = out == j
            if shares[j] > SMALL:
                sel = sel | unknown
            ww = np.where(unknown[sel], shares[j] * w[sel], w[sel])
            parts.append((idx[sel], ww))
        return parts

    def dist(self, idx: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Class weights of the cases."""
        return np.bincount(self.y[idx], weights=w, minlength=self.C).astype(np.float64)

    def select(self, idx: np.ndarray, w: np.ndarray, dist: np.ndarray) -> _Test | None:
        """C45ModelSelection.selectModel (BinC45ModelSelection with binary_splits)."""
        total = float(dist.sum())
        if total - 2 * self.m < -SMALL or abs(total - dist.max()) < SMALL:
            return None
        found = []
        gain_sum, valid = 0.0, 0
        cuts = self.numeric_block(idx, w, total) if self.cont and self.clean[idx].all() else {}
        for a in self.attrs:
            attr = self.data.schema.attributes[a]
            if attr.is_continuous:
                res = cuts[a] if a in cuts else self.numeric(a, idx, w, total)
            elif self.o["binary_splits"]:
                res = self.binary(a, idx, w, total)
            else:
                res = self.nominal(a, idx, w, total)
            if res is None:
                continue
            found.append((a, res))
            if attr.is_continuous or self.multi_val or not self.many[a]:
                gain_sum += res[0]
                valid += 1
        if valid == 0:
            return None
        average = gain_sum / valid
        best, best_ratio = None, 0.0
        for a, (gain, ratio, test) in found:
            if gain >= average - 1e-3 and ratio - best_ratio > SMALL:
                best, best_ratio = test, ratio
        if best is None or abs(best_ratio) < SMALL:
            return None
        if best.kind == "threshold":
            best.cut = self.actual_value(best.attribute, best.cut)
        return best

    def nominal(self, a: int, idx: np.ndarray, w: np.ndarray, total: float):
        """C45Split on a nominal attribute: one branch per value."""
        V = len(self.data.schema.attributes[a].values)
        table = self.value_table(a, idx, w, V)
        if (table.sum(axis=1) - self.m > -SMALL).sum() <= 1:
            return None
        gain = _info_gain(table, total)
        return gain, _gain_ratio(table.sum(axis=1), total, gain), _Test(a, "discrete", fanout=V)

    def binary(self, a: int, idx: np.ndarray, w: np.ndarray, total: float):
        """BinC45Split on a nominal attribute: the value whose one-against-the-rest test has the
        best gain ratio (value 0 taken when it holds, later ones when better by 1e-6)."""
        V = len(self.data.schema.attributes[a].values)
        table = self.value_table(a, idx, w, V)
        bags = table.sum(axis=1)
        holds, gain, ratio, chosen = False, 0.0, 0.0, -1
        for v in range(V):
            if bags[v] - self.m <= -SMALL:
                continue
            two = np.stack([table[v], table.sum(axis=0) - table[v]])
            if (two.sum(axis=1) - self.m > -SMALL).sum() <= 1:
                continue
            holds = True
            g = _info_gain(two, total)
            r = _gain_ratio(two.sum(axis=1), total, g)
            if v == 0 or r - ratio > SMALL:
                gain, ratio, chosen = g, r, v
        # a test that holds with no value chosen (ratio 0) counts in the average only
        return (gain, ratio, _Test(a, "value", value=chosen)) if holds else None

    def value_table(self, a: int, idx: np.ndarray, w: np.ndarray, V: int) -> np.ndarray:
        """Known weight per (value, class)."""
        col = self.data.columns[a][idx].astype(np.int64)
        known = col >= 0
        flat = col[known] * self.C + self.y[idx][known]
        return np.bincount(flat, weights=w[known], minlength=V * self.C).reshape(V, self.C)

    def min_split(self, known_w: float) -> float:
        """Fewest cases on each side of a cut: 10% of the known weight per class, within [-M, 25]."""
        m = 0.1 * known_w / self.C
        if m - self.m < SMALL:
            return self.m
        return 25.0 if m - 25 > SMALL else m

    def numeric(self, a: int, idx: np.ndarray, w: np.ndarray, total: float):
        """C45Split.handleNumericAttribute: the best cut by (penalised) gain."""
        x = self.data.columns[a][idx]
        known = ~np.isnan(x)
        K = int(known.sum())
        wk = w[known]
        known_w = float(wk.sum())
        min_split = self.min_split(known_w)
        if K - 2 * min_split < -SMALL:
            return None
        xk = x[known]
        order = np.argsort(xk, kind="stable")
        v, ww, yy = xk[order], wk[order], self.y[idx][known][order]
        onehot = np.zeros((K, self.C))
        onehot[np.arange(K), yy] = ww
        cum = np.cumsum(onehot, axis=0)[:, None, :]
        return self.best_cuts([a], v[:, None], np.cumsum(ww)[:, None], cum, known_w, total, min_split)[a]

    def numeric_block(self, idx: np.ndarray, w: np.ndarray, total: float) -> dict:
        """`numeric` for every continuous attribute of cases with no unknown value, a block
        of attributes at a time."""
        n = len(idx)
        min_split = self.min_split(total)
        if n - 2 * min_split < -SMALL:
            return {a: None for a in self.cont}
        out = {}
        y = self.y[idx]
        # unit weights: the counts are whole numbers, their x log2 x looked up (the same values)
        unit = bool((w == 1).all())
        if unit:
            table = _lf(np.arange(n + 1, dtype=np.float64))
            lf = table.__getitem__
        step = max(1, 4_000_000 // max(1, n * self.C))
        for lo in range(0, len(self.cont), step):
            X = self.Xc[idx, lo:lo + step]
            k = X.shape[1]
            order = np.argsort(X, axis=0, kind="stable")
            V = np.take_along_axis(X, order, axis=0)
            rows, cols = np.arange(n)[:, None], np.arange(k)[None, :]
            if unit:
                onehot = np.zeros((n, k, self.C), dtype=np.int32)
                onehot[rows, cols, y[order]] = 1
                below = np.broadcast_to(np.arange(1, n + 1)[:, None], (n, k))
                out.update(self.best_cuts(self.cont[lo:lo + step], V, below, np.cumsum(onehot, axis=0),
                                          total, total, min_split, lf))
            else:
                W = w[order]
                onehot = np.zeros((n, k, self.C))
                onehot[rows, cols, y[order]] = W
                out.update(self.best_cuts(self.cont[lo:lo + step], V, np.cumsum(W, axis=0),
                                          np.cumsum(onehot, axis=0), total, total, min_split))
        return out

    def best_cuts(self, attrs: list[int], V: np.ndarray, lw_all: np.ndarray, cum: np.ndarray, known_w: float,
                  total: float, min_split: float, lf=_lf) -> dict:
        """Each attribute's (gain, gain ratio, test) or None from its known values sorted (`V`,
        cases x attributes), the running weight `lw_all` and class weights `cum` below each
        (`lf`: x log2 x of them)."""
        gap = V[:-1] + 1e-5 < V[1:]
        lw = lw_all[:-1]
        rw = (round(known_w) if lf is not _lf else known_w) - lw
        ok = gap & (lw - min_split > -SMALL) & (rw - min_split > -SMALL)
        count = ok.sum(axis=0)
        left = cum[:-1]
        classes = cum[-1]
        right = classes[None, :, :] - left
        old = _lf(known_w) - lf(classes).sum(axis=-1)
        new = (lf(lw) - lf(left).sum(axis=-1)) + (lf(rw) - lf(right).sum(axis=-1))
        raw = old[None, :] - new
        gains = np.where(np.abs(raw) < SMALL, 0.0, (1.0 - (total - known_w) / total) * raw / known_w)
        gains = np.where(ok, gains, -np.inf)
        out = {}
        for j, a in enumerate(attrs):
            out[a] = None
            if count[j] == 0:
                continue
            g = gains[:, j]
            # Weka's scan keeps a later cut only when its gain is larger by more than 1e-6
            at, best = -1, 0.0
            while True:
                ahead = np.flatnonzero(g[at + 1:] - best > SMALL)
                if ahead.size == 0:
                    break
                at += 1 + int(ahead[0])
                best = float(g[at])
            if at < 0:
                continue
            gain = best - (math.log2(count[j]) / total if self.o["mdl_correction"] else 0.0)
            if gain < SMALL:
                continue
            cut = (V[at + 1, j] + V[at, j]) / 2
            if cut == V[at + 1, j]:
                cut = V[at, j]
            bags = np.array([lw[at, j], rw[at, j]])
            out[a] = (gain, _gain_ratio(bags, total, gain), _Test(a, "threshold", cut=float(cut)))
        return out

    def actual_value(self, a: int, cut: float) -> float:
        """C45Split.setSplitPoint: the largest training value of `a` not above the cut (+1e-6)."""
        if a not in self.sorted_all:
            col = self.data.columns[a]
            self.sorted_all[a] = np.unique(col[~np.isnan(col)])
        vals = self.sorted_all[a]
        at = np.searchsorted(vals, cut, side="right")
        # Utils.smOrEq: values up to 1e-6 above the cut count as not above it
        while at < len(vals) and vals[at] - cut < SMALL:
            at += 1
        return float(vals[at - 1])

    # ---- growing -----------------------------------------------------------------
    def build(self, idx: np.ndarray, w: np.ndarray, held: tuple[np.ndarray, np.ndarray] | None = None) -> _T:
        """ClassifierTree.buildTree (with the held-out cases for reduced-error pruning)."""
        node = _T(idx, w, self.dist(idx, w))
        node.test = self.select(idx, w, node.dist)
        if node.test is None:
            if held is not None:
                node.held = self.dist(*held)[None, :]
            return node
        node.cls, node.tot, node.bags = self.model(node.test, idx, w, built=True)
        shares = node.bags / node.tot
        parts = self.split(node.test, idx, w, shares)
        held_parts = None
        if held is not None:
            held_parts = self.split(node.test, held[0], held[1], shares)
            node.held = self.held_table(node.test, held[0], held[1], shares)
        node.sons = [self.build(ci, cw, None if held_parts is None else held_parts[j])
                     for j, (ci, cw) in enumerate(parts)]
        return node

    def held_table(self, test: _Test, idx: np.ndarray, w: np.ndarray, probs: np.ndarray) -> np.ndarray:
        """Distribution(test, model): held-out weight per (branch, class), unknowns shared by `probs`."""
        out = self.branch(test, idx)
        unknown = out < 0
        table = np.zeros((test.fanout, self.C))
        np.add.at(table, (out[~unknown], self.y[idx][~unknown]), w[~unknown])
        table += probs[:, None] * self.dist(idx[unknown], w[unknown])[None, :]
        return table

    # ---- collapsing and pruning ----------------------------------------------------
    def training_errors(self, node: _T) -> float:
        """Training errors of the subtree's leaves."""
        if node.test is None:
            return _incorrect(node.dist)
        return sum(self.training_errors(s) for s in node.sons)

    def collapse(self, node: _T) -> None:
        """C45PruneableClassifierTree.collapse: top down, a subtree whose leaves make no
        fewer training errors than the node (within 1e-3) becomes a leaf."""
        if node.test is None:
            return
        if self.training_errors(node) >= _incorrect(node.dist) - 1e-3:
            node.test, node.sons = None, []
        else:
            for s in node.sons:
                self.collapse(s)

    def estimated(self, dist: np.ndarray) -> float:
        """getEstimatedErrorsForDistribution: errors + Weka's addErrs."""
        total = float(dist.sum())
        if abs(total) < SMALL:
            return 0.0
        e = _incorrect(dist)
        return e + weka_add_errors(total, e, self.o["cf"])

    def estimated_tree(self, node: _T) -> float:
        """getEstimatedErrors: the leaves' estimates summed."""
        if node.test is None:
            return self.estimated(node.dist)
        return sum(self.estimated_tree(s) for s in node.sons)

    def estimated_branch(self, node: _T, idx: np.ndarray, w: np.ndarray) -> float:
        """getEstimatedErrorsForBranch: the subtree's estimate for other cases."""
        if node.test is None:
            return self.estimated(self.dist(idx, w))
        parts = self.split(node.test, idx, w)
        return sum(self.estimated_branch(s, ci, cw) for s, (ci, cw) in zip(node.sons, parts))

    def redistribute(self, node: _T, idx: np.ndarray, w: np.ndarray) -> None:
        """newDistribution: the subtree's counts made again from the cases `idx`, `w`."""
        node.idx, node.w, node.dist = idx, w, self.dist(idx, w)
        if node.test is None:
            node.cls, node.tot = node.dist, _seq(w)
            if abs(float(w.sum())) >= SMALL:
                node.empty = False
            return
        node.cls, node.tot, node.bags = self.model(node.test, idx, w)
        parts = self.split(node.test, idx, w, node.bags / node.tot if node.tot != 0 else np.zeros(len(node.bags)))
        for s, (ci, cw) in zip(node.sons, parts):
            self.redistribute(s, ci, cw)

    def prune(self, node: _T) -> None:
        """C45PruneableClassifierTree.prune: bottom up; a leaf, or the largest branch raised."""
        if node.test is None:
            return
        for s in node.sons:
            self.prune(s)
        bags = node.bags
        # Distribution.maxBag: the last of equal bags (>= within 1e-6)
        largest, most = -1, 0.0
        for j, b in enumerate(bags):
            if b - most > -SMALL:
                largest, most = j, b
        raise_error = (self.estimated_branch(node.sons[largest], node.idx, node.w)
                       if self.o["subtree_raising"] else math.inf)
        leaf_error = self.estimated(node.dist)
        tree_error = self.estimated_tree(node)
        if leaf_error - (tree_error + 0.1) < SMALL and leaf_error - (raise_error + 0.1) < SMALL:
            node.test, node.sons = None, []
            return
        if raise_error - (tree_error + 0.1) < SMALL:
            big = node.sons[largest]
            node.test, node.sons = big.test, big.sons
            self.redistribute(node, node.idx, node.w)
            self.prune(node)

    def held_errors_leaf(self, node: _T) -> float:
        """errorsForLeaf: held-out cases not of the node's (training) class."""
        return float(node.held.sum() - node.held.sum(axis=0)[_max_class(node.dist)])

    def held_errors_tree(self, node: _T) -> float:
        """errorsForTree: the subtree's held-out errors; a branch no training case reached
        counts with the node's class."""
        if node.test is None:
            return self.held_errors_leaf(node)
        bags = node.bags
        errors = 0.0
        k = _max_class(node.dist)
        for j, s in enumerate(node.sons):
            if abs(bags[j]) < SMALL:
                errors += float(node.held[j].sum() - node.held[j, k])
            else:
                errors += self.held_errors_tree(s)
        return errors

    def reduced_error_prune(self, node: _T) -> None:
        """PruneableClassifierTree.prune: bottom up, a leaf where the held-out errors are not more."""
        if node.test is None:
            return
        for s in node.sons:
            self.reduced_error_prune(s)
        if self.held_errors_leaf(node) - self.held_errors_tree(node) < SMALL:
            node.test, node.sons = None, []
            node.held = node.held.sum(axis=0)[None, :]


def _max_class(dist: np.ndarray) -> int:
    """Distribution.maxClass: the first class larger than those before by 1e-6 (0 if none)."""
    at = int(np.argmax(dist))
    if dist[at] <= SMALL:
        return 0
    if int((dist > dist[at] - SMALL).sum()) == 1:
        return at           # no near tie: the scan below ends at the maximum
    best, at = 0.0, 0
    for c, v in enumerate(dist):
        if v - best > SMALL:
            best, at = v, c
    return at


def _incorrect(dist: np.ndarray) -> float:
    """Distribution.numIncorrect."""
    return float(dist.sum() - dist[_max_class(dist)])


def stratified_holdout(y: np.ndarray, folds: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the training folds and of the held-out (last) fold, as Weka's
    Instances.stratify(folds) then trainCV/testCV(folds, folds - 1) choose them."""
    order = list(range(len(y)))
    cls = [int(c) for c in y]
    n = len(order)
    index = 1
    # Weka's stratify: each class in turn swapped to the front of what is left (the swaps
    # decide the order of the rest, so they are done as Weka does them)
    while index < n:
        c = cls[order[index - 1]]
        for j in range(index, n):
            if cls[order[j]] == c:
                order[index], order[j] = order[j], order[index]
                index += 1
        index += 1
    strat = np.array([order[i] for s in range(folds) for i in range(s, n, folds)], dtype=np.int64)
    per = n // folds
    first = (folds - 1) * per + n % folds if folds - 1 >= n % folds else (folds - 1) * (per + 1)
    size = per + (1 if folds - 1 < n % folds else 0)
    held = strat[first:first + size]
    train = np.concatenate([strat[:first], strat[first + size:]])
    return train, held


class JavaRandom:
    """java.util.Random (the 48-bit linear congruential generator Weka draws from)."""

    _MULT, _MASK = 0x5DEECE66D, (1 << 48) - 1

    def __init__(self, seed: int):
        self.seed = (seed ^ self._MULT) & self._MASK

    def next_bits(self, bits: int) -> int:
        """Random.next(bits)."""
        self.seed = (self.seed * self._MULT + 0xB) & self._MASK
        return self.seed >> (48 - bits)

    def next_int(self, bound: int) -> int:
        """Random.nextInt(bound): uniform in [0, bound)."""
        if bound & -bound == bound:
            return (bound * self.next_bits(31)) >> 31
        while True:
            bits = self.next_bits(31)
            val = bits % bound
            if bits - val + bound - 1 < 2**31:      # Java's int did not overflow
                return val


def weka_randomize(rows: np.ndarray, seed: int) -> np.ndarray:
    """Instances.randomize(new Random(seed)): the rows in Weka's shuffled order."""
    out = rows.copy()
    rnd = JavaRandom(seed)
    for j in range(len(out) - 1, 0, -1):
        k = rnd.next_int(j + 1)
        out[j], out[k] = out[k], out[j]
    return out


def _to_nodes(node: _T, schema, parent_class: int = 0) -> Node:
    """The Node tree of a J48 tree: each node's class weights and total as its Weka Distribution
    holds them, a test's branch weights in `surrogates` (J48 shares unknown values by them); an
    empty leaf takes its parent's class, as J48 classifies."""
    klass = parent_class if node.empty else _max_class(node.cls)
    out = Node(klass, node.tot, _incorrect(node.dist), np.asarray(node.cls, dtype=np.float64).copy())
    if node.test is None:
        return out
    t = node.test
    out.attribute = t.attribute
    out.surrogates = tuple(float(b) for b in node.bags)
    if t.kind == "threshold":
        out.kind, out.cut = "threshold", t.cut
    elif t.kind == "value":
        rest = frozenset(range(len(schema.attributes[t.attribute].values))) - {t.value}
        out.kind, out.subsets = "subset", (frozenset({t.value}), rest)
    else:
        out.kind = "discrete"
    out.branches = [_to_nodes(s, schema, klass) for s in node.sons]
    return out


def grow(data: Dataset, options: dict) -> Tree:
    """J48's tree: grown, collapsed and pruned as Weka 3.6.14 does (options: module docstring)."""
    o = check(options)
    o["cf"] = float(options.get("cf", 0.25))
    if not 0 < o["cf"] <= 0.5 and not o["unpruned"] and not o["reduced_error_pruning"]:
        raise InputError(f"J48 prunes with a confidence factor in (0, 0.5], got {o['cf']}")
    j = _J48(data, o)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        if o["reduced_error_pruning"]:
            train, held = stratified_holdout(data.y, o["folds"])
            # trainCV shuffles the training folds: their order decides Weka's float sums
            train = weka_randomize(train, 1 if options.get("seed") is None else int(options["seed"]))
            root = j.build(train, np.ones(len(train)), (held, np.ones(len(held))))
            grown = _to_nodes(root, data.schema)
            j.reduced_error_prune(root)
        else:
            root = j.build(np.arange(data.n), np.ones(data.n))
            if o["collapse"]:
                j.collapse(root)
            grown = _to_nodes(root, data.schema)
            if not o["unpruned"]:
                j.prune(root)
        pruned = _to_nodes(root, data.schema)
    finally:
        sys.setrecursionlimit(limit)
    recorded = {k: o[k] for k in DEFAULTS}
    recorded["cf"] = o["cf"]
    return Tree(data.schema, grown, pruned, {"grower": "j48", **recorded})


def predict_proba(root: Node, data: Dataset, laplace: bool = False) -> np.ndarray:
    """Class probabilities per case as J48's distributionForInstance (not normalised), summed
    as its getProbs nests them: a test's branches in order, each subtree's sum first."""
    from ..grow import branch_of
    C = len(data.schema.classes)

    def probs(n: Node) -> np.ndarray:
        d = np.asarray(n.class_dist, dtype=np.float64)
        if laplace:
            return (d + 1) / (n.items + C)
        return d / n.items if abs(n.items) >= SMALL else np.zeros(C)

    def descend(n: Node, rows: np.ndarray, w: np.ndarray) -> np.ndarray:
        if n.is_leaf:
            return w[:, None] * probs(n)[None, :]
        res = np.zeros((len(rows), C))
        col = data.columns[n.attribute][rows]
        if n.kind == "threshold":
            br = np.where(col - n.cut < SMALL, 0, 1)
            br[np.isnan(col)] = -1
        else:
            br = branch_of(n, col)
        unknown = br < 0
        shares = np.asarray(n.surrogates, dtype=np.float64) / n.items if n.surrogates else None
        for v, child in enumerate(n.branches):
            sel = br == v
            if child.is_leaf and child.items <= SMALL:
                # an empty branch: J48 answers with the test's own class distribution and
                # leaves it out for unknown values
                res[sel] = w[sel][:, None] * probs(n)[None, :]
                continue
            if unknown.any() and shares is not None:
                sel = sel | unknown
            ww = np.where(unknown[sel], shares[v] * w[sel] if shares is not None else 0.0, w[sel])
            if sel.any():
                res[sel] += descend(child, rows[sel], ww)
        return res

    return descend(root, np.arange(data.n), np.ones(data.n))


def predict(root: Node, data: Dataset, laplace: bool = False) -> np.ndarray:
    """Class code per case: the most probable, ties to the first class."""
    return np.argmax(predict_proba(root, data, laplace), axis=1)
