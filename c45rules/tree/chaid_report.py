"""Printing a CHAID tree with Kass's statistics at each split (presentation only)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..data.schema import Schema
from ..model.ruleset import readable
from .growers.chaid import ChaidNode, Split
from .report import TAB


def group_labels(split: Split, schema: Schema) -> list[str]:
    """Each group's condition as text: `x <= 1.3`, `x in (1.3, 1.7]`, `x in {a,b}`, `or unknown`."""
    attr = schema.attributes[split.attribute]
    name = readable(attr.name)
    labels = []
    highs = [g.high for g in split.groups if g.known]
    for g in split.groups:
        if not g.known:
            labels.append(f"{name} unknown")
            continue
        if attr.is_continuous:
            at = highs.index(g.high)
            if len(highs) == 1:
                text = f"{name} <= {g.high:g}"
            elif at == 0:
                text = f"{name} <= {g.high:g}"
            elif at == len(highs) - 1:
                text = f"{name} > {highs[at - 1]:g}"
            else:
                text = f"{name} in ({highs[at - 1]:g}, {g.high:g}]"
        else:
            values = [readable(attr.values[c]) for c in sorted(g.codes)]
            text = f"{name} = {values[0]}" if len(values) == 1 else f"{name} in {{{','.join(values)}}}"
        labels.append(text + (" or unknown" if g.missing else ""))
    return labels


def _statistics(split: Split) -> str:
    return f"chi-square {split.chi2:.2f}, df {split.df}, adjusted p {split.adjusted_p:.3g}"


def _leaf(node: ChaidNode, schema: Schema) -> str:
    counts = node.counts
    klass = int(np.argmax(counts))
    items, errors = float(counts.sum()), float(counts.sum() - counts[klass])
    return f" {readable(schema.classes[klass])} ({items:.1f}" + (f"/{errors:.1f}" if errors > 0 else "") + ")"


def format_chaid(root: ChaidNode, schema: Schema) -> str:
    """The tree in c4.5's layout, each split headed by its attribute and Kass's statistics."""
    if root.split is None:
        return _leaf(root, schema).strip()
    lines: list[str] = []
    _show(root, schema, 0, lines)
    return "\n".join(lines)


def _show(node: ChaidNode, schema: Schema, depth: int, lines: list[str]) -> None:
    # recursion is bounded by max_depth; leaves first, then subtrees, as c4.5 prints
    split = node.split
    lines.append(TAB * depth + f"[{readable(schema.attributes[split.attribute].name)}: {_statistics(split)}]")
    branches = list(zip(group_labels(split, schema), node.children))
    for label, child in branches:
        if child.split is None:
            lines.append(TAB * depth + label + " :" + _leaf(child, schema))
    for label, child in branches:
        if child.split is not None:
            lines.append(TAB * depth + label + " :")
            _show(child, schema, depth + 1, lines)


def chaid_splits(root: ChaidNode, schema: Schema) -> list[dict[str, Any]]:
    """Each split, depth first: its depth, cases, attribute, groups and Kass's statistics (for --json)."""
    out = []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if node.split is None:
            continue
        s = node.split
        out.append({"depth": depth, "cases": float(node.counts.sum()), "attribute": schema.attributes[s.attribute].name,
                    "groups": group_labels(s, schema), "chi2": round(s.chi2, 6), "df": s.df, "p": s.p,
                    "adjusted_p": s.adjusted_p})
        stack.extend((c, depth + 1) for c in reversed(node.children))
    return out
