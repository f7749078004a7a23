"""Evaluating a RuleSet on labelled cases: errors, confusion matrix, per-rule use (spec 7.9)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable

import numpy as np

from ..data.costs import cost_matrix, total_cost
from ..data.passes import reduce_batches
from ..data.schema import Dataset
from ..errors import InputError
from ..model.boosted import BoostedRuleSet
from ..model.ruleset import RuleSet
from .order import rule_use_of


@dataclass(frozen=True)
class RuleEvaluation:
    """c4.5rules' evaluation: per-rule Used/Wrong/Better/Worse, errors, confusion matrix."""

    cases: int
    errors: int
    used: np.ndarray
    wrong: np.ndarray
    better: np.ndarray
    worse: np.ndarray
    default_used: int
    default_wrong: int
    confusion: np.ndarray     # rows = actual class, columns = predicted (schema order)
    cost: float | None = None    # the decisions' total misclassification cost (models with costs)


def evaluate(ruleset: RuleSet, data: Dataset | Callable[[], Iterable[Dataset]]) -> RuleEvaluation:
    """Apply `ruleset` to labelled `data` the way c4.5rules' Interpret does; `data` may be a
    batch source (data/batches.py), evaluated in one pass: every figure is a count that adds up
    over the batches."""
    if not isinstance(data, Dataset):
        # a pass (reduce_batches): a source that counts in its parts (Spark: learn/spark.py, whose
        # batches stay there) evaluates there, and the parts' counts are added
        total = reduce_batches(data, lambda: None, lambda t, batch: _added(t, evaluate(ruleset, batch)), _added)
        if total is None:
            raise InputError("evaluating needs cases: the batches hold none")
        costs = model_costs(ruleset)
        return replace(total, cost=None if costs is None else total_cost(total.confusion, costs))
    if data.y is None:
        raise InputError(f"{data.source}: evaluating needs the class of every case")
    schema = ruleset.schema
    # the rules' test masks, a block of cases at a time: a boosted model's thousands of rules
    # each indexing every case cost minutes at 100k cases
    first, second = ruleset.first_two(data.columns, data.n)
    classes = np.array([schema.classes.index(r.prediction) for r in ruleset.rules], dtype=np.int64)
    default = schema.classes.index(ruleset.default_class)
    use = rule_use_of(classes, first, second, data.y, default)
    C = len(schema.classes)
    conf = np.bincount(data.y.astype(np.int64) * C + use.predicted, minlength=C * C).reshape(C, C)
    at_default = use.first < 0
    costs = model_costs(ruleset)
    return RuleEvaluation(data.n, int((use.predicted != data.y).sum()), use.used, use.wrong,
                          use.better, use.worse, int(at_default.sum()),
                          int((at_default & (data.y != default)).sum()), conf,
                          None if costs is None else total_cost(conf, costs))


def _added(a: RuleEvaluation | None, b: RuleEvaluation | None) -> RuleEvaluation | None:
    """Two evaluations of disjoint cases as one (None: no cases yet); its cost is left to the caller."""
    if a is None or b is None:
        return b if a is None else a
    return RuleEvaluation(*(getattr(a, k) + getattr(b, k) for k in (
        "cases", "errors", "used", "wrong", "better", "worse", "default_used", "default_wrong", "confusion")))


def model_costs(ruleset: RuleSet) -> np.ndarray | None:
    """The cost matrix a model was learnt with (data/costs.py), None for a model without costs."""
    return cost_matrix(ruleset.options_dict.get("costs"), ruleset.schema.classes)


def class_scores(confusion: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(precision, recall, F1) per class from a confusion matrix (rows actual, columns predicted).

    A class never predicted has precision 0.0, one never present recall 0.0, and F1 is 0.0
    when both are 0: a score the data cannot support is reported as none, not as a NaN.
    """
    hits = np.diag(confusion).astype(float)
    predicted, present = confusion.sum(axis=0), confusion.sum(axis=1)
    precision = np.divide(hits, predicted, out=np.zeros_like(hits), where=predicted > 0)
    recall = np.divide(hits, present, out=np.zeros_like(hits), where=present > 0)
    both = precision + recall
    f1 = np.divide(2 * precision * recall, both, out=np.zeros_like(hits), where=both > 0)
    return precision, recall, f1


def evaluation_summary(ruleset: RuleSet, ev: RuleEvaluation) -> dict:
    """The evaluation as plain values: rows, errors, error_rate, accuracy, per-class scores, the
    confusion matrix (schema class order) and each rule's use, the default class last as id 0."""
    return {**_scores(ruleset.schema.classes, ev.cases, ev.errors, ev.confusion), **cost_summary(ev),
            "rules": _rule_use(ruleset, ev)}


def _scores(classes: tuple[str, ...], cases: int, errors: int, confusion: np.ndarray) -> dict:
    """rows, errors, error_rate, accuracy, per-class scores and the confusion matrix as plain values."""
    precision, recall, f1 = class_scores(confusion)
    support = confusion.sum(axis=1)
    error_rate = errors / cases if cases else 0.0
    return {
        "rows": int(cases),
        "errors": int(errors),
        "error_rate": float(error_rate),
        "accuracy": float(1.0 - error_rate) if cases else 0.0,
        "classes": {c: {"precision": float(precision[k]), "recall": float(recall[k]),
                        "f1": float(f1[k]), "support": int(support[k])}
                    for k, c in enumerate(classes)},
        "confusion": confusion.astype(int).tolist(),
    }


def cost_summary(ev: RuleEvaluation | VoteEvaluation) -> dict:
    """{"cost": total, "cost_per_case": average} for a model with costs (0.0 for no rows), else {}."""
    if ev.cost is None:
        return {}
    return {"cost": ev.cost, "cost_per_case": ev.cost / ev.cases if ev.cases else 0.0}


def _rule_use(ruleset: RuleSet, ev: RuleEvaluation) -> list[dict]:
    """[{id, used, wrong}] per rule, the default class last as id 0."""
    return ([{"id": int(r.id), "used": int(ev.used[i]), "wrong": int(ev.wrong[i])}
             for i, r in enumerate(ruleset.rules)]
            + [{"id": 0, "used": int(ev.default_used), "wrong": int(ev.default_wrong)}])


def class_codes(labels: np.ndarray, classes: tuple[str, ...]) -> np.ndarray:
    """The position in `classes` of every label (each one of them)."""
    names = np.asarray(classes, dtype=str)
    order = np.argsort(names)
    return order[np.searchsorted(names[order], np.asarray(labels, dtype=str))].astype(np.int64)


@dataclass(frozen=True)
class VoteEvaluation:
    """A boosted model on labelled cases: the vote's errors and confusion matrix, and each
    trial's own evaluation (its ruleset alone, as c4.5rules evaluates one)."""

    cases: int
    errors: int
    confusion: np.ndarray     # rows = actual class, columns = predicted by the vote (schema order)
    trials: tuple[RuleEvaluation, ...]
    cost: float | None = None    # the vote's decisions' total misclassification cost (models with costs)


def evaluate_votes(model: BoostedRuleSet, data: Dataset) -> VoteEvaluation:
    """Apply a boosted model to labelled `data`: the vote's decisions, and every trial's evaluation."""
    if data.y is None:
        raise InputError(f"{data.source}: evaluating needs the class of every case")
    C = len(model.schema.classes)
    predicted = class_codes(model.predict(data), model.schema.classes)   # the vote, as predict decides
    conf = np.bincount(data.y.astype(np.int64) * C + predicted, minlength=C * C).reshape(C, C)
    costs = model.costs
    return VoteEvaluation(data.n, int((predicted != data.y).sum()), conf,
                          tuple(evaluate(rs, data) for rs in model.trials),
                          None if costs is None else total_cost(conf, costs))


def vote_summary(model: BoostedRuleSet, ev: VoteEvaluation) -> dict:
    """evaluation_summary of a boosted model: the vote's scores and confusion matrix, then
    "trials": [{"trial", "errors", "rules": [{id, used, wrong}]}] (each trial's ruleset alone); with
    costs, the vote's "cost" and "cost_per_case" too."""
    return {**_scores(model.schema.classes, ev.cases, ev.errors, ev.confusion), **cost_summary(ev),
            "trials": [{"trial": t, "errors": int(te.errors), "rules": _rule_use(rs, te)}
                       for t, (rs, te) in enumerate(zip(model.trials, ev.trials), 1)]}
