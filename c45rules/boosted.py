"""BoostedRuleSet: the rulesets of boosting trials, voting. The hub of a boosted model.

Semantics (one policy for predict and every export):
- each trial is an ordinary RuleSet and decides a case as RuleSet.predict does: its first
  firing rule, else its default class;
- the trial votes for the class it decided with the confidence of that decision
  (RuleSet.decision_confidences: the rule's confidence, or the default's Laplace share);
- a class's total is the sum of the votes it received, added in trial order starting from 0.0
  (so an export that adds one CASE term per trial, left to right, in IEEE double gets the same
  bits);
- the class with the highest total wins; a tie goes to the class listed first in the schema;
- the decision's confidence is the winner's total over the sum of all the votes (in trial order).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .data.schema import Dataset, Schema
from .errors import InputError
from .ruleset import Explanation, RuleSet, encode_cases


@dataclass(frozen=True)
class Vote:
    """One trial's say on a case: its decision explained, the class and the vote's weight."""

    trial: int                  # 1-based
    explanation: Explanation
    weight: float


@dataclass(frozen=True)
class BoostedExplanation:
    """Why a case got its class from a boosted model: every trial's vote and the totals."""

    prediction: str
    votes: tuple[Vote, ...]
    totals: tuple[tuple[str, float], ...]      # (class, total) in schema order

    @property
    def confidence(self) -> float:
        """The winner's total over the sum of every vote (added in trial order), as predict_confidence."""
        everything = 0.0
        for v in self.votes:
            everything += v.weight
        return dict(self.totals)[self.prediction] / everything

    def __str__(self) -> str:
        lines = [f"class {self.prediction} by the vote of {len(self.votes)} trials"
                 f" (confidence {self.confidence:.6g}):"]
        for v in self.votes:
            e = v.explanation
            if e.rule is None:
                lines.append(f"  trial {v.trial}: {e.prediction} by its default class (no rule fired),"
                             f" vote {v.weight:.6g}")
                continue
            lines.append(f"  trial {v.trial}: {e.prediction} by rule {e.rule.id}, vote {v.weight:.6g}:")
            lines += [f"    {line}" for line in e.check_lines()]
        # totals that 6 digits would show alike but differ (a tie missed by a rounding) in full
        shown = [f"{t:.6g}" for _, t in self.totals]
        if len(set(shown)) < len({t for _, t in self.totals}):
            shown = [repr(t) for _, t in self.totals]
        lines.append("  totals: " + ", ".join(f"{c} {t}" for (c, _), t in zip(self.totals, shown))
                     + " (the highest wins; a tie goes to the class listed first)")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """{"class", "confidence", "votes": [{"trial", "class", "rule_id", "vote", "conditions"}],
        "totals": {class: total}}."""
        return {"class": self.prediction, "confidence": self.confidence,
                "votes": [{"trial": v.trial, "vote": v.weight, **v.explanation.as_dict()} for v in self.votes],
                "totals": {c: t for c, t in self.totals}}


@dataclass(frozen=True)
class BoostedRuleSet:
    """The rulesets of boosting trials, in trial order, voting (see the module docstring)."""

    trials: tuple[RuleSet, ...]
    options: tuple[tuple[str, Any], ...] = ()
    fingerprint: str = ""
    version: str = field(default="", compare=False)
    notes: str = ""

    def __post_init__(self) -> None:
        if not self.trials:
            raise InputError("a boosted model needs at least one trial's ruleset")
        first = self.trials[0].schema
        for t, rs in enumerate(self.trials[1:], 2):
            if rs.schema != first:
                raise InputError(f"trial {t}'s ruleset has another schema than trial 1's: the trials"
                                 " of a boosted model must describe the same data")

    @property
    def schema(self) -> Schema:
        """The data description all the trials share."""
        return self.trials[0].schema

    @property
    def options_dict(self) -> dict[str, Any]:
        """The fitting options as a dict."""
        return dict(self.options)

    def used_attributes(self) -> tuple[str, ...]:
        """Names of the attributes any trial's rules test, in schema order."""
        used = {a for rs in self.trials for a in rs.used_attributes()}
        return tuple(a for a in self.schema.names if a in used)

    def _encode(self, data: Any) -> Dataset:
        return encode_cases(data, self.schema, self.used_attributes())

    def trial_index(self, data: Any) -> np.ndarray:
        """(cases, trials): each trial's rule_index (1-based position of its firing rule, 0 = default)."""
        ds = self._encode(data)
        return np.stack([rs.rule_index(ds) for rs in self.trials], axis=1) if ds.n else \
            np.zeros((0, len(self.trials)), dtype=np.int64)

    def trial_rules(self, data: Any) -> np.ndarray:
        """(cases, trials): the id of each trial's deciding rule, 0 where its default class decided."""
        pos = self.trial_index(data)
        return np.stack([rs.rule_ids()[pos[:, t]] for t, rs in enumerate(self.trials)], axis=1) \
            if len(pos) else pos

    def _ballots(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(class code, vote weight) per case and trial, for rule_index positions `pos`."""
        classes = self.schema.classes
        codes = np.empty(pos.shape, dtype=np.int64)
        weights = np.empty(pos.shape, dtype=float)
        for t, rs in enumerate(self.trials):
            decided = np.array([classes.index(rs.default_class)] + [classes.index(r.prediction) for r in rs.rules],
                               dtype=np.int64)
            codes[:, t] = decided[pos[:, t]]
            weights[:, t] = rs.decision_confidences()[pos[:, t]]
        return codes, weights

    def _tally(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(class totals (cases, classes), sum of all votes per case), added in trial order."""
        codes, weights = self._ballots(pos)
        n = len(pos)
        totals = np.zeros((n, len(self.schema.classes)))
        everything = np.zeros(n)
        rows = np.arange(n)
        for t in range(len(self.trials)):
            totals[rows, codes[:, t]] += weights[:, t]
            everything += weights[:, t]
        return totals, everything

    def votes(self, data: Any) -> np.ndarray:
        """(cases, classes): each class's total vote, columns in schema.classes order."""
        return self._tally(self.trial_index(data))[0]

    def predict(self, data: Any) -> np.ndarray | str:
        """Predicted class per case (a str for a single mapping): the highest total, ties to the first class."""
        totals = self.votes(data)
        out = np.array(self.schema.classes, dtype=object)[np.argmax(totals, axis=1)] if len(totals) else \
            np.array([], dtype=object)
        return out[0] if isinstance(data, Mapping) else out

    def predict_confidence(self, data: Any) -> np.ndarray:
        """The winner's total over the sum of every vote, per case."""
        totals, everything = self._tally(self.trial_index(data))
        return totals.max(axis=1) / everything if len(totals) else np.zeros(0)

    def predict_proba(self, data: Any) -> np.ndarray:
        """Each class's share of the votes (columns in schema.classes order)."""
        totals, everything = self._tally(self.trial_index(data))
        return totals / everything[:, None]

    def explain(self, case: Mapping[str, Any], *, read: Any = None) -> BoostedExplanation:
        """Every trial's vote on one case (its deciding rule or default) and the class totals."""
        exps = [rs.explain(case, read=read) for rs in self.trials]
        # each explanation names its deciding rule; the ballots need its position in the list
        pos = np.array([[0 if e.rule is None else rs.rules.index(e.rule) + 1
                         for e, rs in zip(exps, self.trials)]], dtype=np.int64)
        _, weights = self._ballots(pos)
        totals, _ = self._tally(pos)
        classes = self.schema.classes
        votes = tuple(Vote(t + 1, e, float(weights[0, t])) for t, e in enumerate(exps))
        return BoostedExplanation(classes[int(np.argmax(totals[0]))], votes,
                                  tuple((c, float(totals[0, k])) for k, c in enumerate(classes)))

    def __str__(self) -> str:
        parts = []
        for t, rs in enumerate(self.trials, 1):
            parts.append(f"trial {t}:\n{rs}")
        return "\n\n".join(parts)
