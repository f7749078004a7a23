"""Printing trees and their evaluation in the layout of c4.5 (presentation only)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Iterable

import numpy as np

from ..data.schema import Dataset, Schema
from ..model.ruleset import readable
from .classify import classify
from .node import Node

if TYPE_CHECKING:
    from .window import Cycle, Windowing

TAB = "|   "


def format_tree(tree: Node, schema: Schema) -> str:
    """The tree as c4.5 prints it: leaf branches first, `(items/errors)` at leaves."""
    lines: list[str] = []
    if tree.is_leaf:
        return _leaf(tree, schema).strip()
    _show(tree, schema, 0, lines, [])
    return "\n".join(lines).lstrip("\n")


def _leaf(node: Node, schema: Schema) -> str:
    s = f" {readable(schema.classes[node.klass])} ({node.items:.1f}"
    if node.errors > 0:
        s += f"/{node.errors:.1f}"
    return s + ")"


def _branch_label(node: Node, schema: Schema, v: int) -> str:
    attr = schema.attributes[node.attribute]
    name = readable(attr.name)
    if node.kind == "threshold":
        return f"{name} {'<=' if v == 0 else '>'} {node.cut:g} :"
    if node.kind == "discrete":
        return f"{name} = {readable(attr.values[v])}:"
    vals = [readable(attr.values[c]) for c in sorted(node.subsets[v])]
    if len(vals) == 1:
        return f"{name} = {vals[0]}:"
    return f"{name} in {{{','.join(vals)}}}:"


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


def evaluate_trees(unpruned: Node, pruned: Node, data: Dataset | Callable[[], Iterable[Dataset]], n_train: int,
                   costs: np.ndarray | None = None) -> TreeEvaluation:
    """Errors of both trees on `data` (classifying by least expected cost with `costs`) and the
    pruned tree's training estimate; `data` may be a batch source (data/batches.py), evaluated
    in one pass (the errors and the confusion matrix add up over the batches)."""
    if not isinstance(data, Dataset):
        parts = [evaluate_trees(unpruned, pruned, b, n_train, costs) for b in data()]
        first = parts[0]
        return replace(first, cases=sum(p.cases for p in parts),
                       unpruned_errors=sum(p.unpruned_errors for p in parts),
                       pruned_errors=sum(p.pruned_errors for p in parts), confusion=sum(p.confusion for p in parts))
    pu, pp = classify(unpruned, data, costs), classify(pruned, data, costs)
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
        out.append(f"\t{cells}\t{tags[i]}: class {readable(classes[i])}")
    return "\n".join(out) + "\n"


def _tag(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(ord("a") + r) + s
    return s


def format_cycles(cycles: list[Cycle]) -> str:
    """c4.5 Iterate's cycle table of one windowing trial (spec 5)."""
    out = ["Cycle   Tree    -----Cases----    -----------------Errors-----------------\n"
           "        size    window   other    window  rate   other  rate   total  rate\n"
           "-----   ----    ------  ------    ------  ----  ------  ----  ------  ----\n"]
    for k, c in enumerate(cycles, 1):
        n = c.window + c.other
        total = c.window_errors + c.other_errors
        # c4.5's divisors: (float) window, other + 0.001 (never zero), all cases
        out.append(f"{k:3d}  {c.size:7d}  {c.window:8d}  {c.other:6d}  {c.window_errors:8d}"
                   f"{100 * np.float32(c.window_errors) / np.float32(c.window):5.1f}%  {c.other_errors:6d}"
                   f"{100 * c.other_errors / (c.other + 0.001):5.1f}%  {total:6d}{100 * total / n:5.1f}%\n")
    return "".join(out)


def format_trials(rows: list[TreeEvaluation], best: int, label: str) -> str:
    """c4.5's 'Evaluation on ... data' block of a windowing run: one line per trial."""
    cases = rows[0].cases

    def pct(e: int) -> str:
        return f"{100.0 * e / cases:4.1f}%" if cases else "0.0%"
    out = [f"Evaluation on {label} data ({cases} items):\n\n"
           "Trial\t Before Pruning           After Pruning\n"
           "-----\t----------------   ---------------------------\n"
           "\tSize      Errors   Size      Errors   Estimate\n\n"]
    for t, ev in enumerate(rows):
        out.append(f"{t:4d}\t{ev.unpruned_size:4d}  {ev.unpruned_errors:3d}({pct(ev.unpruned_errors)})   "
                   f"{ev.pruned_size:4d}  {ev.pruned_errors:3d}({pct(ev.pruned_errors)})    ({ev.estimate:4.1f}%)"
                   + ("   <<\n" if t == best else "\n"))
    return "".join(out)


def format_windowing(run: Windowing, train: Dataset, test: Dataset | None) -> str:
    """c4.5 -t's output from the first trial on: each trial's cycles and trees, the best trial,
    and the per-trial evaluation (the confusion matrix is the best pruned tree's on test data)."""
    schema = train.schema
    out = []
    for t, trial in enumerate(run.trials):
        out.append(f"--------\nTrial {t}\n--------\n\n" + format_cycles(trial.cycles))
        out.append("\n" + _titled("Decision Tree", trial.unpruned, schema))
        if trial.pruned.size() != trial.unpruned.size():
            out.append("\n" + _titled("Simplified Decision Tree", trial.pruned, schema))
        out.append("\n")
    out.append(f"--------\n\nBest tree from trial {run.best}\n\n\n")
    rows = [evaluate_trees(t.unpruned, t.pruned, train, train.n) for t in run.trials]
    out.append(format_trials(rows, run.best, "training"))
    if test is not None:
        rows = [evaluate_trees(t.unpruned, t.pruned, test, train.n) for t in run.trials]
        out.append("\n" + format_trials(rows, run.best, "test"))
        out.append("\n" + format_confusion(rows[run.best].confusion, schema.classes) + "\n")
    return "".join(out)


def _titled(title: str, tree: Node, schema: Schema, soft: bool = False) -> str:
    """c4.5 PrintTree under `title`, deep subtrees printed apart as [S1], [S2], ..."""
    return f"{title}:\n" + print_tree(tree, schema, soft)


def format_soft(unpruned: Node, pruned: Node, schema: Schema) -> str:
    """c4.5 -p's trees: the grown one, the simplified one if pruning changed it, the bands of the
    pruned tree's cuts (Node.soft, set by soft.soften) in c4.5's order and the pruned tree printed
    with them."""
    out = [_titled("Decision Tree", unpruned, schema)]
    if pruned.size() != unpruned.size():
        out.append("\n" + _titled("Simplified Decision Tree", pruned, schema))
    out.append("Softening thresholds\n")
    # c4.5 softens depth first, branches in order: the order of walk()
    for node in pruned.walk():
        if node.soft is not None:
            out.append(f"\nTest {schema.attributes[node.attribute].name} <> {node.cut:g}\n"
                       f"\tLower = {node.soft[0]:g}, Upper = {node.soft[1]:g}\n")
    out.append("\n" + _titled("Decision Tree", pruned, schema, soft=True))
    return "".join(out)


WIDTH, TAB_SIZE = 80, 4     # c4.5 trees.c: a subtree wider than this is printed apart


def print_tree(tree: Node, schema: Schema, soft: bool = False) -> str:
    """What c4.5 PrintTree prints after its title: a test whose lines would pass 80 columns
    is shown as [Sk] and printed after the tree as "Subtree [Sk]" (trees.c Show). `soft`: each
    cut's band (Node.soft, c4.5 -p) printed as `[lower,upper]` after it."""
    subtrees: list[Node] = []
    out = [_show_c45(tree, schema, 0, subtrees, soft), "\n"]
    k = 0
    while k < len(subtrees):       # a subtree may name further subtrees
        out.append(f"\n\nSubtree [S{k + 1}]\n" + _show_c45(subtrees[k], schema, 0, subtrees, soft) + "\n")
        k += 1
    out.append("\n")
    return "".join(out)


def _show_c45(node: Node, schema: Schema, depth: int, subtrees: list[Node], soft: bool) -> str:
    if node.is_leaf:
        return _leaf(node, schema)
    if depth and depth * TAB_SIZE + _max_line(node, schema) > WIDTH:
        if len(subtrees) < 99:
            subtrees.append(node)
            return f"[S{len(subtrees)}]"
        return "[S??]"
    order = [v for v, b in enumerate(node.branches) if b.is_leaf] + \
            [v for v, b in enumerate(node.branches) if not b.is_leaf]
    band = node.soft if soft else None
    return "".join("\n" + TAB * depth + _banded_label(node, schema, v, band)
                   + _show_c45(node.branches[v], schema, depth + 1, subtrees, soft) for v in order)


def _banded_label(node: Node, schema: Schema, v: int, band: tuple[float, float] | None) -> str:
    """A branch label, with the soft band `[lower,upper]` of a cut when its ends differ."""
    label = _branch_label(node, schema, v)
    if band is None or band[0] == band[1]:
        return label
    return f"{label[:-1]}[{band[0]:g},{band[1]:g}]:"


def _max_line(node: Node, schema: Schema) -> int:
    """c4.5 MaxLine: the width estimate deciding whether a subtree is printed apart."""
    attr = schema.attributes[node.attribute]
    widest = 0
    for v, b in enumerate(node.branches):
        width = (4 if node.kind == "threshold" else len(attr.values[v]) if v < len(attr.values) else 0) + 1
        if b.is_leaf:
            width += len(schema.classes[b.klass]) + 6
        widest = max(widest, width)
    return len(attr.name) + 4 + widest
