"""Views of a learned model borrowed from scikit-learn's trees: rule importances, the rules as
a DataFrame, `export_text`, the decision-path matrix and an HTML table for notebooks.

C45Rules exposes them as DecisionTreeClassifier does (feature_importances_, apply,
decision_path, get_depth, get_n_leaves); these functions also take a RuleSet or a
BoostedRuleSet directly.
"""
from __future__ import annotations

import html
from typing import Any

import numpy as np

from ..data.schema import Dataset
from ..errors import InputError
from .boosted import BoostedRuleSet
from .ruleset import RuleSet, conjunction, readable


def _model(model: Any) -> RuleSet | BoostedRuleSet:
    """The RuleSet or BoostedRuleSet of a model, a fitted C45Rules, or InputError."""
    if isinstance(model, (RuleSet, BoostedRuleSet)):
        return model
    ruleset = getattr(model, "ruleset_", None)
    if isinstance(ruleset, (RuleSet, BoostedRuleSet)):
        return ruleset
    raise InputError(f"expected a RuleSet, a BoostedRuleSet or a fitted C45Rules, not {type(model).__name__}"
                     + (" (call fit first)" if hasattr(model, "get_params") else ""))


def rule_importances(ruleset: RuleSet | BoostedRuleSet, data: Dataset) -> np.ndarray:
    """Each attribute's importance (schema order), summing to 1 (all 0 when no rule helps).

    A rule's gain is the number of the training cases it decides (it is the first rule that
    fires for them: its ``used`` cases) that it classifies correctly, minus the number the
    default class would classify correctly among those same cases; a case's weight counts
    when the data are weighted. A rule that does no better than the default gains 0. The
    gain is shared equally among the distinct attributes the rule tests, each attribute's
    shares are summed over the rules, and the sums are normalised to total 1. A boosted
    model's importances are the mean of its trials' (each on the same cases), normalised.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.data.frame import from_frame
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "b": ["x", "y"] * 10,
    ...                    "class": ["n", "n", "y", "y"] * 5})
    >>> rule_importances(fit(df, target="class"), from_frame(df, "class")).tolist()
    [1.0, 0.0]
    """
    if isinstance(ruleset, BoostedRuleSet):
        each = [rule_importances(t, data) for t in ruleset.trials]
        mean = np.mean(each, axis=0)
        return mean / mean.sum() if mean.sum() > 0 else mean
    schema = ruleset.schema
    classes = list(schema.classes)
    pos = ruleset.rule_index(data)
    codes = np.array([classes.index(ruleset.default_class)] + [classes.index(r.prediction) for r in ruleset.rules])
    w = np.ones(data.n) if data.weights is None else data.weights
    right = (codes[pos] == data.y) * w
    default_right = (data.y == codes[0]) * w
    gain = np.bincount(pos, weights=right - default_right, minlength=len(ruleset.rules) + 1)
    out = np.zeros(len(schema.attributes))
    for k, rule in enumerate(ruleset.rules, 1):
        tested = sorted({schema.index(c.attribute) for c in rule.conditions})
        if tested and gain[k] > 0:
            out[tested] += gain[k] / len(tested)
    total = out.sum()
    return out / total if total > 0 else out


def rules_frame(model: Any) -> Any:
    """The rules as a pandas DataFrame, one row per rule in order.

    Columns: ``id``, ``conditions`` (the rule's text), ``class``, ``confidence``
    (1 - pessimistic error rate), ``covered`` and ``errors`` (training cases satisfying the
    conditions, and of those not of the rule's class), ``lift``, ``used`` and ``wrong``
    (training cases the rule decides, and of those misclassified); a boosted model's
    frame starts with ``trial``.

    Parameters
    ----------
    model : C45Rules, RuleSet or BoostedRuleSet
        A fitted estimator or a model.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit, rules_frame
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rules_frame(fit(df, target="class"))[["id", "conditions", "class", "covered"]]
       id conditions class  covered
    0   1     a <= 2     n       10
    1   2      a > 2     y       10
    """
    import pandas as pd
    rs = _model(model)
    trials = rs.trials if isinstance(rs, BoostedRuleSet) else (rs,)
    rows = [{**({"trial": t} if isinstance(rs, BoostedRuleSet) else {}), "id": r.id,
             "conditions": conjunction(r.conditions), "class": r.prediction, "confidence": r.confidence,
             "covered": r.covered, "errors": r.errors, "lift": r.lift, "used": r.used, "wrong": r.wrong}
            for t, one in enumerate(trials, 1) for r in one.rules]
    columns = [*(["trial"] if isinstance(rs, BoostedRuleSet) else []), "id", "conditions", "class", "confidence",
               "covered", "errors", "lift", "used", "wrong"]
    return pd.DataFrame(rows, columns=columns)


def export_text(model: Any, *, show_counts: bool = True, max_rules: int | None = None) -> str:
    """The ordered rules as indented text, as ``sklearn.tree.export_text`` shows a tree.

    Each rule is a block: its conditions one per line under ``|---``, then its class; the
    default class closes the list. Rules are tried from the top, and the first whose
    conditions all hold decides.

    Parameters
    ----------
    model : C45Rules, RuleSet or BoostedRuleSet
        A fitted estimator or a model (a boosted model: one list per trial).
    show_counts : bool, default=True
        Show each rule's confidence, covered cases and errors.
    max_rules : int or None, default=None
        Show at most this many rules (per trial), then a line counting the rest.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit, export_text
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> print(export_text(fit(df, target="class")))
    rule 1  (confidence 87.1%, covered 10, errors 0)
    |--- a <= 2
    |   |--- class: n
    rule 2  (confidence 87.1%, covered 10, errors 0)
    |--- a > 2
    |   |--- class: y
    default
    |   |--- class: n
    """
    rs = _model(model)
    if max_rules is not None and (isinstance(max_rules, bool) or not isinstance(max_rules, int) or max_rules < 0):
        raise InputError(f"max_rules must be a whole number >= 0 or None, got {max_rules!r}")
    if isinstance(rs, BoostedRuleSet):
        return "\n".join(f"trial {t}\n" + export_text(one, show_counts=show_counts, max_rules=max_rules)
                         for t, one in enumerate(rs.trials, 1))
    lines = []
    shown = rs.rules if max_rules is None else rs.rules[:max_rules]
    for r in shown:
        head = f"rule {r.id}"
        if show_counts:
            head += f"  (confidence {100 * r.confidence:.1f}%, covered {r.covered}, errors {r.errors})"
        if not r.fires:
            head += "  never fires (error above 70%)"
        lines.append(head)
        lines.extend(f"|--- {c}" for c in r.conditions)
        lines.append(f"|   |--- class: {readable(r.prediction)}")
    if len(shown) < len(rs.rules):
        lines.append(f"... {len(rs.rules) - len(shown)} more rules")
    lines += ["default", f"|   |--- class: {readable(rs.default_class)}"]
    return "\n".join(lines)


def rules_html(ruleset: RuleSet | BoostedRuleSet, max_rules: int = 50) -> str:
    """A compact HTML table of the rules (a notebook's view of a fitted model)."""
    frame = rules_frame(ruleset)
    cut = len(frame) > max_rules
    frame = frame.head(max_rules)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in ("id", "if", "then", "confidence", "covered", "errors"))
    body = "".join(
        f"<tr><td>{r.id}</td><td>{html.escape(r.conditions or '(always)')}</td><td>{html.escape(readable(r[2]))}</td>"
        f"<td>{100 * r.confidence:.1f}%</td><td>{r.covered}</td><td>{r.errors}</td></tr>"
        for r in frame[["id", "conditions", "class", "confidence", "covered", "errors"]].itertuples(index=False))
    default = ruleset.default_class
    more = f"<p>{len(rules_frame(ruleset)) - max_rules} more rules not shown</p>" if cut else ""
    return (f"<table class=\"c45rules\"><thead><tr>{head}</tr></thead><tbody>{body}"
            f"<tr><td>default</td><td>otherwise</td><td>{html.escape(readable(default))}</td>"
            f"<td></td><td></td><td></td></tr></tbody></table>{more}")


def decision_path(ruleset: RuleSet, data: Dataset) -> Any:
    """A scipy CSR matrix (cases x (largest rule id + 1)) of 0/1: column i marks the rule of id
    i whose conditions all hold for the case (every such rule, not only the first), column 0
    the cases the default class decides; so the column apply() gives is set in every row."""
    from scipy import sparse
    n = data.n
    rows, cols = [], []
    for r in ruleset.rules:
        hit = np.ones(n, dtype=bool)
        for c in r.conditions:
            hit &= ruleset.condition_mask(c, data)
        at = np.flatnonzero(hit)
        rows.append(at)
        cols.append(np.full(len(at), r.id))
    default = np.flatnonzero(ruleset.rule_index(data) == 0)
    rows.append(default)
    cols.append(np.zeros(len(default), dtype=np.int64))
    width = max([r.id for r in ruleset.rules] + [0]) + 1
    r_, c_ = np.concatenate(rows).astype(np.int64), np.concatenate(cols).astype(np.int64)
    return sparse.csr_matrix((np.ones(len(r_), dtype=np.int8), (r_, c_)), shape=(n, width))
