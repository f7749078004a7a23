"""The HTML review report of a RegressionModel: each committee's rules with their linear models and
training evidence (cases, mean, range, estimated error, bounds), the options, and optionally the
evidence on labelled data (per rule: cases covered, their mean, the RMSE of the rule's own bounded
value on them; overall: RMSE, MAE) and an explained case. The page's style is the class rules'
report (export/report.py)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ..data.schema import Dataset
from ..model.regression import RegressionModel
from ..model.regression_explain import explain_regression
from ..model.ruleset import readable
from ._atomic import atomic_write_text
from .report import _CSS, SEP, _conditions, _e, _options_section, _shown_path


def _rule_evidence(model: RegressionModel, data: Dataset, y: np.ndarray) -> list[list[tuple[int, float, float]]]:
    """Per committee, per rule: (cases covered, their mean target, RMSE of the rule's bounded value)."""
    means = dict(model.means)
    out = []
    for k, committee in enumerate(model.committees):
        masks = model.rule_masks(data, committee=k)
        rows = []
        for rule, mask in zip(committee.rules, masks):
            n = int(mask.sum())
            if not n:
                rows.append((0, float("nan"), float("nan")))
                continue
            value = np.clip(rule.model.evaluate(data, means)[mask], rule.lower, rule.upper)
            rows.append((n, float(y[mask].mean()), float(np.sqrt(np.mean((value - y[mask]) ** 2)))))
        out.append(rows)
    return out


def _g(x: float) -> str:
    return "\u2013" if x != x else f"{x:.6g}"


def _committee_section(model: RegressionModel, k: int, evidence: list[tuple[int, float, float]] | None) -> str:
    committee = model.committees[k]
    many = len(model.committees) > 1
    head = ['<th class="num">Rule</th><th>Conditions (all must hold)</th><th>Model</th><th class="num">Cases</th>',
            '<th class="num">Mean</th><th class="num">Range</th><th class="num">Est. error</th>',
            '<th class="num">Bounds</th>']
    if evidence is not None:
        head.append('<th class="num">Data cases</th><th class="num">Data mean</th><th class="num">Data RMSE</th>')
    out = [f'<section id="committee-{k + 1}"><h2>{f"Committee {k + 1}" if many else "Rules"}</h2>',
           f"<p>{len(committee.rules)} rules. The rules whose conditions all hold each give their model's value,"
           " bounded to the rule's range; the case's value is their average. A condition on an unknown value"
           " does not hold; in a model an unknown value counts as the attribute's training mean.</p>",
           '<table class="rules"><tr>', *head, "</tr>"]
    for i, r in enumerate(committee.rules):
        cells = (f'<td class="num">{r.id}</td><td><ul class="conds">{_conditions(r.conditions)}</ul></td>'
                 f'<td class="mono">{_e(readable(model.target))} = {_e(r.model)}</td><td class="num">{r.cases}</td>'
                 f'<td class="num">{_g(r.mean)}</td><td class="num">{_g(r.low)} to {_g(r.high)}</td>'
                 f'<td class="num">{_g(r.error)}</td><td class="num">{_g(r.lower)} to {_g(r.upper)}</td>')
        if evidence is not None:
            n, mean, rmse = evidence[i]
            cells += f'<td class="num">{n}</td><td class="num">{_g(mean)}</td><td class="num">{_g(rmse)}</td>'
        out.append(f'<tr id="rule-{k + 1}-{r.id}">{cells}</tr>')
    out += ["</table>", f'<p id="default-{k + 1}">When no rule holds: <code>{_e(readable(model.target))} ='
            f" {_e(committee.default)}</code>, bounded to [{_g(model.floor)}, {_g(model.ceiling)}].</p>",
            "</section>"]
    return "".join(out)


def render_regression_report(model: RegressionModel, data: Dataset | None = None, y: np.ndarray | None = None, *,
                             case: dict | None = None, title: str | None = None) -> str:
    """The review report of `model` as one self-contained HTML page (the module docstring); `data`
    and its targets `y` add the evidence on them, `case` (attribute values; left out: unknown) its
    explanation."""
    heading = title or f"Regression rules review: {model.target}"
    meta = [f"{len(model.committees)} committee{'s' if len(model.committees) > 1 else ''}",
            f"{len(model.rules)} rules", f"{len(model.schema.attributes)} attributes",
            f"predictions within [{_g(model.floor)}, {_g(model.ceiling)}]"]
    if model.neighbors:
        meta.append(f"corrected by the {model.neighbors} nearest training cases")
    evidence = _rule_evidence(model, data, y) if data is not None else None
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
             f"<title>{_e(heading)}</title><style>{_CSS}</style></head><body>",
             f'<header><h1>{_e(heading)}</h1><p class="meta">{_e(SEP.join(meta))}</p></header>',
             _options_section(model)]
    parts += [_committee_section(model, k, evidence[k] if evidence is not None else None)
              for k in range(len(model.committees))]
    if data is not None:
        predicted = model.predict(data)
        err = predicted - y
        parts.append(f'<section id="evaluation"><h2>Evaluation</h2><p>On {data.n} cases of'
                     f" {_e(_shown_path(data.source))}: RMSE <b id=\"rmse\">{_g(float(np.sqrt(np.mean(err ** 2))))}</b>,"
                     f" MAE {_g(float(np.mean(np.abs(err))))}, targets' standard deviation {_g(float(np.std(y)))}.</p>"
                     "</section>")
    if case is not None:
        parts.append('<section id="explained"><h2>An explained case</h2>'
                     f'<pre class="mono" id="explanation">{_e(explain_regression(model, case))}</pre></section>')
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_regression_report(model: RegressionModel, path: str | os.PathLike, **kw: Any) -> Path:
    """Write the report to `path` atomically."""
    return atomic_write_text(path, render_regression_report(model, **kw))
