"""CART as R's rpart 4.1.19 grows it with method="class" (the `cart` grower).

Gini impurity, binary splits on every attribute, cost-complexity pruning at `cp`, surrogate
splits for unknown values, as described in Therneau & Atkinson, "An Introduction to
Recursive Partitioning Using the RPART Routines". The points that decide which tree comes out:

* priors are the class frequencies and the loss is 0/1, so a node's risk is its count of
  misclassified cases and the improvement of a split is the drop in n * Gini;
* a split is searched on the node's cases with a known value of the attribute only (cases
  with an unknown value do not count for it); the best improvement wins, ties go to the
  attribute that comes first, then to the split found first;
* on a continuous attribute the improvement is computed as rpart's gini.c does, operation
  for operation: each case weighs its class's altered prior pi_i / n_i (about 1, rounded as
  giniinit rounds it), the node's cases are taken in the order rpart's own quicksort
  (mysort.c, not stable) put all cases in at the root, and the weights are summed case by
  case in that order; between two continuous attributes the larger improvement wins by a
  strict `>`, so splits of the same Gini drop are told apart in their last bits as in rpart;
* continuous: every midpoint between two distinct sorted values with at least `minbucket`
  cases on each side; discrete: for two classes the categories are ordered by their share of
  the first class and cut along that order, for more classes every subset is tried in
  rpart's Gray-code order (the last category stays on the right);
* categories and classes are ordered as R orders a factor's levels (R's collation, not code
  points): it decides ties;
* the "complexity" of each split follows rpart's partition step: a node whose risk (or the
  complexity handed down by its parent) is at most alpha = cp * root risk is not split,
  and a subtree whose risk decrease per split is at most alpha is cut back;
* unknown values: surrogate splits ranked by agreement with the primary split, kept when
  they beat going with the majority (adjusted agreement > 0); with `usesurrogate` 2 a case
  missing every surrogate goes the majority way, with 0 it stays at the node (and is
  predicted by it), as rpart does in fitting and in predict;
* rpart sends `x < midpoint` one way; the Node's threshold test is `x <= cut`, so the cut
  stored is the double just below the midpoint: the tree, its rules and every export decide
  as rpart for every value (the midpoint itself included), and it prints as the midpoint.

Where we still differ (FIDELITY.md, "CART vs rpart 4.1.19"): discrete attributes' improvements
are not summed in rpart's order (rpart's Gray-code walk), so a tie involving a discrete
attribute is decided within a relative 1e-10, the attribute that comes first winning.
"""
from __future__ import annotations

import functools
import heapq
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...data.schema import Dataset
from ...errors import InputError
from ..node import Node, Tree
from .options import OPTIONS

# exhaustive subset search on more present categories than this is refused (2**k subsets)
MAX_SUBSET_CATEGORIES = 20
# improvements this close (relative) are ties: the first found wins, as in rpart's strict `>`
_TIE = 1e-10

DEFAULTS = OPTIONS["cart"]


@dataclass(frozen=True)
class Surrogate:
    """A surrogate split: the branch (0 or 1) of a case by another attribute.

    Continuous: `value < cut` goes to branch `below`, else to 1 - below. Discrete: the
    categories in `left` go to branch 0, those in `right` to branch 1 (others: unknown).
    """

    attribute: int
    agree: float
    cut: float = 0.0
    below: int = 0
    left: frozenset[int] = frozenset()
    right: frozenset[int] = frozenset()


def check(options: dict) -> dict:
    """The cart options with defaults filled in (minbucket = round(minsplit / 3)), or InputError."""
    o = {**DEFAULTS, **{k: v for k, v in options.items() if k in DEFAULTS}}
    cp = o["cp"]
    if isinstance(cp, bool) or not isinstance(cp, (int, float, np.integer, np.floating)) or not 0 <= cp <= 1:
        raise InputError(f"option cp must be a number in [0, 1], got {cp!r}")
    o["cp"] = float(cp)
    for key, low in (("minsplit", 1), ("maxdepth", 1), ("maxsurrogate", 0), ("xval", 0)):
        v = o[key]
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise InputError(f"option {key} must be a whole number >= {low}, got {v!r}")
        o[key] = int(v)
    if o["maxdepth"] > 30:
        raise InputError(f"option maxdepth must be at most 30 (as in rpart), got {o['maxdepth']}")
    if o["xval"] == 1:
        raise InputError("option xval must be 0 (no cross-validation) or at least 2 folds, got 1")
    if o["usesurrogate"] not in (0, 1, 2) or isinstance(o["usesurrogate"], bool):
        raise InputError(f"option usesurrogate must be 0, 1 or 2, got {o['usesurrogate']!r}")
    o["usesurrogate"] = int(o["usesurrogate"])
    mb = o["minbucket"]
    if mb is None:
        # R's round() rounds half to even, as Python's does
        mb = max(1, round(o["minsplit"] / 3))
    if isinstance(mb, bool) or not isinstance(mb, (int, np.integer)) or mb < 1:
        raise InputError(f"option minbucket must be a whole number >= 1, got {mb!r}")
    o["minbucket"] = int(mb)
    return o


# ---- R's order of factor levels -------------------------------------------------------
# R sorts strings with the ICU root collation: punctuation and symbols first (in this
# order), then digits, then letters without regard to case, lower case first on a tie
_SYMBOLS = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def _collation_key(text: str) -> tuple:
    primary, tertiary = [], []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch):
            continue
        if ch.isspace():
            primary.append((0, 0))
        elif ch in _SYMBOLS:
            primary.append((1, _SYMBOLS.index(ch)))
        elif ch.isdigit():
            primary.append((3, int(ch) if ch.isascii() else ord(ch)))
        elif ch.isalpha():
            primary.append((4, ord(ch.lower())))
        else:
            primary.append((2, ord(ch)))
        tertiary.append(1 if ch.isupper() else 0)
    return (primary, tertiary, text)


def r_level_order(values: tuple[str, ...] | list[str]) -> list[int]:
    """Positions of `values` in the order R gives a factor's levels."""
    return sorted(range(len(values)), key=lambda i: _collation_key(values[i]))


# ---- the grower -----------------------------------------------------------------------
class _Cart:
    def __init__(self, data: Dataset, o: dict):
        schema = data.schema
        self.data = data
        self.o = o
        self.n = data.n
        present = np.flatnonzero(np.bincount(data.y, minlength=len(schema.classes)))
        # classes in R's level order (levels present in the data only), as codes 0..C-1
        order = [int(present[i]) for i in r_level_order([schema.classes[c] for c in present])]
        self.class_of = np.array(order, dtype=np.int64)          # our class code -> schema's
        to_r = np.full(len(schema.classes), -1, dtype=np.int64)
        to_r[self.class_of] = np.arange(len(order))
        self.y = to_r[data.y]
        self.C = len(order)
        self.n_classes = len(schema.classes)
        self.attrs = [i for i, a in enumerate(schema.attributes) if a.kind != "ignore"]
        self.cont = {i: schema.attributes[i].is_continuous for i in self.attrs}
        self.x: dict[int, np.ndarray] = {}
        self.level_of: dict[int, np.ndarray] = {}     # R level -> our value code
        self.nlev: dict[int, int] = {}
        for i in self.attrs:
            col = data.columns[i]
            if self.cont[i]:
                self.x[i] = col.astype(np.float64)
                continue
            attr = schema.attributes[i]
            used = np.flatnonzero(np.bincount(col[col >= 0], minlength=len(attr.values)))
            lev = [int(used[j]) for j in r_level_order([attr.values[v] for v in used])]
            code = np.full(len(attr.values) + 1, -1, dtype=np.int64)
            code[np.array(lev, dtype=np.int64)] = np.arange(len(lev))
            self.x[i] = np.where(col >= 0, code[np.maximum(col, 0)], -1)
            self.level_of[i] = np.array(lev, dtype=np.int64)
            self.nlev[i] = len(lev)
        self.mb = o["minbucket"]
        self.aprior = _altered_priors(np.bincount(self.y, minlength=self.C).astype(np.float64))
        self._ranks: dict[int, np.ndarray] = {}

    def _rank(self, a: int) -> np.ndarray:
        """Each case's position in rpart's own sort of continuous attribute `a` over all cases,
        made once at the root (an unknown value sorts as 0, as rpart.c puts it): the children
        keep that order, and it fixes the order of the split sums."""
        if a not in self._ranks:
            perm = rpart_sort(np.where(np.isnan(self.x[a]), 0.0, self.x[a]))
            rank = np.empty(self.n, dtype=np.int64)
            rank[perm] = np.arange(self.n)
            self._ranks[a] = rank
        return self._ranks[a]

    # -- split search -----------------------------------------------------------------
    def _counts(self, rows: np.ndarray) -> np.ndarray:
        return np.bincount(self.y[rows], minlength=self.C).astype(np.float64)

    def _improvement(self, left: np.ndarray, total: np.ndarray) -> np.ndarray:
        """Drop in n * Gini for each row of left class counts (right = total - left)."""
        right = total[None, :] - left
        nl, nr = left.sum(axis=1), right.sum(axis=1)
        n = total.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = (left ** 2).sum(axis=1) / nl + (right ** 2).sum(axis=1) / nr - (total ** 2).sum() / n
        return np.where((nl > 0) & (nr > 0), gain, -np.inf)

    def _continuous(self, a: int, rows: np.ndarray):
        x = self.x[a][rows]
        known = ~np.isnan(x)
        if not known.all():
            rows = rows[known]
        k = len(rows)
        if k < 2 * self.mb:
            return None
        # the node's cases in rpart's root order, and its sums in that order: ties between
        # attributes are decided in their last bits (gini.c's gini, continuous case)
        rows = rows[np.argsort(self._rank(a)[rows])]
        xs = self.x[a][rows]
        if xs[0] == xs[-1]:
            return None
        y = self.y[rows]
        w = self.aprior[y]
        lwt = np.cumsum(w)
        rwt0 = lwt[-1]
        rwt = np.cumsum(np.concatenate(([rwt0], -w)))[1:]
        total = np.bincount(y, minlength=self.C).astype(np.float64)
        # cumsum adds one term after the other, as gini.c's loops do (a sum would pair them)
        p = self.aprior * total / rwt0
        total_ss = float(np.cumsum(rwt0 * (p * (1.0 - p)))[-1])
        nl = np.arange(1, k + 1)
        ok = (nl[:-1] >= self.mb) & (k - nl[:-1] >= self.mb) & (xs[:-1] != xs[1:])
        at = np.flatnonzero(ok)
        if not len(at):
            return None
        onehot = np.zeros((k, self.C))
        onehot[np.arange(k), y] = 1.0
        left = np.cumsum(onehot, axis=0)[at]
        right = total[None, :] - left
        lw, rw = lwt[at][:, None], rwt[at][:, None]
        terms = np.empty((len(at), self.C, 2))
        p = self.aprior * left / lw
        terms[:, :, 0] = lw * (p * (1.0 - p))
        p = self.aprior * right / rw
        terms[:, :, 1] = rw * (p * (1.0 - p))
        # per candidate: left then right term of each class in turn, added in that order
        temp = np.cumsum(terms.reshape(len(at), 2 * self.C), axis=1)[:, -1]
        best = int(np.argmin(temp))          # the first of equals, as gini's strict `<`
        if not temp[best] < total_ss:
            return None
        i = at[best]
        return float(total_ss - temp[best]), ("threshold", (xs[i] + xs[i + 1]) / 2)

    def _discrete(self, a: int, rows: np.ndarray):
        x = self.x[a][rows]
        known = x >= 0
        L = self.nlev[a]
        table = np.bincount(x[known] * self.C + self.y[rows[known]], minlength=L * self.C)
        table = table.reshape(L, self.C).astype(np.float64)
        n_v = table.sum(axis=1)
        present = np.flatnonzero(n_v > 0)
        if len(present) < 2:
            return None
        total = table.sum(axis=0)
        if self.C == 2:
            # rpart orders the categories by their share of the first class and cuts along it
            share = table[present, 0] / n_v[present]
            ordered = present[np.argsort(share, kind="stable")]
            left = np.cumsum(table[ordered], axis=0)[:-1]
            nl = np.cumsum(n_v[ordered])[:-1]
        else:
            # every subset in rpart's Gray-code order over the present categories; the last
            # level (when present) never moves and stays on the right
            moving = present[present < L - 1]
            if len(moving) > MAX_SUBSET_CATEGORIES:
                raise InputError(f"attribute {self.data.schema.attributes[a].name!r}: {len(moving)} categories at"
                                 f" one node are too many for the cart grower's exhaustive subset search"
                                 f" (at most {MAX_SUBSET_CATEGORIES})")
            bits = _gray_subsets(len(moving))
            left = bits @ table[moving]
            nl = bits @ n_v[moving]
        nt = n_v.sum()
        ok = (nl >= self.mb) & (nt - nl >= self.mb)
        if not ok.any():
            return None
        at = np.flatnonzero(ok)
        gain = self._improvement(left[at], total)
        best = _first_best(gain)
        if best is None:
            return None
        if self.C == 2:
            to_left = ordered[: at[best] + 1]
        else:
            to_left = moving[bits[at[best]].astype(bool)]
        to_right = np.setdiff1d(present, to_left)
        return float(gain[best]), ("subset", (frozenset(to_left.tolist()), frozenset(to_right.tolist())))

    def best_split(self, rows: np.ndarray):
        best = None
        for a in self.attrs:
            found = self._continuous(a, rows) if self.cont[a] else self._discrete(a, rows)
            if found is None or not found[0] > 0:
                continue
            # ties go to the attribute that comes first: between two continuous attributes
            # exactly (bsplit's strict `>` on improvements summed as rpart sums them), else
            # within a relative 1e-10 (discrete improvements are not summed in rpart's order)
            exact = best is not None and self.cont[a] and self.cont[best[1]]
            if best is None or (found[0] > best[0] if exact else found[0] > best[0] * (1 + _TIE)):
                best = (found[0], a, found[1])
        return best

    # -- where cases go ---------------------------------------------------------------------
    def branch(self, a: int, test, rows: np.ndarray) -> np.ndarray:
        """0 or 1 per case by the split, -1 for an unknown value (or a category the split lacks)."""
        x = self.x[a][rows]
        kind, how = test
        if kind == "threshold":
            out = np.where(x < how, 0, 1)
            out[np.isnan(x)] = -1
            return out
        left, right = how
        lookup = np.full(self.nlev[a] + 1, -1, dtype=np.int64)
        lookup[list(left)] = 0
        lookup[list(right)] = 1
        return np.where(x >= 0, lookup[np.maximum(x, 0)], -1)

    def surrogates(self, primary: int, rows: np.ndarray, side: np.ndarray) -> list[tuple]:
        """Surrogate splits of a node (rpart's agreement and adjusted agreement), best first."""
        sent = side >= 0
        n_left, n_right = float((side == 0).sum()), float((side == 1).sum())
        total, majority = n_left + n_right, max(n_left, n_right)
        found = []
        # observed of rpart 4.1.19 (not documented): no surrogate when the primary split sends
        # a single case one way, and none on a discrete attribute that disagrees with the
        # primary split on fewer than two cases
        if min(n_left, n_right) < 2:
            return found
        for a in self.attrs:
            if a == primary:
                continue
            x = self.x[a][rows]
            if self.cont[a]:
                use = sent & ~np.isnan(x)
                if use.sum() < 2:
                    continue
                xs, d = x[use], side[use]
                order = np.argsort(xs, kind="stable")
                xs, d = xs[order], d[order]
                if xs[0] == xs[-1]:
                    continue
                lefts = np.cumsum(d == 0)[:-1]            # primary-left cases below each cut
                rights = np.cumsum(d == 1)[:-1]
                all_l, all_r = lefts[-1] + (d[-1] == 0), rights[-1] + (d[-1] == 1)
                ok = xs[:-1] != xs[1:]
                # below goes left: agree = left below + right above; or the reverse
                agree_l = np.where(ok, lefts + (all_r - rights), -1)
                agree_r = np.where(ok, rights + (all_l - lefts), -1)
                i_l, i_r = int(np.argmax(agree_l)), int(np.argmax(agree_r))
                if agree_r[i_r] > agree_l[i_l] or (agree_r[i_r] == agree_l[i_l] and i_r < i_l):
                    i, below, agree = i_r, 1, float(agree_r[i_r])
                else:
                    i, below, agree = i_l, 0, float(agree_l[i_l])
                s = (agree, a, ("threshold", (xs[i] + xs[i + 1]) / 2, below))
            else:
                use = sent & (x >= 0)
                if not use.any():
                    continue
                L = self.nlev[a]
                cnt = np.bincount(x[use] * 2 + side[use], minlength=2 * L).reshape(L, 2)
                has = cnt.sum(axis=1) > 0
                # each category goes where most of its cases go (a tie: the majority way)
                to_left = (cnt[:, 0] > cnt[:, 1]) | ((cnt[:, 0] == cnt[:, 1]) & (n_left >= n_right))
                left = frozenset(np.flatnonzero(has & to_left).tolist())
                right = frozenset(np.flatnonzero(has & ~to_left).tolist())
                if not left or not right:
                    continue
                if float(cnt[has].sum()) - float(cnt[np.flatnonzero(has & to_left), 0].sum()
                                                 + cnt[np.flatnonzero(has & ~to_left), 1].sum()) < 2:
                    continue
                agree = float(cnt[np.flatnonzero(has & to_left), 0].sum() + cnt[np.flatnonzero(has & ~to_left), 1].sum())
                s = (agree, a, ("subset", (left, right)))
            if total > majority and (agree - majority) / (total - majority) > 0:
                found.append(s)
        # more agreement first; ties in attribute order (sorted is stable)
        found.sort(key=lambda s: -s[0])
        return found[: self.o["maxsurrogate"]]

    # -- rpart's partition --------------------------------------------------------------
    def leaf(self, rows: np.ndarray) -> tuple[Node, float]:
        counts = self._counts(rows)
        yval = int(np.argmax(counts))       # ties to the first class in R's order
        risk = float(counts.sum() - counts[yval])
        dist = np.zeros(self.n_classes)
        dist[self.class_of] = counts
        return Node(int(self.class_of[yval]), float(len(rows)), risk, dist), risk

    def partition(self, rows: np.ndarray, depth: int, complexity: float | None) -> tuple[Node, int, float]:
        """(node, number of splits kept below it, risk of its leaves), as rpart's partition."""
        node, risk = self.leaf(rows)
        node.complexity = self.alpha
        cp = risk if complexity is None else min(risk, complexity)
        if len(rows) < self.o["minsplit"] or cp <= self.alpha or depth >= self.o["maxdepth"]:
            return node, 0, risk
        best = self.best_split(rows)
        if best is None:
            return node, 0, risk
        _, a, (kind, how) = best
        node.kind, node.attribute = kind, a
        if kind == "threshold":
            # rpart sends `x < midpoint` left; the Node's branch 0 is `x <= cut`: the double
            # just below the midpoint makes them the same test for every value, so that the
            # tree, its rules and every export decide exactly as rpart (printed, it is the midpoint)
            node.cut = float(np.nextafter(how, -np.inf))
        else:
            node.subsets = tuple(frozenset(self.level_of[a][sorted(s)].tolist()) for s in how)
        side = self.branch(a, (kind, how), rows)
        if self.o["maxsurrogate"] > 0 and (side >= 0).any():
            node.surrogates = tuple(self._public_surrogate(s) for s in self.surrogates(a, rows, side))
        n_left, n_right = int((side == 0).sum()), int((side == 1).sum())
        node.majority = 0 if n_left > n_right else 1 if n_right > n_left else -1
        side = case_branch(node, self.data, rows, self.o["usesurrogate"]) if (side < 0).any() else side
        own = complexity if complexity is not None else risk
        left, left_splits, left_risk = self.partition(rows[side == 0], depth + 1, cp - self.alpha)
        cp2 = max((risk - left_risk) / (left_splits + 1), risk - left.errors)
        cp2 = min(cp2, own)
        right, right_splits, right_risk = self.partition(rows[side == 1], depth + 1, cp2 - self.alpha)
        node.branches = [left, right]
        # a subtree cannot have a larger complexity than its node: cut back the son
        # whose own complexity is below this node's, the smaller first
        tc = (risk - (left_risk + right_risk)) / (left_splits + right_splits + 1)
        if right.complexity > left.complexity:
            if tc > left.complexity:
                left_risk, left_splits = left.errors, 0
                tc = (risk - (left_risk + right_risk)) / (left_splits + right_splits + 1)
                if tc > right.complexity:
                    right_risk, right_splits = right.errors, 0
        elif tc > right.complexity:
            right_risk, right_splits = right.errors, 0
            tc = (risk - (left_risk + right_risk)) / (left_splits + right_splits + 1)
            if tc > left.complexity:
                left_risk, left_splits = left.errors, 0
        tc = (risk - (left_risk + right_risk)) / (left_splits + right_splits + 1)
        if tc <= self.alpha:
            _make_leaf(node)
            node.complexity = self.alpha
            return node, 0, risk
        node.complexity = tc
        return node, left_splits + right_splits + 1, left_risk + right_risk

    def _public_surrogate(self, s: tuple) -> Surrogate:
        agree, a, (kind, *how) = s
        if kind == "threshold":
            return Surrogate(a, agree, cut=float(how[0]), below=int(how[1]))
        left, right = how[0]
        lev = self.level_of[a]
        return Surrogate(a, agree, left=frozenset(lev[sorted(left)].tolist()),
                         right=frozenset(lev[sorted(right)].tolist()))

    def grow(self, rows: np.ndarray) -> Node:
        root_risk = float(len(rows) - self._counts(rows).max())
        self.alpha = self.o["cp"] * root_risk
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 10_000))
        try:
            root, _, _ = self.partition(rows, 0, None)
        finally:
            sys.setrecursionlimit(limit)
        # the subtrees cut back by a larger complexity above them (rpart prunes at cp)
        _prune_at(root, self.alpha)
        # complexities in units of the root's risk, as rpart's cp table reports them
        for n in root.walk():
            n.complexity = n.complexity / root_risk if root_risk > 0 else 0.0
        return root


def _altered_priors(counts: np.ndarray) -> np.ndarray:
    """gini.c's altered priors pi_i / n_i (about 1) for priors = class frequencies and 0/1
    loss, rounded as giniinit rounds them: the weight of a case in every split sum."""
    n = counts.sum()
    prior = counts / n                      # R's parms$prior and giniinit's freq alike
    C = len(counts)
    aprior = np.zeros(C)
    temp = 0.0
    for i in range(C):
        a = 0.0
        for j in range(C):
            loss = 0.0 if i == j else 1.0
            temp += loss * prior[i]
            a += loss * prior[i]
        aprior[i] = a
    for i in range(C):
        if prior[i] > 0:
            aprior[i] = aprior[i] / (temp * prior[i])
    return aprior


def rpart_sort(x: np.ndarray) -> np.ndarray:
    """The permutation rpart's quicksort (mysort.c: median of three, insertion sort under
    twelve values, not stable) puts `x` in: it decides the order of equal values."""
    # once per continuous attribute at the root (about 20 ms for 20,000 cases)
    xl, il = [float(v) for v in x], list(range(len(x)))
    stack = [(0, len(xl) - 1)]
    while stack:
        start, stop = stack.pop()
        while start < stop:
            if stop - start < 11:
                for i in range(start + 1, stop + 1):
                    t, ti = xl[i], il[i]
                    j = i - 1
                    while j >= start and xl[j] > t:
                        xl[j + 1], il[j + 1] = xl[j], il[j]
                        j -= 1
                    xl[j + 1], il[j + 1] = t, ti
                break
            i, j, k = start, stop, (start + stop) // 2
            med = xl[k]
            if xl[i] >= xl[k]:
                if xl[j] > xl[k]:
                    med = xl[j] if xl[i] > xl[j] else xl[i]
            elif xl[j] < xl[k]:
                med = xl[i] if xl[i] > xl[j] else xl[j]
            while i < j:
                while xl[i] < med:
                    i += 1
                while xl[j] > med:
                    j -= 1
                if i < j:
                    if xl[i] > xl[j]:
                        xl[i], xl[j] = xl[j], xl[i]
                        il[i], il[j] = il[j], il[i]
                    i += 1
                    j -= 1
            while xl[i] >= med and i > start:
                i -= 1
            while xl[j] <= med and j < stop:
                j += 1
            # the two parts are disjoint: the order they are sorted in does not matter
            if i - start < stop - j:
                if i - start > 0:
                    stack.append((start, i))
                start = j
            else:
                if stop - j > 0:
                    stack.append((j, stop))
                stop = i
    return np.array(il, dtype=np.int64)


@functools.lru_cache(maxsize=None)
def _gray_subsets(m: int) -> np.ndarray:
    """(2**m - 1, m) 0/1 rows: the subsets on the left in the reflected Gray code's order."""
    steps = np.arange(1, 2 ** m, dtype=np.int64)
    gray = steps ^ (steps >> 1)
    out = ((gray[:, None] >> np.arange(m)[None, :]) & 1).astype(np.float64)
    out.flags.writeable = False
    return out


def _first_best(gain: np.ndarray) -> int | None:
    top = gain.max()
    if not top > 0:
        return None
    return int(np.flatnonzero(gain >= top - _TIE * abs(top))[0])


def _surrogate_branch(s: Surrogate, x: np.ndarray) -> np.ndarray:
    """A surrogate's branch for values `x` in the schema's coding; -1 where it says nothing."""
    if s.left or s.right:
        out = np.full(len(x), -1, dtype=np.int64)
        out[np.isin(x, list(s.left))] = 0
        out[np.isin(x, list(s.right))] = 1
        return out
    with np.errstate(invalid="ignore"):
        out = np.where(x < s.cut, s.below, 1 - s.below)
    out[np.isnan(x)] = -1
    return out


def _make_leaf(node: Node) -> None:
    node.make_leaf()
    node.cut = 0.0
    node.surrogates = ()
    node.majority = -1


def _prune_at(root: Node, alpha: float) -> None:
    """Collapse every split whose complexity is at most alpha (its subtree with it)."""
    stack = [root]
    while stack:
        n = stack.pop()
        if n.is_leaf:
            continue
        if n.complexity <= alpha:
            _make_leaf(n)
            n.complexity = alpha
            continue
        stack.extend(n.branches)


def prune_cp(root: Node, cp: float) -> Node:
    """A copy of a cart tree without the splits of complexity <= cp (rpart's prune.rpart)."""
    out = root.copy()
    _prune_at(out, cp)
    return out


# ---- using the tree -------------------------------------------------------------------
def node_of_cases(root: Node, data: Dataset, usesurrogate: int,
                  cp: float | None = None) -> list[tuple[Node, np.ndarray]]:
    """(node, rows) where each case stops: a leaf, or a node it cannot be sent past; with `cp`,
    the tree as pruned at cp (prune_cp) without making the copy."""
    out = []
    stack = [(root, np.arange(data.n))]
    while stack:
        node, rows = stack.pop()
        if not len(rows):
            continue
        if node.is_leaf or (cp is not None and node.complexity <= cp):
            out.append((node, rows))
            continue
        side = case_branch(node, data, rows, usesurrogate)
        if (side < 0).any():
            out.append((node, rows[side < 0]))
        for v in reversed(range(len(node.branches))):
            stack.append((node.branches[v], rows[side == v]))
    return out


def case_branch(node: Node, data: Dataset, rows: np.ndarray, usesurrogate: int) -> np.ndarray:
    """Branch at `node` for the cases `rows`; -1 for those not sent down (also id3's multiway tests)."""
    x = data.columns[node.attribute][rows]
    if node.kind == "threshold":
        with np.errstate(invalid="ignore"):
            side = np.where(x <= node.cut, 0, 1)
        side[np.isnan(x)] = -1
    elif node.kind == "discrete":
        side = np.where((x >= 0) & (x < len(node.branches)), x, -1).astype(np.int64)
    else:
        side = np.full(len(rows), -1, dtype=np.int64)
        side[np.isin(x, list(node.subsets[0]))] = 0
        side[np.isin(x, list(node.subsets[1]))] = 1
    if usesurrogate == 0:
        return side
    for s in node.surrogates:
        todo = side < 0
        if not todo.any():
            return side
        side[todo] = _surrogate_branch(s, data.columns[s.attribute][rows[todo]])
    if usesurrogate == 2 and node.majority >= 0:
        side[side < 0] = node.majority
    return side


def predict(root: Node, data: Dataset, usesurrogate: int = 2, cp: float | None = None) -> np.ndarray:
    """Class code per case as rpart's predict: the class of the node where the case stops
    (in the tree pruned at `cp` when given)."""
    out = np.empty(data.n, dtype=np.int64)
    for node, rows in node_of_cases(root, data, usesurrogate, cp):
        out[rows] = node.klass
    return out


# ---- cross-validation -----------------------------------------------------------------
def _cp_table(root: Node) -> list[float]:
    """The distinct complexities of the tree's splits, largest first (rpart's cp table rows)."""
    return sorted({n.complexity for n in root.walk() if not n.is_leaf}, reverse=True)


def _stop_class(root: Node, data: Dataset, usesurrogate: int, cp: float) -> np.ndarray:
    """Class per case of the tree pruned at `cp`."""
    return predict(root, data, usesurrogate, cp)


def cross_validated_errors(data: Dataset, table: list[float], folds: int, seed: int | None,
                           grow_fold: Callable[[Dataset], Node], usesurrogate: int = 2) -> np.ndarray:
    """Errors per row of the cp `table` (largest first) summed over `folds` held-out folds
    (random by seed), each fold's tree from `grow_fold(train) -> root` with complexities in
    cp units."""
    # rpart evaluates each row at the geometric mean of its cp and the one above
    points = [table[0] * 10] + [float(np.sqrt(a * b)) for a, b in zip(table[:-1], table[1:])]
    rng = np.random.default_rng(0 if seed is None else seed)
    fold = rng.permutation(np.arange(data.n) % folds)
    errors = np.zeros(len(points))
    for k in range(folds):
        train, held = data.subset(np.flatnonzero(fold != k)), data.subset(np.flatnonzero(fold == k))
        if train.n == 0 or held.n == 0 or len(np.unique(train.y)) < 2:
            continue
        sub = grow_fold(train)
        for j, c in enumerate(points):
            errors[j] += int((_stop_class(sub, held, usesurrogate, c) != held.y).sum())
    return errors


def chosen_cp(table: list[float], errors: np.ndarray, n: int, se_rule: float = 0.0) -> float:
    """The largest cp whose cross-validated errors are within `se_rule` standard errors of the
    fewest (Breiman et al. 1984, 3.4.3: the 1-SE rule at se_rule 1; 0: the fewest, the first
    of equals, as rpart's printcp minimum)."""
    best = int(np.argmin(errors))
    e = float(errors[best])
    # the standard error of a count of misclassified cases out of n (binomial)
    se = float(np.sqrt(e * max(0.0, 1.0 - e / n))) if n > 0 else 0.0
    within = np.flatnonzero(errors <= e + se_rule * se + 1e-9)
    return table[int(within[0])]


def cross_validated_cp(data: Dataset, o: dict, root: Node, seed: int | None) -> float:
    """The cp of the cp table with the fewest cross-validated errors (xval folds, random by seed)."""
    table = _cp_table(root) + [o["cp"]]
    errors = cross_validated_errors(data, table, o["xval"], seed,
                                    lambda train: _Cart(train, o).grow(np.arange(train.n)), o["usesurrogate"])
    return chosen_cp(table, errors, data.n)


def weakest_link_complexity(root: Node) -> None:
    """Set each split's complexity to the alpha, in units of the root's risk, at which
    cost-complexity pruning cuts it back (Breiman et al. 1984, 3.3: weakest-link cutting), for
    a tree grown without rpart's partition; leaves' `errors` are their training errors."""
    nodes = list(root.walk())
    parent = {id(b): n for n in nodes for b in n.branches}
    order = {id(n): k for k, n in enumerate(nodes)}
    risk: dict[int, float] = {}         # a test's subtree: errors of its leaves, and leaves
    leaves: dict[int, int] = {}
    for n in reversed(nodes):           # every node after its descendants
        if not n.is_leaf:
            risk[id(n)] = sum(risk[id(b)] if id(b) in risk else b.errors for b in n.branches)
            leaves[id(n)] = sum(leaves.get(id(b), 1) for b in n.branches)

    def worth(n: Node) -> float:
        return (n.errors - risk[id(n)]) / (leaves[id(n)] - 1)

    # the weakest link first (a heap of each test's latest worth: a popped entry that is not
    # its test's worth any more is stale); cutting a subtree changes its ancestors' worth only
    heap = [(worth(n), order[id(n)], n) for n in nodes if not n.is_leaf]
    heapq.heapify(heap)
    alive = {id(n) for n in nodes if not n.is_leaf}
    level = 0.0
    while heap:
        g, _, n = heapq.heappop(heap)
        if id(n) not in alive or g != worth(n):
            continue
        level = max(level, g)
        gained, cut = n.errors - risk[id(n)], leaves[id(n)] - 1
        for m in n.walk():
            if id(m) in alive:
                m.complexity = level
                alive.discard(id(m))
        up = parent.get(id(n))
        while up is not None:
            risk[id(up)] += gained
            leaves[id(up)] -= cut
            heapq.heappush(heap, (worth(up), order[id(up)], up))
            up = parent.get(id(up))
    scale = root.errors
    for n in nodes:
        n.complexity = n.complexity / scale if not n.is_leaf and scale > 0 else 0.0


def grow(data: Dataset, options: dict) -> Tree:
    """The cart tree on `data` (pruned at cp, or at the cross-validated cp when xval > 1)."""
    o = check(options)
    root = _Cart(data, o).grow(np.arange(data.n))
    if o["xval"] > 1:
        chosen = cross_validated_cp(data, o, root, options.get("seed"))
        root = prune_cp(root, chosen)
    recorded = {k: o[k] for k in DEFAULTS}
    return Tree(data.schema, root, root, {"grower": "cart", **recorded})
