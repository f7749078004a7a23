"""The review report: one self-contained HTML file a compliance reviewer can open offline.

It shows what the model was trained on, the options, the ordered rules with their
evidence, the default class, the evaluation on given data, a glossary of every figure, and
four kinds of picture, all inline SVG drawn here (no charting library): the decision list
(one card per rule), coverage per rule (bars), the confusion matrix (a heatmap) and the
pruned tree. Every picture has a viewBox and scales to the page width; none is ever wider
than the page, so the page never scrolls sideways. The tree is drawn at no less than
`_MIN_SCALE` of its size: deeper subtrees are collapsed into counted dashed boxes rather
than shrunk out of legibility or put in a sideways-scrolling box (which would not print).
Long lists are cut into several pictures (one card per rule; `_CHART_ROWS` bars a chart),
so that printed pages break between rules and charts, never through one.

The file loads nothing: no scripts, no fonts, no images, no external CSS, no URL at all
(inline SVG needs no xmlns), and a Content-Security-Policy that forbids all of them in case
a viewer tries. Every piece of text that comes from data or options (attribute names,
values, class names) goes through `_e` (`html.escape`, control characters as escapes), in
HTML and SVG alike, so a class called `<script>` is shown, never run, and every SVG is
well-formed XML. The output depends only on the arguments and the current directory (data
paths are shown relative to it): no clock, no random, no dict order from outside.
"""
from __future__ import annotations

import html
import os
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..data.schema import UNSEEN_CODE, Dataset, Schema
from ..errors import InputError
from ..model.boosted import BoostedExplanation, BoostedRuleSet
from ..model.ruleset import RuleSet, conjunction, format_threshold, readable, visible
from ..tree.node import Node
from ._atomic import atomic_write_text

MAX_TREE_NODES = 200   # tree nodes drawn at most; deeper subtrees are collapsed
_LABEL_CHARS = 28      # longer names are cut in the drawing (the full text is in a tooltip)
_EDGE_CHARS = 24
_LONG_CONDITION = 40   # characters: a longer condition may wrap in the rules table
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
 font-size:12.5px;overflow-wrap:anywhere}
nav{margin:10px 0 0;font-size:13px}
nav a{color:#2b5fb4;text-decoration:none;margin-right:14px}
table{border-collapse:collapse;margin:6px 0 10px;max-width:100%}
th,td{border:1px solid #dde2ea;padding:4px 8px;vertical-align:top;text-align:left;overflow-wrap:anywhere}
th{background:#f3f5f9;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.nofire td{color:#8a93a6;background:#fafafa}
.conds{margin:0;padding:0;list-style:none}
.conds li{white-space:nowrap}
.conds li.long{white-space:normal}
td.cov{white-space:nowrap}
.note{color:#8a5a00;font-size:12px}
.bar{position:relative;width:160px;height:12px;background:#eef1f6;border-radius:2px;overflow:hidden;
 display:inline-block;vertical-align:middle}
.bar .fill{position:absolute;left:0;top:0;bottom:0;background:#5b8fd6}
.bar .err{position:absolute;top:0;bottom:0;background:#d9534f}
.pct{display:inline-block;min-width:48px;text-align:right;margin-left:6px;font-size:12px;color:#55607a}
table.cm{font-size:12px}
table.cm th,table.cm td{padding:3px 5px}
table.cm th.corner{font-weight:400;color:#55607a;max-width:90px}
table.cm td.hit{background:#e4f3e1;font-weight:600}
table.cm td.miss{background:#fbe3e1}
.summary{display:inline-block;margin-right:28px}
.big{font-size:20px;font-weight:600}
figure{margin:10px 0 16px}
figcaption{font-size:12.5px;color:#55607a;margin:4px 0 0;padding:0 10px}
.figbox{border:1px solid #dde2ea;border-radius:4px;background:#fcfdfe;padding:4px 0}
svg.fig{display:block;width:100%;height:auto;margin:0 auto}
.decision svg.fig{margin:0}
dl.glossary{display:grid;grid-template-columns:minmax(120px,max-content) 1fr;gap:6px 18px;margin:8px 0}
dl.glossary dt{font-weight:600}
dl.glossary dd{margin:0}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;font-size:12px;fill:#1d2330}
svg .edge{fill:none;stroke:#9aa5b8;stroke-width:1.2}
svg .test rect{fill:#fff;stroke:#4a5873;stroke-width:1.2}
svg .leaf rect{stroke:#7a869c;stroke-width:1}
svg .cut rect{fill:#fff;stroke:#4a5873;stroke-dasharray:4 3}
svg .lbl{font-size:11px;fill:#3b4860;paint-order:stroke;stroke:#fcfdfe;stroke-width:4px}
svg .sub{font-size:11px;fill:#55607a}
svg .head{font-weight:600}
svg .axis{fill:none;stroke:#4a5873;stroke-width:1}
svg .grid{stroke:#e3e7ee;stroke-width:1}
svg .tick{font-size:11px;fill:#55607a}
svg .title{font-size:12px;font-weight:600;fill:#3b4860}
svg .ok{fill:#5b8fd6}
svg .err{fill:#d9534f}
svg .val{font-size:11px;fill:#1d2330}
svg .card{fill:#fff;stroke:#c5cddb;stroke-width:1}
svg .nofire .card{fill:#f6f6f6;stroke-dasharray:4 3}
svg .nofire text{fill:#8a93a6}
svg .flow{stroke:#9aa5b8;stroke-width:1.5;fill:none}
svg .cls{stroke:#7a869c;stroke-width:1}
svg .cell rect{stroke:#fff;stroke-width:1}
svg .zero{fill:#a3abbb}
@media print{
 body{max-width:none;padding:0;color:#000;background:#fff;font-size:10.5pt}
 nav{display:none}
 a{color:#000;text-decoration:none}
 .meta,.note,.pct,figcaption,tr.nofire td,table.cm th.corner{color:#000}
 .bar{width:90px}
 th,tr.nofire td,.figbox{background:#fff}
 .figbox,.treebox{overflow:visible;border:none}
 h2,h3{break-after:avoid;page-break-after:avoid}
 tr,figure,svg,dl.glossary dt,dl.glossary dd{break-inside:avoid;page-break-inside:avoid}
 svg text,svg .lbl,svg .sub,svg .tick,svg .title,svg .nofire text{fill:#000}
 svg .lbl{stroke:#fff}
}
"""


def _e(s: Any) -> str:
    """Escape any text for HTML (element content and quoted attributes alike). Characters that
    do not show themselves but tab and line breaks are written as their Python escapes
    (ruleset.visible): control characters are HTML parse errors (a browser drops NUL), and bidi
    controls or zero-width characters would reorder or hide what the page says."""
    return html.escape(visible(str(s), keep="\t\n\r"), quote=True)


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


# ---- shared pieces of the pictures ---------------------------------------------------------

_PAGE_W = 1180.0  # the report's content width (body max-width): figures are drawn for it, 1 unit = 1 px
_MIN_SCALE = 0.8  # the tree is collapsed rather than drawn smaller than this on the page
_CHAR_W = 7.0     # average width of a 12px character, for sizing boxes without a font engine
_BOLD_W = 7.8
_SMALL_W = 6.4    # ... of an 11px one


def _svg(kind: str, label: str, width: float, height: float, body: str) -> str:
    """An inline SVG figure drawn in a `width` x `height` box that scales down to the page.

    No xmlns: inline SVG in HTML needs none, and the file holds no URL at all."""
    return (f'<svg class="fig {kind}" role="img" aria-label="{_e(label)}" width="{width:.0f}"'
            f' height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}"'
            f' style="max-width:{width:.0f}px">{body}</svg>')


def _text(x: float, y: float, text: str, cls: str = "", anchor: str = "start", tip: str = "") -> str:
    """An SVG text element; `tip` (the full text of a cut label) becomes its tooltip."""
    c = f' class="{cls}"' if cls else ""
    a = "" if anchor == "start" else f' text-anchor="{anchor}"'
    t = f"<title>{_e(tip)}</title>" if tip else ""
    return f'<text{c} x="{x:.1f}" y="{y:.1f}"{a}>{t}{_e(text)}</text>'


def _label_text(x: float, y: float, text: str, n: int, cls: str = "", anchor: str = "start") -> str:
    """`text` cut to `n` characters, with the whole of it as a tooltip when cut."""
    shown = _cut(text, n)
    return _text(x, y, shown, cls, anchor, text if shown != text else "")


def _ticks(top: float) -> list[float]:
    """About five round tick values (1, 2 or 5 times a power of ten) from 0 to at least `top`."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / 5
    power = 10.0 ** np.floor(np.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return [i * step for i in range(int(np.ceil(top / step - 1e-9)) + 1)]


def _shown_path(source: str) -> str:
    """A data path as the report shows it: relative to the current directory when it lies
    under it, else the file name only, so no report carries the author's home directory."""
    if not source or source.startswith("<"):
        return source          # '<DataFrame>' and the like name no file
    full = Path(os.path.abspath(source))
    try:
        return full.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return full.name


# ---- evaluation on given data ----------------------------------------------------------------

@dataclass
class _Evaluation:
    """The model scored on labelled data: confusion matrix and each rule's decisions."""

    labels: list[str]           # the model's classes, then classes only the data has
    matrix: np.ndarray          # [actual, predicted] case counts
    used: dict[int, int]        # rule id (0 = default) -> cases it decided
    wrong: dict[int, int]       # rule id -> of those, cases of another class
    unlabelled: int             # cases with an unknown class, left out

    @property
    def cases(self) -> int:
        """Number of cases compared."""
        return int(self.matrix.sum())

    @property
    def errors(self) -> int:
        """Cases whose predicted class is not their class."""
        return self.cases - int(np.trace(self.matrix))


def _evaluate(ruleset: RuleSet, data: Dataset) -> _Evaluation:
    """Score `data` (which has a class column) once, for the matrix, the table and the chart."""
    if data.schema.names != ruleset.schema.names:
        raise InputError(f"{_shown_path(data.source)}: its attributes differ from the model's"
                         " (load it with the model's schema)")
    y = np.asarray(data.y)
    keep = y >= 0
    labels = list(ruleset.schema.classes) + sorted(set(data.schema.classes) - set(ruleset.schema.classes))
    where = {c: i for i, c in enumerate(labels)}
    actual = np.array([where[c] for c in data.schema.classes], dtype=np.int64)[y[keep]]
    predicted = pd.Categorical(np.asarray(ruleset.predict(data), dtype=object)[keep],
                               categories=labels).codes.astype(np.int64)
    # a boosted model's decision is the vote of every trial, not one rule's: no per-rule counts
    fired = np.asarray(ruleset.predict_rule(data))[keep] if isinstance(ruleset, RuleSet) else \
        np.zeros(int(keep.sum()), dtype=np.int64)
    k = len(labels)
    matrix = np.bincount(actual * k + predicted, minlength=k * k).reshape(k, k)
    ids, slot = np.unique(fired, return_inverse=True)
    used = np.bincount(slot, minlength=len(ids))
    wrong = np.bincount(slot, weights=(actual != predicted), minlength=len(ids))
    return _Evaluation(labels, matrix, {int(i): int(u) for i, u in zip(ids, used)},
                       {int(i): int(w) for i, w in zip(ids, wrong)}, int((~keep).sum()))


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


def _data_check(ruleset: RuleSet, data: Dataset, train: Dataset | None) -> str:
    """What the data is to the model: its training data, held-out data (other than the
    training data the report was given, which the CLI has checked against the model's
    fingerprint), or, with only the fingerprint to go by, data the model was not trained on
    as it is now ("" without a fingerprint or training data)."""
    fingerprint = data.fingerprint() if ruleset.fingerprint or train is not None else ""
    if ruleset.fingerprint and fingerprint == ruleset.fingerprint:
        return "This data matches the model's fingerprint: it is the data the model was trained on."
    if train is not None:
        trained = fingerprint if train is data else train.fingerprint()
        if fingerprint == trained:
            return "This data is the training data given to the report (--train)."
        return ("This is held-out data: it differs from the training data given to the report (--train)"
                + (", which matches the model's fingerprint." if trained == ruleset.fingerprint else "."))
    if ruleset.fingerprint:
        return ("This data does not match the model's fingerprint: it is other data than the model was"
                " trained on, or that data changed.")
    return ""


def _data_section(ruleset: RuleSet, data: Dataset | None, train: Dataset | None = None) -> str:
    out = ['<section id="data"><h2>Data</h2>']
    if data is None:
        # a boosted model's first trial learnt from the cases unweighted
        counts = np.asarray((ruleset.trials[0] if isinstance(ruleset, BoostedRuleSet) else ruleset).class_counts,
                            dtype=float)
        out.append(f"<p>No data was given to the report; these are the training class counts the model"
                   f" records ({_count(counts.sum())} cases).</p>")
        out.append(_class_table(ruleset.schema.classes, counts))
        out.append("</section>")
        return "".join(out)
    out.append(f'<p><span class="summary"><span class="big">{data.n}</span> rows</span>'
               f'<span class="summary"><span class="big">{len(data.schema.attributes)}</span> attributes</span>'
               f'<span class="summary">source <code id="data-source">{_e(_shown_path(data.source))}</code>'
               '</span></p>')
    check = _data_check(ruleset, data, train)
    if check:
        out.append(f'<p id="data-fingerprint">{check}</p>')
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
    if ruleset.fingerprint:
        out.append(f'<p>Fingerprint <code id="fingerprint">{_e(ruleset.fingerprint)}</code>: identifies the'
                   " exact training data this model was fitted on (a hash of the attribute definitions and"
                   " the cases, recorded at fitting).</p>")
    else:
        out.append("<p>Fingerprint: none recorded.</p>")
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


def _rules_section(ruleset: RuleSet, evaluation: _Evaluation | None, source: str) -> str:
    total = float(sum(ruleset.class_counts))
    out = ['<section id="rules"><h2>Rules</h2>',
           f"<p>{len(ruleset.rules)} rules, tried in this order: the first rule whose conditions all hold"
           " gives the class; a condition on an unknown value does not hold. When no rule fires the"
           " default class applies.</p>",
           '<h3>Decision list</h3><div class="decision">', _decision_list(ruleset), "</div>",
           "<h3>Rule evidence</h3>"
           f"<p>Coverage is relative to the {_count(total)} training cases (red: the covered cases of"
           " another class).</p>",
           '<table class="rules"><tr><th class="num">Rule</th><th>Conditions (all must hold)</th>'
           '<th>Class</th><th class="num">Covered</th><th class="num">Errors</th>'
           '<th class="num">Confidence</th><th class="num">Lift</th><th>Coverage</th></tr>']
    out += _rule_rows(ruleset, total, "")
    out.append("</table>")
    out.append(_coverage_figures(ruleset, evaluation, source))
    out.append("</section>")
    return "".join(out)


def _conditions(conditions: tuple) -> str:
    """The conditions as a list, one a line; a long one (a big value set) may wrap rather than push
    the table past the page."""
    return "".join(f"<li{' class=long' if len(str(c)) > _LONG_CONDITION else ''}>{_e(c)}</li>"
                   for c in conditions) or "<li><em>(always)</em></li>"


def _rule_rows(ruleset: RuleSet, total: float, prefix: str) -> list[str]:
    """A table row per rule with its evidence; element ids start with `prefix` ('trial-2-' in a
    boosted model, whose trials' rule ids repeat)."""
    out = []
    for r in ruleset.rules:
        note = "" if r.fires else '<div class="note">never fires: pessimistic error above 70%</div>'
        if r.note:
            note += f'<div class="note reviewer" id="{prefix}note-{r.id}">Note: {_e(r.note)}</div>'
        out.append(
            f'<tr{"" if r.fires else " class=nofire"} id="{prefix}rule-{r.id}"><td class="num">{r.id}</td>'
            f'<td><ul class="conds">{_conditions(r.conditions)}</ul>{note}</td><td>{_e(readable(r.prediction))}</td>'
            f'<td class="num">{r.covered}</td><td class="num">{r.errors}</td>'
            f'<td class="num">{100 * r.confidence:.1f}%</td><td class="num">{r.lift:.2f}</td>'
            f'<td class="cov">{_bar(r.covered, total, r.errors)}</td></tr>')
    return out


def _notes_section(ruleset: RuleSet) -> str:
    """The model's reviewer notes, as written in the model file."""
    return (f'<section id="notes"><h2>Notes</h2><p class="reviewer" id="model-notes">{_e(ruleset.notes)}</p>'
            "</section>")


def _compare_section(ruleset: RuleSet, previous: RuleSet, diff: Any, source: str) -> str:
    """What changed since `previous`: rules added, removed, changed, and the decisions that move."""
    by_old = {r.id: r for r in previous.rules}
    by_new = {r.id: r for r in ruleset.rules}
    out = ['<section id="changes"><h2>Changes from the previous model</h2>',
           f'<p id="changes-summary"><span class="summary"><span class="big">{len(diff.added)}</span> added</span>'
           f'<span class="summary"><span class="big">{len(diff.removed)}</span> removed</span>'
           f'<span class="summary"><span class="big">{len(diff.changed)}</span> changed</span>'
           f'<span class="summary"><span class="big">{len(diff.unchanged)}</span> unchanged</span></p>',
           "<p>Rules are matched by their conditions, whatever their ids: the same conditions with"
           " another threshold or class count as changed.</p>",
           '<table class="changes"><tr><th>Change</th><th>Previous model</th><th>This model</th></tr>']
    rows = ([("added", None, by_new[i]) for i in diff.added] + [("removed", by_old[i], None) for i in diff.removed]
            + [("changed", by_old[o], by_new[n]) for o, n in diff.changed])
    for kind, a, b in rows:
        out.append(f'<tr class="{kind}"><td>{kind}</td><td>{_e(a) if a else ""}</td><td>{_e(b) if b else ""}</td></tr>')
    if not rows:
        out.append('<tr><td colspan="3">no rule changed</td></tr>')
    out.append("</table>")
    if previous.default_class != ruleset.default_class:
        out.append(f"<p>Default class: {_e(previous.default_class)} &rarr; {_e(ruleset.default_class)}</p>")
    if diff.rows is not None:
        out.append(f'<p id="changes-decisions">On {_e(source)}: <span class="big">{diff.decisions_changed}</span>'
                   f" of {diff.rows} rows change decision.</p>")
        if diff.flips:
            out.append('<table class="flips"><tr><th>Previous class &rarr; this class</th><th class="num">Rows</th></tr>'
                       + "".join(f'<tr><td>{_e(k)}</td><td class="num">{n}</td></tr>' for k, n in diff.flips.items())
                       + "</table>")
    out.append("</section>")
    return "".join(out)


def _default_section(ruleset: RuleSet) -> str:
    reach = sum(ruleset.default_counts)
    total = sum(ruleset.class_counts)
    parts = ", ".join(f"{_e(c)}: {_count(n)}" for c, n in zip(ruleset.schema.classes, ruleset.default_counts) if n)
    return ('<section id="default"><h2>Default class</h2>'
            f'<p>When no rule fires the class is <strong>{_e(ruleset.default_class)}</strong>.'
            f' <span id="default-reach">{_count(reach)}</span> of {_count(total)} training cases'
            f' ({_pct(reach, total)}) reach the default' + (f" ({parts})." if parts else ".") + "</p></section>")


def _evaluation_section(ruleset: RuleSet, data: Dataset, ev: _Evaluation | None) -> str:
    if ev is None:
        return ('<section id="evaluation"><h2>Evaluation</h2>'
                "<p>The data has no class column, so there is nothing to compare with.</p></section>")
    labels, cm, n, errors = ev.labels, ev.matrix, ev.cases, ev.errors
    k = len(labels)
    out = ['<section id="evaluation"><h2>Evaluation on the given data</h2>',
           f'<p><span class="summary"><span class="big" id="eval-cases">{n}</span> cases</span>'
           f'<span class="summary"><span class="big" id="eval-errors">{errors}</span> errors</span>'
           f'<span class="summary">error rate <span class="big" id="eval-rate">{_pct(errors, n)}</span>'
           '</span></p>']
    if ev.unlabelled:
        out.append(f"<p>{ev.unlabelled} cases with an unknown class were left out.</p>")
    out.append("<h3>Confusion matrix</h3>")
    out.append(_heatmap(labels, cm))
    out.append('<table class="cm"><tr><th class="corner">actual \u2193 / predicted \u2192</th>')
    out.extend(f"<th>{_e(c)}</th>" for c in labels)
    out.append('<th class="num">Total</th></tr>')
    for i, c in enumerate(labels):
        cells = "".join(
            f'<td class="num{" hit" if i == j else " miss" if cm[i, j] else ""}">{cm[i, j]}</td>'
            for j in range(k))
        out.append(f'<tr><th>{_e(c)}</th>{cells}<td class="num">{int(cm[i].sum())}</td></tr>')
    out.append("<tr><th>Total</th>" + "".join(f'<td class="num">{int(cm[:, j].sum())}</td>' for j in range(k))
               + f'<td class="num">{n}</td></tr></table>')
    if isinstance(ruleset, BoostedRuleSet):
        out.append("</section>")
        return "".join(out)
    out.append('<h3>Decisions per rule on this data</h3><table><tr><th>Decided by</th><th>Class</th>'
               '<th class="num">Used</th><th class="num">Wrong</th></tr>')
    for rule_id, label in [(r.id, r.prediction) for r in ruleset.rules] + [(0, ruleset.default_class)]:
        used = ev.used.get(rule_id, 0)
        if not used:
            continue
        name = f"rule {rule_id}" if rule_id else "default class"
        out.append(f'<tr><td>{name}</td><td>{_e(label)}</td><td class="num">{used}</td>'
                   f'<td class="num">{ev.wrong[rule_id]}</td></tr>')
    out.append("</table></section>")
    return "".join(out)


# the rules that disagree with the ensemble most, listed in the fidelity section
FIDELITY_RULES = 10


def _fidelity_section(ruleset: RuleSet, model: Any, data: Dataset) -> str:
    """Where the rules and the ensemble they explain decide alike on the data's rows, and where not."""
    from ..imports.fidelity import agreement
    a = agreement(ruleset, model, data)
    explains = dict(ruleset.options).get("explains", type(model).__name__)
    out = ['<section id="fidelity"><h2>Fidelity to the ensemble</h2>',
           f"<p>The rules explain {_e(explains)} (fingerprint checked). On the given data:</p>",
           f'<p><span class="summary"><span class="big" id="fid-rows">{a.rows}</span> rows</span>'
           f'<span class="summary"><span class="big" id="fid-agreed">{a.agreed}</span> agree</span>'
           f'<span class="summary">fidelity <span class="big" id="fid-rate">{_pct(a.agreed, a.rows)}</span>'
           '</span></p>',
           '<h3>By the ensemble\'s class</h3><table id="fid-classes"><tr><th>Ensemble decides</th>'
           '<th class="num">Rows</th><th class="num">Rules agree</th><th class="num">Agreement</th></tr>']
    for c, n, ok in a.by_class:
        out.append(f'<tr><td>{_e(c)}</td><td class="num">{n}</td><td class="num">{ok}</td>'
                   f'<td class="num">{_pct(ok, n)}</td></tr>')
    out.append("</table>")
    if not a.by_rule:
        out.append("<p>The rules and the ensemble agree on every row.</p></section>")
        return "".join(out)
    out.append('<h3>Where they disagree most</h3><table id="fid-rules"><tr><th>Decided by</th><th>Class</th>'
               '<th class="num">Rows</th><th class="num">Ensemble decides otherwise</th></tr>')
    for rule_id, label, n, wrong in a.by_rule[:FIDELITY_RULES]:
        name = f"rule {rule_id}" if rule_id else "default class"
        out.append(f'<tr><td>{name}</td><td>{_e(label)}</td><td class="num">{n}</td>'
                   f'<td class="num">{wrong}</td></tr>')
    out.append("</table></section>")
    return "".join(out)


def _trial_section(t: int, rs: RuleSet) -> str:
    """One trial of a boosted model: its rules with their evidence and its default class."""
    total = float(sum(rs.class_counts))
    votes = rs.decision_confidences()
    return (f'<section id="trial-{t}"><h2>Trial {t}</h2>'
            f"<p>{len(rs.rules)} rules, tried in this order: the first whose conditions all hold decides the"
            " trial's class, and the trial votes for it with the rule's confidence. When no rule fires the"
            f' trial votes for its default class <strong>{_e(rs.default_class)}</strong> with'
            f' <span id="trial-{t}-default-vote">{votes[0]:.6g}</span>. Coverage is relative to the'
            f" {_count(total)} training cases of the trial (weighted).</p>"
            '<table class="rules"><tr><th class="num">Rule</th><th>Conditions (all must hold)</th>'
            '<th>Class</th><th class="num">Covered</th><th class="num">Errors</th>'
            '<th class="num">Confidence</th><th class="num">Lift</th><th>Coverage</th></tr>'
            + "".join(_rule_rows(rs, total, f"trial-{t}-")) + "</table></section>")


def _vote_section(model: BoostedRuleSet, explanation: BoostedExplanation, case: dict) -> str:
    """How the trials voted on one case: each trial's deciding rule and vote, then the totals."""
    shown = ", ".join(f"{_e(k)} = {_e(v)}" for k, v in case.items() if k in model.used_attributes())
    out = ['<section id="vote"><h2>The vote on a case</h2>',
           f'<p class="mono" id="vote-case">{shown or "(every tested value unknown)"}</p>',
           '<table class="vote"><tr><th class="num">Trial</th><th>Decided by</th><th>Class</th>'
           '<th class="num">Vote</th></tr>']
    for v in explanation.votes:
        e = v.explanation
        how = (f'rule {e.rule.id}<ul class="conds">{_conditions(e.rule.conditions)}</ul>' if e.rule is not None
               else "default class: no rule fired")
        out.append(f'<tr id="vote-trial-{v.trial}"><td class="num">{v.trial}</td><td>{how}</td>'
                   f'<td>{_e(e.prediction)}</td><td class="num">{v.weight:.6g}</td></tr>')
    costs = dict(explanation.costs) if explanation.costs is not None else None
    out.append('</table><table class="totals"><tr><th>Class</th><th class="num">Total vote</th>'
               + ('<th class="num">Expected cost</th>' if costs is not None else "") + "</tr>")
    for c, total in explanation.totals:
        mark = ' class="hit"' if c == explanation.prediction else ""
        cost = f'<td class="num">{costs[c]!r}</td>' if costs is not None else ""
        out.append(f'<tr{mark}><td>{_e(c)}</td><td class="num">{total!r}</td>{cost}</tr>')
    # with misclassification costs the vote's least expected cost wins (boosted.py)
    why = ("the highest total" if costs is None else
           "the least expected cost (each error's cost times the total of the class it would be wrong for,"
           " summed)")
    out.append(f'</table><p>Class <strong id="vote-class">{_e(explanation.prediction)}</strong>: {why}'
               " (a tie goes to the class listed first), with confidence"
               f' <span id="vote-confidence">{explanation.confidence:.6g}</span>, its total over all the'
               " votes.</p></section>")
    return "".join(out)


def _explained_section(ruleset: RuleSet, explanation: Any) -> str:
    """Which rule decides one case, and why (the text of `c45rules explain`)."""
    return ('<section id="explained"><h2>An explained case</h2>'
            f'<pre class="mono" id="explanation">{_e(explanation)}</pre></section>')


# ---- the rule list as a picture -------------------------------------------------------------

_COND_X = 104.0       # where the conditions start in a rule card
_CLASS_W = 250.0      # the class box at a card's right end
_LINE_H = 17.0
_FLOW_H = 18.0        # the 'else' link under a card, down to the next


def _wrap(text: str, width: float) -> list[str]:
    """`text` broken at spaces into lines of at most `width` pixels, so a long condition (a big
    value set) is shown whole over several lines; only a single word longer than a line is cut."""
    n = max(8, int(width / _CHAR_W))
    lines: list[str] = []
    for word in text.split(" "):
        word = _cut(word, n)
        if lines and len(lines[-1]) + 1 + len(word) <= n:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _rule_card(number: str, lines: list[str], klass: str, colour: int, sub: str, tip: str,
               cls: str, last: bool) -> tuple[str, float]:
    """One entry of the decision list and its height: its conditions on the left, its class on
    the right, and (unless it is the last) the 'else' link down to the next entry."""
    w = _PAGE_W
    box_h = max(2, len(lines)) * _LINE_H + 16
    h = box_h + (0 if last else _FLOW_H)
    body = [f'<g class="{cls}"><title>{_e(tip)}</title>',
            f'<rect class="card" x="1" y="1" width="{w - 2:.0f}" height="{box_h - 2:.0f}" rx="6"/>',
            _text(14, 22, number, "head")]
    body += [_text(_COND_X, 22 + i * _LINE_H, line) for i, line in enumerate(lines)]
    cx = w - _CLASS_W - 10
    body.append(_text(cx - 12, 22, "\u2192", "head", "end"))
    body.append(f'<rect class="cls" x="{cx:.0f}" y="8" width="{_CLASS_W:.0f}" height="{2 * _LINE_H:.0f}" rx="4"'
                f' style="fill:{_PALETTE[colour % len(_PALETTE)]}"/>')
    # 9.5 px a character: bold capitals and 'w' are wide, and the name must stay in its box
    body.append(_label_text(cx + 10, 22, klass, int((_CLASS_W - 20) / 9.5), "head"))
    body.append(_text(cx + 10, 22 + _LINE_H, sub, "sub"))
    if not last:
        body.append(f'<path class="flow" d="M30 {box_h - 1:.0f}V{h:.0f}"/>')
        body.append(_text(38, box_h + 13, "else", "sub"))
    body.append("</g>")
    return _svg("rulecard", f"{number}: {tip}", w, h, "".join(body)), h


def _decision_cards(ruleset: RuleSet, max_rules: int | None = None,
                    max_lines: int | None = None) -> list[tuple[str, float]]:
    """The ordered rules (the first `max_rules`) as cards ending at the default class, each
    with its height; a card's conditions cut to `max_lines` lines (and its tooltip to as
    many characters' worth) when given."""
    where = {c: i for i, c in enumerate(ruleset.schema.classes)}
    text_w = _PAGE_W - _CLASS_W - 40 - _COND_X
    cards = []
    for r in ruleset.rules[:max_rules]:
        conds = conjunction(r.conditions)
        lines = _wrap("if " + (conds or "(always)"), text_w)
        tip = f"rule {r.id}: if {conds or '(always)'} then {readable(r.prediction)}"
        if max_lines is not None and len(lines) > max_lines:
            lines = lines[:max_lines - 1] + [f"\u2026 ({len(lines) - max_lines + 1} more lines)"]
            tip = _cut(tip, max_lines * int(text_w / _CHAR_W))
        sub = f"confidence {100 * r.confidence:.1f}%{SEP}lift {r.lift:.2f}"
        if not r.fires:
            sub = "never fires (error above 70%)"
        cards.append(_rule_card(f"Rule {r.id}", lines, readable(r.prediction), where.get(r.prediction, 0), sub, tip,
                                "rule" if r.fires else "rule nofire", False))
    reach = sum(ruleset.default_counts)
    default = readable(ruleset.default_class)
    cards.append(_rule_card("Default", ["otherwise (no rule fires)"], default,
                            where.get(ruleset.default_class, 0),
                            f"{_count(reach)} training cases reach it", f"default class {default}",
                            "default", True))
    return cards


def _decision_list(ruleset: RuleSet) -> str:
    """The ordered rules as a chain of cards ending at the default class: one small SVG per
    rule, so a printed page breaks between rules and never inside one."""
    return "".join(card for card, _ in _decision_cards(ruleset))


NOTEBOOK_RULES = 50   # rules a notebook's picture of a model draws (C45Rules._repr_html_)
_NOTEBOOK_LINES = 6   # condition lines per card there
_PICTURE = "c45rules-rules"   # the class of that picture's <svg>, which its own styles are scoped to


def _picture_css() -> str:
    """The report's styles of the figures' parts, each scoped to a picture's root <svg>: a
    picture shown inline in a notebook carries its styles and changes nothing else on the page."""
    rules = []
    for line in _CSS.splitlines():
        if line.startswith("svg "):
            selectors, _, body = line.partition("{")
            rules.append(",".join(f"svg.{_PICTURE} {sel.strip()[4:]}" for sel in selectors.split(",")) + "{" + body)
    return "".join(rules)


def decision_list_svg(model: RuleSet | BoostedRuleSet, max_rules: int = NOTEBOOK_RULES) -> str:
    """The decision list (each trial's in turn, for a boosted model) as one standalone SVG
    document with its styles inside, the report's rule cards drawn for at most `max_rules` rules
    (each with its list's default class) and a line saying how many more there are; every
    name escaped. A notebook shows it inline (C45Rules._repr_html_; for a RuleSet,
    `IPython.display.SVG(decision_list_svg(rs))`: model/ does not import the exports)."""
    lists = model.trials if isinstance(model, BoostedRuleSet) else (model,)
    total = sum(len(rs.rules) for rs in lists)
    body: list[str] = []
    y, left = 0.0, max_rules
    for t, rs in enumerate(lists, 1):
        if left <= 0 and t > 1:
            break
        if isinstance(model, BoostedRuleSet):
            body.append(_text(4, y + 17, f"Trial {t} of {len(lists)}", "title"))
            y += 26
        for card, h in _decision_cards(rs, max(left, 0), _NOTEBOOK_LINES):
            body.append(f'<g transform="translate(0 {y:.0f})">{card}</g>')
            y += h
        left -= len(rs.rules)
        y += 8
    if total > max_rules:
        body.append(_text(4, y + 14, f"The first {max_rules} of {total} rules are drawn; {total - max_rules}"
                          " more are not (the HTML report draws them all).", "sub"))
        y += 24
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="{_PICTURE}" role="img"'
            f' aria-label="decision list" width="{_PAGE_W:.0f}" height="{y:.0f}"'
            f' viewBox="0 0 {_PAGE_W:.0f} {y:.0f}" style="max-width:100%;height:auto">'
            f"<style>{_picture_css()}</style>{''.join(body)}</svg>")


# ---- coverage per rule ------------------------------------------------------------------------

_CHART_ROWS = 40      # bars per chart: a longer list is cut into several charts of one scale
_BAR_H = 18.0
_CHART_LEFT = 190.0   # where the bars start: rule names to its left
_CHART_RIGHT = 960.0  # the longest bar's end: its numbers to its right


def _coverage_figures(ruleset: RuleSet, ev: _Evaluation | None, source: str) -> str:
    """Cases covered and errors per rule as bar charts, `_CHART_ROWS` rules each."""
    rows: list[tuple[str, str, int, int, str]] = []   # (label, tip, cases, errors, class)
    if ev is None:
        for r in ruleset.rules:
            klass = readable(r.prediction)
            rows.append((f"rule {r.id} \u2192 {_cut(klass, 14)}", f"rule {r.id} \u2192 {klass}",
                         r.covered, r.errors, "bar rule"))
        axis = "training cases covered by the rule (red: of another class)"
        what = ("Training cases each rule covers, as the model records them (every case satisfying its"
                " conditions, whether or not an earlier rule fires first); red: covered cases of another class.")
    else:
        for r in ruleset.rules:
            klass = readable(r.prediction)
            rows.append((f"rule {r.id} \u2192 {_cut(klass, 14)}", f"rule {r.id} \u2192 {klass}",
                         ev.used.get(r.id, 0), ev.wrong.get(r.id, 0), "bar rule"))
        klass = readable(ruleset.default_class)
        rows.append((f"default \u2192 {_cut(klass, 14)}", f"default \u2192 {klass}",
                     ev.used.get(0, 0), ev.wrong.get(0, 0), "bar default"))
        axis = "cases decided by the rule (red: wrong)"
        what = (f"Cases of <code>{_e(source)}</code> each rule decides (it is the first rule that fires"
                " for them), and the default class; red: wrong decisions.")
    top = max([c for _, _, c, _, _ in rows] + [1])
    ticks = _ticks(top)
    scale = (_CHART_RIGHT - _CHART_LEFT) / ticks[-1]
    out = ['<h3 id="coverage">Coverage per rule</h3>', f"<p>{what}</p>"]
    for start in range(0, len(rows), _CHART_ROWS):
        chunk = rows[start:start + _CHART_ROWS]
        plot_h = len(chunk) * _BAR_H + 8
        top_y = 10.0
        h = top_y + plot_h + 44
        body = []
        for t in ticks:
            x = _CHART_LEFT + t * scale
            body.append(f'<line class="grid" x1="{x:.1f}" y1="{top_y:.0f}" x2="{x:.1f}" y2="{top_y + plot_h:.0f}"/>')
            body.append(_text(x, top_y + plot_h + 14, _count(t), "tick", "middle"))
        for i, (label, tip, cases, errors, cls) in enumerate(chunk):
            y = top_y + 4 + i * _BAR_H
            w, e = cases * scale, errors * scale
            num = f"{cases}" + (f", {errors} {'wrong' if ev is not None else 'error' if errors == 1 else 'errors'}"
                                if errors else "")
            body.append(f'<g class="{cls}"><title>{_e(tip)}: {num}</title>'
                        + _text(_CHART_LEFT - 8, y + 12, label, "", "end")
                        + f'<rect class="ok" x="{_CHART_LEFT:.0f}" y="{y + 2:.1f}" width="{w:.1f}" height="13"/>'
                        + (f'<rect class="err" x="{_CHART_LEFT + w - e:.1f}" y="{y + 2:.1f}" width="{e:.1f}"'
                           ' height="13"/>' if errors else "")
                        + _text(_CHART_LEFT + w + 5, y + 12, num, "val") + "</g>")
        body.append(f'<path class="axis" d="M{_CHART_LEFT:.0f} {top_y:.0f}V{top_y + plot_h:.0f}'
                    f'H{_CHART_RIGHT:.0f}"/>')
        body.append(_text((_CHART_LEFT + _CHART_RIGHT) / 2, h - 8, axis, "title", "middle"))
        body.append(f'<text class="title" transform="translate(14 {top_y + plot_h / 2:.0f}) rotate(-90)"'
                    f' text-anchor="middle">{"rule" if len(chunk) < 3 else "rule (in order)"}</text>')
        caption = ""
        if len(rows) > _CHART_ROWS:
            last = min(start + len(chunk), len(ruleset.rules))
            caption = (f"Chart {start // _CHART_ROWS + 1} of {-(-len(rows) // _CHART_ROWS)}: rules"
                       f" {start + 1}\u2013{last} of {len(ruleset.rules)} in order"
                       + (" and the default class" if start + len(chunk) > len(ruleset.rules) else "")
                       + "; all charts share one scale.")
        out.append(f'<figure class="figbox">{_svg("coverage", "coverage per rule", _PAGE_W, h, "".join(body))}'
                   + (f"<figcaption>{caption}</figcaption>" if caption else "") + "</figure>")
    return "".join(out)


# ---- the confusion matrix as a heatmap ------------------------------------------------------

def _heatmap(labels: list[str], cm: np.ndarray) -> str:
    """Actual classes down, predicted across, the count in every cell; the shade is the cell's
    share of its row (green on the diagonal: right; red elsewhere: wrong)."""
    k = len(labels)
    names = [_cut(c, 20) for c in labels]
    longest = max(len(c) for c in names) * _CHAR_W     # 11px text, measured generously: 'w' is wide
    left = 44 + longest
    upright = longest <= min(64.0, (_PAGE_W - left - 30) / k) - 6
    # column names that do not fit a cell are written slanted up to the right: the picture
    # gets their height above the cells and their reach past the last column
    reach = 0.0 if upright else longest * 0.71
    cell = float(np.clip((_PAGE_W - left - 30 - reach) / k, 24, 64))
    head = 46 + (16 if upright else reach)
    w = left + k * cell + 20 + reach
    h = head + k * cell + 12
    size = min(12.0, cell * 0.4)
    rows = cm.sum(axis=1)
    zero = ' class="zero"'
    body = [_text(left + k * cell / 2, 16, "predicted class \u2192", "title", "middle"),
            f'<text class="title" transform="translate(14 {head + k * cell / 2:.0f}) rotate(-90)"'
            ' text-anchor="middle">actual class</text>']
    for j, name in enumerate(labels):
        x = left + (j + 0.5) * cell
        if upright:
            body.append(_label_text(x, head - 8, name, 20, "tick", "middle"))
        else:
            body.append(f'<g transform="translate({x + 4:.1f} {head - 6:.1f}) rotate(-45)">'
                        f'{_label_text(0, 0, name, 20, "tick")}</g>')
    for i, name in enumerate(labels):
        y = head + i * cell
        body.append(_label_text(left - 8, y + cell / 2 + 4, name, 20, "tick", "end"))
        for j in range(k):
            n = int(cm[i, j])
            share = n / rows[i] if rows[i] else 0.0
            colour = "#2e8b57" if i == j else "#d9534f"
            opacity = 0.0 if n == 0 else 0.12 + 0.68 * share ** 0.5
            x = left + j * cell
            body.append(f'<g class="cell"><title>actual {_e(labels[i])}, predicted {_e(labels[j])}: {n}'
                        f' ({_pct(n, rows[i])} of actual {_e(labels[i])})</title>'
                        f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" height="{cell:.1f}"'
                        f' style="fill:{colour};fill-opacity:{opacity:.2f}"/>'
                        f'<text{"" if n else zero} x="{x + cell / 2:.1f}" y="{y + cell / 2 + size * 0.35:.1f}"'
                        f' text-anchor="middle" style="font-size:{size:.1f}px">{n}</text></g>')
    body.append(f'<rect x="{left:.1f}" y="{head:.1f}" width="{k * cell:.1f}" height="{k * cell:.1f}"'
                ' style="fill:none;stroke:#9aa5b8"/>')
    return f'<figure class="figbox">{_svg("heatmap", "confusion matrix", w, h, "".join(body))}</figure>'


# ---- the tree picture ----------------------------------------------------------------------

_BOX_H = 38.0
_LEVEL_H = 92.0
_GAP = 14.0
_MARGIN = 16.0


@dataclass(eq=False)
class _Box:
    """A drawn node: its text, the branch label above it, and where it goes."""

    node: Node
    depth: int
    edge: str
    head: str = ""
    sub: str = ""
    tip: str = ""
    kind: str = "test"          # 'test', 'leaf' or 'cut' (a test whose subtree is collapsed)
    klass: int = 0
    children: list["_Box"] = field(default_factory=list)
    box_w: float = 0.0
    span: float = 0.0
    x: float = 0.0              # centre of the box
    y: float = 0.0              # top of the box


def _branch_label(node: Node, v: int, schema: Schema) -> str:
    if node.kind == "threshold":
        return ("<= " if v == 0 else "> ") + format_threshold(node.cut)
    attr = schema.attributes[node.attribute]
    if node.kind == "subset":
        vals = sorted(node.subsets[v])
        return "= " + readable(attr.values[vals[0]]) if len(vals) == 1 else \
            "in {" + ", ".join(readable(attr.values[i]) for i in vals) + "}"
    return "= " + readable(attr.values[v])


def _leaf_counts(node: Node) -> str:
    """c4.5's `(items/errors)` after a leaf, `(items)` when there are no errors."""
    if node.errors > 0:
        return f"({node.items:.1f}/{node.errors:.1f})"
    return f"({node.items:.1f})"


def _label(box: _Box, schema: Schema, kind: str) -> None:
    """Set a box's texts and width for `kind` ('leaf' is decided by the node itself)."""
    node = box.node
    if node.is_leaf:
        box.kind = "leaf"
        box.klass = node.klass
        name = readable(schema.classes[node.klass])
        box.head, box.sub = _cut(name, _LABEL_CHARS), _leaf_counts(node)
        box.tip = f"{name} {box.sub}"
    else:
        box.kind = kind
        name = readable(schema.attributes[node.attribute].name)
        box.head = _cut(name, _LABEL_CHARS)
        box.tip = f"{name} ({_count(node.items)} cases)"
        if kind == "cut":
            hidden = node.size() - 1
            box.sub = f"+{hidden} nodes not drawn"
            box.tip += f"; {hidden} nodes below it are not drawn"
        else:
            box.sub = f"{_count(node.items)} cases"
    box.box_w = max(len(box.head) * _BOLD_W, len(box.sub) * _CHAR_W) + 16


def _select(root: Node, schema: Schema, cap: int, max_width: float) -> tuple[_Box, int]:
    """The top of the tree, breadth first: a test's branches are drawn when the picture stays
    within `cap` nodes and `max_width` pixels, else the test is a collapsed ('cut') box.
    Returns the root box and the number of nodes drawn."""
    top = _Box(root, 0, "")
    _label(top, schema, "cut")
    drawn = 1
    queue = deque([top])
    while queue:
        box = queue.popleft()
        node = box.node
        if node.is_leaf or drawn + len(node.branches) > cap:
            continue
        kids = [_Box(child, box.depth + 1, _branch_label(node, v, schema))
                for v, child in enumerate(node.branches)]
        for kid in kids:
            _label(kid, schema, "cut")      # the widest label a kid can get: expanding only narrows it
        box.children = kids
        _label(box, schema, "test")
        if _measure(top) + 2 * _MARGIN <= max_width:
            drawn += len(kids)
            queue.extend(kids)
        else:
            box.children = []
            _label(box, schema, "cut")
    return top, drawn


def _edge_w(box: _Box) -> float:
    return len(_cut(box.edge, _EDGE_CHARS)) * _SMALL_W + 8


def _measure(box: _Box) -> float:
    """Width of the strip a subtree needs: its own box and branch label, or its children's."""
    own = max(box.box_w, _edge_w(box)) + _GAP
    below = sum(_measure(k) for k in box.children)
    box.span = max(own, below)
    return box.span


def _place(box: _Box, left: float) -> None:
    """Children side by side inside the parent's strip, the parent above their middle,
    depth down the page."""
    if box.children:
        x = left + (box.span - sum(k.span for k in box.children)) / 2
        for k in box.children:
            _place(k, x)
            x += k.span
        mid = (box.children[0].x + box.children[-1].x) / 2
        half = box.box_w / 2 + _GAP / 2
        box.x = min(max(mid, left + half), left + box.span - half)
    else:
        box.x = left + box.span / 2
    box.y = _MARGIN + 8 + box.depth * _LEVEL_H


def _draw(boxes: list[_Box]) -> str:
    edges, labels, nodes = [], [], []
    for b in boxes:
        for k in b.children:
            y0 = b.y + _BOX_H
            edges.append(f'<path class="edge" d="M{b.x:.1f} {y0:.1f}V{y0 + 16:.1f}H{k.x:.1f}V{k.y:.1f}"/>')
            labels.append(f'<text class="lbl" x="{k.x:.1f}" y="{k.y - 10:.1f}" text-anchor="middle">'
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
                    max_width: float = _PAGE_W / _MIN_SCALE) -> tuple[str, int]:
    """An inline SVG of the tree's top and how many nodes it leaves out.

    Top-down, each subtree in a strip as wide as its leaves' labels need. The SVG scales to
    the page's width; so that its text stays readable, the picture holds at most `max_nodes`
    nodes and is at most `max_width` pixels wide at full size (the page shows it at
    `_MIN_SCALE` or more): deeper subtrees are collapsed into dashed boxes that count them."""
    top, drawn = _select(root, schema, max(1, max_nodes), max_width)
    boxes = []
    stack = [top]
    while stack:
        b = stack.pop()
        boxes.append(b)
        stack.extend(reversed(b.children))
    _measure(top)
    _place(top, _MARGIN)
    width = top.span + 2 * _MARGIN
    height = max(b.y for b in boxes) + _BOX_H + _MARGIN
    return _svg("tree", "pruned decision tree", width, height, _draw(boxes)), root.size() - drawn


def _tree_section(ruleset: RuleSet, tree: Any) -> str:
    root = getattr(tree, "pruned", tree)
    if not isinstance(root, Node):
        raise InputError(f"cannot draw a {type(tree).__name__} as a tree: give a Node or a Tree")
    svg, elided = render_tree_svg(root, ruleset.schema)
    size = root.size()
    depth = _depth(root)
    note = (f" The drawing shows the top {size - elided} nodes; <span id=\"tree-elided\">{elided}</span>"
            " deeper nodes are collapsed into the dashed boxes, which count them, so that the picture"
            " fits the page at a readable size. The rules above are the complete model; <code>c45rules"
            " export MODEL --to dot --train TRAIN</code> draws the whole tree." if elided else "")
    return ('<section id="tree"><h2>Pruned tree</h2>'
            f"<p>{size} nodes, {root.leaves()} leaves, depth {depth}. Leaves show the class and"
            f" (training cases/estimated errors).{note}</p>"
            f'<figure class="figbox treebox">{svg}</figure></section>')


def _depth(root: Node) -> int:
    deepest, stack = 0, [(root, 0)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((b, d + 1) for b in node.branches)
    return deepest


# ---- the glossary --------------------------------------------------------------------------

# (term, plain-words meaning, shown when): every figure the report can show, for a reader
# who knows the business but not C4.5. 'always', 'data' (labelled data given) or 'tree'.
_GLOSSARY = (
    ("Rule", "An if-then statement: if every one of its conditions holds for a case, the rule"
             " gives the case its class.", "always"),
    ("Condition", "One test on one attribute, such as <code>income &gt; 3000</code> or"
                  " <code>region = north</code>. A condition on a missing (unknown) value does not"
                  " hold.", "always"),
    ("Rule order", "Rules are tried from the top. The first rule whose conditions all hold decides"
                   " the case; the rules after it are not consulted.", "always"),
    ("Default class", "The class given to a case when no rule fires.", "always"),
    ("Cases covered", "(Covered) The number of training cases for which all of the rule's conditions"
                      " hold, whether or not an earlier rule fires for them first.", "always"),
    ("Errors", "Of the cases a rule covers, how many belong to a class other than the rule's"
               " class.", "always"),
    ("Coverage", "Cases covered as a share of all training cases.", "always"),
    ("Confidence", "A cautious estimate of how often the rule is right on new cases: one minus its"
                   " pessimistic error rate. It is below the share the rule got right in training, the"
                   " more so the fewer cases it covers.", "always"),
    ("Pessimistic error rate", "An upper estimate of the share of new cases a rule would get wrong,"
                               " worked out from its covered cases and errors at the confidence level"
                               " option <code>cf</code>. A rule whose pessimistic error rate is above"
                               " 70% never fires: it is listed, greyed, but decides nothing.", "always"),
    ("Lift", "The rule's confidence divided by how common its class is among the training cases."
             " Above 1: the rule picks out its class better than guessing by how common it is.",
     "always"),
    ("Reach the default", "Training cases for which no rule fires, so the default class decides"
                          " them.", "always"),
    ("Fingerprint", "Identifies the exact training data of this model: a hash of the attribute"
                    " definitions and the training cases, recorded when the model was fitted. Data with the same"
                    " fingerprint is the training data, unchanged.", "always"),
    ("Used", "On the given data: the cases for which the rule is the first rule that fires, that is,"
             " the cases it actually decides (the default class: the cases no rule fires for).",
     "data"),
    ("Wrong", "Of the cases a rule decided (used), those whose actual class is another one.", "data"),
    ("Error rate", "Wrong decisions as a share of all cases compared, over all rules and the"
                   " default class.", "data"),
    ("Confusion matrix", "Cases counted by their actual class (rows) and the class the rules gave"
                         " them (columns). The diagonal holds the correct decisions; every other cell"
                         " is a kind of mistake. The shade of a cell is its share of its row.", "data"),
    ("Pruned tree", "The decision tree the rules were derived from, after branches that do not"
                    " improve the estimated accuracy were cut back.", "tree"),
    ("Leaf (n/e)", "A leaf's class and, in brackets, the training cases that reach it (n) and its"
                   " estimated errors (e). Counts can have decimals: a case with a missing value is"
                   " shared between the branches in proportion.", "tree"),
)


def _glossary_section(data: bool, tree: bool) -> str:
    shown = {"always", *(["data"] if data else []), *(["tree"] if tree else [])}
    items = "".join(f"<dt>{term}</dt><dd>{text}</dd>" for term, text, when in _GLOSSARY if when in shown)
    return f'<section id="glossary"><h2>Glossary</h2><dl class="glossary">{items}</dl></section>'


# ---- the page ------------------------------------------------------------------------------

def render_report(ruleset: RuleSet | BoostedRuleSet, tree: Any = None, data: Dataset | None = None, *,
                  title: str | None = None, generated: str | None = None,
                  previous: RuleSet | None = None, diff: Any = None, case: dict | None = None,
                  read: Any = None, train: Dataset | None = None, ensemble: Any = None) -> str:
    """The review report as one self-contained HTML page.

    `tree` is the pruned tree (a `Node`, or a `Tree` whose `.pruned` is drawn); `data` a
    Dataset (with classes) for the data summary, the confusion matrix and the per-rule
    coverage. `generated` is shown as the report's date when given: the page holds no clock
    reading of its own. The data's path is shown relative to the current directory.
    `previous` and `diff` (govern.diff.diff_rulesets(previous, ruleset, ...)) add a section on
    what changed since the previous model. `case` (a mapping of attribute values; left out:
    unknown; read with `read`, data.reading.ReadOptions) adds its explanation: the deciding
    rule, or for a BoostedRuleSet the vote of every trial and the totals. A BoostedRuleSet gets
    a section per trial instead of the rules. `train`, the model's training data (which `report
    --train` has checked against the model's fingerprint), lets the data section call `data`
    held-out data when it is other data. `ensemble`, for rules made by `from_ensemble`: the
    ensemble they explain (checked against their fingerprint); with `data`, adds a fidelity
    section (agreement overall, by the ensemble's class, and the rules that disagree most), and
    the explained case says whether the ensemble agrees.
    """
    boosted = isinstance(ruleset, BoostedRuleSet)
    if boosted and (tree is not None or diff is not None):
        raise InputError("a boosted model's report has no tree or comparison: its trials have a tree each,"
                         " and the changes between boosted models are not compared rule by rule")
    if data is not None and not isinstance(data, Dataset):
        raise InputError(f"the report needs a Dataset, not a {type(data).__name__}"
                         " (load it with c45rules.data.load_data or encode_frame)")
    if ensemble is not None and (boosted or data is None):
        raise InputError("the fidelity section needs rules made by from_ensemble and the data to compare on")
    evaluation = _evaluate(ruleset, data) if data is not None and data.y is not None else None
    source = _shown_path(data.source) if data is not None else ""
    heading = title or f"{'Boosted ' if boosted else ''}C4.5 rules review: {ruleset.schema.target}"
    meta = ([f"{len(ruleset.trials)} trials", f"{sum(len(rs.rules) for rs in ruleset.trials)} rules"] if boosted
            else [f"{len(ruleset.rules)} rules"]) + [f"{len(ruleset.schema.classes)} classes",
                                                     f"{len(ruleset.schema.attributes)} attributes"]
    if generated:
        meta.append(f"generated {generated}")
    links = [("data", "Data"), ("options", "Options")] + (
        [(f"trial-{t}", f"Trial {t}") for t in range(1, len(ruleset.trials) + 1)] if boosted
        else [("rules", "Rules"), ("coverage", "Coverage"), ("default", "Default class")])
    if case is not None:
        links.append(("vote", "Vote") if boosted else ("explained", "Explained case"))
    if ruleset.notes:
        links.insert(0, ("notes", "Notes"))
    if diff is not None:
        links.insert(0, ("changes", "Changes"))
    if data is not None:
        links.append(("evaluation", "Evaluation"))
    if ensemble is not None:
        links.append(("fidelity", "Fidelity"))
    if tree is not None:
        links.append(("tree", "Tree"))
    links.append(("glossary", "Glossary"))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(heading)}</title><style>{_CSS}</style></head><body>",
        f'<header><h1>{_e(heading)}</h1><p class="meta">{_e(SEP.join(meta))}</p>',
        "<nav>" + "".join(f'<a href="#{a}">{t}</a>' for a, t in links) + "</nav></header>",
        *([_compare_section(ruleset, previous, diff, source)] if diff is not None else []),
        *([_notes_section(ruleset)] if ruleset.notes else []),
        _data_section(ruleset, data, train),
        _options_section(ruleset),
        *([_trial_section(t, rs) for t, rs in enumerate(ruleset.trials, 1)] if boosted
          else [_rules_section(ruleset, evaluation, source), _default_section(ruleset)]),
    ]
    if case is not None:
        if ensemble is None:
            explanation = ruleset.explain(case, read=read)
        else:
            from ..imports.fidelity import explain_case
            explanation = explain_case(ruleset, case, ensemble, read=read)
        parts.append(_vote_section(ruleset, explanation, case) if boosted
                     else _explained_section(ruleset, explanation))
    if data is not None:
        parts.append(_evaluation_section(ruleset, data, evaluation))
    if ensemble is not None:
        parts.append(_fidelity_section(ruleset, ensemble, data))
    if tree is not None:
        parts.append(_tree_section(ruleset, tree))
    parts.append(_glossary_section(evaluation is not None, tree is not None))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_report(ruleset: RuleSet | BoostedRuleSet, path: str | os.PathLike, tree: Any = None,
                 data: Dataset | None = None,
                 **kw: Any) -> Path:
    """Write the report to `path` atomically (a temp file beside it, then os.replace)."""
    return atomic_write_text(path, render_report(ruleset, tree, data, **kw))
