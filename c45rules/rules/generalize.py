"""Generalising each candidate rule by dropping conditions (c4.5rules PruneRule, spec 7.3-7.5).

Counts are over all training cases (summed case weights when the data has them, else
whole counts), and a condition on an unknown value is false. For a rule with conditions S only cases failing at most one condition of S matter
(those failing none are covered; those failing only d decide whether d is needed). Paths
of neighbouring leaves share prefixes, so that "pool" of cases is kept on a stack along
the current tree path and narrowed one condition at a time; it gives the first round of
every rule. After a deletion the tables are recounted with bit arrays (64 cases per
word) for all remaining conditions at once. The bits number the cases leaf by leaf, depth
first, so the cases that matter to a rule crowd into few words, and only words in which
at most one condition holds for no case are looked at.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..data.schema import Dataset
from ..estimate import pessimistic_rate, rate_function, z_squared
from ..tree.node import FlatTree, Node
from ..workers import fork_map, give_back_memory, no_collection, resolve_jobs, thread_map
from .cases import PackedCases
from .extract import DISCRETE, SUBSET, THRESHOLD, CondTest, forest_table, leaf_paths, path_table

try:
    # the compiled generalisation (setup.py builds it when a C compiler is there)
    from . import _generalize as _native
except ImportError:     # pragma: no cover - depends on the install
    _native = None

F32 = np.float32


@dataclass(slots=True)
class CandidateRule:
    """A generalised rule before selection: conditions in c4.5's sorted order."""

    number: int
    conditions: tuple[CondTest, ...]
    klass: int
    error: float              # pessimistic error rate P0 (c4.5rules "Error")
    covered: float            # T0 (an int unless the cases are weighted)
    errors: float             # E0
    # the training cases it covers, ascending: an array, or packed (the compiled
    # generalisation's, 1.3 bytes a case instead of 4 at 1M cases); `cover` gives the array
    cases: np.ndarray | PackedCases = field(repr=False)

    @property
    def cover(self) -> np.ndarray:
        """Indices of the training cases it covers, ascending."""
        c = self.cases
        return c if isinstance(c, np.ndarray) else c.unpack()

    def __getstate__(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict) -> None:
        # slots since 117k rules at 1M cases held 20 MB of dicts; pickles made before
        # (a trace inside a fitted estimator) hold a dict, with the cover as "cover"
        state = dict(state)
        if "cover" in state:
            state["cases"] = state.pop("cover")
        for name in self.__slots__:
            setattr(self, name, state[name])


class _PathPools:
    """The current tree path's <=1-fail pools, and its conditions' truth bits once needed."""

    def __init__(self, data: Dataset, order: np.ndarray, columns: "_InBitOrder"):
        self.data = data
        self.n = data.n
        self.order = order       # bit position -> case: cases of a leaf are neighbours
        self.words = (self.n + 63) // 64
        self.tests: list[CondTest] = []
        self.pools: list[tuple[np.ndarray, np.ndarray]] = []   # (case indices, failed level or -1)
        self.bits = np.zeros((0, self.words), dtype=np.uint64)     # row j: level j's truth, 64 cases a word
        self.empty = np.zeros((0, self.words), dtype=np.uint8)    # row j: 1 where a word has no case true
        self.cum = np.zeros((0, self.words), dtype=np.uint8)      # row j: empty rows 0..j summed
        self.built = 0           # levels with their rows filled
        self.valid = self.pack(np.ones(self.n, dtype=bool))
        self.row_test: list[CondTest | None] = []    # whose truth each row holds
        self._columns = columns      # attribute -> its values in bit order (shared by all runs)
        self._known: dict[int, np.ndarray] = {}
        self._by_value: dict[tuple, np.ndarray] = {}
        self._wrong: dict[int, np.ndarray] = {}
        # weighted cases: each bit position's weight (padding 0), so that a table's counts
        # are sums of weights over the set bits instead of bit counts; the compiled sums
        # read them as whole numbers of one small unit (None: math.fsum adds them)
        self.weight_bits: np.ndarray | None = None
        self.grains: tuple[bytes, int] | None = None
        if data.weights is not None:
            self.weight_bits = np.zeros(self.words * 64)
            self.weight_bits[: self.n] = data.weights[order]
            if _native is not None:
                self.grains = _native.weight_grains(self.weight_bits)

    def pack(self, mask: np.ndarray) -> np.ndarray:
        """A boolean array over the bit positions as uint64 words (padding bits 0)."""
        out = np.zeros(self.words * 8, dtype=np.uint8)
        b = np.packbits(mask, bitorder="little")
        out[: len(b)] = b
        return out.view(np.uint64)

    def unpack(self, words: np.ndarray, at: np.ndarray) -> np.ndarray:
        """Cases whose bit is set in `words` (the words at positions `at`), ascending."""
        nz = np.flatnonzero(words)
        rows, cols = np.nonzero(np.unpackbits(words[nz].view(np.uint8), bitorder="little").reshape(-1, 64))
        return np.sort(self.order[at[nz][rows] * 64 + cols])

    def wrong_bits(self, y: np.ndarray, target: int) -> np.ndarray:
        """Cases not of class `target`, as bits (cached per class)."""
        if target not in self._wrong:
            self._wrong[target] = self.pack(y[self.order] != target)
        return self._wrong[target]

    def build(self) -> None:
        """Fill the truth rows of the path's levels that lack them."""
        m = len(self.tests)
        if m > len(self.bits):
            grow = max(m, 2 * len(self.bits))
            self.bits = np.resize(self.bits, (grow, self.words))
            self.empty = np.resize(self.empty, (grow, self.words))
            self.cum = np.resize(self.cum, (grow, self.words))
            self.row_test += [None] * (grow - len(self.row_test))
        for j in range(self.built, m):
            t = self.tests[j]
            a = t.attribute
            before = self.row_test[j]
            if (t.kind == THRESHOLD and before is not None and before.node == t.node
                    and before.outcome != t.outcome):
                # the other branch of the same test (row j still holds it, depth first):
                # its complement among the cases with a known value
                if a not in self._known:
                    self._known[a] = self.pack(~np.isnan(self._columns[a]))
                np.bitwise_and(~self.bits[j], self._known[a], out=self.bits[j])
            elif t.kind == THRESHOLD:
                self.bits[j] = self.pack(t.holds(self._columns[a]))
            else:
                # a discrete or subset test depends on the attribute and values only, and
                # recurs all over the tree
                key = (a, t.outcome if t.kind == DISCRETE else t.values)
                if key not in self._by_value:
                    self._by_value[key] = self.pack(t.holds(self._columns[a]))
                self.bits[j] = self._by_value[key]
            self.row_test[j] = t
            np.equal(self.bits[j], 0, out=self.empty[j], casting="unsafe")
            if j:
                np.add(self.cum[j - 1], self.empty[j], out=self.cum[j])
            else:
                self.cum[j] = self.empty[j]
        self.built = m

    def tables(self, levels: list[int], wrong: np.ndarray, empties: np.ndarray | None):
        """T0/E0 and, per level, Td/Ed: counts of cases satisfying all levels but it (bit counts).

        Only words where at most one level has no true case can hold such cases (`empties`:
        per word, how many of the levels have none; the path's running sum less the deleted
        levels' rows). The cases satisfying all levels but l are the AND of the levels
        before l and those after it.
        """
        rows = np.array(levels)
        r = len(rows)
        if r == 1:
            at = np.arange(self.words)
            excl = np.vstack([self.valid, self.bits[rows[0]]])
        else:
            at = np.flatnonzero(empties <= 1)
            # gathered straight from the flat array: no copy of the levels' whole rows
            sat = self.bits.reshape(-1).take((rows * self.words)[:, None] + at)
            # row l: levels other than l; row r: all levels. Row-by-row: accumulate along
            # the short axis is slower than r calls on these sizes
            excl = np.empty((r + 1, len(at)), dtype=np.uint64)
            after = np.empty_like(sat)
            after[r - 1] = sat[r - 1]
            for k in range(r - 2, 0, -1):
                np.bitwise_and(after[k + 1], sat[k], out=after[k])
            excl[0] = after[1]
            before = excl[r]
            before[:] = sat[0]
            for k in range(1, r - 1):
                np.bitwise_and(before, after[k + 1], out=excl[k])
                before &= sat[k]
            excl[r - 1] = before
            before &= sat[r - 1]
        covered = excl[r].copy()
        td = self.count(excl, at)
        excl &= wrong[at]
        ed = self.count(excl, at)
        return td[r], ed[r], td[:r], ed[:r], (covered, at)

    def count(self, rows: np.ndarray, at: np.ndarray) -> list:
        """Per row of words (the words at positions `at`): its cases' number, or summed weight.

        A summed weight is exact, rounded once (math.fsum's value), so that it is the same
        on every machine (a BLAS dot product's order depends on the CPU and its thread count)."""
        if self.weight_bits is None:
            return np.bitwise_count(rows).sum(axis=1).tolist()
        if self.grains is not None:
            return _native.weight_sums(np.ascontiguousarray(rows), np.ascontiguousarray(at, dtype=np.int64),
                                       *self.grains)
        bits = np.unpackbits(rows.view(np.uint8), axis=1, bitorder="little").astype(bool)
        w = self.weight_bits.reshape(-1, 64)[at].reshape(-1)
        return [math.fsum(w[b].tolist()) for b in bits]

    def follow(self, path: tuple[CondTest, ...]) -> None:
        """Make `path` the current path, narrowing the pools of the levels it does not share."""
        keep = 0
        while keep < min(len(path), len(self.tests)) and path[keep] is self.tests[keep]:
            keep += 1
        del self.tests[keep:], self.pools[keep:]
        self.built = min(self.built, keep)
        for t in path[keep:]:
            j = len(self.tests)
            if j == 0:
                sat = t.satisfied(self.data)
                cand = np.arange(self.n, dtype=np.int64)
                failed = np.where(sat, -1, 0).astype(np.int32)
            else:
                cand, failed = self.pools[-1]
                s = t.holds(self.data.columns[t.attribute][cand])
                ok = (failed < 0) | s
                failed = np.where((failed < 0) & ~s, j, failed)[ok]
                cand = cand[ok]
            self.tests.append(t)
            self.pools.append((cand, failed))


def _leaf_order(leaves: list[tuple[tuple[CondTest, ...], Node]], data: Dataset) -> np.ndarray:
    """The cases ordered leaf by leaf, depth first (then any reaching no leaf).

    Cases satisfying most conditions of a rule then share few 64-case words. A node's last
    branch takes every case no earlier branch took, those with an unknown value of the tested
    attribute among them, so that they sit with the cases sharing the rest of their path.
    """
    paths = [p for p, _ in leaves]
    # last[i][j]: leaf i's branch at level j is its node's last (the compiled leaf_order's)
    last: list[list[bool]] = [[] for _ in paths]
    for i in range(len(paths) - 1, -1, -1):
        p, shared = paths[i], -1
        if i + 1 < len(paths):
            q, shared = paths[i + 1], 0
            while shared < min(len(p), len(q)) and p[shared] is q[shared]:
                shared += 1
        last[i] = [last[i + 1][j] if j < shared else j != shared for j in range(len(p))]
    tests: list[CondTest] = []
    rest = [np.arange(data.n, dtype=np.int64)]   # rest[j]: level j's node's cases no branch took yet
    parts = []
    for i, path in enumerate(paths):
        keep = 0
        while keep < min(len(path), len(tests)) and path[keep] is tests[keep]:
            keep += 1
        del tests[keep:], rest[keep + 1:]
        for j in range(keep, len(path)):
            t, idx = path[j], rest[j]
            if last[i][j]:
                mine, rest[j] = idx, idx[:0]
            else:
                ok = t.holds(data.columns[t.attribute][idx])
                mine, rest[j] = idx[ok], idx[~ok]
            rest.append(mine)
            tests.append(t)
        if path:
            parts.append(rest[len(path)])
    order = np.concatenate(parts + [np.arange(data.n, dtype=np.int64)])
    _, first = np.unique(order, return_index=True)
    return order[np.sort(first)]


def _before(t1: CondTest, t2: CondTest) -> bool:
    # c4.5rules' comparison for sorting kept conditions (not a strict order, spec 7.3)
    return (t1.attribute < t2.attribute or t1.kind < t2.kind
            or (t1.attribute == t2.attribute and t1.cut < t2.cut))


def sort_conditions(path: tuple[CondTest, ...] | list[CondTest], kept: list[int] | None = None) -> tuple[CondTest, ...]:
    """Order the kept conditions (positions `kept` of `path`) as c4.5rules prints them (7.3).

    c4.5rules fills positions 1..kept in turn: position d takes the first "smallest" kept
    condition at or after d, swapped with whatever sits at d, deleted or not (a deleted
    one moves out to the chosen one's place). The comparison is not a strict order when
    discrete and continuous tests mix, so only this exact procedure prints what the
    reference prints (skipping deleted positions instead differed in 11 of the 1241 rules
    on the shared datasets).
    """
    arr = list(path)
    keep = set(range(len(arr)) if kept is None else kept)
    live = [j in keep for j in range(len(arr))]
    keys = [(c.attribute, c.kind, c.cut) for c in arr]
    for d in range(len(keep)):
        best, a1, k1, c1 = -1, 0, 0, 0.0
        for i in range(d, len(arr)):
            if live[i]:
                a2, k2, c2 = keys[i]
                # _before(arr[i], arr[best]) on the unpacked keys
                if best < 0 or a2 < a1 or k2 < k1 or (a2 == a1 and c2 < c1):
                    best, a1, k1, c1 = i, a2, k2, c2
        arr[d], arr[best] = arr[best], arr[d]
        keys[d], keys[best] = keys[best], keys[d]
        live[best] = live[d]
        live[d] = False
    return tuple(arr[:len(keep)])


@lru_cache(maxsize=1 << 16)
def fisher_tail(t11: int, t12: int, t21: int, t22: int) -> float:
    """One-sided Fisher exact test of a 2x2 table in c4.5rules' canonical orientation (7.4).

    Tables recur across rules and rounds: each is summed once (kept in a bounded cache)."""
    if t11 + t12 > t21 + t22:
        A, B = t11 + t12, t21 + t22
        a0, r = (t11, t11 + t21) if t11 * (t21 + t22) > t21 * (t11 + t12) else (t12, t12 + t22)
    else:
        A, B = t21 + t22, t11 + t12
        a0, r = (t21, t21 + t11) if t21 * (t11 + t12) > t11 * (t21 + t22) else (t22, t22 + t12)
    lf = math.lgamma
    total = 0.0
    for a in range(a0, min(r, A) + 1):
        if r - a > B or r - a < 0:
            continue
        total += math.exp(lf(A + 1) + lf(B + 1) + lf(r + 1) + lf(A + B - r + 1)
                          - lf(a + 1) - lf(r - a + 1) - lf(A - a + 1) - lf(B - r + a + 1) - lf(A + B + 1))
    return total


def _insignificant(t0: int, e0: int, td, ed, fisher: float) -> bool:
    """Fisher's test (7.4): some condition's table is not significant enough to keep it.

    Counts are whole (weighted cases reach here only with whole weights: the pipeline
    refuses fisher with fractional ones)."""
    t0, e0, td, ed = int(t0), int(e0), [int(v) for v in td], [int(v) for v in ed]
    return any(fisher_tail(e0, d_e - e0, t0 - e0, (d_t - t0) - (d_e - e0)) > fisher for d_t, d_e in zip(td, ed))


def _default_errors(class_n: np.ndarray, n: int) -> np.ndarray:
    """Per class, the error rate of the default rule over all cases (spec 7.3), in single precision."""
    return (1.0 - (class_n + 1.0) / (n + 2.0)).astype(F32)


def lowest_error(pd: list, skip: int | None = None) -> int:
    """The position of the lowest pessimistic error in `pd`, ties to the later condition (the
    condition a round drops), leaving out position `skip`; -1 when none is left."""
    best = -1
    for d, p in enumerate(pd):
        if d != skip and (best < 0 or p <= pd[best]):
            best = d
    return best


def drop_choice(t0: float, e0: float, td: list, ed: list, default_error: F32, rates: "_Rates",
                fisher: float | None, errors: list | None = None) -> tuple[int | None, float]:
    """One round of spec 7.3 for a rule whose remaining conditions give T0/E0 (all of them
    hold) and Td/Ed (all but condition d hold): the position of the condition to drop, or
    None to keep them all; and the rule's pessimistic error P0 as it stands. `errors`, when
    given, receives each condition's pessimistic error without it (the streamed rounds guess
    the next round's choice from them)."""
    actual, pess = rates([t0] + td, [e0] + ed, default_error)
    a0, p0 = actual[0], pess[0]
    pd = pess[1:]
    if errors is not None:
        errors[:] = pd
    low = min(pd)
    best = lowest_error(pd)
    drop = low <= p0 or min(actual[1:]) <= a0
    if fisher is not None and not drop:
        drop = _insignificant(t0, e0, td, ed, fisher)
    return (best if drop else None), p0


def _last_lowest(pd: np.ndarray) -> np.ndarray:
    """Per row of `pd` (rules x conditions, +inf past a rule's own), the position of its lowest
    value, ties to the later one: lowest_error's choice, a row at a time."""
    return pd.shape[1] - 1 - np.argmin(pd[:, ::-1], axis=1)


def drop_choices(t0: np.ndarray, e0: np.ndarray, td: np.ndarray, ed: np.ndarray, width: np.ndarray,
                 default_error: np.ndarray, rates: "_Rates") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """drop_choice (without Fisher's test) for many rules at once, whole counts: rule i has
    T0 t0[i], E0 e0[i] and Td, Ed td[i, :width[i]], ed[i, :width[i]] (width >= 1), its class's
    default error default_error[i] (float32). Returns per rule the position of the condition
    to drop (-1: keep them all), its P0 (the float drop_choice returns) and the position of
    the lowest error but that one, ties to the later (lowest_error(errors, best): -1 when
    none is left). The same floats as rule by rule (_Rates.many); at 1M cases a streamed
    round decided ~270,000 rules a Python call at a time."""
    k, wide = td.shape
    valid = np.arange(wide)[None, :] < width[:, None]
    a0, p0 = rates.many(t0, e0, default_error)
    ad, pess = rates.many(td[valid], ed[valid], np.repeat(default_error, width))
    pd = np.full((k, wide), np.inf)
    pd[valid] = pess
    actual = np.full((k, wide), np.inf)
    actual[valid] = ad
    rows = np.arange(k)
    best = _last_lowest(pd)
    drop = (pd[rows, best] <= p0) | (actual.min(axis=1, initial=np.inf) <= a0)
    pd[rows, best] = np.inf
    runner = np.where(width > 1, _last_lowest(pd), -1)
    return np.where(drop, best, -1), p0, runner


def worth_keeping(levels: list[int], t0: float, p0: float, default_error: F32) -> bool:
    """A generalised rule is a candidate unless no condition is left, it covers nothing, or it
    is no better than the default rule (spec 7.3)."""
    return bool(levels) and t0 != 0 and F32(p0) < default_error


def _generalise(pools: _PathPools, y: np.ndarray, target: int, default_error: F32, rates: "_Rates",
                fisher: float | None):
    """Drop conditions while the pessimistic error does not get worse; return the survivors."""
    levels = list(range(len(pools.tests)))
    m = len(levels)
    # first round from the path's pool of cases failing at most one condition
    cand, failed = pools.pools[-1]
    wrong = y[cand] != target
    if pools.data.weights is None:
        total = np.bincount(failed + 1, minlength=m + 1).tolist()
        errs = np.bincount(failed + 1, weights=wrong, minlength=m + 1).astype(np.int64).tolist()
    else:
        w = pools.data.weights[cand]
        total = np.bincount(failed + 1, weights=w, minlength=m + 1).tolist()
        errs = np.bincount(failed + 1, weights=np.where(wrong, w, 0.0), minlength=m + 1).tolist()
    t0, e0 = total[0], errs[0]
    td, ed = [t0 + k for k in total[1:]], [e0 + k for k in errs[1:]]
    cover = None
    wrong_bits = None
    # a few conditions per rule: Python lists beat numpy calls on arrays this small
    while levels:
        best, p0 = drop_choice(t0, e0, td, ed, default_error, rates, fisher)
        if best is None:
            covered = cand[failed < 0] if cover is None else pools.unpack(*cover)
            return levels, t0, e0, p0, covered
        gone = levels.pop(best)
        if levels:
            if wrong_bits is None:
                pools.build()
                wrong_bits = pools.wrong_bits(y, target)
                empties = pools.cum[m - 1] - pools.empty[gone]
            else:
                empties -= pools.empty[gone]
            t0, e0, td, ed, cover = pools.tables(levels, wrong_bits, empties)
    return levels, 0, 0, float(default_error), np.empty(0, dtype=np.int64)


def rule_error_rates(covered: np.ndarray, errors: np.ndarray, default_errors: np.ndarray,
                     cf: float) -> np.ndarray:
    """Each rule's pessimistic error P0 from its cover (spec 7.3), as generalisation keeps it.

    The same single-precision values as _Rates: a rule covering no case gets its class's
    default error, one with no errors AddErrs' array path, the others its float path.
    """
    covered = np.asarray(covered, dtype=np.int64)
    errors = np.asarray(errors, dtype=np.int64)
    out = np.asarray(default_errors, dtype=F32).astype(np.float64)
    clean = (covered > 0) & (errors == 0)
    if clean.any():
        out[clean] = pessimistic_rate(covered[clean].astype(np.float64), np.zeros(int(clean.sum())), cf).astype(F32)
    rate = rate_function(cf)
    for i in np.flatnonzero((covered > 0) & (errors > 0)):
        out[i] = float(F32(rate(int(covered[i]), int(errors[i]))))
    return out


class _Rates:
    """Actual and pessimistic error rates of (cases, errors) pairs, in single precision as
    c4.5rules keeps them (returned as the floats they convert to exactly); pairs recur
    across rules, so each is computed once."""

    def __init__(self, cf: float, n: int):
        self.rate = rate_function(cf)
        # what the compiled loop needs to compute weighted pairs' rates as compute does
        # (_generalize.c pessimistic_pair; compute is the reference, a test compares them)
        self.constants = (z_squared(cf), math.log(cf))
        self.known: dict[tuple[float, float], tuple[float, float]] = {}
        # with no errors AddErrs takes an exp: done for every possible count in one call.
        # With errors it takes none, and its float path gives the same doubles as the array one
        # a block at a time: the formula's temporaries for all n at once were 100 MB at 1M cases
        self.no_error = np.zeros(n + 1, dtype=F32)
        for lo in range(1, n + 1, 1 << 16):
            cases = np.arange(lo, min(lo + (1 << 16), n + 1), dtype=np.float64)
            self.no_error[lo:lo + len(cases)] = pessimistic_rate(cases, np.zeros(len(cases)), cf)

    def __call__(self, t: list[int], e: list[int], default_error: F32) -> tuple[list[float], list[float]]:
        got = list(map(self.known.get, zip(t, e)))
        if None in got:
            for i, g in enumerate(got):
                if g is None:
                    got[i] = self._new(t[i], e[i], default_error)
        return [g[0] for g in got], [g[1] for g in got]

    def many(self, cases: np.ndarray, errors: np.ndarray, default_error: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(actual, pessimistic) of many whole (cases, errors) pairs, float64 arrays of the floats
        __call__ gives pair by pair (pair i's default error default_error[i]): no cases, the
        default error; no errors, the no-error table; the others from the pairs' cache, each
        distinct pair new to it computed once."""
        cases = np.asarray(cases, dtype=np.int64)
        errors = np.asarray(errors, dtype=np.int64)
        some = cases > 0
        actual = np.zeros(len(cases))
        actual[some] = (errors[some] / cases[some]).astype(F32)
        pess = np.asarray(default_error, dtype=F32).astype(np.float64)
        clean = some & (errors == 0) & (cases < len(self.no_error))
        pess[clean] = self.no_error[cases[clean]]
        rest = np.flatnonzero(some & ~clean)
        if len(rest):
            # a pair as one number (errors <= cases < 2**31 here): unique on pairs was 15% of a round
            pairs, back = np.unique(cases[rest] << 32 | errors[rest], return_inverse=True)
            known, zero = self.known, F32(0)
            got = [known.get(pair) or self._new(*pair, zero)
                   for pair in zip((pairs >> 32).tolist(), (pairs & 0xFFFFFFFF).tolist())]
            pess[rest] = np.array([g[1] for g in got])[back.reshape(-1)]
        return actual, pess

    def _new(self, cases: int, errors: int, default_error: F32) -> tuple[float, float]:
        got = self.compute(cases, errors, default_error)
        if cases:
            self.known[(cases, errors)] = got
        return got

    def compute(self, cases: int, errors: int, default_error: F32) -> tuple[float, float]:
        """One pair's rates, not remembered (the compiled loop keeps its own table)."""
        if cases == 0:
            # a condition set no case satisfies: actual 0, pessimistic = the default error
            return 0.0, float(default_error)
        if errors == 0 and cases < len(self.no_error) and cases == int(cases):
            p = float(self.no_error[int(cases)])
        else:
            # weighted counts have no table: the float path, whose doubles are the array
            # path's (the same C library exp, the same operations in the same order)
            p = float(F32(self.rate(cases, errors)))
        return float(F32(errors / cases)), p


class _InBitOrder(dict):
    """attribute -> its values in bit order, gathered when first asked for."""

    def __init__(self, data: Dataset, order: np.ndarray):
        super().__init__()
        self.data, self.order = data, order

    def __missing__(self, a: int) -> np.ndarray:
        got = self[a] = self.data.columns[a][self.order]
        return got


def known_by_value(col: np.ndarray, position: np.ndarray) -> np.ndarray:
    """The bit positions (`position`: case -> bit) of a continuous column's known values, by
    value ascending, as int32."""
    if _native is not None and len(col) < 2**31:
        return np.frombuffer(_native.known_by_value(np.ascontiguousarray(col, dtype=np.float64),
                                                    np.ascontiguousarray(position, dtype=np.int32)), dtype=np.int32)
    known = int(np.count_nonzero(~np.isnan(col)))
    # NaN sorts last: the first `known` cases are the known values (the order among equal
    # values does not matter: a cut never falls between them)
    return position[np.argsort(col)[:known]]


def narrow_ranks(ranked: np.ndarray, n: int) -> np.ndarray:
    """known_by_value's positions as the compiled runs read them: 3 little-endian bytes each
    while n <= 2^24 (a quarter less to hold through the runs), else 4."""
    if n > _native.THREE_BYTE_RANKS:
        return ranked.astype("<i4", copy=False)
    return np.ascontiguousarray(ranked.astype("<u4").view(np.uint8).reshape(-1, 4)[:, :3]).reshape(-1)


# Below this many (case, leaf) pairs a single run is quicker than several: each run starts
# with its path's pools made from all cases and its own caches (synth_100k, 1.7e9 pairs: 0.67 s
# in one run, 1.02 s in 32 runs on two threads, 0.65 s in 4)
_SPLIT_WORK = 2e9


def _chunks(count: int, jobs: int, work: float) -> list[tuple[int, int]]:
    """Contiguous runs of `count` leaves for `jobs` workers: one when the work (cases x leaves)
    is too small to gain from more, else two per worker, so that uneven parts of the tree even
    out (more runs cost more than they even out: synth_1m's generalisation took 12.6 s in 32
    runs on two threads, 10.9 s in 4)."""
    pieces = 1 if jobs <= 1 or work < _SPLIT_WORK else min(count, 2 * jobs)
    cuts = [count * i // max(pieces, 1) for i in range(pieces + 1)]
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def generalise_rules(tree: Node | FlatTree | list[Node | FlatTree], data: Dataset, *, cf: float = 0.25,
                     fisher: float | None = None, jobs: int = 1) -> list[CandidateRule]:
    """Extract, generalise and de-duplicate the rules of the unpruned tree (spec 7.2-7.5),
    given as its nodes or flat; given several trees (a list), the rules of their leaves in
    turn, repeats dropped: what composite.pooled makes of each tree's rules, in one pass (a
    pass per tree cost its setup, the cases sorted by each tested column, again per tree:
    most of 900 boosted trees' time)."""
    with no_collection():       # a few objects per leaf, hundreds of thousands at scale
        rules = _generalise_all(tree, data, cf, fisher, jobs)
    give_back_memory()          # the pools and rows, before the subset search's index
    return rules


def _generalise_all(tree: Node | FlatTree | list[Node | FlatTree], data: Dataset, cf: float, fisher: float | None,
                    jobs: int) -> list[CandidateRule]:
    y = data.y
    n = data.n
    class_n = data.class_weights() if data.weights is not None else np.bincount(y, minlength=len(data.schema.classes))
    default_errors = _default_errors(class_n, data.total_weight)
    # covers add up to hundreds of cases per rule over 100k rules at 1M cases
    case_index = np.int32 if n < 2**31 else np.int64
    # the compiled path keeps the paths as rows of condition numbers, not as tuples
    # (30 MB at 1M cases); weighted cases go to it when their sums can be exact there
    # (weight_grains), else to the numpy path
    grains = None
    if _native is not None and data.weights is not None:
        grains = _native.weight_grains(np.ascontiguousarray(data.weights, dtype=np.float64))
    compiled = (_Compiled(tree, data, default_errors)
                if _native is not None and case_index == np.int32 and (data.weights is None or grains) else None)
    if compiled and compiled.deepest() > _native.MAX_DEPTH:
        compiled = None         # its pools number the levels in 16 bits
    if compiled:
        leaves = None
        order = compiled.leaf_order()
        give_back_memory()      # the paths' scratch (70 MB at 1M cases), before the rows
        count = len(compiled.targets)
    else:
        compiled, leaves, start = None, [], 0
        for one in tree if isinstance(tree, list) else [tree]:
            nodes = one.rebuilt() if isinstance(one, FlatTree) else one
            leaves += [(path, leaf) for path, leaf in leaf_paths(nodes, start) if path]
            start += len(one) if isinstance(one, FlatTree) else nodes.size()
        order = _leaf_order(leaves, data)
        count = len(leaves)
    columns = _InBitOrder(data, order)
    rates = _Rates(cf, n if data.weights is None else 0)
    runs = _chunks(count, resolve_jobs(jobs), float(n) * count)
    if compiled:
        compiled.gather(order, grains, resolve_jobs(jobs))
        give_back_memory()      # the ranks' sorting scratch (50 MB at 1M cases), before the runs
    elif len(runs) > 1:
        # gathered before the workers fork: one copy, shared, instead of one per worker
        for a in sorted({t.attribute for path, _ in leaves for t in path}):
            columns[a]

    def run(i: int):
        # each leaf's rule depends on its path alone: runs of leaves are independent
        if compiled:
            return compiled.run(*runs[i], order, rates, fisher)
        found: dict[tuple, CandidateRule] = {}     # in leaf order, duplicates merged
        pools = _PathPools(data, order, columns)
        for path, leaf in leaves[slice(*runs[i])]:
            pools.follow(path)
            target = leaf.klass
            default_error = default_errors[target]
            levels, t0, e0, p0, cover = _generalise(pools, y, target, default_error, rates, fisher)
            if not worth_keeping(levels, t0, p0, default_error):
                continue
            rule = CandidateRule(0, sort_conditions(path, levels), target, p0, t0, e0, cover)
            # duplicates are merged here, so their covers (often the largest: few conditions
            # left) are never kept
            if _merge(found, _key(rule), rule):
                rule.cases = cover.astype(case_index)
        return found

    # the compiled runs let go of the GIL: threads share the columns, ranks and threshold
    # rows, where forked workers each made their own pools and sent their covers back pickled
    parts = (thread_map if compiled else fork_map)(run, len(runs), jobs)
    if compiled:
        compiled.done()     # before the rules are made: 116 MB of rows at 1M cases
        give_back_memory()  # (kept in the C heap otherwise, under the rules made next)
        if len(parts) > 1:
            parts = compiled.join_covers(parts)
    if compiled and len(parts) == 1:
        rules = list(compiled.rules(parts[0], keys=False))    # one run: its duplicates are merged
    else:
        merged: dict[tuple, CandidateRule] = {}
        for part in parts:
            for key, rule in (compiled.rules(part) if compiled else part.items()):
                _merge(merged, key, rule)
        rules = list(merged.values())
    for number, rule in enumerate(rules, 1):
        rule.number = number
    return rules


class _Compiled:
    """The leaves' paths as rows of conditions, and the columns, for the compiled module."""

    def __init__(self, tree: Node | FlatTree | list[Node | FlatTree], data: Dataset, default_errors: np.ndarray):
        self.data = data
        self.labels: np.ndarray | None = None      # the leaf order, once gathered
        self.paths = paths = forest_table(tree) if isinstance(tree, list) else path_table(tree)
        kind, attribute, outcome = paths.kind, paths.attribute, paths.outcome
        # discrete and subset truth depends on the attribute and values only: one key each
        key_id: dict[tuple, int] = {}
        keys = np.full(len(kind), -1, dtype=np.int32)
        for c in np.flatnonzero(kind != THRESHOLD).tolist():
            keys[c] = key_id.setdefault((int(attribute[c]), paths.values[c] if kind[c] == SUBSET else int(outcome[c])),
                                        len(key_id))
        # a subset test's values as a byte mask over the value codes
        masks: list[np.ndarray] = []
        mask_off = np.zeros(len(kind), dtype=np.int64)
        mask_len = np.zeros(len(kind), dtype=np.int32)
        at = 0
        for c, values in sorted(paths.values.items()):
            m = np.zeros(max(values, default=-1) + 1, dtype=np.uint8)
            m[list(values)] = 1
            masks.append(m)
            mask_off[c], mask_len[c] = at, len(m)
            at += len(m)
        # what a condition is to the duplicate test (_condition_key), as a number: a rule's key
        # is then a few bytes (tuples of tuples were 80 MB for 117k rules at 1M cases)
        threshold, subset = kind == THRESHOLD, kind == SUBSET
        same = np.stack([attribute, kind, np.where(threshold, paths.cut + 0.0, 0.0).view(np.int64),
                         np.where(threshold, 0, outcome), np.where(subset, paths.node, 0)], axis=1)
        self.cond_key = np.unique(same, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int32)
        self.conditions = (kind, attribute, outcome, paths.cut, paths.node, keys,
                           np.concatenate(masks) if masks else np.zeros(0, dtype=np.uint8), mask_off, mask_len)
        self.n_keys = len(key_id)
        self.leaf_ptr, self.leaf_cond = paths.leaf_ptr, paths.leaf_cond
        self.kinds = dict(zip(attribute.tolist(), kind.tolist()))
        self.original = self.columns_of(data)
        self.y = np.ascontiguousarray(data.y, dtype=np.int32)
        self.targets = paths.leaf_class
        self.default = default_errors[self.targets].astype(np.float64)
        self.n_classes = len(default_errors)

    def deepest(self) -> int:
        """The number of conditions on the longest leaf path."""
        return int(np.diff(self.leaf_ptr).max(initial=0))

    def columns_of(self, data: Dataset) -> tuple:
        """The tested columns of `data` as the compiled module reads them (None: not tested)."""
        return tuple(
            np.ascontiguousarray(data.columns[a], dtype=np.float64 if self.kinds[a] == THRESHOLD else np.int32)
            if a in self.kinds else None for a in range(len(data.columns)))

    def leaf_order(self, data: Dataset | None = None) -> np.ndarray:
        """_leaf_order, compiled: of the cases it was made with, or of `data`'s (same schema)."""
        columns, n = (self.original, self.data.n) if data is None else (self.columns_of(data), data.n)
        return np.frombuffer(_native.leaf_order(columns, *self.conditions, self.leaf_ptr, self.leaf_cond,
                                                n, self.n_keys), dtype=np.int64)

    def gather(self, order: np.ndarray, grains: tuple[bytes, int] | None = None, jobs: int = 1) -> None:
        """The continuous tested columns' known cases by value and their threshold rows (made
        once, before the runs, and shared by their threads; columns in `jobs` threads), and weighted cases' grains
        (weight_grains' of the weights in case order) put in bit order. No column is copied
        into leaf order: the compiled loop reads the originals through `order` (a copy of
        each was 190 MB at 1M cases)."""
        n = self.data.n
        self.labels = order     # the runs number a rule's cases by their place in it
        self.ranks, self.threshold_rows, self.truth, _ = self.rows(self.original, self.y, order, jobs)
        self.weighted = ()
        if grains is not None:
            # a grain is 16 bytes: two uint64 per case, gathered into bit order, the
            # padding up to whole words weighing 0
            by_case = np.frombuffer(grains[0], dtype=np.uint64).reshape(-1, 2)
            by_bit = np.zeros(((n + 63) // 64 * 64, 2), dtype=np.uint64)
            by_bit[:n] = by_case[order]
            self.weighted = (np.ascontiguousarray(self.data.weights, dtype=np.float64), by_bit, grains[1])

    def rows(self, columns: tuple, y: np.ndarray, order: np.ndarray, jobs: int = 1,
             cut_ranks: bool = False) -> tuple[tuple, tuple, tuple, np.ndarray | None]:
        """What the recount reads of the cases `columns` and `y` hold (columns_of's, int32
        classes) in `order` (bit position -> case): per continuous tested column its known
        cases by value (narrow_ranks') and threshold rows, else None; truth_rows' key rows,
        their empty words, the classes' wrong rows and the key rows in case order; and, asked
        for, per condition (int64) a threshold's number of known values at most its cut
        (path_tables reads them instead of searching each cut's rank as it makes a row)."""
        n = len(y)
        position = np.empty(n, dtype=np.int32)
        position[order] = np.arange(n, dtype=np.int32)
        kind, attribute, cut = self.conditions[0], self.conditions[1], self.conditions[3]
        ranks = np.zeros(len(kind), dtype=np.int64) if cut_ranks else None

        def column(a: int) -> tuple:
            if self.kinds.get(a) != THRESHOLD:
                return None, None
            ranked = known_by_value(columns[a], position)
            if ranks is not None:
                # the attribute's conditions' slots alone: threads write apart
                mine = np.flatnonzero(attribute == a)
                ranks[mine] = np.searchsorted(columns[a][order[ranked]], cut[mine], side="right")
            return narrow_ranks(ranked, n), _native.threshold_rows(n, ranked)

        # attributes are independent, and the compiled steps let go of the GIL
        made = thread_map(column, len(columns), jobs)
        # the discrete tests' and the classes' rows: each run made its own (a third of the
        # time of 32 runs at 1M cases)
        truth = _native.truth_rows(y, order, columns, *self.conditions, self.n_keys, self.n_classes)
        return tuple(r for r, _ in made), tuple(t for _, t in made), truth, ranks

    def done(self) -> None:
        """Let go of what only the runs read (the known cases by value, the threshold and
        truth rows)."""
        self.ranks = self.threshold_rows = self.truth = None
        self.weighted = ()
        # the leaf order numbers the covers until the subset search's end: as int32 from here
        # (4 MB less at 1M cases), made after the runs (not a second copy under their peak)
        if self.labels is not None and self.data.n < 2**31:
            self.labels = self.labels.astype(np.int32)

    def run(self, lo: int, hi: int, order: np.ndarray, rates: _Rates, fisher: float | None) -> tuple:
        """Generalise leaves lo..hi-1, duplicates merged: the rules as a few flat arrays.

        As arrays (covers as one buffer per class) a run's rules cost no Python object each
        until they are made, once, after every run (a call per rule cost seconds at 1M)."""
        got = _native.generalise(
            self.y, order, self.original, self.ranks, self.threshold_rows, *self.conditions,
            self.leaf_ptr[lo:hi + 1], self.leaf_cond, self.targets[lo:hi], self.default[lo:hi], self.n_keys,
            # weighted counts: the compiled loop computes the rates itself from these
            # constants, the formula of compute (its no-error table is empty), bit for bit
            self.n_classes, rates.constants if self.weighted and len(rates.no_error) == 1 else lambda t, e: rates.compute(t, e, F32(0)),
            None if fisher is None else lambda t0, e0, td, ed: _insignificant(t0, e0, td, ed, fisher),
            self.cond_key, *self.truth, *self.weighted)
        leaf, kept, kept_at, t0, e0, p0, covers, cover_lo, cover_hi, keys, key_at = got
        as64 = lambda b: np.frombuffer(b, dtype=np.int64)      # noqa: E731
        # weighted T0 and E0 are summed weights: doubles
        count = (lambda b: np.frombuffer(b, dtype=np.float64)) if self.weighted else as64     # noqa: E731
        # per class, the rules' packed covers one after another: the subset search then
        # reads a class's covers as they lie instead of copying them
        return (as64(leaf) + lo, kept, as64(kept_at), count(t0), count(e0), np.frombuffer(p0, dtype=np.float64),
                {c: buf for c, buf in enumerate(covers) if buf is not None}, as64(cover_lo), as64(cover_hi),
                keys, as64(key_at))

    def join_covers(self, parts: list[tuple]) -> list[tuple]:
        """The runs' arrays with each class's covers joined into one buffer, which every run's
        rules then read (their offsets shifted), each run's buffer let go of once copied. The
        subset search reads a class's covers where they lie only when they share one buffer;
        otherwise it copied them, under its peak (45 MB at 1M cases with -j 2)."""
        parts = [list(p) for p in parts]
        shift = np.zeros((len(parts), self.n_classes), dtype=np.int64)
        for klass in range(self.n_classes):
            views = [(i, np.frombuffer(p[6].pop(klass), dtype=np.uint8)) for i, p in enumerate(parts) if klass in p[6]]
            if not views:
                continue
            at = 0
            for i, v in views:
                shift[i, klass] = at
                at += len(v)
            joined = np.concatenate([v for _, v in views])
            del views       # the runs' buffers of this class go here, before the next is joined
            for p in parts:
                p[6][klass] = joined
        for i, p in enumerate(parts):
            moved = shift[i, self.targets[p[0]]]
            p[7], p[8] = p[7] + moved, p[8] + moved
        return [tuple(p) for p in parts]

    def rules(self, part: tuple, keys: bool = True):
        """(key, CandidateRule) for each rule of a run's arrays, in leaf order (the rules alone
        when not `keys`)."""
        leaf_at, kept, kept_at, t0, e0, error, covers, cover_lo, cover_hi, rule_keys, key_at = part
        # each kept level's condition: the path of rule r's leaf is leaf_cond[leaf_ptr[leaf]:]
        kept = self.leaf_cond[np.repeat(self.leaf_ptr[leaf_at], np.diff(kept_at)) + np.frombuffer(kept, dtype=np.int32)]
        kept, kept_at, cond = kept.tolist(), kept_at.tolist(), self.paths.condition
        covers = {klass: buf if isinstance(buf, np.ndarray) else np.frombuffer(buf, dtype=np.uint8)
                  for klass, buf in covers.items()}
        # T0, E0: ints, or with weights floats (the numpy path's types); a cover's number of
        # cases is T0, or with weights its varints' last bytes (the bytes below 128)
        sizes = t0
        if t0.dtype == np.float64:
            sizes = np.zeros(len(t0), dtype=np.int64)
            klass_of = self.targets[leaf_at]
            for klass, buf in covers.items():
                mine = np.flatnonzero(klass_of == klass)
                ends = np.concatenate([[0], np.cumsum(buf < 128)])
                sizes[mine] = ends[cover_hi[mine]] - ends[cover_lo[mine]]
        t0, e0, sizes = t0.tolist(), e0.tolist(), sizes.tolist()
        for r, klass in enumerate(self.targets[leaf_at].tolist()):
            rule = CandidateRule(0, tuple(map(cond, kept[kept_at[r]:kept_at[r + 1]])), klass, float(error[r]),
                                 t0[r], e0[r],
                                 PackedCases(covers[klass], int(cover_lo[r]), int(cover_hi[r]), int(sizes[r]),
                                             self.labels))
            yield (rule_keys[4 * key_at[r]:4 * key_at[r + 1]], rule) if keys else rule


def _key(rule: CandidateRule) -> tuple:
    """What makes two rules duplicates (spec 7.5): class and conditions, thresholds' direction ignored."""
    return (rule.klass, tuple(_condition_key(c) for c in rule.conditions))


def _condition_key(c: CondTest) -> tuple:
    return (c.attribute, c.kind, c.cut if c.kind == 2 else 0.0,
            c.outcome if c.kind == 1 else (c.node, c.outcome) if c.kind == 3 else 0)


def _merge(rules: dict[tuple, CandidateRule], key: tuple, rule: CandidateRule) -> bool:
    """Add `rule` after the rules so far (True) unless it repeats one, whose error it only raises."""
    first = rules.get(key)
    if first is None:
        rules[key] = rule
        return True
    first.error = max(first.error, rule.error)
    return False
