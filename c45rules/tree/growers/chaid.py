"""CHAID, Kass's (1980) chi-square automatic interaction detection (the `chaid` grower).

At each node, for each attribute (Kass, "An exploratory technique for investigating large
quantities of categorical data", Applied Statistics 29(2), steps 1-4):

* its categories at the node: a discrete attribute's values (nominal: any two may merge); a
  continuous attribute's distinct values, or its `bins` quantile bins, as an ordinal predictor
  (only groups adjacent in the order merge); an unknown value is one more category, for an
  ordinal predictor a "floating" one that may merge with any group;
* merging: the pair of mergeable groups whose 2 x classes table has the largest Pearson
  chi-square p-value is merged while that p-value is above `alpha_merge`; groups with fewer
  than `min_child` cases are then merged with their most similar neighbour (as SPSS does);
* the attribute whose grouped table has the smallest p-value, adjusted by Kass's Bonferroni
  multiplier (significance.bonferroni_multiplier) when `bonferroni` is set, is split on when
  that p-value is at most `alpha_split`; ties go to the larger chi-square, then to the
  attribute that comes first;
* a node is not split at depth `max_depth` (the root at 0), with fewer than `min_parent`
  cases, or when pure. Nothing is pruned: the stop is the significance test.

Kass's step 3 (testing whether a merged group of three or more categories should be split
again) is not done, as SPSS's default leaves it out.

The tree becomes the shared Node tree so that the rules and every export take it: a nominal
split is a subset test (one branch per group); an ordinal split on a continuous attribute is a
chain of `value <= cut` tests (the cut is the largest value of a group at the node), so its
rules are threshold conditions. Unknown values go where Kass's tree sends them: the group the
floating category joined (`Node.majority` names that branch, as for cart); a group of unknown
values alone is a branch no known value goes down (a rule has no condition "is unknown"): for a
discrete attribute the subset `{}`, for a continuous one the far side of `x <= ` the largest
double, placed before the chain. Kass's statistics per split are kept on `Tree.chaid` (the
`tree` command prints them).
"""
from __future__ import annotations

import heapq
import math
import sys
from dataclasses import dataclass, field

import numpy as np

from ...data.schema import Dataset
from ...errors import InputError
from ..node import Node, Tree
from ..significance import bonferroni_multiplier, table_p_value
from .options import OPTIONS

DEFAULTS = OPTIONS["chaid"]
# p-values and chi-squares this close (relative) are ties
_TIE = 1e-9
MISSING = -1     # the category of an unknown value of a discrete attribute (its code in the data)


def check(options: dict) -> dict:
    """The chaid options with defaults filled in, or InputError naming the first bad one."""
    o = {**DEFAULTS, **{k: v for k, v in options.items() if k in DEFAULTS}}
    for key in ("alpha_merge", "alpha_split"):
        v = o[key]
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not 0 < v <= 1:
            raise InputError(f"option {key} must be a number in (0, 1], got {v!r}")
        o[key] = float(v)
    for key, low in (("max_depth", 1), ("min_parent", 2), ("min_child", 1)):
        v = o[key]
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise InputError(f"option {key} must be a whole number >= {low}, got {v!r}")
        o[key] = int(v)
    b = o["bins"]
    if b is not None and (isinstance(b, bool) or not isinstance(b, (int, np.integer)) or b < 2):
        raise InputError(f"option bins must be a whole number >= 2 (or None: no binning), got {b!r}")
    o["bins"] = None if b is None else int(b)
    if not isinstance(o["bonferroni"], (bool, np.bool_)):
        raise InputError(f"option bonferroni must be True or False, got {o['bonferroni']!r}")
    o["bonferroni"] = bool(o["bonferroni"])
    return o


@dataclass(frozen=True)
class Group:
    """One branch of a CHAID split: value codes (discrete) or the closed interval [low, high]
    of values seen at the node (continuous), and whether unknown values go there."""

    codes: frozenset[int] = frozenset()
    low: float = math.nan
    high: float = math.nan
    missing: bool = False

    @property
    def known(self) -> bool:
        """True when the group holds known values (not only the unknown ones)."""
        return bool(self.codes) or not math.isnan(self.low)


@dataclass
class Split:
    """A CHAID split with Kass's statistics: the grouped table's chi-square, df and p-values."""

    attribute: int
    groups: tuple[Group, ...]
    chi2: float
    df: int
    p: float
    adjusted_p: float
    categories: int


@dataclass
class ChaidNode:
    """A node of the CHAID tree: its class counts, its split (None at a leaf), one child per group."""

    counts: np.ndarray
    split: Split | None = None
    children: list["ChaidNode"] = field(default_factory=list)

    def leaves(self) -> int:
        """Number of leaves (a group of unknown values alone counts, as in Kass's tree)."""
        return 1 if self.split is None else sum(c.leaves() for c in self.children)


@dataclass
class _Categories:
    """An attribute's categories at a node: class counts per category, in the attribute's order."""

    counts: np.ndarray        # (k, classes)
    codes: np.ndarray         # (k,) category code: value code (MISSING: unknown), bin or value
    ordinal: bool
    case_category: np.ndarray  # (rows,) index into the categories per case
    floating: bool = False    # ordinal: category 0 is the unknown values' (floating) one


def _pair_keys(tables: np.ndarray) -> list[tuple[bool, float, float]]:
    """Ranking of merge candidates (2 x classes tables): tables with one class present first
    (nothing tells them apart), then the larger p-value, then the larger chi-square."""
    chi, df, p = table_p_value(tables)
    single = (df == 0) & ((tables.sum(axis=1) > 0).sum(axis=1) == 1)
    return list(zip(single.tolist(), p.tolist(), chi.tolist()))


class _Merger:
    """Kass's step 2 (and SPSS's min-child merge) over one attribute's categories at a node."""

    def __init__(self, cats: _Categories, alpha_merge: float, min_child: int):
        self.cats, self.alpha, self.min_child = cats, alpha_merge, min_child
        # groups as lists of category indices, in the order the candidates are taken (a merged
        # group keeps the place of its first member): ties go to the first candidate
        self.members: list[list[int]] = [[i] for i in range(len(cats.codes))]
        self.counts: list[np.ndarray] = [c.astype(np.float64) for c in cats.counts]
        self.cache: dict[tuple[int, int], tuple[bool, float, float]] = {}
        self.ids = list(range(len(self.members)))
        self.next_id = len(self.members)

    def _floating(self, g: int) -> bool:
        return self.cats.floating and self.members[g] == [0]

    def candidates(self) -> list[tuple[int, int]]:
        """The pairs of groups that may merge: any two (nominal); neighbours in the order, then
        the floating category with each group (ordinal)."""
        k = len(self.members)
        if not self.cats.ordinal:
            return [(i, j) for i in range(k) for j in range(i + 1, k)]
        fixed = [g for g in range(k) if not self._floating(g)]
        pairs = list(zip(fixed[:-1], fixed[1:]))
        floating = [g for g in range(k) if self._floating(g)]
        return pairs + [(g, floating[0]) for g in fixed] if floating else pairs

    def key(self, i: int, j: int) -> tuple[bool, float, float]:
        """The ranking of merging groups i and j (_pair_keys), computed once per pair of groups."""
        self.compute([(i, j)])
        return self.cache[(self.ids[i], self.ids[j])]

    def compute(self, pairs: list[tuple[int, int]]) -> None:
        # the pairs not yet ranked, all in one call: the first round ranks every neighbour
        todo = [(i, j) for i, j in pairs if (self.ids[i], self.ids[j]) not in self.cache]
        if todo:
            tables = np.stack([np.stack([self.counts[i], self.counts[j]]) for i, j in todo])
            for (i, j), key in zip(todo, _pair_keys(tables)):
                self.cache[(self.ids[i], self.ids[j])] = key

    def best(self, pairs: list[tuple[int, int]]) -> tuple[tuple[int, int], tuple[bool, float, float]]:
        self.compute(pairs)
        keys = [self.cache[(self.ids[i], self.ids[j])] for i, j in pairs]
        at = max(range(len(pairs)), key=lambda t: keys[t])   # max keeps the first of equals
        return pairs[at], keys[at]

    def merge_pairs(self) -> None:
        """Kass's step 2: merge the most similar mergeable pair while it is not significant."""
        while len(self.members) > 1:
            (i, j), (single, p, _) = self.best(self.candidates())
            if not single and p <= self.alpha:
                break
            self.merge(i, j)

    def merge_ordinal(self) -> None:
        """merge_pairs for an ordinal predictor, the same merges in the same order,
        its candidates in a heap: a continuous attribute has as many categories as distinct
        values, and the loop's rounds each rescanning every pair took O(values^2)."""
        k = len(self.members)
        floating = 0 if self.cats.floating else None
        fixed = list(range(1 if self.cats.floating else 0, k))
        members = {g: [g] for g in range(k)}
        counts = dict(enumerate(self.counts))
        after = dict(zip(fixed[:-1], fixed[1:]))
        before = dict(zip(fixed[1:], fixed[:-1]))
        place = {g: g for g in fixed}        # the smallest known category: the group's place
        heap: list[tuple] = []

        def push(pairs: list[tuple[int, int, int]]) -> None:
            if pairs:
                tables = np.array([(counts[a], counts[b]) for a, b, _ in pairs])
                for (a, b, kind), (single, p, chi) in zip(pairs, _pair_keys(tables)):
                    # as `best`: one-class pairs, then larger p, larger chi, then the candidates'
                    # order (neighbours by place, then the floating category's pairs by place)
                    heapq.heappush(heap, (not single, -p, -chi, kind, place[a], a, b))

        push([(a, b, 0) for a, b in after.items()] + ([(g, floating, 1) for g in fixed] if floating is not None else []))
        groups, new = k, k
        while groups > 1 and heap:
            not_single, neg_p, _, kind, _, a, b = heapq.heappop(heap)
            if a not in members or b not in members:
                continue      # a pair of groups merged since
            if not_single and -neg_p <= self.alpha:
                break
            members[new] = sorted(members.pop(a) + members.pop(b))
            counts[new] = counts.pop(a) + counts.pop(b)
            place[new] = place[a]
            left, right = before.pop(a, None), (after.pop(b, None) if kind == 0 else after.pop(a, None))
            if kind == 0:
                after.pop(a, None)
                before.pop(b, None)
            else:
                floating = None
            pairs = []
            if left is not None:
                after[left], before[new] = new, left
                pairs.append((left, new, 0))
            if right is not None:
                after[new], before[right] = right, new
                pairs.append((new, right, 0))
            if floating is not None:
                pairs.append((new, floating, 1))
            push(pairs)
            groups -= 1
            new += 1
        order = sorted((g for g in members if g != floating), key=lambda g: place[g])
        order = ([floating] if floating is not None else []) + order
        self.members = [members[g] for g in order]
        self.counts = [counts[g] for g in order]
        self.ids = list(range(self.next_id, self.next_id + len(order)))
        self.next_id += len(order)

    def merge(self, i: int, j: int) -> None:
        keep, drop = min(i, j), max(i, j)
        if self._floating(keep):
            # the floating category joins the group in its place among the ordered ones
            keep, drop = drop, keep
        self.members[keep] = sorted(self.members[keep] + self.members[drop])
        self.counts[keep] = self.counts[keep] + self.counts[drop]
        self.ids[keep] = self.next_id
        self.next_id += 1
        del self.members[drop], self.counts[drop], self.ids[drop]

    def run(self) -> list[list[int]]:
        """The groups of category indices once merging stops."""
        if self.cats.ordinal:
            self.merge_ordinal()
        self.merge_pairs()
        while len(self.members) > 1:
            sizes = [c.sum() for c in self.counts]
            small = min(range(len(sizes)), key=lambda g: sizes[g])
            if sizes[small] >= self.min_child:
                break
            pairs = [pair for pair in self.candidates() if small in pair]
            (i, j), _ = self.best(pairs)
            self.merge(i, j)
        return self.members


class _Chaid:
    def __init__(self, data: Dataset, o: dict):
        self.data, self.o = data, o
        self.y = data.y.astype(np.int64)
        self.C = len(data.schema.classes)
        self.attrs = [i for i, a in enumerate(data.schema.attributes) if a.kind != "ignore"]
        # SPSS bins a continuous predictor once, on all the training cases
        self.bins = {a: _quantile_cuts(data.columns[a], o["bins"]) for a in self.attrs
                     if o["bins"] and data.schema.attributes[a].is_continuous}

    def categories(self, a: int, rows: np.ndarray) -> _Categories:
        """Attribute `a`'s categories at the node of cases `rows`."""
        col = self.data.columns[a][rows]
        if self.data.schema.attributes[a].is_continuous:
            missing = np.isnan(col)
            if a in self.bins:
                value = np.searchsorted(self.bins[a], col, side="left").astype(np.float64)
            else:
                value = col
            codes, inverse = np.unique(np.where(missing, np.inf, value), return_inverse=True)
            floating = bool(missing.any())
            if floating:     # the floating category first, as Kass lists it
                codes = np.concatenate(([np.nan], codes[:-1]))
                inverse = np.where(missing, 0, inverse + 1)
            ordinal = True
        else:
            codes, inverse = np.unique(np.where(col < 0, MISSING, col), return_inverse=True)
            ordinal, floating = False, False
        inverse = inverse.reshape(-1)
        counts = np.bincount(inverse * self.C + self.y[rows], minlength=len(codes) * self.C)
        return _Categories(counts.reshape(len(codes), self.C), codes, ordinal, inverse, floating)

    def best_split(self, rows: np.ndarray) -> tuple[Split, list[np.ndarray]] | None:
        """Kass's step 4: the attribute of smallest (adjusted) p-value, its split and the rows per group."""
        best, best_key = None, None
        for a in self.attrs:
            cats = self.categories(a, rows)
            if len(cats.codes) < 2:
                continue
            groups = _Merger(cats, self.o["alpha_merge"], self.o["min_child"]).run()
            if len(groups) < 2:
                continue
            table = np.stack([cats.counts[g].sum(axis=0) for g in groups]).astype(np.float64)
            chi, df, p = (float(v) for v in table_p_value(table))
            kind = "nominal" if not cats.ordinal else "floating" if cats.floating else "ordinal"
            multiplier = bonferroni_multiplier(len(cats.codes), len(groups), kind) if self.o["bonferroni"] else 1
            adjusted = min(1.0, p * multiplier)
            if best_key is None or _better((adjusted, chi), best_key):
                best, best_key = (a, cats, groups, chi, int(df), p, adjusted), (adjusted, chi)
        if best is None or best[6] > self.o["alpha_split"]:
            return None
        a, cats, groups, chi, df, p, adjusted = best
        return self._split(a, rows, cats, groups, chi, df, p, adjusted)

    def _split(self, a: int, rows: np.ndarray, cats: _Categories, groups: list[list[int]], chi: float,
               df: int, p: float, adjusted: float) -> tuple[Split, list[np.ndarray]]:
        col = self.data.columns[a][rows]
        group_of = np.empty(len(cats.codes), dtype=np.int64)
        for g, members in enumerate(groups):
            group_of[members] = g
        case_group = group_of[cats.case_category]
        made = []
        for members in groups:
            if not cats.ordinal:
                codes = [int(cats.codes[m]) for m in members]
                made.append(Group(codes=frozenset(c for c in codes if c != MISSING), missing=MISSING in codes))
                continue
            missing = cats.floating and 0 in members
            known = [m for m in members if not (cats.floating and m == 0)]
            if known:
                values = col[np.isin(cats.case_category, known)]
                made.append(Group(low=float(values.min()), high=float(values.max()), missing=missing))
            else:
                made.append(Group(missing=True))
        if cats.ordinal:
            # the groups in the order of their values, the unknown-only group last
            order = sorted(range(len(made)), key=lambda g: (not made[g].known, made[g].low))
            made = [made[g] for g in order]
            rank = np.empty(len(order), dtype=np.int64)
            rank[order] = np.arange(len(order))
            case_group = rank[case_group]
        split = Split(a, tuple(made), chi, df, p, adjusted, len(cats.codes))
        return split, [rows[case_group == g] for g in range(len(made))]

    def grow(self, rows: np.ndarray, depth: int) -> ChaidNode:
        counts = np.bincount(self.y[rows], minlength=self.C).astype(np.float64)
        node = ChaidNode(counts)
        if depth >= self.o["max_depth"] or len(rows) < self.o["min_parent"] or (counts > 0).sum() < 2:
            return node
        found = self.best_split(rows)
        if found is None:
            return node
        node.split, parts = found
        node.children = [self.grow(part, depth + 1) for part in parts]
        return node


def _better(new: tuple[float, float], old: tuple[float, float]) -> bool:
    """A smaller (adjusted p, then larger chi-square) than `old`, telling apart only values more than
    _TIE apart: the same table summed in another order differs in its last bits, and such ties go
    to the attribute that comes first."""
    (p, chi), (p_old, chi_old) = new, old
    if abs(p - p_old) > _TIE * max(p, p_old):
        return p < p_old
    return chi > chi_old * (1 + _TIE)


def _quantile_cuts(col: np.ndarray, bins: int) -> np.ndarray:
    """Upper bounds of `bins` bins of (nearly) equal frequency over the known values; a value
    belongs to the first bin whose bound is >= it (ties never straddle a bound)."""
    known = np.sort(col[~np.isnan(col)])
    if not len(known):
        return np.empty(0)
    at = np.ceil(np.arange(1, bins) * len(known) / bins).astype(np.int64) - 1
    return np.unique(known[at])


# ---- the shared Node tree ---------------------------------------------------------------------
def _plain(counts: np.ndarray) -> Node:
    klass = int(np.argmax(counts))
    items = float(counts.sum())
    return Node(klass, items, items - float(counts[klass]), counts.copy())


def to_node(cn: ChaidNode, data: Dataset) -> Node:
    """The CHAID tree as the shared Node tree (module docstring: subsets, threshold chains, unknowns)."""
    node = _plain(cn.counts)
    if cn.split is None:
        return node
    split = cn.split
    children = [to_node(child, data) for child in cn.children]
    known = [(g, n) for g, n in zip(split.groups, children) if g.known]
    alone = [n for g, n in zip(split.groups, children) if not g.known]
    node.attribute = split.attribute
    if not data.schema.attributes[split.attribute].is_continuous:
        # a group of unknowns alone is a branch no value goes down: `in {}`
        node.kind = "subset"
        node.subsets = tuple(g.codes for g in split.groups)
        node.branches = children
        node.majority = next(v for v, g in enumerate(split.groups) if g.missing) if any(
            g.missing for g in split.groups) else -1
        return node
    to_missing = next((v for v, (g, _) in enumerate(known) if g.missing), -1)
    if not alone:
        return _chain(node, known, to_missing)
    # a group of unknowns alone: `x <= the largest double` holds for every known value, and its
    # other side, where no value goes, takes the unknowns
    node.kind, node.cut, node.majority = "threshold", float(np.finfo(np.float64).max), 1
    if len(known) == 1:
        node.branches = [known[0][1], alone[0]]
        return node
    rest = _plain(sum(n.class_dist for _, n in known))
    rest.attribute = node.attribute
    node.branches = [_chain(rest, known, -1), alone[0]]
    return node


def _chain(node: Node, known: list[tuple[Group, Node]], to_missing: int) -> Node:
    """Groups g0 < g1 < ... of a continuous attribute as `x <= high(g0)`, else `x <= high(g1)`, ...;
    the unknowns down to group `to_missing` (none: -1)."""
    links = []
    for v in range(len(known) - 1):
        link = node if v == 0 else _plain(sum(n.class_dist for _, n in known[v:]))
        link.kind, link.attribute, link.cut = "threshold", node.attribute, known[v][0].high
        link.majority = -1 if to_missing < v else 0 if to_missing == v else 1
        links.append(link)
    for v, link in enumerate(links):
        link.branches = [known[v][1], links[v + 1] if v + 1 < len(links) else known[-1][1]]
    return node


# ---- using the tree ---------------------------------------------------------------------------
def case_branch(node: Node, data: Dataset, rows: np.ndarray) -> np.ndarray:
    """Branch at `node` for the cases `rows`: unknowns to `node.majority`; -1 for those that stop
    here (unknown where the unknowns are a group alone, a value no group holds)."""
    x = data.columns[node.attribute][rows]
    if node.kind == "threshold":
        with np.errstate(invalid="ignore"):
            side = np.where(x <= node.cut, 0, 1)
        unknown = np.isnan(x)
    else:
        side = np.full(len(rows), -1, dtype=np.int64)
        for v, codes in enumerate(node.subsets):
            side[np.isin(x, list(codes))] = v
        unknown = x == MISSING
    side[unknown] = node.majority
    return side


def predict(root: Node, data: Dataset) -> np.ndarray:
    """Class code per case: the class of the leaf it reaches, or of the node where it stops."""
    out = np.empty(data.n, dtype=np.int64)
    stack = [(root, np.arange(data.n))]
    while stack:
        node, rows = stack.pop()
        if not len(rows):
            continue
        if node.is_leaf:
            out[rows] = node.klass
            continue
        side = case_branch(node, data, rows)
        out[rows[side < 0]] = node.klass
        for v, child in enumerate(node.branches):
            stack.append((child, rows[side == v]))
    return out


def grow_chaid(data: Dataset, options: dict) -> ChaidNode:
    """Kass's CHAID tree of `data` (its own form, with the statistics of each split)."""
    o = check(options)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        return _Chaid(data, o).grow(np.arange(data.n), 0)
    finally:
        sys.setrecursionlimit(limit)


def grow(data: Dataset, options: dict) -> Tree:
    """The CHAID tree of `data` as a Tree (not pruned: CHAID stops by significance)."""
    o = check(options)
    root = grow_chaid(data, o)
    node = to_node(root, data)
    tree = Tree(data.schema, node, node, {"grower": "chaid", **{k: o[k] for k in DEFAULTS}})
    tree.chaid = root
    return tree
