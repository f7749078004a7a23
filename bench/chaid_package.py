"""The chaid grower against the `CHAID` package on PyPI (5.5.1; the test extra's reference, never
imported by c45rules itself): both trees as nested partitions of the training cases.

A tree is `None` (a leaf) or `(attribute, {frozenset(case numbers): subtree})`: two trees are equal
when every node splits on the same attribute into the same groups of cases, so their splits,
groups and leaf counts are the same. The package is run with the same parameters: alpha_merge,
max_depth, min_child; its min_parent_node_size is ours - 1 (it splits a node of more than that
many cases, we of at least min_parent); ours without Bonferroni's adjustment and with
alpha_split 1 (the package adjusts nothing and has no split test). A continuous attribute is
handed to it as the ranks of its values (an ordinal column casts values to whole numbers).

Where the package departs from Kass (1980) (README, "Trees from elsewhere"; FIDELITY.md):

* single-class pairs: when it meets a pair of groups in which one class only occurs (chi-square
  0, p 1: the pair Kass merges first), it stops looking at the other pairs and merges it only if
  the largest p-value among the pairs it looked at before is >= alpha_merge (not at all when it
  is the first pair), so identical categories stay apart;
* gaps: ordinal groups merge only when their codes in the whole data are consecutive, so at a
  node without some values two neighbours never merge, and an attribute whose groups can no
  longer merge is not split on at all.

`with_package_departures` grows our tree with both reproduced (here, not in the grower): the
trees are then equal on every set the table lists, which shows the rest of the two
implementations (pair tests, orders, ties, stopping) to be the same.
"""
from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator

import numpy as np

from c45rules.data.schema import Dataset
from c45rules.tree.growers import chaid

Partition = Any   # None or (attribute, {frozenset: Partition})

PARAMS = {"alpha_merge": 0.05, "max_depth": 3, "min_parent": 30, "min_child": 1}


def _ranks(col: np.ndarray) -> np.ndarray:
    out = np.full(len(col), np.nan)
    known = ~np.isnan(col)
    out[known] = np.unique(col[known], return_inverse=True)[1]
    return out


def package_tree(data: Dataset, alpha_merge: float, max_depth: int, min_parent: int, min_child: int) -> Partition:
    """The CHAID package's tree of `data` as nested partitions of the case numbers."""
    import CHAID
    attrs = [i for i, a in enumerate(data.schema.attributes) if a.kind != "ignore"]
    cols, kinds = [], []
    for a in attrs:
        col = data.columns[a]
        if data.schema.attributes[a].is_continuous:
            cols.append(_ranks(col))
            kinds.append("ordinal")
        else:
            cols.append(np.where(col < 0, np.nan, col.astype(np.float64)))
            kinds.append("nominal")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = CHAID.Tree.from_numpy(np.column_stack(cols), data.y.astype(np.int64), alpha_merge=alpha_merge,
                                     max_depth=max_depth, min_parent_node_size=min_parent - 1,
                                     min_child_node_size=min_child, variable_types=kinds)
        nodes = tree.tree_store
    children: dict[int, list] = {}
    for n in nodes:
        if n.parent is not None:
            children.setdefault(n.parent, []).append(n)

    def walk(n) -> Partition:
        below = children.get(n.node_id, [])
        if not below:
            return None
        return attrs[n.split.column_id], {frozenset(c.indices.tolist()): walk(c) for c in below}
    return walk(nodes[0])


def our_tree(data: Dataset, alpha_merge: float, max_depth: int, min_parent: int, min_child: int) -> Partition:
    """Our chaid tree of `data` with the package's parameters, as nested partitions."""
    root = chaid.grow_chaid(data, {"alpha_merge": alpha_merge, "max_depth": max_depth, "min_parent": min_parent,
                                   "min_child": min_child, "alpha_split": 1.0, "bonferroni": False})
    return _partitions(root, data, np.arange(data.n))


def _partitions(node: chaid.ChaidNode, data: Dataset, rows: np.ndarray) -> Partition:
    if node.split is None:
        return None
    parts = _rows_per_group(node.split, data, rows)
    return node.split.attribute, {frozenset(p.tolist()): _partitions(c, data, p)
                                  for p, c in zip(parts, node.children)}


def _rows_per_group(split: chaid.Split, data: Dataset, rows: np.ndarray) -> list[np.ndarray]:
    x = data.columns[split.attribute][rows]
    out = []
    for g in split.groups:
        if data.schema.attributes[split.attribute].is_continuous:
            unknown = np.isnan(x)
            with np.errstate(invalid="ignore"):
                inside = (x >= g.low) & (x <= g.high) if g.known else np.zeros(len(x), bool)
        else:
            unknown = x < 0
            inside = np.isin(x, list(g.codes))
        out.append(rows[inside | (unknown & g.missing)])
    return out


def leaves(tree: Partition) -> int:
    """Number of leaves of a partition tree."""
    return 1 if tree is None else sum(leaves(t) for t in tree[1].values())


def first_difference(ours: Partition, theirs: Partition, path: str = "root") -> str | None:
    """Where the two trees first differ (None: equal), the path as the sizes of the groups taken."""
    if ours is None or theirs is None:
        if ours is None and theirs is None:
            return None
        return f"{path}: ours {'leaf' if ours is None else 'split'}, package {'leaf' if theirs is None else 'split'}"
    if ours[0] != theirs[0]:
        return f"{path}: attribute {ours[0]} (ours) vs {theirs[0]}"
    if set(ours[1]) != set(theirs[1]):
        return f"{path}: {len(ours[1])} groups (ours) vs {len(theirs[1])}"
    for key in sorted(ours[1], key=lambda k: (len(k), min(k))):
        d = first_difference(ours[1][key], theirs[1][key], f"{path}/{len(key)}")
        if d:
            return d
    return None


# ---- the package's two departures from Kass, reproduced for the comparison only --------------
def _package_merge(self: chaid._Merger) -> list[list[int]]:
    while len(self.members) > 1:
        pairs = self.candidates()
        if not pairs:
            return [sum(self.members, [])]      # groups that can no longer merge: no split
        highest, choice = None, None
        for i, j in pairs:
            single, p, chi = self.key(i, j)
            if single:
                choice = (i, j)
                break
            if highest is None or (p, chi) > highest:
                highest, choice = (p, chi), (i, j)
        if highest is None or highest[0] < self.alpha:
            break
        self.merge(*choice)
    return self.members


def _package_candidates(self: chaid._Merger) -> list[tuple[int, int]]:
    k = len(self.members)
    if not self.cats.ordinal:
        return [(i, j) for i in range(k) for j in range(i + 1, k)]
    codes = self.cats.codes
    fixed = [g for g in range(k) if not self._floating(g)]
    known = [[codes[m] for m in self.members[g] if not (self.cats.floating and m == 0)] for g in range(k)]
    pairs = [(a, b) for a, b in zip(fixed[:-1], fixed[1:]) if max(known[a]) + 1 == min(known[b])]
    floating = [g for g in range(k) if self._floating(g)]
    return pairs + [(g, floating[0]) for g in fixed] if floating else pairs


@contextlib.contextmanager
def _departures() -> Iterator[None]:
    saved = chaid._Merger.run, chaid._Merger.candidates
    chaid._Merger.run, chaid._Merger.candidates = _package_merge, _package_candidates
    try:
        yield
    finally:
        chaid._Merger.run, chaid._Merger.candidates = saved


def with_package_departures(data: Dataset, **params: Any) -> Partition:
    """Our tree with the package's two departures reproduced; continuous values as their ranks
    in the whole data (the codes whose gaps the package looks at)."""
    ranked = Dataset(data.schema, [_ranks(c) if a.is_continuous else c
                                   for a, c in zip(data.schema.attributes, data.columns)], data.y)
    with _departures():
        return our_tree(ranked, **params)
