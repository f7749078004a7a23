"""Evaluating a RuleSet on labelled cases: errors, confusion matrix, per-rule use (spec 7.9)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data.schema import Dataset
from ..errors import InputError
from ..ruleset import RuleSet
from .order import rule_use


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


def evaluate(ruleset: RuleSet, data: Dataset) -> RuleEvaluation:
    """Apply `ruleset` to labelled `data` the way c4.5rules' Interpret does."""
    if data.y is None:
        raise InputError(f"{data.source}: evaluating needs the class of every case")
    schema = ruleset.schema
    covers = []
    for rule in ruleset.rules:
        idx = np.arange(data.n)
        for cond in rule.conditions:
            idx = idx[ruleset.condition_mask(cond, data, idx)]
        covers.append(idx)
    classes = np.array([schema.classes.index(r.prediction) for r in ruleset.rules], dtype=np.int64)
    fires = np.array([r.fires for r in ruleset.rules], dtype=bool)
    default = schema.classes.index(ruleset.default_class)
    use = rule_use(classes, fires, covers, data.y, default)
    C = len(schema.classes)
    conf = np.bincount(data.y.astype(np.int64) * C + use.predicted, minlength=C * C).reshape(C, C)
    at_default = use.first < 0
    return RuleEvaluation(data.n, int((use.predicted != data.y).sum()), use.used, use.wrong,
                          use.better, use.worse, int(at_default.sum()),
                          int((at_default & (data.y != default)).sum()), conf)
