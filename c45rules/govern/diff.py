"""Compare two RuleSets: which rules were added, removed or changed, and which decisions moved.

Rules are matched by their conditions, whatever their ids or places: the same set of
conditions with the same class is the same rule (unchanged); the same set once threshold
values are set aside -- the same attributes, tests and discrete values -- is the same rule
changed (a threshold moved and/or the class changed); what is left is removed from the old
model or added in the new one. Among several candidates a rule pairs with the first in
rule order not yet paired, so the result does not depend on ids.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..ruleset import Condition, Rule, RuleSet


@dataclass(frozen=True)
class RuleDiff:
    """The rule-level difference between an old and a new model (ids of each side)."""

    added: tuple[int, ...]                       # ids in the new model
    removed: tuple[int, ...]                     # ids in the old model
    changed: tuple[tuple[int, int], ...]         # (old id, new id)
    unchanged: tuple[tuple[int, int], ...]       # (old id, new id)
    flips: dict[str, int] = field(default_factory=dict)   # "A -> B": rows, with data only
    rows: int | None = None                      # rows compared, with data only
    decisions_changed: int | None = None

    def as_json(self) -> dict[str, Any]:
        """The JSON document of `c45rules diff --json`."""
        out: dict[str, Any] = {"rules": {
            "added": list(self.added), "removed": list(self.removed),
            "changed": [{"old_id": o, "new_id": n} for o, n in self.changed],
            "unchanged": len(self.unchanged)}}
        if self.rows is not None:
            out["decisions"] = {"rows": self.rows, "changed": self.decisions_changed, "flips": dict(self.flips)}
        return out


def _exact(c: Condition) -> tuple:
    return (c.attribute, c.op, tuple(sorted(c.value)) if c.op == "in" else c.value, c.or_unknown)


def _shape(c: Condition) -> tuple:
    """A condition without its threshold value (a discrete value stays part of it)."""
    return (c.attribute, c.op, None, c.or_unknown) if c.op in ("<=", ">") else _exact(c)


def _key(rule: Rule, of) -> Counter:
    return Counter(of(c) for c in rule.conditions)


def _pair(old: list[Rule], new: list[Rule], key) -> list[tuple[Rule, Rule]]:
    """Pairs of rules with equal keys, each rule in at most one pair, in rule order."""
    waiting: dict[Any, list[Rule]] = {}
    for r in new:
        waiting.setdefault(key(r), []).append(r)
    pairs = []
    for r in old:
        candidates = waiting.get(key(r))
        if candidates:
            pairs.append((r, candidates.pop(0)))
    return pairs


def _frozen(counter: Counter) -> frozenset:
    return frozenset(counter.items())


def diff_rulesets(old: RuleSet, new: RuleSet, data_old: Any = None, data_new: Any = None) -> RuleDiff:
    """The difference between `old` and `new`; with data (the same rows encoded for each
    model's schema) also how many rows change decision, by class pair."""
    left, right = list(old.rules), list(new.rules)
    unchanged = _pair(left, right, lambda r: (_frozen(_key(r, _exact)), r.prediction))
    paired_old = {id(a) for a, _ in unchanged}
    paired_new = {id(b) for _, b in unchanged}
    left = [r for r in left if id(r) not in paired_old]
    right = [r for r in right if id(r) not in paired_new]
    changed = _pair(left, right, lambda r: _frozen(_key(r, _shape)))
    paired_old = {id(a) for a, _ in changed}
    paired_new = {id(b) for _, b in changed}
    result = RuleDiff(
        added=tuple(r.id for r in right if id(r) not in paired_new),
        removed=tuple(r.id for r in left if id(r) not in paired_old),
        changed=tuple((a.id, b.id) for a, b in changed),
        unchanged=tuple((a.id, b.id) for a, b in unchanged))
    if data_old is None:
        return result
    before = np.asarray(old.predict(data_old), dtype=object)
    after = np.asarray(new.predict(data_new if data_new is not None else data_old), dtype=object)
    moved = before != after
    flips = Counter(f"{a} -> {b}" for a, b in zip(before[moved], after[moved]))
    return RuleDiff(result.added, result.removed, result.changed, result.unchanged,
                    dict(sorted(flips.items())), int(len(before)), int(moved.sum()))


def describe(d: RuleDiff, old: RuleSet, new: RuleSet, data: str | None = None) -> str:
    """The difference in words, one rule a line (`c45rules diff`'s text)."""
    by_old = {r.id: r for r in old.rules}
    by_new = {r.id: r for r in new.rules}
    lines = [f"Rules: {len(d.added)} added, {len(d.removed)} removed, {len(d.changed)} changed,"
             f" {len(d.unchanged)} unchanged"]
    lines += [f"  added    {by_new[i]}" for i in d.added]
    lines += [f"  removed  {by_old[i]}" for i in d.removed]
    for o, n in d.changed:
        lines.append(f"  changed  {by_old[o]}")
        lines.append(f"       to  {by_new[n]}")
    if old.default_class != new.default_class:
        lines.append(f"Default class: {old.default_class} -> {new.default_class}")
    if d.rows is not None:
        lines.append(f"Decisions on {data}: {d.decisions_changed} of {d.rows} rows change")
        lines += [f"  {pair}: {n}" for pair, n in d.flips.items()]
    return "\n".join(lines) + "\n"
