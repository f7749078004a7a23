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
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..model.boosted import BoostedRuleSet
from ..model.ruleset import Condition, Rule, RuleSet, readable


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
    # "rule A -> rule B": rows among those whose class changed (0: the default class), when the
    # decisions' rules are known (`audit --compare`)
    rule_flips: dict[str, int] | None = None

    def as_json(self) -> dict[str, Any]:
        """The JSON document of `c45rules diff --json`."""
        out: dict[str, Any] = {"rules": {
            "added": list(self.added), "removed": list(self.removed),
            "changed": [{"old_id": o, "new_id": n} for o, n in self.changed],
            "unchanged": len(self.unchanged)}}
        if self.rows is not None:
            out["decisions"] = {"rows": self.rows, "changed": self.decisions_changed, "flips": dict(self.flips)}
            if self.rule_flips is not None:
                out["decisions"]["rule_flips"] = dict(self.rule_flips)
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
    return replace(result, **_decisions(old, new, data_old, data_new))


def _decisions(old: Any, new: Any, data_old: Any, data_new: Any) -> dict[str, Any]:
    """{flips, rows, decisions_changed}: the rows whose decision differs between the two models."""
    before = np.asarray(old.predict(data_old), dtype=object)
    after = np.asarray(new.predict(data_new if data_new is not None else data_old), dtype=object)
    moved = before != after
    flips = Counter(_flip(a, b) for a, b in zip(before[moved], after[moved]))
    return {"flips": dict(sorted(flips.items())), "rows": int(len(before)), "decisions_changed": int(moved.sum())}


def _flip(old_class: Any, new_class: Any) -> str:
    return f"{readable(old_class)} -> {readable(new_class)}"


def decision_changes(counts: dict[tuple[Any, int, Any, int], int]) -> dict[str, Any]:
    """{flips, rule_flips, rows, decisions_changed} (RuleDiff's fields) from counted decision
    pairs: (old class, old rule id, new class, new rule id) -> rows, as `audit --compare`
    counts a champion's and a challenger's decisions of the same records (rule id 0: the
    default class). A row changes when its class does; rule_flips says which rules those were."""
    flips: Counter = Counter()
    rule_flips: Counter = Counter()
    for (old_class, old_rule, new_class, new_rule), n in counts.items():
        if old_class != new_class:
            flips[_flip(old_class, new_class)] += n
            rule_flips[f"rule {old_rule} -> rule {new_rule}"] += n
    return {"flips": dict(sorted(flips.items())), "rows": int(sum(counts.values())),
            "decisions_changed": int(sum(flips.values())),
            # the most frequent first: where the two models disagree most
            "rule_flips": dict(sorted(rule_flips.items(), key=lambda kv: (-kv[1], kv[0])))}


@dataclass(frozen=True)
class BoostedDiff:
    """The difference between two models of which one at least is boosted: a RuleDiff per trial
    (trial t of the old model against trial t of the new; a single ruleset is one trial, and a
    trial only one side has is all added or all removed), and with data the vote's decisions."""

    trials: tuple[RuleDiff, ...]
    old_trials: int
    new_trials: int
    flips: dict[str, int] = field(default_factory=dict)
    rows: int | None = None
    decisions_changed: int | None = None

    def as_json(self) -> dict[str, Any]:
        """{"trials": [{"trial", "rules": {...}}], "old_trials", "new_trials", "decisions"}."""
        out: dict[str, Any] = {"trials": [{"trial": t, **d.as_json()} for t, d in enumerate(self.trials, 1)],
                               "old_trials": self.old_trials, "new_trials": self.new_trials}
        if self.rows is not None:
            out["decisions"] = {"rows": self.rows, "changed": self.decisions_changed, "flips": dict(self.flips)}
        return out


def _trials(model: RuleSet | BoostedRuleSet) -> tuple[RuleSet, ...]:
    return model.trials if isinstance(model, BoostedRuleSet) else (model,)


def diff_models(old: RuleSet | BoostedRuleSet, new: RuleSet | BoostedRuleSet, data_old: Any = None,
                data_new: Any = None) -> RuleDiff | BoostedDiff:
    """diff_rulesets of two rulesets; a BoostedDiff, trial by trial, when either model is boosted;
    regression models are compared by govern/regression_diff.py (InputError here)."""
    from ..errors import InputError
    from ..model.regression import RegressionModel
    if isinstance(old, RegressionModel) or isinstance(new, RegressionModel):
        raise InputError("regression models are compared by c45rules.govern.regression_diff.diff_regression")
    if not isinstance(old, BoostedRuleSet) and not isinstance(new, BoostedRuleSet):
        return diff_rulesets(old, new, data_old, data_new)
    olds, news = _trials(old), _trials(new)
    per = []
    for t in range(max(len(olds), len(news))):
        a = olds[t] if t < len(olds) else replace(news[t], rules=())
        b = news[t] if t < len(news) else replace(olds[t], rules=())
        per.append(diff_rulesets(a, b))
    out = BoostedDiff(tuple(per), len(olds), len(news))
    return out if data_old is None else replace(out, **_decisions(old, new, data_old, data_new))


def describe_models(d: RuleDiff | BoostedDiff, old: RuleSet | BoostedRuleSet, new: RuleSet | BoostedRuleSet,
                    data: str | None = None) -> str:
    """describe, or for a BoostedDiff each trial's rule changes and then the vote's decisions."""
    if isinstance(d, RuleDiff):
        return describe(d, old, new, data)
    olds, news = _trials(old), _trials(new)
    lines = [f"Trials: {d.old_trials} -> {d.new_trials}"]
    for t, td in enumerate(d.trials):
        if t >= len(olds) or t >= len(news):
            lines.append(f"Trial {t + 1}: only in the {'new' if t >= len(olds) else 'old'} model")
            continue
        lines.append(f"Trial {t + 1}:")
        lines += ["  " + line for line in _rule_lines(td, olds[t], news[t])]
    lines += _decision_lines(d, data)
    return "\n".join(lines) + "\n"


def describe(d: RuleDiff, old: RuleSet, new: RuleSet, data: str | None = None) -> str:
    """The difference in words, one rule a line (`c45rules diff`'s text)."""
    return "\n".join(_rule_lines(d, old, new) + _decision_lines(d, data)) + "\n"


def _rule_lines(d: RuleDiff, old: RuleSet, new: RuleSet) -> list[str]:
    """The rules added, removed and changed, and the default class when it changed."""
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
        lines.append(f"Default class: {readable(old.default_class)} -> {readable(new.default_class)}")
    return lines


def _decision_lines(d: RuleDiff | BoostedDiff, data: str | None) -> list[str]:
    """How many rows of `data` change decision, by class pair (none without data)."""
    if d.rows is None:
        return []
    lines = ([f"Decisions on {data}: {d.decisions_changed} of {d.rows} rows change"]
             + [f"  {pair}: {n}" for pair, n in d.flips.items()])
    if getattr(d, "rule_flips", None):
        lines += ["  by rule (old -> new):"] + [f"    {pair}: {n}" for pair, n in d.rule_flips.items()]
    return lines
