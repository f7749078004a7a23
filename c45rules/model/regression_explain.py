"""Why a RegressionModel gives a case its number: per committee the rules that hold, each one's
linear model and bounded value, their average (or the default model), the committees' average,
the instance correction and the final bounds, as `RegressionModel.predict` computes them."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .regression import RegressionModel
from .ruleset import conjunction, encode_cases, readable


@dataclass(frozen=True)
class FiredRule:
    """A rule whose conditions hold: its id, conditions and model in words, and its value
    (`raw`: the model's value; `value`: bounded to the rule's [lower, upper])."""

    id: int
    conditions: str
    model: str
    raw: float
    value: float

    def as_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return {"rule": self.id, "conditions": self.conditions, "model": self.model, "raw": self.raw,
                "value": self.value}


@dataclass(frozen=True)
class CommitteeExplanation:
    """One committee: the rules that hold, or (none) its default model, and its value."""

    rules: tuple[FiredRule, ...]
    default: str | None
    value: float


@dataclass(frozen=True)
class RegressionExplanation:
    """The explanation of one case (see the module docstring).

    Attributes
    ----------
    target : str
    committees : tuple of CommitteeExplanation
    average : float
        The committees' average before the instance correction and the final bounds.
    corrected : float or None
        The value after the nearest training cases' correction (None: the model has none).
    value : float
        The prediction, as `predict` gives it.
    floor, ceiling : float
    """

    target: str
    committees: tuple[CommitteeExplanation, ...]
    average: float
    corrected: float | None
    value: float
    floor: float
    ceiling: float

    def as_dict(self) -> dict[str, Any]:
        """The explanation as a JSON-ready dict: {"value", "average", "corrected", "bounds",
        "committees": [{"rules": [{"rule", "conditions", "model", "raw", "value"}], "default",
        "value"}]}."""
        return {"target": self.target, "value": self.value, "average": self.average, "corrected": self.corrected,
                "bounds": [self.floor, self.ceiling],
                "committees": [{"rules": [r.as_dict() for r in c.rules], "default": c.default, "value": c.value}
                               for c in self.committees]}

    def __str__(self) -> str:
        lines = []
        many = len(self.committees) > 1
        target = readable(self.target)
        for k, c in enumerate(self.committees, 1):
            lines.append(f"Committee {k}:" if many else "Rules that apply:")
            for r in c.rules:
                bounded = "" if r.raw == r.value else f" (model {r.raw:.6g}, bounded)"
                lines.append(f"  rule {r.id} [{r.conditions or 'every case'}]: {target} = {r.model}"
                             f" -> {r.value:.6g}{bounded}")
            if c.default is not None:
                lines.append(f"  no rule applies: the default {target} = {c.default} -> {c.value:.6g}")
            elif len(c.rules) > 1:
                lines.append(f"  average of {len(c.rules)} rules: {c.value:.6g}")
        if many:
            lines.append(f"average of {len(self.committees)} committees: {self.average:.6g}")
        if self.corrected is not None:
            lines.append(f"corrected by the nearest training cases: {self.corrected:.6g}")
        lines.append(f"{target} = {self.value:.6g}"
                     f" (predictions bounded to [{self.floor:.6g}, {self.ceiling:.6g}])")
        return "\n".join(lines)


def explain_regression(model: RegressionModel, case: Mapping[str, Any] | Any,
                       bad_cells: str = "error") -> RegressionExplanation:
    """The explanation of one case (a mapping, fields left out unknown; or a one-case Dataset)."""
    data = encode_cases(case if not isinstance(case, Mapping) else [dict(case)], model.schema,
                        model.used_attributes(), bad_cells)
    means = dict(model.means)
    committee_values = model.committee_values(data)[:, 0]
    out = []
    for k, committee in enumerate(model.committees):
        masks = model.rule_masks(data, committee=k)[:, 0]
        fired = []
        for rule, holds in zip(committee.rules, masks):
            if holds:
                raw = float(rule.model.evaluate(data, means)[0])
                fired.append(FiredRule(rule.id, conjunction(rule.conditions), str(rule.model), raw,
                                       float(np.clip(raw, rule.lower, rule.upper))))
        out.append(CommitteeExplanation(tuple(fired), None if fired else str(committee.default),
                                        float(committee_values[k])))
    average = float(committee_values.mean())
    value = float(model.predict(data)[0])
    corrected = None
    if model.neighbors and model.instances is not None:
        corrected = float(model._instance_correction(data, np.array([average]))[0])
    return RegressionExplanation(model.target, tuple(out), average, corrected, value, model.floor, model.ceiling)
