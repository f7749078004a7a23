"""Re-score a RuleSet on labelled data: every rule's evidence recomputed, the rules kept as written.

A reviewer edits a model by hand (rounds a threshold, drops a condition, adds or reorders
rules); rescoring measures the result on data the way c4.5rules measured the learned rules:
`covered`/`errors` over every case satisfying all of a rule's conditions (unknown values
satisfy none, spec 7.3), the pessimistic error P0 at the model's rules_cf (single precision,
as generalisation keeps it), `used`/`wrong` from the first firing rule in the written order
(spec 7.11), and the cases no rule decides for the default counts. Rules keep their order,
ids, notes, conditions and classes; the default class is kept too (c4.5rules does not
recompute it after sifting, spec 7.9). On the unedited model and its own training data the
result equals the model, except for a rule whose error c4.5rules raised to a duplicate's
(spec 7.5, which compares thresholds but not <= against >): its P0 is measured anew.

A rule written by hand may leave out its `evidence` block: load_unmeasured reads the file
with an empty one there, every field of which rescoring measures.
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import numpy as np

from ..data.schema import Dataset
from ..errors import InputError
from ..export.yaml import load_yaml
from ..model.boosted import BoostedRuleSet
from ..model.ruleset import EVIDENCE_DIGITS, RuleSet, evidence_rate
from ..rules.generalize import rule_error_rates


# what a rule written without evidence is read with: rescore replaces every field
_UNMEASURED = {"covered": 0, "errors": 0, "error_rate": 0.0, "confidence": 1.0, "lift": 0.0, "used": 0, "wrong": 0}


def with_unmeasured_evidence(doc: Any) -> Any:
    """The parsed model document with an empty evidence block in each rule written without
    one (the rules of a ruleset, or of each boosted trial); the rest is left to the reader's
    checks."""
    if not isinstance(doc, dict):
        return doc
    trials = doc.get("trials")
    for holder in [doc] + (trials if isinstance(trials, list) else []):
        rules = holder.get("rules") if isinstance(holder, dict) else None
        for rule in rules if isinstance(rules, list) else []:
            if isinstance(rule, dict) and "evidence" not in rule:
                rule["evidence"] = dict(_UNMEASURED)
    return doc


def load_unmeasured(source: str | bytes | os.PathLike) -> RuleSet | BoostedRuleSet:
    """load_yaml of a model whose hand-written rules may leave out their evidence, for rescore."""
    return load_yaml(source, with_unmeasured_evidence)


def _rules_cf(ruleset: RuleSet) -> float:
    """The confidence level the model's rule errors were estimated at (c4.5rules' -c)."""
    o = ruleset.options_dict
    cf = o.get("rules_cf")
    cf = o.get("cf", 0.25) if cf is None else cf
    if not isinstance(cf, (int, float)) or isinstance(cf, bool) or not 0 < cf <= 1:
        raise InputError(f"the model's options give rules_cf/cf {cf!r}; rescoring needs a confidence"
                         " level in (0, 1]")
    return float(cf)


def rule_covers(ruleset: RuleSet, data: Dataset) -> np.ndarray:
    """(rules, cases) bool: which cases satisfy every condition of each rule (unknown: none)."""
    out = np.ones((len(ruleset.rules), data.n), dtype=bool)
    for k, rule in enumerate(ruleset.rules):
        for cond in rule.conditions:
            out[k] &= ruleset.condition_mask(cond, data)
    return out


# how the training cases were weighed: no longer true of evidence counted in whole cases
_WEIGHING = ("weights", "class_weight")


def rescore(ruleset: RuleSet | BoostedRuleSet, data: Dataset) -> RuleSet | BoostedRuleSet:
    """`ruleset` with each rule's evidence, the class and default counts and the fingerprint
    measured on `data` (labelled, encoded against the model's schema). A boosted model has
    each trial's ruleset rescored so, every case counting 1 (the trials' boosting weights were
    those of their training cases; the votes are the rules' new confidences)."""
    if isinstance(ruleset, BoostedRuleSet):
        return replace(ruleset, trials=tuple(rescore(rs, data) for rs in ruleset.trials),
                       fingerprint=data.fingerprint(),
                       options=tuple((k, v) for k, v in ruleset.options if k not in _WEIGHING))
    if data.y is None:
        raise InputError(f"{data.source}: rescoring needs the class of every case (no class column)")
    if data.n == 0:
        raise InputError(f"{data.source}: no cases to rescore on")
    schema = ruleset.schema
    C, n = len(schema.classes), data.n
    y = np.asarray(data.y, dtype=np.int64)
    class_n = np.bincount(y, minlength=C)
    klass = np.array([schema.classes.index(r.prediction) for r in ruleset.rules], dtype=np.int64)
    covers = rule_covers(ruleset, data)
    covered = covers.sum(axis=1)
    errors = (covers & (y[None, :] != klass[:, None])).sum(axis=1)
    default_errors = (1.0 - (class_n + 1.0) / (n + 2.0)).astype(np.float32)   # spec 7.3
    rates = rule_error_rates(covered, errors, default_errors[klass], _rules_cf(ruleset))
    rules = []
    for k, r in enumerate(ruleset.rules):
        error = evidence_rate(float(rates[k]))
        prior = class_n[klass[k]] / n
        lift = float(f"{(1.0 - error) / prior:.{EVIDENCE_DIGITS}g}") if prior > 0 else float("inf")
        rules.append(replace(r, covered=int(covered[k]), errors=int(errors[k]), error_rate=error, lift=lift))
    scored = replace(ruleset, rules=tuple(rules))
    first = scored.rule_index(data)        # the new errors decide which rules can fire (> 0.7: none)
    used = np.bincount(first, minlength=len(rules) + 1)
    labels = np.concatenate([[-1], klass])
    wrong = np.bincount(first[labels[first] != y], minlength=len(rules) + 1)
    rules = [replace(r, used=int(used[k + 1]), wrong=int(wrong[k + 1])) for k, r in enumerate(rules)]
    return replace(scored, rules=tuple(rules), class_counts=tuple(int(v) for v in class_n),
                   default_counts=tuple(int(v) for v in np.bincount(y[first == 0], minlength=C)),
                   fingerprint=data.fingerprint(),
                   # the evidence is now whole cases: the file no longer claims weighted counts
                   options=tuple((k, v) for k, v in ruleset.options if k not in _WEIGHING))
