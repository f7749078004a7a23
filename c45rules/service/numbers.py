"""Serving a regression model (rules for a number, model/regression.py): its decisions and audit entries.

A decision is the number `RegressionModel.predict` gives the record, and the rules that fired:
per committee, each rule whose conditions hold, with its model's value bounded as the rule
bounds it (the values the committee averages). The answer of the decide route is

    {"model", "fingerprint", "request_id", "value": 123.4,
     "rules": [{"id": 3, "value": 120.1}, ...]}          ("committee": k beside "id" when k > 1)

and an audit row stores each record's decision as the JSON object
{"value": 123.4, "rules": [[committee, id, value], ...]} in place of a class rule's
[class, rule_id, confidence] list (service/audit.py): the same tables and columns.

Shadow mode: a challenger disagrees with the champion on a record when their numbers differ
by more than DISAGREEMENT relative to the larger of the two in size (numbers_differ): the two
models' exports agree with `predict` to 6 significant digits, so a smaller difference is no
decision of its own.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..model.regression import RegressionModel
from ..model.regression_explain import explain_regression

DISAGREEMENT = 1e-6


def numbers_differ(a: float, b: float) -> bool:
    """Whether two decided numbers disagree: |a - b| > DISAGREEMENT * max(|a|, |b|)."""
    return abs(a - b) > DISAGREEMENT * max(abs(a), abs(b))


class NumberDecider:
    """Decides records with a RegressionModel as `predict` does: each one's number and fired rules."""

    def __init__(self, model: RegressionModel) -> None:
        self.model = model
        self.used = model.used_attributes()

    def decide_many(self, records: Sequence[Mapping[str, Any]]) -> tuple[list[float], list[list[tuple[int, int, float]]]]:
        """(each record's number, each record's fired rules as (committee, rule id, value));
        InputError for a record it cannot read (a field left out is unknown)."""
        m = self.model
        data = m._encode(list(records))
        values = m.predict(data).tolist()
        fired: list[list[tuple[int, int, float]]] = [[] for _ in records]
        means = dict(m.means)
        for k, committee in enumerate(m.committees, 1):
            masks = m.rule_masks(data, committee=k - 1)
            for rule, mask in zip(committee.rules, masks):
                rows = np.flatnonzero(mask)
                if rows.size:
                    raw = rule.model.evaluate(data, means)[rows]
                    for i, v in zip(rows.tolist(), np.clip(raw, rule.lower, rule.upper).tolist()):
                        fired[i].append((k, rule.id, v))
        return values, fired

    def explanation(self, record: Mapping[str, Any]) -> str:
        """Why the record gets its number, in words (the `explain` command's text)."""
        return str(explain_regression(self.model, record))

    def answer_fields(self, value: float, fired: Iterable[tuple[int, int, float]]) -> dict[str, Any]:
        """One decision's fields in the decide route's answer."""
        several = len(self.model.committees) > 1
        return {"value": value, "rules": [{**({"committee": k} if several else {}), "id": r, "value": v}
                                          for k, r, v in fired]}

    def entries(self, values: Sequence[float], fired: Sequence[Sequence[tuple[int, int, float]]]) -> list[str]:
        """Each record's audit outcome entry: JSON {"value", "rules": [[committee, id, value], ...]}."""
        return [json.dumps({"value": v, "rules": [list(f) for f in rules]}, ensure_ascii=True,
                           allow_nan=False, separators=(",", ":"))
                for v, rules in zip(values, fired)]


def is_number_entry(entry: Any) -> bool:
    """Whether a stored outcome entry is a number's (an object) rather than a class's (a list)."""
    return isinstance(entry, dict)


def compare_numbers(pairs: Iterable[tuple[float, float]]) -> dict[str, Any]:
    """The champion/challenger summary of `audit --compare` for numbers: records, how many
    disagree (numbers_differ), the largest absolute difference and the mean of the differences
    (challenger minus champion)."""
    n = differ = 0
    largest = total = 0.0
    for mine, theirs in pairs:
        n += 1
        differ += numbers_differ(mine, theirs)
        largest = max(largest, abs(theirs - mine))
        total += theirs - mine
    return {"records": n, "disagree": differ, "disagreement": f"relative difference > {DISAGREEMENT:g}",
            "largest_difference": largest, "mean_difference": total / n if n else None}
