"""Candidate rules: one per leaf of the unpruned tree with at least one case (spec 7.2)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..data.schema import Dataset
from ..tree.node import Node

DISCRETE, THRESHOLD, SUBSET = 1, 2, 3   # c4.5 node types; their order matters (spec 7.3)


@dataclass(frozen=True, slots=True)    # slots: 200k of them at 1M cases, 100 bytes less each
class CondTest:
    """One condition taken from a tree test and one of its outcomes."""

    attribute: int
    kind: int                 # DISCRETE, THRESHOLD or SUBSET
    outcome: int              # discrete: value code; threshold: 0 (<=) or 1 (>); subset: branch
    cut: float = 0.0
    values: frozenset = frozenset()
    node: int = 0             # identity of the tree node (subset tests compare by it, spec 7.2)

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


def leaf_paths(tree: Node) -> Iterator[tuple[tuple[CondTest, ...], Node]]:
    """(conditions from the root, leaf) for every leaf with >= 1 case, depth first."""
    stack: list[tuple[Node, tuple[CondTest, ...]]] = [(tree, ())]
    while stack:
        node, path = stack.pop()
        if node.is_leaf:
            if node.items >= 1:
                yield path, node
            continue
        children = []
        for v, child in enumerate(node.branches):
            if node.kind == "threshold":
                t = CondTest(node.attribute, THRESHOLD, v, cut=node.cut, node=id(node))
            elif node.kind == "discrete":
                t = CondTest(node.attribute, DISCRETE, v, node=id(node))
            else:
                t = CondTest(node.attribute, SUBSET, v, values=node.subsets[v], node=id(node))
            children.append((child, path + (t,)))
        stack.extend(reversed(children))

