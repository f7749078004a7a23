"""QUEST (Loh & Shih, "Split selection methods for classification trees", Statistica Sinica 7,
1997), the `quest` grower: binary splits whose attribute is chosen without bias.

At each node (Loh & Shih's Algorithm 1 and 2):

* the split attribute: for each continuous attribute the p-value of the ANOVA F test of its
  class means, for each discrete one that of Pearson's chi-square test of its contingency
  table with the class; the smallest p-value wins if it is below `quest_alpha / M` (M
  attributes, Bonferroni); otherwise Levene's test for unequal class variances (the F test of
  |x - class mean|) on the continuous attributes, whose smallest p-value wins if below
  `quest_alpha / (M + M1)` (M1 continuous attributes); otherwise the first smallest p-value
  wins anyway (the tree is pruned afterwards). Each test counts only the cases with a known
  value of its attribute. Because no split is searched before the attribute is chosen, an
  attribute with more values or more cuts has no more chances to win: the choice is unbiased
  (FIDELITY.md, "QUEST: unbiased choice of split attribute");
* the split point: more than two classes are grouped into two super-classes by 2-means
  clustering of the class means (the starting centres the smallest and the largest mean; A is
  the group started from the smallest; all means equal: the largest class is A), and the point
  is where the two super-classes' normal densities, weighted by their shares of the node, are
  equal (quadratic discriminant analysis): of the roots of that quadratic the one nearer A's
  mean (with equal variances the single root; a constant super-class: its value; no real root:
  the midpoint of the means), as IBM SPSS's account of the algorithm (TREE-QUEST) gives it.
  Cases with `value <= cut` go to branch 0;
* a discrete attribute is first made continuous by CRIMCOORD: each category's score on the
  first canonical (discriminant) coordinate of its dummy variables, which is the first
  standard coordinate of the correspondence analysis of the category-by-class table; the split
  point on the scores gives the two subsets of the categories present at the node;
* nodes are split until pure, smaller than `min_node` cases, or without a usable split; then
  the tree is pruned by cost-complexity as CART (weakest-link cutting, the cp chosen by
  `prune_folds`-fold cross-validation with folds drawn by `seed`, and the `se_rule` x SE rule:
  Loh & Shih's default is 1), with the cart grower's functions;
* unknown values: each test and each split point counts only the cases with a known value of
  its attribute; a case whose split value is unknown is sent by CART's surrogate splits (the
  cart grower's, up to 5 per node), then the way most training cases went, as IBM SPSS's QUEST
  does (TREE /METHOD MAXSURROGATES: "CRT and QUEST can use surrogates"), where Loh & Shih's
  own program imputes the value. The tree classifies so (`tree_classes`); its C4.5-style rules,
  generalised from the tree by c4.5rules' steps, treat an unknown value as c4.5rules does, and
  every export decides as the rules do (tests/export FIT_DATASETS "hypo+quest").
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from ...data.schema import Dataset
from ...errors import InputError
from ..node import Node, Tree
from ..significance import f_p, table_p_value
from .options import OPTIONS
from .cart import (_Cart, case_branch, check as cart_check, chosen_cp, cross_validated_errors, prune_cp,
                   weakest_link_complexity, _cp_table)

DEFAULTS = OPTIONS["quest"]


def check(options: dict) -> dict:
    """The quest options with defaults filled in, or InputError naming the first bad one."""
    o = {**DEFAULTS, **{k: v for k, v in options.items() if k in DEFAULTS}}
    a = o["quest_alpha"]
    if isinstance(a, bool) or not isinstance(a, (int, float, np.integer, np.floating)) or not 0 < a < 1:
        raise InputError(f"option quest_alpha must be a number in (0, 1), got {a!r}")
    o["quest_alpha"] = float(a)
    se = o["se_rule"]
    if isinstance(se, bool) or not isinstance(se, (int, float, np.integer, np.floating)) or not 0 <= se < math.inf:
        raise InputError(f"option se_rule must be a number >= 0, got {se!r}")
    o["se_rule"] = float(se)
    for key, low in (("min_node", 2), ("prune_folds", 0)):
        v = o[key]
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise InputError(f"option {key} must be a whole number >= {low}, got {v!r}")
        o[key] = int(v)
    if o["prune_folds"] == 1:
        raise InputError("option prune_folds must be 0 (no pruning) or at least 2 folds, got 1")
    return o


# ---- the tests of the attribute choice (Loh & Shih 1997, Algorithm 1) -----------------
def anova_f(x: np.ndarray, known: np.ndarray, y: np.ndarray, C: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One-way ANOVA of the class means of each column of `x` (cases by attributes; only the
    `known` cells count): F statistics (0 where the means do not differ, inf where the classes
    do not vary within) and their degrees of freedom df1, df2, per column."""
    onehot = (y[:, None] == np.arange(C)[None, :]).astype(np.float64)
    n_j = onehot.T @ known.astype(np.float64)                   # classes by attributes
    n = n_j.sum(axis=0)
    groups = (n_j > 0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(known, x, 0.0).sum(axis=0) / np.maximum(n, 1)
        # centred first, so that the sums of squares do not cancel
        xc = np.where(known, x - mean, 0.0)
        total = (xc * xc).sum(axis=0)
        s_j = onehot.T @ xc
        between = np.where(n_j > 0, s_j * s_j / np.where(n_j > 0, n_j, 1), 0.0).sum(axis=0)
        within = np.maximum(total - between, 0.0)
        df1, df2 = groups - 1, n - groups
        f = (between / np.maximum(df1, 1)) / (within / np.maximum(df2, 1))
    # sums of squares below rounding noise are none
    none = (df1 < 1) | (df2 < 1) | (total == 0) | (between <= 1e-12 * total)
    perfect = ~none & (within <= 1e-12 * total)
    f = np.where(none, 0.0, np.where(perfect, np.inf, f))
    return f, df1.astype(np.float64), df2.astype(np.float64)


def levene_deviations(x: np.ndarray, known: np.ndarray, y: np.ndarray, C: int) -> np.ndarray:
    """|x - its class mean| per cell (Levene's test is the ANOVA F test of these)."""
    onehot = (y[:, None] == np.arange(C)[None, :]).astype(np.float64)
    n_j = onehot.T @ known.astype(np.float64)
    sums = onehot.T @ np.where(known, x, 0.0)
    means = sums / np.where(n_j > 0, n_j, 1)
    return np.where(known, np.abs(x - means[y]), 0.0)


def smallest_p(f: np.ndarray, df1: np.ndarray, df2: np.ndarray) -> tuple[float, int]:
    """(smallest p-value, its column; the first of equals) of F statistics: one p-value per
    pair of degrees of freedom, at that pair's largest F."""
    best_p, best = 2.0, -1
    for d1, d2 in sorted(set(zip(df1.tolist(), df2.tolist()))):
        cols = np.flatnonzero((df1 == d1) & (df2 == d2))
        j = int(cols[np.argmax(f[cols])])
        p = f_p(float(f[j]), d1, d2)
        if p < best_p or (p == best_p and j < best):
            best_p, best = p, j
    return best_p, best


def anova_f_p(x: np.ndarray, y: np.ndarray, C: int) -> float:
    """p-value of the one-way ANOVA F test of the means of `x` in the classes `y` (codes < C)."""
    f, df1, df2 = anova_f(x[:, None], np.ones((len(x), 1), dtype=bool), y, C)
    return f_p(float(f[0]), float(df1[0]), float(df2[0]))


def levene_p(x: np.ndarray, y: np.ndarray, C: int) -> float:
    """p-value of Levene's test of equal class variances: the F test of |x - class mean|."""
    known = np.ones((len(x), 1), dtype=bool)
    return anova_f_p(levene_deviations(x[:, None], known, y, C)[:, 0], y, C)


def chi_square_table_p(table: np.ndarray) -> float:
    """p-value of Pearson's chi-square test of independence of a contingency table (empty
    rows and columns left out)."""
    return float(table_p_value(np.asarray(table, dtype=np.float64))[2])


# ---- the split point (Loh & Shih 1997, Algorithm 2) ------------------------------------
def super_classes(means: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """0/1 per class: two groups by 2-means clustering of the class means (1-D), started from
    the smallest (group 0) and the largest mean; when every mean is the same, the largest
    class (the first of equals) alone in group 0."""
    if means.min() == means.max():
        group = np.ones(len(means), dtype=np.int64)
        group[int(np.argmax(sizes))] = 0
        return group
    centres = np.array([means.min(), means.max()])
    group = np.zeros(len(means), dtype=np.int64)
    for step in range(100):
        new = (np.abs(means - centres[1]) < np.abs(means - centres[0])).astype(np.int64)
        if step and (new == group).all():
            break
        group = new
        centres = np.array([means[group == 0].mean(), means[group == 1].mean()])
    return group


def qda_cut(xa: np.ndarray, xb: np.ndarray) -> float:
    """The point where the normal densities of groups A and B, weighted by their sizes, are
    equal (quadratic discriminant analysis on one variable): of two roots the one nearer A's
    mean; a constant group: its value, on its side of the cut; no real root (or both groups
    constant): the midpoint of the means."""
    ma, mb = float(xa.mean()), float(xb.mean())
    mid = (ma + mb) / 2
    va = float(xa.var(ddof=1)) if len(xa) > 1 else 0.0
    vb = float(xb.var(ddof=1)) if len(xb) > 1 else 0.0
    if va <= 0 and vb <= 0:
        return mid
    if va <= 0 or vb <= 0:
        # the limit of the densities as one variance vanishes: the constant group's value
        # itself, which stays with its group (branch 0 is value <= cut)
        value, other = (ma, mb) if va <= 0 else (mb, ma)
        return value if value <= other else float(np.nextafter(value, -np.inf))
    pa, pb = len(xa), len(xb)
    # pa N(ma, va) = pb N(mb, vb):  a x^2 + b x + c = 0
    a = 1 / va - 1 / vb
    b = -2 * (ma / va - mb / vb)
    c = ma * ma / va - mb * mb / vb + math.log(va / vb) - 2 * math.log(pa / pb)
    if abs(a) <= 1e-12 * (1 / va + 1 / vb):
        return -c / b if b != 0 else mid
    disc = b * b - 4 * a * c
    if disc < 0:
        return mid
    roots = sorted(((-b - math.sqrt(disc)) / (2 * a), (-b + math.sqrt(disc)) / (2 * a)))
    return min(roots, key=lambda r: abs(r - ma))


def crimcoord(table: np.ndarray) -> np.ndarray:
    """Score per category (row of a category-by-class table, every row non-empty) on the first
    canonical coordinate of its dummy variables: the first standard row coordinate of the
    correspondence analysis of the table."""
    p = table / table.sum()
    r, c = p.sum(axis=1), p.sum(axis=0)
    keep = c > 0
    p, c = p[:, keep], c[keep]
    s = (p - np.outer(r, c)) / np.sqrt(np.outer(r, c))
    u, sv, _ = np.linalg.svd(s, full_matrices=False)
    if not len(sv) or sv[0] <= 1e-12:
        return np.zeros(len(r))
    score = u[:, 0] / np.sqrt(r)
    # the sign of a singular vector is arbitrary: the first category scored apart from zero
    # gets a negative score, so that the subsets and their order do not depend on the SVD
    lead = np.flatnonzero(np.abs(score) > 1e-9 * np.abs(score).max())
    if len(lead) and score[lead[0]] > 0:
        score = -score
    return score


@dataclass(frozen=True)
class SplitTest:
    """The test that chose a node's split attribute: 'F' (ANOVA), 'chi-square' or 'Levene F',
    its statistic, degrees of freedom ((df1, df2) for F, (df,) for chi-square) and p-value."""

    attribute: int
    test: str
    statistic: float
    df: tuple[float, ...]
    p: float


class _Quest:
    def __init__(self, data: Dataset, o: dict):
        schema = data.schema
        self.data, self.o = data, o
        self.y = data.y.astype(np.int64)
        self.C = len(schema.classes)
        self.attrs = [i for i, a in enumerate(schema.attributes) if a.kind != "ignore"]
        self.cont = {i: schema.attributes[i].is_continuous for i in self.attrs}
        self.continuous = sum(self.cont.values())
        # the continuous attributes as one matrix: their tests at a node are a few products
        self.cont_attrs = [a for a in self.attrs if self.cont[a]]
        self.x_cont = (np.column_stack([data.columns[a].astype(np.float64) for a in self.cont_attrs])
                       if self.cont_attrs else np.zeros((data.n, 0)))
        # cart's surrogate search, reused as it is (its options at rpart's defaults)
        self.cart = _Cart(data, cart_check({}))

    def _known(self, a: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = self.data.columns[a][rows]
        known = ~np.isnan(x) if self.cont[a] else x >= 0
        return x[known], self.y[rows[known]]

    def choose(self, rows: np.ndarray) -> SplitTest | None:
        """The split attribute at a node and the test that chose it (Algorithm 1), or None when
        no attribute varies."""
        y = self.y[rows]
        first = []          # (p-value, attribute, its test) of every attribute that varies at the node
        f = df1 = df2 = None
        if self.cont_attrs:
            x = self.x_cont[rows]
            known = ~np.isnan(x)
            with np.errstate(invalid="ignore"):
                varies = (np.nanmax(np.where(known, x, -np.inf), axis=0)
                          > np.nanmin(np.where(known, x, np.inf), axis=0))
            cols = np.flatnonzero(varies)
            if len(cols):
                x, known = x[:, cols], known[:, cols]
                f, df1, df2 = anova_f(x, known, y, self.C)
                p, j = smallest_p(f, df1, df2)
                a = self.cont_attrs[cols[j]]
                first.append((p, a, SplitTest(a, "F", float(f[j]), (float(df1[j]), float(df2[j])), p)))
        for a in self.attrs:
            if self.cont[a]:
                continue
            xa, ya = self._known(a, rows)
            values = len(self.data.schema.attributes[a].values)
            table = np.bincount(xa.astype(np.int64) * self.C + ya, minlength=values * self.C)
            table = table.reshape(values, self.C)
            if (table.sum(axis=1) > 0).sum() > 1:
                chi, df, p = table_p_value(table.astype(np.float64))
                first.append((float(p), a, SplitTest(a, "chi-square", float(chi), (float(df),), float(p))))
        if not first:
            return None
        alpha, m = self.o["quest_alpha"], len(self.attrs)
        p1, _, chosen = min(first, key=lambda t: t[:2])      # ties: the attribute that comes first
        if p1 < alpha / m:
            return chosen
        if f is not None:
            z = levene_deviations(x, known, y, self.C)
            lf, ld1, ld2 = anova_f(z, known, y, self.C)
            p2, j = smallest_p(lf, ld1, ld2)
            if p2 < alpha / (m + self.continuous):
                return SplitTest(self.cont_attrs[cols[j]], "Levene F", float(lf[j]),
                                 (float(ld1[j]), float(ld2[j])), p2)
        return chosen

    def split(self, a: int, rows: np.ndarray) -> tuple[str, object] | None:
        """("threshold", cut) or ("subset", (left, right)) for attribute `a` (Algorithm 2)."""
        x, y = self._known(a, rows)
        scores = None
        if not self.cont[a]:
            values = len(self.data.schema.attributes[a].values)
            codes = x.astype(np.int64)
            table = np.bincount(codes * self.C + y, minlength=values * self.C).reshape(values, self.C)
            present = np.flatnonzero(table.sum(axis=1) > 0)
            scores = np.zeros(values)
            scores[present] = crimcoord(table[present].astype(np.float64))
            x = scores[codes]
        n_j = np.bincount(y, minlength=self.C)
        classes = np.flatnonzero(n_j)
        if len(classes) < 2:
            return None
        means = np.bincount(y, weights=x, minlength=self.C)[classes] / n_j[classes]
        group = np.zeros(self.C, dtype=np.int64)
        group[classes] = super_classes(means, n_j[classes])
        side = group[y]
        if side.min() == side.max():
            return None
        cut = qda_cut(x[side == 0], x[side == 1])
        left = x <= cut
        if left.all() or not left.any():
            # the QDA point beyond every value: the midpoint of the means splits them
            cut = (x[side == 0].mean() + x[side == 1].mean()) / 2
            left = x <= cut
            if left.all() or not left.any():
                return None
        if scores is None:
            return "threshold", float(cut)
        on_left = frozenset(int(v) for v in present if scores[v] <= cut)
        return "subset", (on_left, frozenset(int(v) for v in present) - on_left)

    def leaf(self, rows: np.ndarray) -> Node:
        counts = np.bincount(self.y[rows], minlength=self.C).astype(np.float64)
        klass = int(np.argmax(counts))
        return Node(klass, float(len(rows)), float(len(rows) - counts[klass]), counts)

    def grow(self, rows: np.ndarray) -> Node:
        node = self.leaf(rows)
        if len(rows) < self.o["min_node"] or node.errors == 0:
            return node
        test = self.choose(rows)
        a = None if test is None else test.attribute
        found = None if a is None else self.split(a, rows)
        if found is None:
            return node
        kind, how = found
        node.kind, node.attribute = kind, a
        if kind == "threshold":
            node.cut = how
        else:
            node.subsets = how
        side = case_branch(node, self.data, rows, 0)
        sent = side >= 0
        n_left, n_right = int((side == 0).sum()), int((side == 1).sum())
        if sent.any() and not sent.all():
            # the cart grower's surrogates, from its coding of the attributes
            node.surrogates = tuple(self.cart._public_surrogate(s) for s in self.cart.surrogates(a, rows, side))
        node.majority = 1 if n_right > n_left else 0
        side = case_branch(node, self.data, rows, 2)
        if not ((side == 0).any() and (side == 1).any()):
            return self.leaf(rows)
        node.branches = [self.grow(rows[side == v]) for v in (0, 1)]
        return node


def grow_unpruned(data: Dataset, o: dict) -> Node:
    """The QUEST tree grown to its stopping rule, each split's cost-complexity set."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        root = _Quest(data, o).grow(np.arange(data.n))
    finally:
        sys.setrecursionlimit(limit)
    weakest_link_complexity(root)
    return root


def grow(data: Dataset, options: dict) -> Tree:
    """The QUEST tree on `data`, pruned at the cross-validated cp by the SE rule (none with
    prune_folds 0)."""
    o = check(options)
    root = grow_unpruned(data, o)
    if o["prune_folds"] > 1 and not root.is_leaf:
        table = _cp_table(root) + [0.0]
        errors = cross_validated_errors(data, table, o["prune_folds"], options.get("seed"),
                                        lambda train: grow_unpruned(train, o))
        root = prune_cp(root, chosen_cp(table, errors, data.n, o["se_rule"]))
    return Tree(data.schema, root, root, {"grower": "quest", **{k: o[k] for k in DEFAULTS}})


def split_tests(tree: Tree, data: Dataset) -> list[dict]:
    """Each split of a quest tree grown on `data`, depth first: its depth, cases, attribute and
    the test that chose it (statistic, degrees of freedom, p-value), found again from the cases
    that reach the node (for `tree`'s text and --json)."""
    q = _Quest(data, check({k: tree.options[k] for k in DEFAULTS}))
    out = []
    stack = [(tree.pruned, np.arange(data.n), 0)]
    while stack:
        node, rows, depth = stack.pop()
        if node.is_leaf:
            continue
        t = q.choose(rows)
        out.append({"depth": depth, "cases": int(len(rows)), "attribute": data.schema.attributes[node.attribute].name,
                    "test": t.test, "statistic": round(t.statistic, 6), "df": list(t.df), "p": t.p})
        side = case_branch(node, data, rows, 2)
        stack.extend((child, rows[side == v], depth + 1) for v, child in reversed(list(enumerate(node.branches))))
    return out


def format_split_tests(tests: list[dict]) -> str:
    """The split tests as lines under the tree: attribute, depth, cases, test, statistic, df, p."""
    lines = ["Split tests (QUEST's choice of attribute at each node, depth first):"]
    for t in tests:
        df = ", ".join(f"{d:g}" for d in t["df"])
        lines.append(f"{'    ' * t['depth']}{t['attribute']} ({t['cases']} cases): {t['test']} {t['statistic']:.6g},"
                     f" df {df}, p {t['p']:.3g}")
    return "\n".join(lines) + "\n"
