"""Reduced-error pruning of an ordered rule list against an ensemble's decisions on rows the
list was not chosen on (`from_ensemble(..., validate=N)`).

c4.5rules chooses, orders and sifts its rules on the training rows. Labelled by an ensemble,
those rows are where it is most sure of itself (a forest's trees saw most of them): a list
that matches it there can still miss how it decides between them. The ensemble labels any
row, so the list is checked on fresh rows (`near_rows`, seeded) and, greedily, the change that
gains most agreement there is made, until none gains:

* a rule is deleted when that loses no agreement (the rows it decided fall to the next rule
  that fires, or the default): a shorter list for nothing; with `judged` (from_ensemble: a
  forest, two classes), not when that neither gains nor loses agreement on the check rows but
  loses some on the rows the list was chosen on: the check rows are indifferent, those are not
  (8 binary sets, three seeds: RF 94.6% -> 95.1% held-out fidelity, 0.7 rules more, FIDELITY.md);
* a condition is dropped from a rule when that gains agreement (the rule then also decides
  rows that no earlier rule takes);
* with `bits` (from_ensemble: more than two classes), when neither is left, a rule is deleted
  when that shortens the list's description length on the check rows, as c4.5rules chooses
  its subsets (spec 7.6): a rule costs its conditions' bits (half weight, CODE_WEIGHT), the
  rows where the list and the ensemble disagree log2 C(rows, wrong) bits to say which, and
  log2(classes - 1) each to say the ensemble's class there. A rule that decides a few check
  rows rightly for many bits goes (RF, `--multi --sample 5000`: hypo 11 -> 9 rules, segment
  16 -> 13, letter 123 -> 110, at as much fidelity, FIDELITY.md).

With `train` (the training rows and the ensemble's decisions there; from_ensemble: more than two
classes), two more things hold, as they will once the list leaves the pruning:

* the default class is chosen again after every change, as spec 7.8 chooses it (the class most
  of the training rows no rule takes have), and a deletion is judged against the default chosen
  after it: a rule whose rows would make their class the default goes for nothing (RF,
  `--multi`: iris 4 / 3 / 4 rules -> 3 / 2 / 3 over three seeds, segment 13 / 16 / 15 ->
  12 / 16 / 13);
* no condition is dropped that would leave its rule's pessimistic error on the training rows
  over 0.7: recounted there, such a rule never fires (spec 7.6.1), so the agreement the drop
  gains on the check rows would be lost and the dead rule only lengthen the list (RF letter:
  7-10 of 107-115 rules were dead; with both, 81.7-83.4% -> 86.0-86.2% held-out fidelity).

With a `budget` (from_ensemble: `max_rules`, or by default with more than two classes half the
leaves of c4.5's tree on the ensemble's decisions), while the list is longer than it and no
change above is left, the rule whose deletion loses least agreement (the later on a tie) is
deleted, and the pruning goes on; no pool rule is inserted once the list is at the budget
(RF, `--multi --sample 5000`, seeds 0-2: hypo 13 -> 8 rules at seed 2, segment 16 -> 10 at
seed 1, iris 3 -> 2, at the distilled tree's fidelity or above; FIDELITY.md, h53z).

With a `pool` (from_ensemble: the generalised rules of every tree), when no change
is left, the pool rule whose insertion gains most agreement on the check rows is inserted where
it gains most, if that is at least `POOL_SHARE` of them, and the pruning goes on: the list then
also follows the ensemble where the sifted list has no rule for its decisions (8 binary sets,
three seeds, with whole one-hot attributes in the made rows: XGBoost 90.4% -> 91.0% held-out
fidelity, RF 94.5% -> 94.6%, a rule more; FIDELITY.md).

A pool rule's insertion gain is kept between searches (`_Insertions`): per pool rule and list
rule, what the pool rule would gain over the rows that rule decides now (the default too), so
inserted before the rule at position p it gains the sum from p on; after the list changes only
the rows whose decider or decision moved are counted again, compiled (imports/_pool.c), and an
inserted rule enters the pruning's state in place (`_Pruning.insert`), not a state rebuilt. A
row counts 1 where the pool rule's class is the ensemble's and the decision is not, -1 where the
decision is the ensemble's, 0 else (80d2780 counted a row wrong either way -1: with more than two
classes a rule righting some rows among others it left wrong was passed by). XGBoost income
(`--multi --sample 5000`, 8,284 pool rules x 25,000 check rows) at 1 in 5,000 with 80d2780's
counting: the same 85 insertions and rules, 104-110 -> 5.0-5.4 s CPU (h53, FIDELITY.md).

Each change's gain is found for every rule and condition at once from the first and second
firing rule of each row (as sifting counts better and worse, spec 7.9), not by re-running the
list, and after a change is redone only for the rows whose deciding rule it moved (`_Pruning`).
Without `train` the default class stays fixed while pruning; `from_ensemble` chooses it again
after (spec 7.8).
Conditions are thresholds on numbers (the only kind `from_ensemble` makes).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from ..estimate import pessimistic_rate
from ..model.ruleset import NEVER_FIRES_ABOVE
from ..rules.coding import log_fact
from ..rules.extract import THRESHOLD, CondTest
from ..rules.generalize import CandidateRule

try:   # the insertion search's counts compiled (imports/_pool.c); else numpy counts them
    from . import _pool
except ImportError:   # pragma: no cover - built without a C compiler
    _pool = None

# the least share of the check rows an inserted pool rule must gain (1 in 200: 1 in 400 added
# rules that gained on the check rows and lost on held-out rows, FIDELITY.md)
POOL_SHARE = 0.005


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
    """Per column of `fires` (rules x rows), the position of the first and of the second rule
    that fires (-1: none)."""
    n = fires.shape[1]
    if fires.shape[0] == 0:
        return np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)
    cols = np.arange(n)
    first = np.argmax(fires, axis=0)
    hit = fires[first, cols]
    rest = fires.copy()
    rest[first, cols] = False
    second = np.argmax(rest, axis=0)
    second = np.where(rest[second, cols], second, -1)
    return np.where(hit, first, -1), second


class _Pruning:
    """The state of prune_against's greedy search, updated where a change reaches, not rebuilt:
    per rule and check row, how many of the rule's conditions fail and the sum of their
    positions (with one failing, its position: the condition whose dropping makes the rule fire
    there); per row its first and second firing rule; per rule and condition the agreement that
    dropping the condition gains. Deleting a rule or dropping a condition changes the decision
    of the rows the rule took or now takes only, so only their share of the gains is redone."""

    def __init__(self, conds: list[tuple[CondTest, ...]], klass: np.ndarray, values: np.ndarray,
                 decided: np.ndarray, default: int, bits: np.ndarray | None = None, n_classes: int = 2,
                 train: tuple[np.ndarray, np.ndarray, float] | None = None) -> None:
        self.bits, self.train, self.n_classes = bits, train, n_classes
        # a row decided wrongly also says which of the other classes is the ensemble's
        self.class_bits = math.log2(max(n_classes - 1, 1))
        # column-major: a condition reads one attribute's column
        self.conds, self.klass, self.values = conds, klass, np.asfortranarray(values)
        self.decided, self.default = decided, default
        R, n = len(conds), len(values)
        self.alive = np.ones(R, dtype=bool)
        self.width = max((len(c) for c in conds), default=1)
        # int16: a rule has fewer conditions; `where` is read only where one fails (a position)
        self.failing = np.zeros((R, n), dtype=np.int16)
        self.where = np.zeros((R, n), dtype=np.int16)
        for i in range(R):
            self._tally(i)
        self.fires = self.failing == 0
        self.first, self.second = _first_two(self.fires)
        self.right = self._decides(np.arange(n)) == decided
        self.gain = np.zeros((R, self.width), dtype=np.int64)
        # drops found to leave their rule firing on no row (`train`): not made
        self.banned = np.zeros((R, self.width), dtype=bool)
        for lo in range(0, R, 64):   # a block of rules at a time: the rules x rows temporaries stay small
            self._add_gains(np.arange(n), np.arange(lo, min(R, lo + 64)), 1)
        if train is not None:
            # each training row's first and second firing rule: the default class is the one
            # most of the training rows no rule takes have (spec 7.8), as it is after the pruning
            self.t_values, self.t_y = np.asfortranarray(train[0]), np.asarray(train[1], dtype=np.int64)
            self.t_fires = np.array([_fires(c, self.t_values) for c in conds], dtype=bool).reshape(R, len(self.t_y))
            self.t_first, self.t_second = _first_two(self.t_fires)
            self.t_total = np.bincount(self.t_y, minlength=n_classes)
            self._choose_default()

    def _tally(self, i: int) -> None:
        self.failing[i] = 0
        self.where[i] = 0
        for j, c in enumerate(self.conds[i]):
            miss = ~condition_mask(c, self.values)
            self.failing[i] += miss
            self.where[i] += j * miss

    def _left(self, codes: np.ndarray) -> np.ndarray:
        """Per class, how many of `codes` are it (a class no rule has, -1: not counted)."""
        return np.bincount(codes[codes >= 0], minlength=self.n_classes)

    def _default_for(self, left: np.ndarray) -> np.ndarray:
        """Per row of `left` (class counts of the training rows no rule takes), the default
        class: the most of them, ties to the more overall, then the first (spec 7.8, order.py)."""
        score = left * (len(self.t_y) + 1) + self.t_total
        return np.argmax(score, axis=-1)

    def _choose_default(self) -> None:
        """With `train`, the default class chosen again (_default_for): if it changes, the
        gains of the check rows no rule takes are redone."""
        if self.train is None:
            return
        new = int(self._default_for(self._left(self.t_y[self.t_first < 0])))
        if new == self.default:
            return
        rows = np.flatnonzero(self.first < 0)
        alive = np.flatnonzero(self.alive)
        self._add_gains(rows, alive, -1)
        self.default = new
        self._reset(rows)
        self._add_gains(rows, alive, 1)

    def _decides(self, rows: np.ndarray) -> np.ndarray:
        f = self.first[rows]
        return np.where(f >= 0, self.klass[np.maximum(f, 0)], self.default)

    def _add_gains(self, rows: np.ndarray, rules: np.ndarray, sign: int) -> None:
        """Add (sign 1) or take away (-1) the share of `rows` in the condition-dropping gains
        of `rules`: a row counts for rule i's condition j when j is the one condition of i it
        fails and no earlier rule fires on it; it gains when i's class is the ensemble's there
        and the present decision is not, and loses in the opposite case."""
        if len(rows) == 0 or len(rules) == 0:
            return
        f = self.first[rows]
        open_ = (self.failing[np.ix_(rules, rows)] == 1) & ((f < 0) | (f > rules[:, None]))
        ri, ci = np.nonzero(open_)
        rule, row = rules[ri], rows[ci]
        w = (self.klass[rule] == self.decided[row]).astype(np.int64) - self.right[row]
        at = rule * self.width + self.where[rule, row]
        counted = np.bincount(at, weights=w, minlength=self.gain.size).astype(np.int64)
        self.gain += sign * counted.reshape(self.gain.shape)

    def deletion_gains(self) -> np.ndarray:
        """Per rule, the agreement its deletion gains (negative: loses); -inf for a deleted rule.
        With `train`, judged against the default class chosen after the deletion."""
        R, decided, first = len(self.conds), self.decided, self.first
        instead = np.where(self.second >= 0, self.klass[np.maximum(self.second, 0)], self.default)
        change = (instead == decided).astype(np.int64) - self.right
        took = first >= 0
        delete = np.bincount(first[took], weights=change[took], minlength=R)
        if self.train is not None:
            # the check rows a deleted rule leaves to no rule get the default chosen after the
            # deletion on the training rows: per rule, the class counts of the rows (training,
            # check) it leaves alone; it gains what that default agrees with beyond the present one
            chosen = self._default_for(self._left(self.t_y[self.t_first < 0])
                                       + self._alone(self.t_first, self.t_second, self.t_y))
            after = self._left(decided[first < 0]) + self._alone(first, self.second, decided)
            delete = delete + after[np.arange(R), chosen] - after[:, self.default]
        return np.where(self.alive, delete, -np.inf)

    def best(self, needed: np.ndarray | None = None) -> tuple[int, int]:
        """(rule, condition or -1 for the whole rule) of the change that gains most, (-1, -1) if
        none: a deletion that loses nothing, the later rule on a tie, except of a rule `needed`
        (a flag per rule) whose deletion neither gains nor loses; else a condition whose dropping
        gains, the earliest on a tie, taken only when it gains more than any deletion."""
        delete = self.deletion_gains()
        if needed is not None:
            delete = np.where((delete == 0) & needed, -0.5, delete)
        rule, cond, top = -1, -1, -1.0
        if self.alive.any() and delete.max() >= 0:
            top = float(delete.max())
            rule = int(np.flatnonzero(delete == top)[-1])
        elif self.alive.any() and self.bits is not None:
            # description length over the check rows: a rule costs its conditions' bits, the
            # rows where the list and the ensemble disagree the bits that say which rows and
            # which class; the rule whose deletion shortens it most goes, if one does
            n, wrong = len(self.right), int(len(self.right) - self.right.sum())
            exceptions = np.array([_which(n, wrong - int(d)) - d * self.class_bits if a else np.inf
                                   for d, a in zip(delete.tolist(), self.alive.tolist())]) - _which(n, wrong)
            shorter = exceptions - self.bits
            k = int(np.argmin(shorter))
            if shorter[k] < 0:
                rule, top = k, float(delete[k])
        sizes = np.array([len(c) for c in self.conds])
        usable = (self.alive & (sizes >= 2))[:, None] & (np.arange(self.width) < sizes[:, None])
        while True:
            drop = np.where(usable & ~self.banned, self.gain, -1)
            k = int(np.argmax(drop))
            if not (drop.flat[k] > 0 and drop.flat[k] > top):
                return rule, cond
            i, j = divmod(k, self.width)
            if self._fires_after(i, j):
                return i, j
            self.banned[i, j] = True

    def _alone(self, first: np.ndarray, second: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Per rule (rows) and class, how many of the rows it takes no other rule fires on."""
        R, C = len(self.conds), self.n_classes
        alone = (first >= 0) & (second < 0) & (codes >= 0)
        return np.bincount(first[alone] * C + codes[alone], minlength=R * C).reshape(R, C)

    def _fires_after(self, i: int, j: int) -> bool:
        """Whether rule i without condition j still fires at all: with `train`, its pessimistic
        error on those rows must stay within spec 7.6.1's bound (a rule over it never fires,
        so the agreement the drop gains on the check rows would not be had)."""
        if self.train is None:
            return True
        conds = self.conds[i][:j] + self.conds[i][j + 1:]
        return counted(conds, int(self.klass[i]), self.t_values, self.t_y, self.train[2])[3] <= NEVER_FIRES_ABOVE

    def _reset(self, rows: np.ndarray) -> None:
        self.right[rows] = self._decides(rows) == self.decided[rows]

    def delete(self, i: int) -> None:
        """Rule i leaves the list: its rows go to their next firing rule."""
        took = np.flatnonzero(self.first == i)
        moved = np.union1d(took, np.flatnonzero(self.second == i))
        everyone = np.flatnonzero(self.alive)
        self._add_gains(took, everyone, -1)
        self.alive[i] = False
        self.fires[i] = False
        self.failing[i] = -1
        self.first[moved], self.second[moved] = _first_two(self.fires[:, moved])
        self._reset(took)
        self._add_gains(took, np.flatnonzero(self.alive), 1)
        if self.train is not None:
            moved = np.flatnonzero((self.t_first == i) | (self.t_second == i))
            self.t_fires[i] = False
            self.t_first[moved], self.t_second[moved] = _first_two(self.t_fires[:, moved])
            self._choose_default()

    def drop(self, i: int, j: int) -> None:
        """Condition j of rule i goes: the rule fires on more rows, taking those no earlier rule takes."""
        self.conds[i] = self.conds[i][:j] + self.conds[i][j + 1:]
        self._tally(i)
        fires = self.failing[i] == 0
        new = np.flatnonzero(fires & ~self.fires[i])
        f = self.first[new]
        taken = (f < 0) | (f > i)
        took, behind = new[taken], new[~taken]
        others = np.flatnonzero(self.alive)
        self._add_gains(took, others, -1)
        self.second[took] = self.first[took]
        self.first[took] = i
        s = self.second[behind]
        self.second[behind] = np.where((s < 0) | (s > i), i, s)
        self.fires[i] = fires
        self._reset(took)
        self._add_gains(took, others, 1)
        self.gain[i] = 0
        self.banned[i] = False      # its conditions moved up: each is judged again
        self._add_gains(np.arange(len(self.values)), np.array([i]), 1)
        if self.train is not None:
            fires = _fires(self.conds[i], self.t_values)
            moved = np.flatnonzero(fires != self.t_fires[i])
            self.t_fires[i] = fires
            self.t_first[moved], self.t_second[moved] = _first_two(self.t_fires[:, moved])
            self._choose_default()

    def insert(self, a: int, conds: tuple[CondTest, ...], klass: int, bits: float = 0.0) -> None:
        """A rule of `conds` and `klass` (and `bits`, with `bits`) enters the list before the
        rule at position `a` (len(conds): last): the rows it fires on that no earlier rule takes
        are its, and only their share of the gains is redone, as delete and drop do."""
        self.conds.insert(a, tuple(conds))
        self.klass = np.insert(self.klass, a, klass)
        if self.bits is not None:
            self.bits = np.insert(self.bits, a, bits)
        self.alive = np.insert(self.alive, a, True)
        if len(conds) > self.width:
            pad = ((0, 0), (0, len(conds) - self.width))
            self.gain, self.banned = np.pad(self.gain, pad), np.pad(self.banned, pad)
            self.width = len(conds)
        self.gain = np.insert(self.gain, a, 0, axis=0)
        self.banned = np.insert(self.banned, a, False, axis=0)
        self.failing = np.insert(self.failing, a, 0, axis=0)
        self.where = np.insert(self.where, a, 0, axis=0)
        self._tally(a)
        fires = self.failing[a] == 0
        self.fires = np.insert(self.fires, a, fires, axis=0)
        took = _enter(fires, a, self.first, self.second)
        others = np.flatnonzero(self.alive)
        others = others[others != a]
        # took's share was added when the rules after a sat one place higher: the same share
        self._add_gains(took, others, -1)
        self.first[took] = a
        self._reset(took)
        self._add_gains(took, others, 1)
        self._add_gains(np.arange(len(self.values)), np.array([a]), 1)
        if self.train is not None:
            fires = _fires(conds, self.t_values)
            self.t_fires = np.insert(self.t_fires, a, fires, axis=0)
            self.t_first[_enter(fires, a, self.t_first, self.t_second)] = a
            self._choose_default()


def _enter(fires: np.ndarray, a: int, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """A rule entering a list before position `a` and firing on the rows `fires`: `first` and
    `second` (each row's first and second firing rule, -1 none; updated in place) moved one
    place down from `a` on and `second` set where the rule comes second; the rows it comes
    first on (their `first` is to be set to `a`, after their old share of what depends on it
    is taken away), whose `second` is now their old first."""
    for f in (first, second):
        f[f >= a] += 1
    hit = np.flatnonzero(fires)
    f = first[hit]
    took, behind = hit[(f < 0) | (f > a)], hit[(f >= 0) & (f < a)]
    second[took] = first[took]
    s = second[behind]
    second[behind] = np.where((s < 0) | (s > a), a, s)
    return took


class _Insertions:
    """The insertion search of prune_against, kept between searches: per pool rule and per
    rule of the list (by number; a column for the default), the agreement the pool rule would
    gain over the check rows that rule decides now, were they the pool rule's. Inserted before
    the list's rule at position p, a pool rule takes the rows decided from p on: its gain
    there is the sum of those columns. After a change of the list, only the rows whose
    decider or decision it changed are counted again (their old share taken away, their new
    one added), not every row for every pool rule."""

    def __init__(self, fires: np.ndarray, klass: np.ndarray, decided: np.ndarray, n: int) -> None:
        # `fires`: pool rules x check rows, bits packed along the rows (np.packbits)
        self.fires, self.klass, self.decided, self.n = fires, klass, decided, n
        # the same bits by row byte (a row's bits for every pool rule side by side): what a
        # recount of a few rows reads
        self.by_row = np.ascontiguousarray(fires.T)
        self.columns: dict[int, int] = {}      # a list rule's number -> its column; the default's is 0
        self.counts = np.zeros((len(klass), 16), dtype=np.int32)
        self.who: np.ndarray | None = None     # per row, its decider's column at the last count
        self.dec: np.ndarray | None = None     # per row, its decision at the last count
        self.inserted = np.zeros(len(klass), dtype=bool)
        self.n_classes = int(klass.max(initial=0)) + 1

    def _column(self, numbers: np.ndarray) -> np.ndarray:
        """The columns of the list rules `numbers`, new ones given one (the counts widened)."""
        for v in numbers.tolist():
            if v not in self.columns:
                self.columns[v] = len(self.columns) + 1
        if len(self.columns) + 1 > self.counts.shape[1]:
            wider = max(len(self.columns) + 1, 2 * self.counts.shape[1])
            self.counts = np.pad(self.counts, ((0, 0), (0, wider - self.counts.shape[1])))
        return np.array([self.columns[v] for v in numbers.tolist()], dtype=np.int64)

    def _weights(self, rows: np.ndarray, dec: np.ndarray) -> np.ndarray:
        """Per row of `rows` (decisions `dec`, per row of all) and class k: what the row counts
        for a pool rule of class k, 1 where k is the ensemble's class and the decision is not,
        -1 where the decision is the ensemble's and not k, else 0 (the decision is k already, or
        neither is the ensemble's: with more than two classes a wrong row can stay wrong; 80d2780
        counted it -1, so a rule putting some rows right among others it left wrong was passed by)."""
        k = np.arange(self.n_classes)
        d, e = dec[rows, None], self.decided[rows, None]
        return np.where(d == k, 0, (e == k).astype(np.int32) - (d == e)).astype(np.int32)

    def _recount(self, rows: np.ndarray, who: np.ndarray, dec: np.ndarray) -> None:
        """The counts of `rows` moved from the last count's deciders' columns and decisions
        (none at first) to `who` and `dec` (per row of all): in each pool rule firing on a row,
        its old weight taken from its old column and its new one added to its new column."""
        if len(rows) == 0:
            return
        new, cnew = self._weights(rows, dec), who[rows]
        if self.who is None:
            old, cold = np.zeros_like(new), np.zeros_like(cnew)
        else:
            old, cold = self._weights(rows, self.dec), self.who[rows]
        C = self.counts.shape[1]
        if _pool is not None:
            _pool.count(self.by_row, len(self.klass), rows, self.klass, self.n_classes, old, cold, new, cnew,
                        self.counts, C)
            return
        flat = self.counts.reshape(-1)
        step = max(1, (1 << 24) // max(len(self.klass), 1))    # rows at a time: 16M cells
        for lo in range(0, len(rows), step):
            part = slice(lo, lo + step)
            r = rows[part]
            ci, pi = np.nonzero((self.by_row[r >> 3] >> (7 - (r & 7)).astype(np.uint8)[:, None]) & 1)
            k = self.klass[pi]
            np.add.at(flat, pi * C + cold[part][ci], -old[part][ci, k])
            np.add.at(flat, pi * C + cnew[part][ci], new[part][ci, k])

    def best(self, state: _Pruning, numbers: np.ndarray, least: int) -> tuple[int, int, int]:
        """(pool rule, position, gain) of the insertion into `state`'s list (its rules'
        numbers `numbers`, by position) that gains most agreement, if that is at least `least`
        (else gain 0); on a tie the pool rule of the lower class, then the earlier pool rule,
        then the earlier position. Inserted before the rule at `position` (len(numbers): before
        the default), a rule decides the rows it fires on that no rule before it takes."""
        R, n = len(numbers), self.n
        cols = self._column(numbers)
        first = state.first
        who = np.where(first >= 0, cols[np.maximum(first, 0)], 0)
        dec = state._decides(np.arange(n))
        self._recount(np.arange(n) if self.who is None else np.flatnonzero((who != self.who) | (dec != self.dec)),
                      who, dec)
        self.who, self.dec = who, dec
        alive = np.flatnonzero(state.alive)
        # the gain before each live rule and before the default: the columns from there on
        order = np.append(cols[alive], 0)
        gain = np.cumsum(self.counts[:, order[::-1]], axis=1, dtype=np.int32)[:, ::-1]
        gain[self.inserted] = -1
        top = gain.max(axis=1)
        g = int(top.max()) if len(top) else 0
        if g < max(least, 1):
            return -1, -1, 0
        tied = np.flatnonzero(top == g)
        k = int(tied[np.lexsort((tied, self.klass[tied]))[0]])
        cut = int(np.argmax(gain[k]))
        return k, int(alive[cut]) if cut < len(alive) else R, g


def _which(n: int, k: int) -> float:
    """log2 C(n, k): the bits that say which k of n rows."""
    return log_fact(n) - log_fact(k) - log_fact(n - k)


def prune_against(rules: list[CandidateRule], values: np.ndarray, decided: np.ndarray, default: int,
                  *, max_steps: int = 10_000, bits: np.ndarray | Mapping[int, float] | None = None,
                  n_classes: int = 2,
                  train: tuple[np.ndarray, np.ndarray, float] | None = None,
                  pool: list[CandidateRule] | None = None,
                  judged: tuple[np.ndarray, np.ndarray] | None = None,
                  budget: int | None = None, share: float | None = None) -> list[CandidateRule]:
    """The ordered list after greedy reduced-error pruning (module docstring) judged by
    agreement with `decided` (class codes of `n_classes`) on the rows of `values`; `default`
    is the class of a row no rule fires on. With `bits` (each rule's coding cost, spec 7.6's
    theory part), once no change gains or costs nothing, rules are deleted while that
    shortens the description (module docstring). With `train` (training rows, the ensemble's
    class codes there, the cf of their pessimistic errors), the default class is chosen again
    as rules go and no drop leaves a rule firing nowhere (module docstring). With `pool` (rules
    numbered apart from the list's), then a pool rule is inserted where that gains at least
    `POOL_SHARE` of the rows, and the pruning goes on (module docstring). `bits` is per rule of
    `rules` or, for pool rules too, by rule number. With `budget`, rules are deleted where that
    loses least while there are more, and none is inserted beyond it. With `judged` (the rows
    the list was chosen on and their classes), a rule whose deletion neither gains nor loses
    agreement on the check rows is kept where its deletion loses agreement on those rows. The
    rules keep their numbers, covers and counts: a rule whose conditions changed, or inserted
    from the pool, needs them computed
    again (`recount`)."""
    rules = list(rules)
    if not rules:
        return rules
    inside = {r.number for r in rules}
    pool = [r for r in pool or () if r.number not in inside and all(c.kind == THRESHOLD for c in r.conditions)]
    # packed: 1 bit per pool rule and check row (a forest's thousands of paths x 8x the rows)
    fires = np.zeros((len(pool), (len(values) + 7) // 8), dtype=np.uint8)
    for k, r in enumerate(pool):
        fires[k] = np.packbits(_fires(r.conditions, values))
    klass = np.array([r.klass for r in pool], dtype=np.int64)
    if bits is not None and not isinstance(bits, Mapping):
        bits = dict(zip([r.number for r in rules], np.asarray(bits, dtype=np.float64).tolist()))
    state = _Pruning([tuple(r.conditions) for r in rules], np.array([r.klass for r in rules], dtype=np.int64),
                     values, np.asarray(decided, dtype=np.int64), default,
                     None if bits is None else np.array([bits[r.number] for r in rules]), n_classes, train)
    # the same list on the rows it was chosen on: the word on a deletion the check rows are indifferent to
    chosen = None if judged is None else _Pruning(
        [tuple(r.conditions) for r in rules], np.array([r.klass for r in rules], dtype=np.int64),
        judged[0], np.asarray(judged[1], dtype=np.int64), default, None, n_classes)
    states = (state,) if chosen is None else (state, chosen)
    search = _Insertions(fires, klass, np.asarray(decided, dtype=np.int64), len(values)) if pool else None
    least = max(math.ceil((POOL_SHARE if share is None else share) * len(values)), 1)
    # `rules` stays in step with the states' positions, deleted rules too, until the end
    steps = 0
    while True:
        while steps < max_steps:
            i, j = state.best(None if chosen is None else chosen.deletion_gains() < 0)
            if i < 0 and budget is not None and int(state.alive.sum()) > budget:
                # over the budget: the rule whose deletion loses least goes (the later on a tie)
                delete = state.deletion_gains()
                i, j = int(np.flatnonzero(delete == delete.max())[-1]), -1
            if i < 0:
                break
            steps += 1
            for st in states:
                if j < 0:
                    st.delete(i)
                else:
                    st.drop(i, j)
            if j >= 0:
                rules[i] = replace(rules[i], conditions=state.conds[i])
        if search is None or steps >= max_steps or (budget is not None and int(state.alive.sum()) >= budget):
            return [r for r, keep in zip(rules, state.alive) if keep]
        k, at, gain = search.best(state, np.array([r.number for r in rules], dtype=np.int64), least)
        if gain == 0:
            return [r for r, keep in zip(rules, state.alive) if keep]
        steps += 1
        new = pool[k]
        for st in states:
            st.insert(at, tuple(new.conditions), new.klass, 0.0 if bits is None else bits[new.number])
        rules.insert(at, new)
        search.inserted[k] = True   # in the list now: never inserted again


def counted(conditions: tuple[CondTest, ...], klass: int, values: np.ndarray, y: np.ndarray, cf: float
            ) -> tuple[np.ndarray, int, int, float]:
    """(cover, covered, errors, pessimistic error rate (spec 7.3)) of a rule of `conditions`
    and class `klass` on the rows `values` (classes `y`)."""
    cover = np.flatnonzero(_fires(conditions, values)).astype(np.int32)
    n = len(cover)
    errors = int((y[cover] != klass).sum())
    return cover, n, errors, float(np.float32(pessimistic_rate(n, errors, cf))) if n else 1.0


def recount(rule: CandidateRule, values: np.ndarray, y: np.ndarray, cf: float) -> CandidateRule:
    """`rule` with its cover of the training rows `values` (classes `y`), its counts and its
    pessimistic error rate (spec 7.3) computed for its conditions."""
    cover, n, errors, error = counted(rule.conditions, rule.klass, values, y, cf)
    return replace(rule, cases=cover, covered=float(n), errors=float(errors), error=error)
