"""Decision tree nodes: plain dataclasses, as c4.5 stores them (spec 2)."""
from __future__ import annotations

from dataclasses import dataclass, field
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
                        n.cut, n.subsets, [])
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


@dataclass(eq=False)
class Tree:
    """A grown (unpruned) and pruned C4.5 tree over a schema."""

    schema: "object"
    unpruned: Node
    pruned: Node
    options: dict
