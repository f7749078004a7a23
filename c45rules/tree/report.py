"""Printing trees and their evaluation in the layout of c4.5 (presentation only)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data.schema import Dataset, Schema
from .classify import classify
from .node import Node

TAB = "|   "


def format_tree(tree: Node, schema: Schema) -> str:
    """The tree as c4.5 prints it: leaf branches first, `(items/errors)` at leaves."""
    lines: list[str] = []
    if tree.is_leaf:
        return _leaf(tree, schema).strip()
    _show(tree, schema, 0, lines, [])
    return "\n".join(lines).lstrip("\n")


def _leaf(node: Node, schema: Schema) -> str:
    s = f" {schema.classes[node.klass]} ({node.items:.1f}"
    if node.errors > 0:
        s += f"/{node.errors:.1f}"
    return s + ")"


def _branch_label(node: Node, schema: Schema, v: int) -> str:
    attr = schema.attributes[node.attribute]
    if node.kind == "threshold":
        return f"{attr.name} {'<=' if v == 0 else '>'} {node.cut:g} :"
    if node.kind == "discrete":
        return f"{attr.name} = {attr.values[v]}:"
    vals = [attr.values[c] for c in sorted(node.subsets[v])]
    if len(vals) == 1:
        return f"{attr.name} = {vals[0]}:"
    return f"{attr.name} in {{{','.join(vals)}}}:"


def _show(node: Node, schema: Schema, depth: int, lines: list[str], _path: list) -> None:
    order = [v for v, b in enumerate(node.branches) if b.is_leaf] + \
            [v for v, b in enumerate(node.branches) if not b.is_leaf]
    for v in order:
        child = node.branches[v]
        head = TAB * depth + _branch_label(node, schema, v)
        if child.is_leaf:
            lines.append(head + _leaf(child, schema))
        else:
            lines.append(head)
            _show(child, schema, depth + 1, lines, _path)


@dataclass(frozen=True)
class TreeEvaluation:
    """Size and errors of the unpruned and pruned trees on some cases (c4.5's summary)."""

    cases: int
    unpruned_size: int
    unpruned_errors: int
    pruned_size: int
    pruned_errors: int
    estimate: float          # percent, pessimistic estimate of the pruned tree on training data
    confusion: np.ndarray    # pruned tree, rows = actual class, columns = predicted


def evaluate_trees(unpruned: Node, pruned: Node, data: Dataset, n_train: int) -> TreeEvaluation:
    """Errors of both trees on `data` and the pruned tree's training estimate."""
    pu, pp = classify(unpruned, data), classify(pruned, data)
    C = len(data.schema.classes)
    conf = np.bincount(data.y * C + pp, minlength=C * C).reshape(C, C)
    return TreeEvaluation(data.n, unpruned.size(), int((pu != data.y).sum()), pruned.size(),
                          int((pp != data.y).sum()), 100.0 * pruned.errors / n_train, conf)


def format_evaluation(ev: TreeEvaluation, label: str) -> str:
    """c4.5's 'Evaluation on ... data' block."""
    def pct(e: int) -> str:
        return f"{100.0 * e / ev.cases:4.1f}%" if ev.cases else "0.0%"
    return (f"Evaluation on {label} data ({ev.cases} items):\n\n"
            "\t Before Pruning           After Pruning\n"
            "\t----------------   ---------------------------\n"
            "\tSize      Errors   Size      Errors   Estimate\n\n"
            f"\t{ev.unpruned_size:4d}  {ev.unpruned_errors:3d}({pct(ev.unpruned_errors)})   "
            f"{ev.pruned_size:4d}  {ev.pruned_errors:3d}({pct(ev.pruned_errors)})    ({ev.estimate:4.1f}%)   <<\n")


def format_confusion(conf: np.ndarray, classes: tuple[str, ...]) -> str:
    """The '(a) (b) <-classified as' matrix of c4.5 and c4.5rules."""
    C = len(classes)
    tags = [f"({_tag(i)})" for i in range(C)]
    out = ["\n\t" + "".join(f"{t:>5}" for t in tags) + "\t<-classified as",
           "\t" + "".join(" ----" for _ in range(C))]
    for i in range(C):
        cells = "".join(f"{conf[i, j]:5d}" if conf[i, j] else "     " for j in range(C))
        out.append(f"\t{cells}\t{tags[i]}: class {classes[i]}")
    return "\n".join(out) + "\n"


def _tag(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(ord("a") + r) + s
    return s
