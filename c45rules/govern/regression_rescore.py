"""Rescore a RegressionModel: each rule's evidence measured again on labelled data.

For each rule, on the cases its conditions cover: their number, the targets' mean, minimum and
maximum, and the estimated error of its linear model (the learner's: mean absolute error times
(n + v) / (n - v), v the model's parameters; tree/model_tree.estimated_error). The conditions,
the models and the rules' output bounds are kept, so the rescored model predicts exactly as the
model given; a rule that covers no case gets 0 cases and NaN for the rest.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..data.schema import Dataset
from ..errors import InputError
from ..model.regression import Committee, RegressionModel
from ..tree.model_tree import estimated_error


def rescore_regression(model: RegressionModel, data: Dataset, y: np.ndarray) -> RegressionModel:
    """`model` with every rule's evidence measured on `data` (encoded for its schema) and targets `y`."""
    y = np.asarray(y, dtype=float)
    if y.shape != (data.n,):
        raise InputError(f"{data.n} cases but {y.size} target values")
    means = dict(model.means)
    committees = []
    for k, committee in enumerate(model.committees):
        rules = []
        for rule, mask in zip(committee.rules, model.rule_masks(data, committee=k)):
            n = int(mask.sum())
            if not n:
                rules.append(dataclasses.replace(rule, cases=0, mean=float("nan"), low=float("nan"),
                                                 high=float("nan"), error=float("nan")))
                continue
            cover = y[mask]
            mae = float(np.abs(rule.model.evaluate(data, means)[mask] - cover).mean())
            rules.append(dataclasses.replace(rule, cases=n, mean=float(cover.mean()), low=float(cover.min()),
                                             high=float(cover.max()),
                                             error=estimated_error(mae, n, len(rule.model.coefficients) + 1)))
        committees.append(Committee(tuple(rules), committee.default))
    return dataclasses.replace(model, committees=tuple(committees))
