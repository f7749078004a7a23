"""Candidate rules: one per leaf of the unpruned tree with at least one case (spec 7.2)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from ..data.schema import Dataset
from ..tree.node import FlatTree, Node

DISCRETE, THRESHOLD, SUBSET = 1, 2, 3   # c4.5 node types; their order matters (spec 7.3)


@dataclass(frozen=True, slots=True)    # slots: 200k of them at 1M cases, 100 bytes less each
class CondTest:
    """One condition taken from a tree test and one of its outcomes."""

    attribute: int
    kind: int                 # DISCRETE, THRESHOLD or SUBSET
    outcome: int              # discrete: value code; threshold: 0 (<=) or 1 (>); subset: branch
    cut: float = 0.0
    values: frozenset = frozenset()
    node: int = 0             # the tested node's number, depth first from 0 at the root: its
                              # identity (subset tests compare by it, spec 7.2)

    def __setstate__(self, state) -> None:
        # pickles made before slots (a trace inside a fitted estimator) hold a dict
        if isinstance(state, dict):
            state = tuple(state[name] for name in self.__slots__)
        for name, value in zip(self.__slots__, state):
            object.__setattr__(self, name, value)

    def satisfied(self, data: Dataset) -> np.ndarray:
        """Which cases satisfy the test with a known value (unknown never does)."""
        return self.holds(data.columns[self.attribute])

    def holds(self, col: np.ndarray) -> np.ndarray:
        """Which of these values of the test's attribute satisfy it (unknown never does)."""
        if self.kind == THRESHOLD:
            with np.errstate(invalid="ignore"):
                return col <= self.cut if self.outcome == 0 else col > self.cut
        if self.kind == DISCRETE:
            return col == self.outcome
        return np.isin(col, np.fromiter(self.values, dtype=np.int64))


def leaf_paths(tree: Node, start: int = 0) -> Iterator[tuple[tuple[CondTest, ...], Node]]:
    """(conditions from the root, leaf) for every leaf with >= 1 case, depth first; the root's
    number is `start` (a later tree of several: forest_table's numbering)."""
    stack: list[tuple[Node, tuple[CondTest, ...]]] = [(tree, ())]
    number = start - 1      # nodes leave the stack depth first: this is the node's number
    while stack:
        node, path = stack.pop()
        number += 1
        if node.is_leaf:
            if node.items >= 1:
                yield path, node
            continue
        children = []
        for v, child in enumerate(node.branches):
            if node.kind == "threshold":
                t = CondTest(node.attribute, THRESHOLD, v, cut=node.cut, node=number)
            elif node.kind == "discrete":
                t = CondTest(node.attribute, DISCRETE, v, node=number)
            else:
                t = CondTest(node.attribute, SUBSET, v, values=node.subsets[v], node=number)
            children.append((child, path + (t,)))
        stack.extend(reversed(children))


# the values of every condition but a subset test's: one object (an empty frozenset is 216
# bytes, not a singleton: one per condition was 35 MB at 1M cases)
_NO_VALUES: frozenset = frozenset()


@dataclass
class PathTable:
    """The leaves' paths of leaf_paths as rows of condition numbers, and the conditions as
    arrays: what the compiled generalisation reads, without a CondTest or a tuple per path
    (those cost over 100 MB at 1M cases); `condition` makes a condition's CondTest when asked."""

    kind: np.ndarray          # per condition: DISCRETE, THRESHOLD or SUBSET (int32)
    attribute: np.ndarray     # int32
    outcome: np.ndarray       # int32
    cut: np.ndarray           # float64, 0 but for thresholds
    node: np.ndarray          # int64: the tested node's number, as CondTest.node
    values: dict[int, frozenset]    # subset conditions' values
    leaf_ptr: np.ndarray      # leaf r's conditions are leaf_cond[leaf_ptr[r]:leaf_ptr[r + 1]] (int64)
    leaf_cond: np.ndarray     # int32
    leaf_class: np.ndarray    # int32
    made: dict[int, CondTest] = field(default_factory=dict, repr=False)

    def condition(self, c: int) -> CondTest:
        """Condition c as a CondTest (one object per condition, as leaf_paths shares them)."""
        got = self.made.get(c)
        if got is None:
            got = self.made[c] = CondTest(int(self.attribute[c]), int(self.kind[c]), int(self.outcome[c]),
                                          float(self.cut[c]), self.values.get(c, _NO_VALUES), int(self.node[c]))
        return got


def path_table(tree: Node | FlatTree) -> PathTable:
    """The paths leaf_paths gives, those with at least one condition, as a PathTable."""
    flat = tree if isinstance(tree, FlatTree) else FlatTree(tree)
    kind = flat.kind.astype(np.int32)       # FlatTree's codes: 0 leaf, then as DISCRETE.. SUBSET
    # each node's parent and branch number: depth first, a node's children follow it in turn
    n = len(kind)
    parent, branch, depth = [-1] * n, [0] * n, [0] * n
    open_nodes: list[list[int]] = []      # [node, next branch, branches left]
    for i, fanout in enumerate(flat.fanout.tolist()):
        if open_nodes:
            top = open_nodes[-1]
            parent[i], branch[i], depth[i] = top[0], top[1], depth[top[0]] + 1
            top[1] += 1
            top[2] -= 1
            if not top[2]:
                open_nodes.pop()
        if fanout:
            open_nodes.append([i, 0, fanout])
    up, out, depth = (np.array(a, dtype=np.int64) for a in (parent, branch, depth))
    leaves = np.flatnonzero((kind == 0) & (flat.items >= 1) & (depth > 0))
    # a leaf's conditions are the edges into the nodes on its path: rows of node numbers
    # filled from the leaf up, by depth
    width = int(depth[leaves].max()) if len(leaves) else 0
    on_path = np.full((len(leaves), width), -1, dtype=np.int64)
    at = leaves.copy()
    rows = np.arange(len(leaves))
    while len(at):
        on_path[rows, depth[at] - 1] = at
        above = up[at]
        keep = depth[above] > 0
        at, rows = above[keep], rows[keep]
    edges = on_path[on_path >= 0]
    # conditions numbered as they first appear along the leaves, which is depth first order
    used, leaf_cond = np.unique(edges, return_inverse=True)
    tested = up[used]
    c_kind = kind[tested]
    values = {c: flat.subsets[parent[e]][branch[e]] for c, e in zip(np.flatnonzero(c_kind == SUBSET).tolist(),
                                                                        used[c_kind == SUBSET].tolist())}
    return PathTable(
        c_kind, flat.attribute[tested].astype(np.int32), out[used].astype(np.int32),
        np.where(c_kind == THRESHOLD, flat.cut[tested], 0.0), tested, values,
        np.concatenate([[0], np.cumsum(depth[leaves])]).astype(np.int64), leaf_cond.astype(np.int32).reshape(-1),
        flat.klass[leaves].astype(np.int32))


def forest_table(trees: list[Node | FlatTree]) -> PathTable:
    """The paths of several trees' leaves in turn (each as path_table gives them) as one
    PathTable: conditions numbered on through the trees, and tested nodes numbered depth
    first through the trees in turn (as leaf_paths' `start` does), so that a node's number
    stays its identity (a subset test is the same only within one tree, spec 7.5). A path
    repeated (the same conditions in the same order to the same class: boosted trees repeat
    each other's) is kept once, where it first comes: it generalises to the same rule, which
    the duplicate check would drop."""
    flats = [t if isinstance(t, FlatTree) else FlatTree(t) for t in trees]
    tables = [path_table(t) for t in flats]
    nodes = np.cumsum([0] + [len(t) for t in flats])
    conds = np.cumsum([0] + [len(t.kind) for t in tables])
    leaves = np.cumsum([0] + [int(t.leaf_ptr[-1]) for t in tables])
    joined = lambda parts, dtype: np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)  # noqa: E731
    kind, attribute, outcome = (joined([getattr(t, f) for t in tables], np.int32)
                                for f in ("kind", "attribute", "outcome"))
    cut = joined([t.cut for t in tables], np.float64)
    node = joined([t.node + nodes[i] for i, t in enumerate(tables)], np.int64)
    leaf_ptr = joined([np.zeros(1)] + [t.leaf_ptr[1:] + leaves[i] for i, t in enumerate(tables)], np.int64)
    leaf_cond = joined([t.leaf_cond + conds[i] for i, t in enumerate(tables)], np.int32)
    leaf_class = joined([t.leaf_class for t in tables], np.int32)
    # a condition's identity: what it tests (a subset test: at which node, too)
    same = np.stack([kind, attribute, outcome, (cut + 0.0).view(np.int64), np.where(kind == SUBSET, node, -1)], axis=1)
    ident = (np.unique(same, axis=0, return_inverse=True)[1].reshape(-1) if len(same) else same[:, 0]).tolist()
    seen: set[tuple] = set()
    keep = []
    path = leaf_cond.tolist()
    for r, (a, b, k) in enumerate(zip(leaf_ptr[:-1].tolist(), leaf_ptr[1:].tolist(), leaf_class.tolist())):
        key = (k, *(ident[c] for c in path[a:b]))
        if key not in seen:
            seen.add(key)
            keep.append(r)
    kept = np.zeros(len(leaf_class), dtype=bool)
    kept[keep] = True
    lengths = np.diff(leaf_ptr)
    return PathTable(kind, attribute, outcome, cut, node,
                     {c + int(conds[i]): v for i, t in enumerate(tables) for c, v in t.values.items()},
                     np.concatenate([[0], np.cumsum(lengths[kept])]).astype(np.int64),
                     leaf_cond[np.repeat(kept, lengths)], leaf_class[kept])
