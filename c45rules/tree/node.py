"""Decision tree nodes: plain dataclasses, as c4.5 stores them (spec 2)."""
from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Iterator, Literal

import numpy as np

NodeKind = Literal["leaf", "discrete", "threshold", "subset"]


@dataclass(eq=False, slots=True)     # slots: 100 bytes less per node, 200k nodes at 1M cases
class Node:
    """A tree node. Leaves have kind 'leaf'; tests have an attribute and branches.

    * discrete:  branch v (0-based) holds cases with value code v;
    * threshold: branch 0 holds `value <= cut`, branch 1 `value > cut`;
    * subset:    branch v holds cases whose value code is in `subsets[v]`.
    `items` is the (fractional) weight of training cases that reached the node,
    `errors` the leaf errors (grown tree) or the pessimistic estimate (pruned tree).
    """

    klass: int
    items: float
    errors: float
    class_dist: np.ndarray
    kind: NodeKind = "leaf"
    attribute: int = -1
    cut: float = 0.0
    subsets: tuple[frozenset[int], ...] = ()
    branches: list["Node"] = field(default_factory=list)
    # the cart grower's (rpart's) extras, at their defaults for every other grower: the
    # split's complexity (cp units), its surrogate splits for cases with an unknown value,
    # and the branch (0/1) taking cases missing every surrogate (-1: they stay here); the j48
    # grower keeps in `surrogates` a test's branch weights (floats), by which J48 shares a case
    # with an unknown value
    complexity: float = 0.0
    surrogates: tuple = ()
    majority: int = -1
    # c4.5 -p's soft band (lower, upper) around a threshold test's cut (tree/soft.py)
    soft: tuple[float, float] | None = None

    @property
    def is_leaf(self) -> bool:
        """True for a leaf."""
        return self.kind == "leaf"

    def size(self) -> int:
        """Number of nodes (leaves, empty ones included, plus tests), as c4.5 counts."""
        return 1 + sum(b.size() for b in self.branches) if not self.is_leaf else 1

    def leaves(self) -> int:
        """Number of leaves."""
        return 1 if self.is_leaf else sum(b.leaves() for b in self.branches)

    def walk(self) -> Iterator["Node"]:
        """Every node, depth first, branches in order."""
        stack = [self]
        while stack:            # not recursive generators: trees can be 200k nodes
            node = stack.pop()
            yield node
            stack.extend(reversed(node.branches))

    def copy(self) -> "Node":
        """A deep copy (pruning works on a copy of the grown tree)."""
        def alone(n: Node) -> Node:
            return Node(n.klass, n.items, n.errors, n.class_dist.copy(), n.kind, n.attribute,
                        n.cut, n.subsets, [], n.complexity, n.surrogates, n.majority, n.soft)
        root = alone(self)
        stack = [(self, root)]
        while stack:            # not recursive: trees can be deep and 200k nodes large
            src, dst = stack.pop()
            for b in src.branches:
                dst.branches.append(alone(b))
                stack.append((b, dst.branches[-1]))
        return root

    def __setstate__(self, state) -> None:
        """Unpickle either layout: slots (None, fields) or, from before slots, the fields dict."""
        if isinstance(state, tuple):
            state = {**(state[0] or {}), **state[1]}
        # pickles made before the cart grower's fields hold none of them
        self.complexity, self.surrogates, self.majority = 0.0, (), -1
        self.soft = None        # nor the soft bands (-p)
        for name, value in state.items():
            setattr(self, name, value)

    def become(self, other: "Node") -> None:
        """Take every field of `other` (its branches shared): subtree raising replaces a node."""
        for name in self.__slots__:
            setattr(self, name, getattr(other, name))

    def make_leaf(self) -> None:
        """Turn this node into a leaf, keeping its class and counts."""
        self.kind = "leaf"
        self.attribute = -1
        self.branches = []
        self.subsets = ()


_KINDS: tuple[NodeKind, ...] = ("leaf", "discrete", "threshold", "subset")


class FlatTree:
    """A tree's nodes as arrays, depth first: what `rebuilt` makes the same tree again from.

    A tree grown at scale lies scattered among the holes its growing's temporaries left in
    Python's small-object arenas (over 100 MB of them at 1M cases, kept as long as one
    node sits in each arena). Flattened, let go and rebuilt at once, its nodes lie together.
    """

    def __init__(self, root: Node):
        nodes = list(root.walk())
        fields = attrgetter("klass", "items", "errors", "kind", "attribute", "cut")
        klass, items, errors, kind, attribute, cut = zip(*map(fields, nodes))
        self.klass = np.array(klass, dtype=np.int64)
        self.items = np.array(items, dtype=np.float64)
        self.errors = np.array(errors, dtype=np.float64)
        code = {k: i for i, k in enumerate(_KINDS)}
        self.kind = np.array([code[k] for k in kind], dtype=np.int8)
        self.attribute = np.array(attribute, dtype=np.int64)
        self.cut = np.array(cut, dtype=np.float64)
        self.fanout = np.array([len(n.branches) for n in nodes], dtype=np.int64)
        # () for all but subset tests: frozensets of codes, few, kept as they are
        self.subsets = {i: n.subsets for i, n in enumerate(nodes) if n.subsets}
        dists = [n.class_dist for n in nodes]
        same = len({(d.dtype, d.shape) for d in dists}) == 1
        self.dist = np.stack(dists) if same else [d.copy() for d in dists]

    @classmethod
    def of_arrays(cls, klass: np.ndarray, items: np.ndarray, errors: np.ndarray, kind: np.ndarray,
                  attribute: np.ndarray, cut: np.ndarray, fanout: np.ndarray, dist: np.ndarray) -> "FlatTree":
        """The FlatTree of arrays as linked reads them (no subset test), without a node made."""
        flat = cls.__new__(cls)
        flat.klass = np.asarray(klass, dtype=np.int64)
        flat.items = np.asarray(items, dtype=np.float64)
        flat.errors = np.asarray(errors, dtype=np.float64)
        flat.kind = np.asarray(kind, dtype=np.int8)
        flat.attribute = np.asarray(attribute, dtype=np.int64)
        flat.cut = np.asarray(cut, dtype=np.float64)
        flat.fanout = np.asarray(fanout, dtype=np.int64)
        flat.subsets = {}
        flat.dist = np.ascontiguousarray(dist)
        return flat

    def __len__(self) -> int:
        """Number of nodes (Node.size of the tree)."""
        return len(self.kind)

    def rebuilt(self) -> Node:
        """The tree again: new nodes, each class distribution a row of one array."""
        return linked(self.klass, self.items, self.errors, self.kind, self.attribute, self.cut, self.fanout,
                      self.dist, self.subsets)[0]


def linked(klass: np.ndarray, items: np.ndarray, errors: np.ndarray, kind: np.ndarray, attribute: np.ndarray,
           cut: np.ndarray, fanout: np.ndarray, dist: np.ndarray | list[np.ndarray], subsets: dict) -> list[Node]:
    """The nodes of a tree held depth first in FlatTree's arrays, each with its branches, in that order."""
    klass, items, errors, kind, attribute, cut, fanout = (
        a.tolist() for a in (klass, items, errors, kind, attribute, cut, fanout))
    nodes = [Node(klass[i], items[i], errors[i], dist[i], _KINDS[kind[i]], attribute[i], cut[i],
                  subsets.get(i, ()), []) for i in range(len(klass))]
    # depth first: a node's branches are the next subtrees in turn
    stack: list[tuple[Node, int]] = []
    for node, k in zip(nodes, fanout):
        if stack:
            parent, left = stack[-1]
            parent.branches.append(node)
            if left == 1:
                stack.pop()
            else:
                stack[-1] = (parent, left - 1)
        if k:
            stack.append((node, k))
    return nodes


class Tree:
    """A grown (unpruned) and pruned C4.5 tree over a schema.

    The unpruned tree is kept flat (`unpruned_flat`, 16 MB for its 216k nodes at 1M cases
    instead of 95 MB of nodes): the rules are generalised from the arrays, and `unpruned`
    makes its nodes when first asked for (printing, evaluating, the numpy steps). `pruned` is None
    for a later boosting trial's tree, which is not pruned (rules/boost.py)."""

    def __init__(self, schema: object, unpruned: Node | FlatTree, pruned: Node | None, options: dict):
        self.schema, self.pruned, self.options = schema, pruned, options
        self.unpruned_flat = unpruned if isinstance(unpruned, FlatTree) else FlatTree(unpruned)
        self._unpruned = None if isinstance(unpruned, FlatTree) else unpruned

    @property
    def unpruned(self) -> Node:
        """The unpruned tree's nodes (made from the arrays once, then kept)."""
        if self._unpruned is None:
            self._unpruned = self.unpruned_flat.rebuilt()
        return self._unpruned

    def __getstate__(self) -> dict:
        # the nodes are made again from the arrays when asked for
        return {"schema": self.schema, "unpruned_flat": self.unpruned_flat, "pruned": self.pruned,
                "options": self.options}

    def __setstate__(self, state: dict) -> None:
        # pickles made before the flat form hold the unpruned tree's nodes
        state = dict(state)
        nodes = state.pop("unpruned", None)
        self.__init__(state["schema"], state.get("unpruned_flat") or nodes, state["pruned"], state["options"])
