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

from .coding import CODE_WEIGHT, ExceptionCoder, log_fact
from .generalize import CandidateRule
from .order import fires
from .random import GlibcRandom

EXHAUSTIVE_LIMIT = 10


class _ClassSearch:
    """State of the subset search for one class: covers, bits and the best subset seen.

    Cases are renumbered to the union of the class's covers (the others never fire). For
    the greedy and annealing searches, each toggle updates the per-case count of selected
    rules and every rule's Right/Wrong (7.6.3) only where a case's count crosses 0/1 or
    1/2, using a case -> rules index, so a step costs the size of one cover, not of all.
    A rule's exception bits after its toggle depend only on Fires, FP (FN follows) and its
    own side, Right and Wrong; most toggles of a descent take out a rule that covers no
    case alone, which leaves Fires and FP as they were, so the bits of the last
    evaluation are kept and only those of the rules the toggle touched are recomputed.
    """

    def __init__(self, rules: list[CandidateRule], bits: np.ndarray, positive: np.ndarray, n: int):
        self.rules = rules
        self.bits = bits
        self.n = n
        self.n_pos = int(positive.sum())
        # (rule, case) pairs number in the tens of millions at 1M cases: 32-bit indices
        index = np.int32 if n < 2**31 else np.int64
        covers = [r.cover if fires(r) else np.empty(0, dtype=index) for r in rules]
        glob = np.concatenate(covers).astype(index, copy=False) if covers else np.empty(0, dtype=index)
        # the covered cases, ascending, and each pair's position among them (np.unique's
        # result without sorting the pairs)
        present = np.zeros(n, dtype=bool)
        present[glob] = True
        union = np.flatnonzero(present)
        self.r_case = (np.cumsum(present, dtype=index) - 1)[glob]
        del glob, present
        self.m = len(union)
        self.pos = positive[union]
        k = len(rules)
        r_ptr = np.concatenate([[0], np.cumsum([len(c) for c in covers])]).astype(np.int64)
        self.r_bounds = r_ptr.tolist()
        self.owner = np.repeat(np.arange(k, dtype=index), np.diff(r_ptr))
        per_case = np.bincount(self.r_case, minlength=self.m)
        self.c_ptr = np.concatenate([[0], np.cumsum(per_case)]).astype(np.int64)
        # the case -> rules index, rules ascending within a case: filled rule by rule (a
        # rule's cases are distinct) rather than by sorting tens of millions of pairs
        self.c_rule = np.empty(len(self.r_case), dtype=index)
        fill = self.c_ptr[:-1].copy()
        for r in range(k):
            cases = self.r_case[self.r_bounds[r]:self.r_bounds[r + 1]]
            self.c_rule[fill[cases]] = r
            fill[cases] += 1
        self.c_neg = np.repeat(~self.pos, per_case)
        self.case_neg = ~self.pos[self.r_case]
        self.best_cost = math.inf
        self.best: np.ndarray | None = None
        self.coder = ExceptionCoder(n)

    # ---- state ------------------------------------------------------------------------
    def start(self, inside: np.ndarray) -> None:
        """Make `inside` the current subset and compute counts from scratch."""
        self.inside = inside.copy()
        self.size = int(inside.sum())
        self.signed_bits = np.where(inside, -1, 1) * self.bits
        member = self.inside[self.owner]                 # per (rule, case) pair
        self.count = np.bincount(self.r_case[member], minlength=self.m).astype(np.int32)
        fired = self.count > 0
        self.fires = int(fired.sum())
        self.fp = int((fired & ~self.pos).sum())
        alone = self.count[self.r_case] == member
        k = len(self.rules)
        self.alone = np.bincount(self.owner[alone], minlength=k)                     # Right + Wrong
        self.wrong = np.bincount(self.owner[alone & self.case_neg], minlength=k)
        self.exc = np.zeros(k)
        self.exc_for: tuple[int, int] | None = None     # (Fires, FP) self.exc was computed at
        self.subset_exc = 0.0                           # ExceptionBits of the subset itself there
        self.touched: list[np.ndarray] = []
        self.toggled: list[int] = []

    def toggle(self, r: int) -> None:
        """Add rule r to the subset or take it out, updating counts incrementally."""
        lo, hi = self.r_bounds[r], self.r_bounds[r + 1]
        cases = self.r_case[lo:hi]
        c = self.count[cases]
        adding = not self.inside[r]
        if adding:
            self.count[cases] = c + 1
            crossing = c                    # 0: case newly fires, 1: r joins the one rule on it
        else:
            self.count[cases] = c - 1
            crossing = c - 1                # 0: case stops firing, 1: one rule is left on it
        newly = crossing == 0
        n_newly = int(np.count_nonzero(newly))
        if n_newly:
            n_fp = int(np.count_nonzero(newly & self.case_neg[lo:hi]))
            self.fires += n_newly if adding else -n_newly
            self.fp += n_fp if adding else -n_fp
        # the rules whose Right/Wrong change: on a case crossing 0/1 the non-selected ones,
        # on one crossing 1/2 the one other selected rule (r itself is the same on both sides)
        near = crossing <= 1
        hit = cases[near]
        if hit.size:
            starts = self.c_ptr[hit]
            lens = self.c_ptr[hit + 1] - starts
            ends = np.cumsum(lens)
            at = np.arange(int(ends[-1])) + np.repeat(starts - (ends - lens), lens)
            others = self.c_rule[at]
            keep = (self.inside[others] == np.repeat(crossing[near] == 1, lens)) & (others != r)
            others, negative = others[keep], self.c_neg[at][keep]
            step = -1 if adding else 1
            np.add.at(self.alone, others, step)
            np.add.at(self.wrong, others[negative], step)
            self.touched.append(others)
        self.toggled.append(r)
        self.inside[r] = adding
        self.signed_bits[r] = -self.signed_bits[r]
        self.size += 1 if adding else -1

    def evaluate(self) -> np.ndarray:
        """Cost of the current subset (remembered if best) and the gain of toggling each rule.

        Spec 7.6.3 defines each rule's Value from the cost with and without it; the change
        the search looks at (-Value for a rule inside, +Value outside) is in both cases
        Cost(S) minus the estimated cost after the toggle, computed here in one pass.
        """
        inside = self.inside
        fires, fp = self.fires, self.fp
        fn = self.n_pos - (fires - fp)
        moved = self.alone > 0
        if self.exc_for == (fires, fp):
            todo = np.concatenate([*self.touched, np.array(self.toggled, dtype=np.int64)])
            todo = todo[moved[todo]]
        else:
            todo = np.flatnonzero(moved)
            self.exc_for = (fires, fp)
            self.subset_exc = float(self.coder.bits(fires, fp, fn))
        self.touched, self.toggled = [], []
        size = self.size
        rb = float(np.compress(inside, self.bits).sum()) - log_fact(size)
        cost = CODE_WEIGHT * rb + self.subset_exc
        if cost < self.best_cost:
            self.best_cost, self.best = cost, inside.copy()
        if todo.size:
            sg = np.where(inside[todo], -1, 1)
            alone, wrong = self.alone[todo], self.wrong[todo]
            self.exc[todo] = self.coder.subset_bits(fires + sg * alone, fp + sg * wrong, fn - sg * (alone - wrong))
        lg = lambda x: math.log2(x) if x > 0 else 0.0  # noqa: E731
        after = CODE_WEIGHT * (rb + self.signed_bits + np.where(inside, lg(size), -lg(size + 1)))
        # a rule that alone covers nothing leaves the exception bits as they are
        exc = np.where(moved, self.exc, cost - CODE_WEIGHT * rb)
        return cost - (after + exc)

    def hill_climb(self, inside: np.ndarray) -> None:
        self.start(inside)
        while True:
            change = self.evaluate()
            r = int(np.argmax(change))
            if change[r] <= 0:
                return
            self.toggle(r)

    def exhaustive(self) -> None:
        k = len(self.rules)
        mask = np.zeros(self.m, dtype=np.int64)
        np.bitwise_or.at(mask, self.r_case, 1 << self.owner)
        pos_hist = np.bincount(mask[self.pos], minlength=1 << k)
        neg_hist = np.bincount(mask[~self.pos], minlength=1 << k)
        subsets = np.arange(1 << k)
        overlap = (subsets[:, None] & subsets[None, :]) != 0          # [subset, case mask]
        tp = overlap @ pos_hist
        fp = overlap @ neg_hist
        fires = tp + fp
        fn = self.n_pos - tp
        member = ((subsets[:, None] >> np.arange(k)[None, :]) & 1).astype(bool)
        sizes = member.sum(axis=1)
        theory = CODE_WEIGHT * (member @ self.bits - np.array([log_fact(int(s)) for s in sizes]))
        costs = theory + self.coder.bits(fires, fp, fn)
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
        self.start(np.zeros(k, dtype=bool))
        temperature = 1000.0
        while temperature > 0.001:
            changes = self.evaluate()
            accepted = False
            for _ in range(100):
                r = min(int(k * rng.uniform()), k - 1)
                change = changes[r]
                if change > 0 or rng.uniform() < math.exp(change / temperature):
                    self.toggle(r)
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
