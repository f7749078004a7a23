"""The review report: one self-contained HTML file a compliance reviewer can open offline.

It shows what the model was trained on, the options, the ordered rules with their
evidence, the default class, the confusion matrix on given data, and a picture of the
pruned tree. The file loads nothing: no scripts, no fonts, no images, no external CSS, and
a Content-Security-Policy that forbids all of them in case a viewer tries. Every piece of
text that comes from data or options (attribute names, values, class names) goes through
`html.escape`, so a class called `<script>` is shown, never run. The output depends only on
the arguments: no clock, no random, no dict order from outside.
"""
from __future__ import annotations

import html
import os
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .data.schema import UNSEEN_CODE, Dataset, Schema
from .errors import InputError
from .export._atomic import atomic_write_text
from .ruleset import RuleSet, format_threshold
from .tree.node import Node

MAX_TREE_NODES = 200   # nodes drawn at most; deeper levels are elided so the file stays small
_LABEL_CHARS = 28      # longer names are cut in the drawing (the full text is in a tooltip)
_EDGE_CHARS = 24
SEP = " \u00b7 "

# Light fills for leaves and class bars, by class position (cycled).
_PALETTE = ("#cfe3f7", "#f9d9b8", "#cdebc6", "#f4c7cf", "#ddd0ef", "#f2e7a7",
            "#c8ece9", "#e7d3c3", "#d9d9d9", "#e9c9ea")

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
 color:#1d2330;background:#fff;margin:0 auto;padding:24px 32px 48px;max-width:1180px;font-size:14px;
 line-height:1.45}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:17px;margin:32px 0 8px;padding-bottom:4px;border-bottom:2px solid #e3e7ee}
h3{font-size:14px;margin:18px 0 6px}
p{margin:6px 0}
.meta{color:#55607a;font-size:13px}
.mono,code{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"DejaVu Sans Mono",monospace;
 font-size:12.5px}
nav{margin:10px 0 0;font-size:13px}
nav a{color:#2b5fb4;text-decoration:none;margin-right:14px}
table{border-collapse:collapse;margin:6px 0 10px}
th,td{border:1px solid #dde2ea;padding:4px 8px;vertical-align:top;text-align:left}
th{background:#f3f5f9;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.nofire td{color:#8a93a6;background:#fafafa}
.conds{margin:0;padding:0;list-style:none}
.conds li{white-space:nowrap}
td.cov{white-space:nowrap}
.note{color:#8a5a00;font-size:12px}
.bar{position:relative;width:160px;height:12px;background:#eef1f6;border-radius:2px;overflow:hidden;
 display:inline-block;vertical-align:middle}
.bar .fill{position:absolute;left:0;top:0;bottom:0;background:#5b8fd6}
.bar .err{position:absolute;top:0;bottom:0;background:#d9534f}
.pct{display:inline-block;min-width:48px;text-align:right;margin-left:6px;font-size:12px;color:#55607a}
table.cm td.hit{background:#e4f3e1;font-weight:600}
table.cm td.miss{background:#fbe3e1}
.summary{display:inline-block;margin-right:28px}
.big{font-size:20px;font-weight:600}
.treebox{overflow-x:auto;border:1px solid #dde2ea;border-radius:4px;background:#fcfdfe}
.treebox svg{display:block}
.treebox svg.down{margin:0 auto}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;font-size:12px;fill:#1d2330}
svg .edge{fill:none;stroke:#9aa5b8;stroke-width:1.2}
svg .test rect{fill:#fff;stroke:#4a5873;stroke-width:1.2}
svg .leaf rect{stroke:#7a869c;stroke-width:1}
svg .cut rect{fill:#fff;stroke:#4a5873;stroke-dasharray:4 3}
svg .lbl{font-size:11px;fill:#3b4860;paint-order:stroke;stroke:#fcfdfe;stroke-width:4px}
svg .sub{font-size:11px;fill:#55607a}
svg .head{font-weight:600}
"""


# control characters other than tab and line breaks are HTML parse errors (a browser drops
# NUL): they are shown as their Python escapes, as the DOT and GraphML exports show them
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _e(s: Any) -> str:
    """Escape any text for HTML (element content and quoted attributes alike)."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], html.escape(str(s), quote=True))


def _cut(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "\u2026"


def _count(x: float) -> str:
    """A (possibly fractional) case count: integers plainly, weights with one decimal."""
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "\u2013"


def _bar(part: float, whole: float, err: float = 0.0) -> str:
    """A horizontal bar of part/whole (errors in red at its right end): plain CSS widths."""
    w = 100 * part / whole if whole else 0.0
    e = 100 * err / whole if whole else 0.0
    out = f'<span class="bar"><span class="fill" style="width:{w:.2f}%"></span>'
    if e > 0:
        out += f'<span class="err" style="left:{w - e:.2f}%;width:{e:.2f}%"></span>'
    return out + f'</span><span class="pct">{_pct(part, whole)}</span>'


# ---- sections ------------------------------------------------------------------------------

def _class_table(classes: tuple[str, ...], counts: np.ndarray) -> str:
    total = float(counts.sum())
    rows = "".join(
        f'<tr><td>{_e(c)}</td><td class="num">{_count(n)}</td>'
        f'<td>{_bar(n, total)}</td></tr>'
        for c, n in zip(classes, counts))
    return ('<table><tr><th>Class</th><th class="num">Cases</th><th>Share</th></tr>'
            f'{rows}<tr><th>Total</th><th class="num">{_count(total)}</th><th></th></tr></table>')


def _attribute_row(i: int, attr, col: np.ndarray | None) -> str:
    if attr.kind == "ignore" or col is None:
        values, missing = ("ignored", "\u2013")
    elif attr.is_continuous:
        known = col[~np.isnan(col)]
        values = (f"{format_threshold(float(known.min()))} \u2013 {format_threshold(float(known.max()))}"
                  if known.size else "no known values")
        n_miss = int(np.isnan(col).sum())
        missing = f"{n_miss} ({_pct(n_miss, col.size)})"
    else:
        shown = ", ".join(attr.values[:8]) + (", \u2026" if len(attr.values) > 8 else "")
        values = f"{len(attr.values)}: {shown}"
        n_miss = int((col == -1).sum())
        n_unseen = int((col == UNSEEN_CODE).sum())
        missing = f"{n_miss} ({_pct(n_miss, col.size)})"
        if n_unseen:
            missing += f"; {n_unseen} not in the value list"
    return (f'<tr><td class="num">{i + 1}</td><td>{_e(attr.name)}</td><td>{_e(attr.kind)}</td>'
            f'<td>{_e(values)}</td><td class="num">{_e(missing)}</td></tr>')


def _data_section(ruleset: RuleSet, data: Dataset | None) -> str:
    out = ['<section id="data"><h2>Data</h2>']
    if data is None:
        counts = np.asarray(ruleset.class_counts, dtype=float)
        out.append(f"<p>No data was given to the report; these are the training class counts the model"
                   f" records ({_count(counts.sum())} cases).</p>")
        out.append(_class_table(ruleset.schema.classes, counts))
        out.append("</section>")
        return "".join(out)
    out.append(f'<p><span class="summary"><span class="big">{data.n}</span> rows</span>'
               f'<span class="summary"><span class="big">{len(data.schema.attributes)}</span> attributes</span>'
               f'<span class="summary">source <code>{_e(data.source)}</code></span></p>')
    if ruleset.fingerprint:
        same = data.fingerprint() == ruleset.fingerprint
        out.append("<p>" + ("This data has the training fingerprint: it is the data the model was trained on."
                            if same else
                            "This data does <strong>not</strong> have the training fingerprint: it is not"
                            " (exactly) the data the model was trained on.") + "</p>")
    out.append('<h3>Attributes</h3><table><tr><th class="num">#</th><th>Attribute</th><th>Kind</th>'
               '<th>Values</th><th class="num">Missing</th></tr>')
    cols = data.columns if len(data.columns) == len(data.schema.attributes) else [None] * len(data.schema.attributes)
    for i, (attr, col) in enumerate(zip(data.schema.attributes, cols)):
        out.append(_attribute_row(i, attr, col))
    out.append("</table>")
    out.append(f"<h3>Class balance ({_e(data.schema.target)})</h3>")
    if data.y is None:
        out.append("<p>This data has no class column.</p>")
    else:
        y = np.asarray(data.y)
        out.append(_class_table(data.schema.classes,
                                np.bincount(y[y >= 0], minlength=len(data.schema.classes)).astype(float)))
    out.append("</section>")
    return "".join(out)


def _options_section(ruleset: RuleSet) -> str:
    out = ['<section id="options"><h2>Options and provenance</h2>']
    if ruleset.options:
        out.append("<table><tr><th>Option</th><th>Value</th></tr>")
        for k, v in ruleset.options:
            out.append(f'<tr><td class="mono">{_e(k)}</td><td class="mono">{_e(_option_text(v))}</td></tr>')
        out.append("</table>")
    else:
        out.append("<p>No options recorded.</p>")
    fp = ruleset.fingerprint or "(none recorded)"
    out.append(f'<p>Training fingerprint: <code>{_e(fp)}</code></p>')
    if ruleset.version:
        out.append(f'<p>Written by c45rules <code>{_e(ruleset.version)}</code></p>')
    out.append("</section>")
    return "".join(out)


def _option_text(v: Any) -> str:
    if isinstance(v, bool) or v is None:
        return {True: "true", False: "false", None: "none"}[v]
    if isinstance(v, float):
        return format_threshold(v)
    if isinstance(v, (list, tuple)):
        return ", ".join(_option_text(x) for x in v)
    return str(v)


def _rules_section(ruleset: RuleSet) -> str:
    total = float(sum(ruleset.class_counts))
    out = ['<section id="rules"><h2>Rules</h2>',
           f"<p>{len(ruleset.rules)} rules, tried in this order: the first rule whose conditions all hold"
           " gives the class; a condition on an unknown value does not hold. When no rule fires the"
           " default class applies. Coverage is relative to the"
           f" {_count(total)} training cases (red: the covered cases of another class).</p>",
           '<table class="rules"><tr><th class="num">Rule</th><th>Conditions (all must hold)</th>'
           '<th>Class</th><th class="num">Covered</th><th class="num">Errors</th>'
           '<th class="num">Confidence</th><th class="num">Lift</th><th>Coverage</th></tr>']
    for r in ruleset.rules:
        conds = "".join(f"<li>{_e(c)}</li>" for c in r.conditions) or "<li><em>(always)</em></li>"
        note = "" if r.fires else '<div class="note">never fires: pessimistic error above 70%</div>'
        out.append(
            f'<tr{"" if r.fires else " class=nofire"} id="rule-{r.id}"><td class="num">{r.id}</td>'
            f'<td><ul class="conds">{conds}</ul>{note}</td><td>{_e(r.prediction)}</td>'
            f'<td class="num">{r.covered}</td><td class="num">{r.errors}</td>'
            f'<td class="num">{100 * r.confidence:.1f}%</td><td class="num">{r.lift:.2f}</td>'
            f'<td class="cov">{_bar(r.covered, total, r.errors)}</td></tr>')
    out.append("</table></section>")
    return "".join(out)


def _default_section(ruleset: RuleSet) -> str:
    reach = sum(ruleset.default_counts)
    total = sum(ruleset.class_counts)
    parts = ", ".join(f"{_e(c)}: {_count(n)}" for c, n in zip(ruleset.schema.classes, ruleset.default_counts) if n)
    return ('<section id="default"><h2>Default class</h2>'
            f'<p>When no rule fires the class is <strong>{_e(ruleset.default_class)}</strong>.'
            f' <span id="default-reach">{_count(reach)}</span> of {_count(total)} training cases'
            f' ({_pct(reach, total)}) reach the default' + (f" ({parts})." if parts else ".") + "</p></section>")


def _evaluation_section(ruleset: RuleSet, data: Dataset) -> str:
    if data.y is None:
        return ('<section id="evaluation"><h2>Evaluation</h2>'
                "<p>The data has no class column, so there is nothing to compare with.</p></section>")
    if data.schema.names != ruleset.schema.names:
        raise InputError(f"{data.source}: its attributes differ from the model's"
                         " (load it with the model's schema)")
    y = np.asarray(data.y)
    keep = y >= 0
    actual = np.asarray(data.schema.classes, dtype=object)[y[keep]]
    predicted = np.asarray(ruleset.predict(data), dtype=object)[keep]
    fired = ruleset.predict_rule(data)[keep]
    labels = list(ruleset.schema.classes) + sorted(set(data.schema.classes) - set(ruleset.schema.classes))
    where = {c: i for i, c in enumerate(labels)}
    k = len(labels)
    cm = np.zeros((k, k), dtype=np.int64)
    np.add.at(cm, (np.array([where[a] for a in actual], dtype=np.int64),
                   np.array([where[p] for p in predicted], dtype=np.int64)), 1)
    n = int(cm.sum())
    errors = n - int(np.trace(cm))
    out = ['<section id="evaluation"><h2>Evaluation on the given data</h2>',
           f'<p><span class="summary"><span class="big" id="eval-cases">{n}</span> cases</span>'
           f'<span class="summary"><span class="big" id="eval-errors">{errors}</span> errors'
           f' ({_pct(errors, n)})</span></p>']
    if not keep.all():
        out.append(f"<p>{int((~keep).sum())} cases with an unknown class were left out.</p>")
    out.append('<h3>Confusion matrix</h3><table class="cm"><tr><th>actual \u2193 / predicted \u2192</th>')
    out.extend(f"<th>{_e(c)}</th>" for c in labels)
    out.append('<th class="num">Total</th></tr>')
    for i, c in enumerate(labels):
        cells = "".join(
            f'<td class="num{" hit" if i == j else " miss" if cm[i, j] else ""}">{cm[i, j]}</td>'
            for j in range(k))
        out.append(f'<tr><th>{_e(c)}</th>{cells}<td class="num">{int(cm[i].sum())}</td></tr>')
    out.append("<tr><th>Total</th>" + "".join(f'<td class="num">{int(cm[:, j].sum())}</td>' for j in range(k))
               + f'<td class="num">{n}</td></tr></table>')
    out.append('<h3>Decisions per rule on this data</h3><table><tr><th>Decided by</th><th>Class</th>'
               '<th class="num">Cases</th><th class="num">Errors</th></tr>')
    for rule_id, label in [(r.id, r.prediction) for r in ruleset.rules] + [(0, ruleset.default_class)]:
        mine = fired == rule_id
        used = int(mine.sum())
        if not used:
            continue
        wrong = int((actual[mine] != predicted[mine]).sum())
        name = f"rule {rule_id}" if rule_id else "default class"
        out.append(f'<tr><td>{name}</td><td>{_e(label)}</td><td class="num">{used}</td>'
                   f'<td class="num">{wrong}</td></tr>')
    out.append("</table></section>")
    return "".join(out)


# ---- the tree picture ----------------------------------------------------------------------

_CHAR_W = 7.0     # average width of a 12px character, for sizing boxes without a font engine
_BOLD_W = 7.8
_BOX_H = 38.0
_LEVEL_H = 92.0
_ROW_H = 48.0
_GAP = 14.0
_MARGIN = 16.0
_PAGE_W = 1110.0  # the report's content width: wider top-down pictures are drawn sideways


@dataclass(eq=False)
class _Box:
    """A drawn node: its text, the branch label above it, and where it goes."""

    node: Node
    depth: int
    edge: str
    head: str = ""
    sub: str = ""
    tip: str = ""
    kind: str = "test"          # 'test', 'leaf' or 'cut' (a test whose subtree is elided)
    klass: int = 0
    children: list["_Box"] = field(default_factory=list)
    box_w: float = 0.0
    span: float = 0.0
    x: float = 0.0              # centre of the box
    y: float = 0.0              # top of the box
    trunk: float = 0.0


def _branch_label(node: Node, v: int, schema: Schema) -> str:
    if node.kind == "threshold":
        return ("<= " if v == 0 else "> ") + format_threshold(node.cut)
    attr = schema.attributes[node.attribute]
    if node.kind == "subset":
        vals = sorted(node.subsets[v])
        return "= " + attr.values[vals[0]] if len(vals) == 1 else \
            "in {" + ", ".join(attr.values[i] for i in vals) + "}"
    return "= " + attr.values[v]


def _leaf_counts(node: Node) -> str:
    """c4.5's `(items/errors)` after a leaf, `(items)` when there are no errors."""
    if node.errors > 0:
        return f"({node.items:.1f}/{node.errors:.1f})"
    return f"({node.items:.1f})"


def _select(root: Node, schema: Schema, cap: int) -> tuple[_Box, int]:
    """The top of the tree, breadth first, whole levels' worth of children at a time, up to
    `cap` nodes. A test whose children do not fit is drawn as a cut node. Returns the root
    box and the number of nodes drawn."""
    top = _Box(root, 0, "")
    drawn = 1
    queue = deque([top])
    full = False
    while queue:
        box = queue.popleft()
        node = box.node
        if node.is_leaf:
            continue
        if full or drawn + len(node.branches) > cap:
            full = True
            box.kind = "cut"
            continue
        for v, child in enumerate(node.branches):
            kid = _Box(child, box.depth + 1, _branch_label(node, v, schema))
            box.children.append(kid)
            queue.append(kid)
        drawn += len(node.branches)
    return top, drawn


def _label(box: _Box, schema: Schema) -> None:
    node = box.node
    if node.is_leaf:
        box.kind = "leaf"
        box.klass = node.klass
        name = schema.classes[node.klass]
        box.head, box.sub = _cut(name, _LABEL_CHARS), _leaf_counts(node)
        box.tip = f"{name} {box.sub}"
    else:
        name = schema.attributes[node.attribute].name
        box.head = _cut(name, _LABEL_CHARS)
        box.tip = f"{name} ({_count(node.items)} cases)"
        if box.kind == "cut":
            hidden = node.size() - 1
            box.sub = f"+{hidden} nodes not drawn"
            box.tip += f"; {hidden} nodes below it are not drawn"
        else:
            box.sub = f"{_count(node.items)} cases"
    box.box_w = max(len(box.head) * _BOLD_W, len(box.sub) * _CHAR_W) + 16
    for kid in box.children:
        _label(kid, schema)


def _edge_w(box: _Box) -> float:
    return len(_cut(box.edge, _EDGE_CHARS)) * 6.4 + 8


def _measure(box: _Box) -> float:
    """Width of the strip a subtree needs: its own box and branch label, or its children's."""
    own = max(box.box_w, _edge_w(box)) + _GAP
    below = sum(_measure(k) for k in box.children)
    box.span = max(own, below)
    return box.span


def _place_down(box: _Box, left: float) -> None:
    """Top-down: children side by side inside the parent's strip, the parent above their middle."""
    if box.children:
        x = left + (box.span - sum(k.span for k in box.children)) / 2
        for k in box.children:
            _place_down(k, x)
            x += k.span
        mid = (box.children[0].x + box.children[-1].x) / 2
        half = box.box_w / 2 + _GAP / 2
        box.x = min(max(mid, left + half), left + box.span - half)
    else:
        box.x = left + box.span / 2
    box.y = _MARGIN + 8 + box.depth * _LEVEL_H


def _place_side(top: _Box, boxes: list[_Box]) -> None:
    """Left to right, like an outline: one row per drawn leaf (or cut node), one column per
    depth, each parent level with its first child. Used when the top-down picture would be
    too wide: the root stays at the top left and the page grows downwards, as a reader scrolls."""
    depth = max(b.depth for b in boxes)
    col_w = [0.0] * (depth + 1)
    lab_w = [0.0] * (depth + 1)
    for b in boxes:
        col_w[b.depth] = max(col_w[b.depth], b.box_w)
        lab_w[b.depth] = max(lab_w[b.depth], _edge_w(b) if b.depth else 0.0)
    col_x = [_MARGIN]
    for d in range(1, depth + 1):
        col_x.append(col_x[-1] + col_w[d - 1] + 16 + lab_w[d] + 14)
    row = [0]

    def place(b: _Box) -> None:
        b.x = col_x[b.depth] + b.box_w / 2
        if b.children:
            for k in b.children:
                place(k)
            b.y = b.children[0].y
        else:
            b.y = _MARGIN + row[0] * _ROW_H
            row[0] += 1

    place(top)
    top.span = col_x[-1] + col_w[-1] - _MARGIN
    for b in boxes:
        b.trunk = col_x[b.depth] + col_w[b.depth] + 10   # where the lines to its children turn


def _draw(boxes: list[_Box], sideways: bool) -> str:
    edges, labels, nodes = [], [], []
    for b in boxes:
        for k in b.children:
            if sideways:
                y0, y1 = b.y + _BOX_H / 2, k.y + _BOX_H / 2
                x1 = k.x - k.box_w / 2
                edges.append(f'<path class="edge" d="M{b.x + b.box_w / 2:.1f} {y0:.1f}H{b.trunk:.1f}'
                             f'V{y1:.1f}H{x1:.1f}"/>')
                lx, ly, anchor = x1 - 6, y1 - 5, "end"
            else:
                y0 = b.y + _BOX_H
                edges.append(f'<path class="edge" d="M{b.x:.1f} {y0:.1f}V{y0 + 16:.1f}H{k.x:.1f}V{k.y:.1f}"/>')
                lx, ly, anchor = k.x, k.y - 10, "middle"
            labels.append(f'<text class="lbl" x="{lx:.1f}" y="{ly:.1f}" text-anchor="{anchor}">'
                          f'<title>{_e(k.edge)}</title>{_e(_cut(k.edge, _EDGE_CHARS))}</text>')
        left = b.x - b.box_w / 2
        fill = f' style="fill:{_PALETTE[b.klass % len(_PALETTE)]}"' if b.kind == "leaf" else ""
        nodes.append(
            f'<g class="{b.kind}"><title>{_e(b.tip)}</title>'
            f'<rect x="{left:.1f}" y="{b.y:.1f}" width="{b.box_w:.1f}" height="{_BOX_H:.0f}" rx="5"{fill}/>'
            f'<text class="head" x="{b.x:.1f}" y="{b.y + 16:.1f}" text-anchor="middle">{_e(b.head)}</text>'
            f'<text class="sub" x="{b.x:.1f}" y="{b.y + 31:.1f}" text-anchor="middle">{_e(b.sub)}</text></g>')
    return "".join(edges) + "".join(nodes) + "".join(labels)


def render_tree_svg(root: Node, schema: Schema, max_nodes: int = MAX_TREE_NODES,
                    max_width: float = _PAGE_W) -> tuple[str, int]:
    """An inline SVG of the tree's top `max_nodes` nodes and how many nodes it leaves out.

    Drawn top-down when that fits in `max_width` pixels, else left to right."""
    top, drawn = _select(root, schema, max(1, max_nodes))
    _label(top, schema)
    boxes = []
    stack = [top]
    while stack:
        b = stack.pop()
        boxes.append(b)
        stack.extend(reversed(b.children))
    sideways = _measure(top) + 2 * _MARGIN > max_width
    if sideways:
        _place_side(top, boxes)
        height = max(b.y for b in boxes) + _BOX_H + _MARGIN
    else:
        _place_down(top, 0.0)
        for b in boxes:
            b.x += _MARGIN
        height = max(b.y for b in boxes) + _BOX_H + _MARGIN
    width = top.span + 2 * _MARGIN
    svg = (f'<svg class="{"side" if sideways else "down"}" role="img" aria-label="pruned decision tree"'
           f' width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">'
           f'{_draw(boxes, sideways)}</svg>')
    return svg, root.size() - drawn


def _tree_section(ruleset: RuleSet, tree: Any) -> str:
    root = getattr(tree, "pruned", tree)
    if not isinstance(root, Node):
        raise InputError(f"cannot draw a {type(tree).__name__} as a tree: give a Node or a Tree")
    svg, elided = render_tree_svg(root, ruleset.schema)
    size = root.size()
    depth = _depth(root)
    note = (f" The drawing shows the top {size - elided} nodes; <span id=\"tree-elided\">{elided}</span>"
            " deeper nodes are not drawn (dashed boxes mark where they hang)." if elided else "")
    return ('<section id="tree"><h2>Pruned tree</h2>'
            f"<p>{size} nodes, {root.leaves()} leaves, depth {depth}. Leaves show the class and"
            f" (training cases/estimated errors).{note}</p>"
            f'<div class="treebox">{svg}</div></section>')


def _depth(root: Node) -> int:
    deepest, stack = 0, [(root, 0)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((b, d + 1) for b in node.branches)
    return deepest


# ---- the page ------------------------------------------------------------------------------

def render_report(ruleset: RuleSet, tree: Any = None, data: Dataset | None = None, *,
                  title: str | None = None, generated: str | None = None) -> str:
    """The review report as one self-contained HTML page.

    `tree` is the pruned tree (a `Node`, or a `Tree` whose `.pruned` is drawn); `data` a
    Dataset (with classes) for the data summary and the confusion matrix. `generated` is
    shown as the report's date when given: the page holds no clock reading of its own.
    """
    if data is not None and not isinstance(data, Dataset):
        raise InputError(f"the report needs a Dataset, not a {type(data).__name__}"
                         " (load it with c45rules.data.load_data or encode_frame)")
    heading = title or f"C4.5 rules review: {ruleset.schema.target}"
    meta = [f"{len(ruleset.rules)} rules", f"{len(ruleset.schema.classes)} classes",
            f"{len(ruleset.schema.attributes)} attributes"]
    if generated:
        meta.append(f"generated {generated}")
    links = [("data", "Data"), ("options", "Options"), ("rules", "Rules"), ("default", "Default class")]
    if data is not None:
        links.append(("evaluation", "Evaluation"))
    if tree is not None:
        links.append(("tree", "Tree"))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(heading)}</title><style>{_CSS}</style></head><body>",
        f'<header><h1>{_e(heading)}</h1><p class="meta">{_e(SEP.join(meta))}</p>',
        "<nav>" + "".join(f'<a href="#{a}">{t}</a>' for a, t in links) + "</nav></header>",
        _data_section(ruleset, data),
        _options_section(ruleset),
        _rules_section(ruleset),
        _default_section(ruleset),
    ]
    if data is not None:
        parts.append(_evaluation_section(ruleset, data))
    if tree is not None:
        parts.append(_tree_section(ruleset, tree))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_report(ruleset: RuleSet, path: str | os.PathLike, tree: Any = None, data: Dataset | None = None,
                 **kw: Any) -> Path:
    """Write the report to `path` atomically (a temp file beside it, then os.replace)."""
    return atomic_write_text(path, render_report(ruleset, tree, data, **kw))
