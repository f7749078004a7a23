"""Compare two RegressionModels: per committee, which rules were added, removed or changed, and
with data how the predicted numbers move.

Rules pair as class rules do (govern/diff.py): the same conditions with the same linear model and
bounds are the same rule (unchanged); the same conditions once threshold values are set aside are
the same rule changed (a threshold, the model or the bounds moved); what is left is removed or
added. Committee k of the old model is compared with committee k of the new one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from ..model.regression import Committee, RegressionModel, RegressionRule
from ..model.ruleset import conjunction, readable
from .diff import RuleDiff, _exact, _frozen, _key, _pair, _shape


@dataclass(frozen=True)
class RegressionDiff:
    """Per committee a RuleDiff (rule ids of each side), and with data the predictions' changes."""

    committees: tuple[RuleDiff, ...]
    old_committees: int
    new_committees: int
    rows: int | None = None
    values_changed: int | None = None     # rows whose number differs (beyond 1e-9 relative)
    mean_change: float | None = None      # the mean of new - old
    max_change: float | None = None       # the largest |new - old|

    def as_json(self) -> dict[str, Any]:
        """{"committees": [{"committee", "rules": {...}}], "old_committees", "new_committees", "values"}."""
        out: dict[str, Any] = {"committees": [{"committee": k, **d.as_json()} for k, d in enumerate(self.committees, 1)],
                               "old_committees": self.old_committees, "new_committees": self.new_committees}
        if self.rows is not None:
            out["values"] = {"rows": self.rows, "changed": self.values_changed, "mean_change": self.mean_change,
                             "max_change": self.max_change}
        return out


def _same(rule: RegressionRule) -> tuple:
    return _frozen(_key(rule, _exact)), rule.model, rule.lower, rule.upper


def _committee_diff(old: Committee, new: Committee) -> RuleDiff:
    left, right = list(old.rules), list(new.rules)
    unchanged = _pair(left, right, _same)
    left = [r for r in left if all(r is not a for a, _ in unchanged)]
    right = [r for r in right if all(r is not b for _, b in unchanged)]
    changed = _pair(left, right, lambda r: _frozen(_key(r, _shape)))
    return RuleDiff(added=tuple(r.id for r in right if all(r is not b for _, b in changed)),
                    removed=tuple(r.id for r in left if all(r is not a for a, _ in changed)),
                    changed=tuple((a.id, b.id) for a, b in changed),
                    unchanged=tuple((a.id, b.id) for a, b in unchanged))


def diff_regression(old: RegressionModel, new: RegressionModel, data_old: Any = None,
                    data_new: Any = None) -> RegressionDiff:
    """The difference between two regression models; with data (the same rows encoded for each
    model) also how their predictions differ."""
    if not (isinstance(old, RegressionModel) and isinstance(new, RegressionModel)):
        raise InputError("a regression model is compared with another regression model only")
    empty = Committee((), old.committees[0].default)
    per = tuple(_committee_diff(old.committees[k] if k < len(old.committees) else empty,
                                new.committees[k] if k < len(new.committees) else empty)
                for k in range(max(len(old.committees), len(new.committees))))
    out = RegressionDiff(per, len(old.committees), len(new.committees))
    if data_old is None:
        return out
    before = old.predict(data_old)
    after = new.predict(data_new if data_new is not None else data_old)
    change = after - before
    moved = ~np.isclose(after, before, rtol=1e-9, atol=0.0)
    return RegressionDiff(per, out.old_committees, out.new_committees, len(before), int(moved.sum()),
                          float(change.mean()) if len(change) else 0.0,
                          float(np.abs(change).max()) if len(change) else 0.0)


def describe_regression(d: RegressionDiff, old: RegressionModel, new: RegressionModel, data: str | None = None) -> str:
    """The difference in words (`c45rules diff`'s text)."""
    many = max(d.old_committees, d.new_committees) > 1
    target = readable(old.target)

    def one(r: RegressionRule) -> str:
        return (f"rule {r.id}: if {conjunction(r.conditions) or 'every case'} then {target} = {r.model}"
                f" [{r.cases} cases, mean {r.mean:.6g}, est err {r.error:.6g}]")
    lines = [f"Committees: {d.old_committees} -> {d.new_committees}"] if many else []
    for k, rd in enumerate(d.committees):
        by_old = {r.id: r for r in old.committees[k].rules} if k < len(old.committees) else {}
        by_new = {r.id: r for r in new.committees[k].rules} if k < len(new.committees) else {}
        pad = "  " if many else ""
        if many:
            lines.append(f"Committee {k + 1}:")
        lines.append(f"{pad}Rules: {len(rd.added)} added, {len(rd.removed)} removed, {len(rd.changed)} changed,"
                     f" {len(rd.unchanged)} unchanged")
        lines += [f"{pad}  added    {one(by_new[i])}" for i in rd.added]
        lines += [f"{pad}  removed  {one(by_old[i])}" for i in rd.removed]
        for o, n in rd.changed:
            lines += [f"{pad}  changed  {one(by_old[o])}", f"{pad}       to  {one(by_new[n])}"]
        defaults = [c.committees[k].default if k < len(c.committees) else None for c in (old, new)]
        if None not in defaults and defaults[0] != defaults[1]:
            lines.append(f"{pad}Default: {target} = {defaults[0]} -> {target} = {defaults[1]}")
    if d.rows is not None:
        lines.append(f"Predictions on {data}: {d.values_changed} of {d.rows} rows change; mean change"
                     f" {d.mean_change:.6g}, largest {d.max_change:.6g}")
    return "\n".join(lines) + "\n"
