"""Ordering classes and rules, the default class, and sifting on training data (spec 7.7-7.9)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data.costs import expected_costs
from ..model.ruleset import NEVER_FIRES_ABOVE
from .generalize import CandidateRule


def fires(rule: CandidateRule) -> bool:
    """False for a rule whose error exceeds 0.7: it never matches a case (spec 7.6.1)."""
    return rule.error <= NEVER_FIRES_ABOVE


def _total(mask: np.ndarray, weights: np.ndarray | None):
    """How many cases `mask` holds, or their summed weight."""
    return int(mask.sum()) if weights is None else float(weights[mask].sum())


def order_rules(selected: list[CandidateRule], y: np.ndarray, n_classes: int,
                weights: np.ndarray | None = None, costs: np.ndarray | None = None) -> list[CandidateRule]:
    """Classes by fewest false positives (cases, or their weight; with `costs`, their cost) on
    still-uncovered cases; rules by error (7.7)."""
    covered = np.zeros(len(y), dtype=bool)
    placed: list[int] = []
    out: list[CandidateRule] = []
    by_class = {c: [r for r in selected if r.klass == c] for c in range(n_classes)}
    for _ in range(n_classes):
        best_c, best_fp = -1, None
        for c in range(n_classes):
            if c in placed:
                continue
            hit = np.zeros(len(y), dtype=bool)
            for r in by_class[c]:
                if fires(r):
                    hit[r.cover] = True
            fp = _total(hit & ~covered & (y != c),
                        weights if costs is None else (1.0 if weights is None else weights) * costs[c, y])
            if best_fp is None or fp < best_fp:
                best_c, best_fp = c, fp
        placed.append(best_c)
        rules = sorted(by_class[best_c], key=lambda r: (np.float32(r.error), r.number))
        for r in rules:
            if fires(r):
                covered[r.cover] = True
        out.extend(rules)
    return out


def default_class(ordered: list[CandidateRule], y: np.ndarray, n_classes: int,
                  weights: np.ndarray | None = None, costs: np.ndarray | None = None) -> int:
    """The class with most training cases (or weight) no rule matches; ties: more overall (7.8).
    With `costs`, the class of least expected cost on those cases, with the same ties."""
    hit = np.zeros(len(y), dtype=bool)
    for r in ordered:
        if fires(r):
            hit[r.cover] = True
    left = np.bincount(y[~hit], weights=None if weights is None else weights[~hit], minlength=n_classes)
    total = np.bincount(y, weights=weights, minlength=n_classes)
    first = -left if costs is None else expected_costs(left, costs)
    return int(min(range(n_classes), key=lambda c: (first[c], -total[c], c)))


@dataclass
class RuleUse:
    """First-hit evaluation of an ordered rule list on labelled cases (c4.5rules' table)."""

    first: np.ndarray    # position of the first firing rule per case, -1 = default
    alternative: np.ndarray    # per case, the class deciding were its first rule gone
    used: np.ndarray     # per rule
    wrong: np.ndarray
    better: np.ndarray
    worse: np.ndarray
    predicted: np.ndarray


def rule_use(classes: np.ndarray, fires: np.ndarray, covers: list[np.ndarray], y: np.ndarray,
             default: int, weights: np.ndarray | None = None) -> RuleUse:
    """Which rule decides each case, and each rule's Used/Wrong/Better/Worse counts (7.9).

    `classes[i]`, `fires[i]` and `covers[i]` (indices of the cases rule i matches) describe
    the rules in order; `y` holds the cases' true class codes; with `weights`, the counts
    are the cases' summed weights.
    """
    first, second = _first_two(covers, fires, len(y), len(classes))
    return rule_use_of(classes, first, second, y, default, weights)


def rule_use_of(classes: np.ndarray, first: np.ndarray, second: np.ndarray, y: np.ndarray,
                default: int, weights: np.ndarray | None = None) -> RuleUse:
    """rule_use from each case's first and second firing rules' positions (-1: none)."""
    k = len(classes)
    labels = np.append(np.asarray(classes, dtype=np.int64), default)
    pred = labels[first]
    alt = labels[second]
    def per_rule(mask: np.ndarray) -> np.ndarray:
        return np.bincount(first[mask], weights=None if weights is None else weights[mask], minlength=k)
    used = per_rule(first >= 0)
    wrong = per_rule((first >= 0) & (pred != y))
    differ = (first >= 0) & (alt != pred)
    better = per_rule(differ & (pred == y))
    worse = per_rule(differ & (alt == y))
    return RuleUse(first, alt, used, wrong, better, worse, pred)


def _first_two(covers: list[np.ndarray], fires: np.ndarray, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per case, the positions of the first and second firing rules that match it (-1: none).

    All at once rather than rule by rule (sifting asks again after each dropped rule: on
    income, 12 rounds of 327 rules, each rule eight small numpy calls): one sorted array of
    the keys case * k + rule, in which each case's matching rules follow one another in order."""
    first = np.full(n, -1, dtype=np.int64)
    second = np.full(n, -1, dtype=np.int64)
    live = [i for i in range(k) if fires[i] and covers[i].size]
    if not live:
        return first, second
    # 4-byte keys where they fit: a million cases' covers hold millions of entries
    key = np.concatenate([covers[i] for i in live]).astype(
        np.int32 if n * k < 2**31 else np.int64, copy=False)
    key *= k
    key += np.repeat(np.array(live, dtype=key.dtype), [covers[i].size for i in live])
    key.sort()
    case, rule = np.divmod(key, k)
    del key
    start = np.ones(len(case), dtype=bool)
    np.not_equal(case[1:], case[:-1], out=start[1:])
    first[case[start]] = rule[start]
    # the entry after a case's first is its second rule when it holds the same case
    after = np.flatnonzero(start[1:] == 0) + 1
    after = after[start[after - 1]]
    second[case[after]] = rule[after]
    return first, second


def candidate_use(rules: list[CandidateRule], y: np.ndarray, default: int,
                  weights: np.ndarray | None = None) -> RuleUse:
    """rule_use for candidate rules on the training cases they were learned from."""
    return rule_use(np.array([r.klass for r in rules], dtype=np.int64),
                    np.array([fires(r) for r in rules], dtype=bool), [r.cover for r in rules], y, default,
                    weights)


def sift_rules(rules: list[CandidateRule], y: np.ndarray, default: int,
               weights: np.ndarray | None = None,
               costs: np.ndarray | None = None) -> tuple[list[CandidateRule], list[int], RuleUse]:
    """Drop, one at a time, the first rule that does more harm than good on training data (7.9);
    with `costs`, harm and good are the costs its decisions add and save against the decisions
    that would be made without it (at unit costs: its Worse and Better counts).

    Returns the kept rules, the numbers of the dropped ones, and the kept rules' use.
    """
    rules = list(rules)
    dropped: list[int] = []
    while True:
        use = candidate_use(rules, y, default, weights)
        harm, good = (use.worse, use.better) if costs is None else _cost_change(use, y, weights, costs, len(rules))
        bad = [i for i in range(len(rules)) if harm[i] > good[i]]
        if not bad:
            return rules, dropped, use
        dropped.append(rules[bad[0]].number)
        del rules[bad[0]]


def _cost_change(use: RuleUse, y: np.ndarray, weights: np.ndarray | None, costs: np.ndarray,
                 k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per rule, what its decisions cost and what the decisions made without it would cost,
    over the cases it decides (their weights' worth)."""
    decided = use.first >= 0
    w = np.ones(len(y)) if weights is None else weights
    def per_rule(charge: np.ndarray) -> np.ndarray:
        return np.bincount(use.first[decided], weights=(w * charge)[decided], minlength=k)
    return per_rule(costs[use.predicted, y]), per_rule(costs[use.alternative, y])
