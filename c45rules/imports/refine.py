"""Reduced-error pruning of an ordered rule list against an ensemble's decisions on rows the
list was not chosen on (`from_ensemble(..., validate=N)`).

c4.5rules chooses, orders and sifts its rules on the training rows. Labelled by an ensemble,
those rows are where it is most sure of itself (a forest's trees saw most of them): a list
that matches it there can still miss how it decides between them. The ensemble labels any
row, so the list is checked on fresh rows (`near_rows`, seeded) and, greedily, the change that
gains most agreement there is made, until none gains:

* a rule is deleted when that loses no agreement (the rows it decided fall to the next rule
  that fires, or the default): a shorter list for nothing;
* a condition is dropped from a rule when that gains agreement (the rule then also decides
  rows that no earlier rule takes).

Each change's gain is found for every rule and condition at once from the first and second
firing rule of each row (as sifting counts better and worse, spec 7.9), not by re-running the
list. The default class stays fixed while pruning; `from_ensemble` chooses it again after
(spec 7.8). Conditions are thresholds on numbers (the only kind `from_ensemble` makes).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..estimate import pessimistic_rate
from ..rules.extract import THRESHOLD, CondTest
from ..rules.generalize import CandidateRule


def condition_mask(c: CondTest, values: np.ndarray) -> np.ndarray:
    """The rows of `values` (one column per attribute) that satisfy `c`: an unknown value
    satisfies no condition."""
    if c.kind != THRESHOLD:
        raise ValueError(f"only threshold conditions are checked here, not kind {c.kind}")
    x = values[:, c.attribute]
    with np.errstate(invalid="ignore"):
        return (x <= c.cut) if c.outcome == 0 else (x > c.cut)


def _fires(rule: tuple[CondTest, ...], values: np.ndarray) -> np.ndarray:
    hit = np.ones(len(values), dtype=bool)
    for c in rule:
        hit &= condition_mask(c, values)
    return hit


def _first_two(fires: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the position of the first and of the second rule that fires (-1: none)."""
    R, n = fires.shape
    first = np.full(n, -1, dtype=np.int64)
    second = np.full(n, -1, dtype=np.int64)
    for i in range(R):
        f = fires[i]
        second[f & (first >= 0) & (second < 0)] = i
        first[f & (first < 0)] = i
    return first, second


def prune_against(rules: list[CandidateRule], values: np.ndarray, decided: np.ndarray, default: int,
                  *, max_steps: int = 10_000) -> list[CandidateRule]:
    """The ordered list after greedy reduced-error pruning (module docstring) judged by
    agreement with `decided` (class codes) on the rows of `values`; `default` is the class of
    a row no rule fires on. The rules keep their numbers, covers and counts: a rule whose
    conditions changed needs them computed again (`recount`)."""
    conds = [tuple(r.conditions) for r in rules]
    klass = np.array([r.klass for r in rules], dtype=np.int64)
    masks = [[condition_mask(c, values) for c in cs] for cs in conds]
    for _ in range(max_steps):
        R = len(conds)
        if R == 0:
            break
        fires = np.array([np.logical_and.reduce(m) if m else np.ones(len(values), dtype=bool) for m in masks])
        first, second = _first_two(fires)
        decides = np.where(first >= 0, klass[np.maximum(first, 0)], default)
        instead = np.where(second >= 0, klass[np.maximum(second, 0)], default)
        right = decides == decided
        # deleting rule i: its rows go to their second rule (or the default)
        change = (instead == decided).astype(np.int64) - right
        delete_gain = np.bincount(first[first >= 0], weights=change[first >= 0], minlength=R)
        best = (-1, -1, -1.0)   # (rule, condition or -1 for the whole rule, gain)
        for i in range(R - 1, -1, -1):   # ties: the later rule, the least used
            if delete_gain[i] >= 0 and delete_gain[i] > best[2]:
                best = (i, -1, float(delete_gain[i]))
        # dropping condition j of rule i: rows it newly fires on, no earlier rule taking them
        later = (first > np.arange(R)[:, None]) | (first < 0)
        for i in range(R):
            m = masks[i]
            if len(m) < 2:
                continue   # a rule keeps one condition at least: with none it is a default
            gained_right = (klass[i] == decided).astype(np.int64) - right
            open_rows = later[i] & ~fires[i]
            for j in range(len(m)):
                rest = np.logical_and.reduce([m[k] for k in range(len(m)) if k != j])
                g = float(gained_right[rest & open_rows].sum())
                if g > 0 and g > best[2]:
                    best = (i, j, g)
        i, j, _ = best
        if i < 0:
            break
        if j < 0:
            del conds[i], masks[i]
            klass = np.delete(klass, i)
            rules = rules[:i] + rules[i + 1:]
        else:
            conds[i] = conds[i][:j] + conds[i][j + 1:]
            masks[i] = masks[i][:j] + masks[i][j + 1:]
            rules = rules[:i] + [replace(rules[i], conditions=conds[i])] + rules[i + 1:]
    return rules


def recount(rule: CandidateRule, values: np.ndarray, y: np.ndarray, cf: float) -> CandidateRule:
    """`rule` with its cover of the training rows `values` (classes `y`), its counts and its
    pessimistic error rate (spec 7.3) computed for its conditions."""
    cover = np.flatnonzero(_fires(rule.conditions, values)).astype(np.int32)
    n = len(cover)
    errors = int((y[cover] != rule.klass).sum())
    error = float(np.float32(pessimistic_rate(n, errors, cf))) if n else 1.0
    return replace(rule, cases=cover, covered=float(n), errors=float(errors), error=error)
