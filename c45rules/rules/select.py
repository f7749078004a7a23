"""Selecting a subset of rules per class by description length (c4.5rules ConstructRuleset, 7.6).

A class's candidate rules are scored by Cost(S) = theory bits of S (weighted 0.5, credited
for order) + exception bits of S's false positives and negatives over all training cases.
<= 10 rules: every subset is costed at once from a histogram of which rules cover each case.
More: repeated greedy hill-climbing (or simulated annealing) from random starts drawn from
glibc's random() stream, with each rule's value computed for all rules in one pass.
"""
from __future__ import annotations

import math

import numpy as np

from .coding import CODE_WEIGHT, exception_bits, log_fact
from .generalize import CandidateRule
from .random import GlibcRandom

EXHAUSTIVE_LIMIT = 10


class _ClassSearch:
    """State of the subset search for one class: covers, bits and the best subset seen."""

    def __init__(self, rules: list[CandidateRule], bits: np.ndarray, positive: np.ndarray, n: int):
        self.rules = rules
        self.bits = bits
        self.positive = positive                      # bool per training case: of this class
        self.n = n
        self.n_pos = int(positive.sum())
        covers = [r.cover if r.error <= 0.7 else np.empty(0, dtype=np.int64) for r in rules]
        self.case = np.concatenate(covers) if covers else np.empty(0, dtype=np.int64)
        self.owner = np.repeat(np.arange(len(rules)), [len(c) for c in covers])
        self.case_pos = positive[self.case]
        self.best_cost = math.inf
        self.best: np.ndarray | None = None

    def cost(self, fires: float, fp: float, fn: float, inside: np.ndarray) -> float:
        k = int(inside.sum())
        theory = CODE_WEIGHT * (float(self.bits[inside].sum()) - log_fact(k))
        return theory + float(exception_bits(self.n, fires, fp, fn))

    def evaluate(self, inside: np.ndarray) -> tuple[float, np.ndarray]:
        """Cost of the subset `inside` (remembered if best) and each rule's value (7.6.3)."""
        count = np.bincount(self.case[inside[self.owner]], minlength=self.n)
        fired = count > 0
        fires = int(fired.sum())
        fp = int((fired & ~self.positive).sum())
        fn = self.n_pos - (fires - fp)
        cost = self.cost(fires, fp, fn, inside)
        if cost < self.best_cost:
            self.best_cost, self.best = cost, inside.copy()
        alone = count[self.case] == np.where(inside[self.owner], 1, 0)
        k = len(self.rules)
        right = np.bincount(self.owner, weights=alone & self.case_pos, minlength=k)
        wrong = np.bincount(self.owner, weights=alone & ~self.case_pos, minlength=k)
        size = int(inside.sum())
        rb = float(self.bits[inside].sum()) - log_fact(size)
        lg = lambda x: math.log2(x) if x > 0 else 0.0  # noqa: E731
        without = exception_bits(self.n, fires - right - wrong, fp - wrong, fn + right) \
            + CODE_WEIGHT * (rb - self.bits + lg(size))
        with_r = exception_bits(self.n, fires + right + wrong, fp + wrong, fn - right) \
            + CODE_WEIGHT * (rb + self.bits - lg(size + 1))
        value = np.where(inside, without - cost, cost - with_r)
        return cost, value

    def hill_climb(self, inside: np.ndarray) -> np.ndarray:
        while True:
            _, value = self.evaluate(inside)
            change = np.where(inside, -value, value)
            r = int(np.argmax(change))
            if change[r] <= 0:
                return inside
            inside[r] = not inside[r]

    def exhaustive(self) -> None:
        k = len(self.rules)
        mask = np.zeros(self.n, dtype=np.int64)
        np.bitwise_or.at(mask, self.case, 1 << self.owner)
        hit = mask > 0
        pos_hist = np.bincount(mask[hit & self.positive], minlength=1 << k)
        neg_hist = np.bincount(mask[hit & ~self.positive], minlength=1 << k)
        subsets = np.arange(1 << k)
        overlap = (subsets[:, None] & subsets[None, :]) != 0          # [subset, case mask]
        tp = overlap @ pos_hist
        fp = overlap @ neg_hist
        fires = tp + fp
        fn = self.n_pos - tp
        member = ((subsets[:, None] >> np.arange(k)[None, :]) & 1).astype(bool)
        sizes = member.sum(axis=1)
        theory = CODE_WEIGHT * (member @ self.bits - np.array([log_fact(int(s)) for s in sizes]))
        costs = theory + exception_bits(self.n, fires, fp, fn)
        best = int(np.argmin(costs))    # ties keep the earliest subset in counting order
        self.best_cost, self.best = float(costs[best]), member[best].copy()

    def greedy(self, rng: GlibcRandom) -> None:
        k = len(self.rules)
        for trial in range(11):
            p = trial / 10.0
            inside = np.array([rng.uniform() < p for _ in range(k)], dtype=bool)
            self.hill_climb(inside)

    def anneal(self, rng: GlibcRandom) -> None:
        k = len(self.rules)
        inside = np.zeros(k, dtype=bool)
        temperature = 1000.0
        while temperature > 0.001:
            _, value = self.evaluate(inside)
            accepted = False
            for _ in range(100):
                r = min(int(k * rng.uniform()), k - 1)
                change = -value[r] if inside[r] else value[r]
                if change > 0 or rng.uniform() < math.exp(change / temperature):
                    inside[r] = not inside[r]
                    accepted = True
                    break
            if not accepted:
                break
            temperature *= 0.95
        self.hill_climb(self.best.copy())


def select_rules(rules: list[CandidateRule], bits: dict[int, float], y: np.ndarray, n_classes: int,
                 *, annealing: bool = False, seed: int | None = None) -> list[CandidateRule]:
    """The rules chosen for each class, class by class (spec 7.6)."""
    rng = GlibcRandom(1 if seed is None else seed)
    chosen: list[CandidateRule] = []
    for c in range(n_classes):
        mine = [r for r in rules if r.klass == c]
        if not mine:
            continue
        search = _ClassSearch(mine, np.array([bits[r.number] for r in mine]), y == c, len(y))
        if len(mine) <= EXHAUSTIVE_LIMIT:
            search.exhaustive()
        elif annealing:
            search.anneal(rng)
        else:
            search.greedy(rng)
        chosen.extend(r for r, keep in zip(mine, search.best) if keep)
    return chosen
