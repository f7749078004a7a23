"""Why the tree tests what it tests: each node's information and every attribute's gain,
split information and gain ratio, the numbers c4.5 chose by (spec 2.2-2.5).

`explain_splits` walks a grown tree again over its training data, giving each node the cases
and fractional weights the growing gave it (cases with an unknown outcome go down every
branch, weighted by the branch's share, spec 2.7), and asks the grower's own evaluation for the
gains: a continuous attribute's gain is the penalised gain of its best cut (spec 2.3), any gain
is scaled by the attribute's known fraction at the node (spec 2.4), exactly as c4.5 compares
them. The information figures come from split.info, the one home of that formula.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from ..data.schema import Dataset
from ..model.ruleset import Condition, readable
from .grow import _Grower, class_sums, node_counts
from .node import Node
from .split import EPSILON, NO_GAIN, best_cuts, info, seq_sum


@dataclass(frozen=True)
class AttributeSplit:
    """One attribute evaluated at one node; the numbers are None where c4.5 cannot test it
    there (too few cases per branch, no cut, a discrete attribute tested above)."""

    attribute: str
    info: float | None         # bits per known case still needed after the test
    gain: float | None         # as c4.5 compares it: known fraction x gain (continuous: penalised)
    split_info: float | None   # bits to say which branch a case takes (unknown as its own branch)
    gain_ratio: float | None   # gain / split info, for a usable test whose split info > EPSILON
    known: float               # share of the node's weight whose value is known
    cut: float | None = None   # continuous: the threshold of the best cut
    # False for a continuous attribute whose best cut's penalised gain is not above 0: shown,
    # but c4.5 does not use it (spec 2.3 step 5)
    usable: bool = True

    def as_dict(self) -> dict:
        """The numbers as JSON takes them."""
        return {"attribute": self.attribute, "info": self.info, "gain": self.gain, "split_info": self.split_info,
                "gain_ratio": self.gain_ratio, "known": self.known, "cut": self.cut, "usable": self.usable}


@dataclass(frozen=True)
class NodeSplits:
    """A test node: the path to it, its cases, its information, and each attribute's numbers."""

    path: tuple[str, ...]      # the branches from the root ('outlook = sunny', 'humidity <= 75')
    cases: float               # training weight reaching the node
    info: float                # bits per case of its class distribution (entropy)
    chosen: str                # the attribute the tree tests here
    attributes: tuple[AttributeSplit, ...]

    def as_dict(self) -> dict:
        """{"path", "cases", "info", "chosen", "attributes": [...]} for JSON."""
        return {"path": list(self.path), "cases": self.cases, "info": self.info, "chosen": self.chosen,
                "attributes": [a.as_dict() for a in self.attributes]}


def _plain(x: float) -> float:
    """A float32 figure as the shortest double that prints it (0.246 rather than 0.24599999...)."""
    return float(str(np.float32(x)))


def _after(codes: np.ndarray, y: np.ndarray, w: np.ndarray, branches: int, n_classes: int) -> float:
    """Bits per known case still needed when the known cases are split by `codes` (-1: unknown)."""
    known = codes >= 0
    table = class_sums(codes[known] * n_classes + y[known], w[known], branches * n_classes)
    table = table.reshape(branches, n_classes)
    weight = seq_sum(w[known])
    return float(seq_sum(info(table)) / weight) if weight > 0 else 0.0


def _branch_text(node: Node, data: Dataset, v: int) -> str:
    """Branch `v` of a test node as the rules print a condition (names and values readable)."""
    attr = data.schema.attributes[node.attribute]
    if node.kind == "threshold":
        return str(Condition(attr.name, "<=" if v == 0 else ">", node.cut))
    if node.kind == "discrete":
        return str(Condition(attr.name, "=", attr.values[v]))
    return str(Condition(attr.name, "in", tuple(attr.values[c] for c in sorted(node.subsets[v]))))


def explain_splits(data: Dataset, tree: Node, *, min_objs: float = 2, gain_ratio: bool = True,
                   subset: bool = False) -> list[NodeSplits]:
    """Each test node of `tree` (grown on `data` with these options), depth first, with every
    attribute's information, gain, split information and gain ratio as c4.5 computed them."""
    grower = _Grower(data, min_objs, gain_ratio, subset, by_level=False)
    columns, y, C = data.columns, grower.y, grower.C
    out: list[NodeSplits] = []

    def visit(node: Node, idx: np.ndarray, path: tuple[str, ...]) -> None:
        if node.is_leaf:
            return
        w = grower.weights[idx]
        cases, dist = node_counts(grower.weights, y, idx, C)
        gain, split, cuts, subsets = grower.evaluate(idx, w, cases)
        found = []
        for a, attr in enumerate(data.schema.attributes):
            if attr.kind == "ignore":
                continue
            col = columns[a][idx]
            unknown = np.isnan(col) if attr.is_continuous else col < 0
            known = float(1 - seq_sum(w[unknown]) / cases) if cases > 0 else 0.0
            usable = bool(gain[a] > NO_GAIN)
            if not usable and attr.is_continuous:
                # the best cut c4.5 found and set aside, its gain penalised to 0 or below
                order = np.argsort(col, kind="stable")
                g, s, at = best_cuts(col[order][:, None], w[order][:, None], y[idx][order][:, None], C, cases,
                                     min_objs, unusable=True)
                if at[0] >= 0:
                    gain[a], split[a] = g[0], s[0]
                    cuts[a] = float(grower.snap_many(a, col[order][at[0]], col[order][at[0] + 1]))
            if a not in cuts and gain[a] <= NO_GAIN:
                found.append(AttributeSplit(attr.name, None, None, None, None, round(known, 6), usable=False))
                continue
            if attr.is_continuous:
                codes = np.where(unknown, -1, np.where(col <= cuts[a], 0, 1))
                after = _after(codes, y[idx], w, 2, C)
            elif a in subsets:   # -s: the branches are groups of values
                group = np.full(len(attr.values) + 1, -1, dtype=np.int64)   # last: unknown (-1)
                for k, members in enumerate(subsets[a]):
                    group[list(members)] = k
                after = _after(group[col.astype(np.int64)], y[idx], w, len(subsets[a]), C)
            else:
                after = _after(col.astype(np.int64), y[idx], w, len(attr.values), C)
            # c4.5 forms the ratio only for a usable test with split information above EPSILON
            ratio = float(gain[a] / split[a]) if usable and split[a] > EPSILON else None
            found.append(AttributeSplit(attr.name, _plain(max(after, 0.0)), _plain(gain[a]), _plain(split[a]),
                                        None if ratio is None else _plain(ratio), round(known, 6),
                                        cuts.get(a), usable))
        out.append(NodeSplits(path, _plain(cases), _plain(info(dist) / cases),
                              data.schema.attributes[node.attribute].name, tuple(found)))
        # the children's cases and weights as grow() gives them: unknown outcomes go down
        # every branch, weighted by the branch's share of the known weight
        outcome = grower.outcomes(node, idx)
        unknown = idx[outcome < 0]
        known_total = cases - seq_sum(w[outcome < 0])
        grower.tested[node.attribute] += 1
        for v, child in enumerate(node.branches):
            mine = idx[outcome == v]
            if mine.size == 0:
                continue
            factor = seq_sum(grower.weights[mine]) / known_total
            grower.weights[unknown] *= factor
            visit(child, np.concatenate([unknown, mine]), path + (_branch_text(node, data, v),))
            grower.weights[unknown] /= factor
        grower.tested[node.attribute] -= 1

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        visit(tree, np.arange(data.n), ())
    finally:
        sys.setrecursionlimit(limit)
    return out


def format_splits(nodes: list[NodeSplits]) -> str:
    """The nodes as text: one block per node, one line per attribute, the tested one marked."""
    lines = []
    for k, n in enumerate(nodes, 1):
        where = " and ".join(n.path) if n.path else "(root)"
        lines.append(f"Node {k}: {where}")
        lines.append(f"  {n.cases:g} cases, info {n.info:.3f} bits; tests {readable(n.chosen)}")
        names = [readable(a.attribute) for a in n.attributes]
        width = max([9] + [len(name) for name in names])
        lines.append(f"    {'attribute':<{width}}  {'info':>7}  {'gain':>7}  {'split info':>10}  {'gain ratio':>10}"
                     "  known  cut")
        for a, name in zip(n.attributes, names):
            mark = "  <- tested" if a.attribute == n.chosen else ""
            if a.gain is None:
                lines.append(f"    {name:<{width}}  {'-':>7}  {'-':>7}  {'-':>10}  {'-':>10}  {a.known:5.3f}"
                             f"  (no usable test here){mark}")
                continue
            ratio = "-" if a.gain_ratio is None else f"{a.gain_ratio:.3f}"
            cut = "" if a.cut is None else f"  {a.cut:g}"
            if not a.usable:
                cut += "  (penalised gain not above 0: not used)"
            lines.append(f"    {name:<{width}}  {a.info:7.3f}  {a.gain:7.3f}  {a.split_info:10.3f}"
                         f"  {ratio:>10}  {a.known:5.3f}{cut}{mark}")
        lines.append("")
    return "\n".join(lines) + "\n"
