"""c4.5rules in passes over batches of cases (issue 50): the same RuleSet as learn_rules, holding
count tables instead of the rows.

Generalisation (spec 7.3-7.5) needs, per round and per rule still being generalised, the class
counts of the cases satisfying all its conditions and all but each one: one pass counts them for
every such rule at once, from each batch's condition truth as bits (64 cases a word). Compiled,
the first pass (every leaf's whole path) counts each path's pool of the cases failing at most
one of its conditions instead, narrowed along the depth-first paths as generalise's first round
is (_Conditions.pool_tables): no truth row over every case. A later pass of many rules counts
them along the tree's paths as generalise recounts (_Conditions.path_tables): per batch, depth
first, the current path's levels' truth rows over the batch, each rule read from its leaf's
path's rows, so each rule is visited once a batch; a pass of few rules, from their pools (a few
hundred) or from truth rows. Without the compiled module a later pass counts, beside each
rule's tables, its tables without the condition its round is guessed to drop (the runner-up of
its round before): when the round drops that one, the next round's counts are there too (two
rounds a pass). The first pass also tallies what the coding costs read (classes, values per
attribute).
Subset selection (7.6) reads, class by class, whether a case is of the class and which of the
class's candidates fire on it: one pass groups the cases into a table per class. Ordering, the
default class and sifting (7.7-7.9) read the class and which selected rules fire: one more pass,
one table. Compiled, a candidate's firing is found along the paths too: the AND of its leaf's
kept levels' rows. The stages run on the groups as cases weighing their number of cases (whole weights:
the same counts, sums and doubles as on the cases one by one). Each pass is "count one slice into
a table" and "merge two tables" (_FireCounter.fired, _Lists.merge); the tables are held within a
memory budget (tables_in_passes).

Counts are whole numbers (unweighted cases): they add up exactly over any split into batches.
"""
from __future__ import annotations

import queue
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from ..data.distinct import count_distinct, sorted_distinct
from ..data.passes import reduce_batches
from ..data.schema import Dataset
from ..errors import InputError
from ..tree.grow_passes import size_text
from ..tree.node import FlatTree, Node
from ..workers import resolve_jobs, thread_map
from .cases import PackedCases, pack_counts, pack_gaps, pack_values, unpack_counts, unpack_values
from .coding import branch_bits_of
from .extract import DISCRETE, SUBSET, THRESHOLD, CondTest, path_table
from .generalize import (CandidateRule, _Compiled, _default_errors, _key, _merge, _native, _Rates, drop_choice,
                         drop_choices, lowest_error, sort_conditions, worth_keeping)
from . import select
from .order import fires
from .select import _native as _climb

Batches = Callable[[], Iterable[Dataset]]

# words (64 cases each) of (rule, condition) truth held at once while counting a batch
_WORDS = 1 << 22
# (condition, case) truth bits held at once (32 MB): a large batch is counted a slice at a time
_CELLS = 1 << 28
# at most this many a thread in a generalisation pass, as the budget allows (round_cells)
_ROUND_CELLS = 1 << 30
# cases counted at once along the tree's paths (_Conditions.path_tables): a level's row is 16 kB,
# a path's few dozen levels stay in cache; a larger batch is counted a run of cases at a time
_PATH_CASES = 1 << 17
# a pass of fewer rules is counted from truth rows: each batch's leaf order, ranks and threshold
# rows cost more than the truth of few conditions (at 200k noisy rows a pass of 1 rule took
# 0.22 CPU s along the paths, 0.11 from truth rows; 2,195 rules, 0.28 s either way)
_PATH_RULES = 2048
# and a pass of at most this many from their pools (as the first pass: _Conditions.pool_tables),
# which cost a narrowing of every case per rule but no pass-wide truth rows (200k noisy rows: 71
# rules 0.09 CPU s from pools, 0.12 from truth rows; 455 rules 0.27 and 0.17)
_POOL_RULES = 256


@dataclass
class PassReport:
    """How the streamed rule stages went: passes over the batches, generalisation rounds, and
    the grouped tables the later stages read: the selection's (per class: whether a case is of
    it, which of its candidates fire) and the ordering's (class, which selected rules fire)."""

    passes: int = 0
    rounds: int = 0
    round_passes: int = 0      # passes of the generalisation (two rounds a pass when they fit)
    candidates: int = 0
    patterns: int = 0          # the selection's groups, all classes' tables
    selected: int = 0          # rules selected
    selected_patterns: int = 0
    rows: int = 0
    table_bytes: int = 0       # the most one pass's firing tables held (_table_bytes)
    round_bytes: int = 0       # the most a generalisation round's counts held
    rule_counts: int = 0       # rules' tables counted, all passes (guessed ones included)
    pool_counts: int = 0       # rules counted from their paths' pools (the first pass, compiled)
    guessed_right: int = 0     # second rounds from a guessed condition's tables
    # the largest firing table counted: its stage, class (None: the ordering's), groups, the
    # numbers its lists hold (labels and firing rules) and its bytes as _table_bytes counts them
    largest: dict[str, Any] = field(default_factory=dict)
    spilled: list = field(default_factory=list)    # the classes whose subset search spills its lists

    def as_dict(self) -> dict[str, int]:
        """The report as `fit --json` prints it under stream.rules."""
        return {"passes": self.passes, "rounds": self.rounds, "round_passes": self.round_passes,
                "candidates": self.candidates,
                "selection_groups": self.patterns, "selected": self.selected,
                "selected_groups": self.selected_patterns, "round_table_bytes": self.round_bytes,
                "peak_table_bytes": self.table_bytes, "largest_table": dict(self.largest),
                "spilled_searches": list(self.spilled)}


@dataclass
class _Tallies:
    """What the first pass tallies besides the rules' counts: cases per class, values per
    discrete attribute, distinct known values and whether any is unknown per continuous one."""

    class_n: np.ndarray
    values: dict[int, np.ndarray] = field(default_factory=dict)
    distinct: dict[int, np.ndarray] = field(default_factory=dict)
    unknown: dict[int, bool] = field(default_factory=dict)
    n: int = 0

    def add(self, batch: Dataset) -> None:
        self.n += batch.n
        self.class_n += np.bincount(batch.y, minlength=len(self.class_n))
        for a, attr in enumerate(batch.schema.attributes):
            col = batch.columns[a]
            if attr.is_discrete:
                known = col >= 0
                self.values[a] = self.values.get(a, 0) + np.bincount(col[known], minlength=len(attr.values))
            elif attr.is_continuous:
                known = ~np.isnan(col)
                self.unknown[a] = self.unknown.get(a, False) or not known.all()
                here = sorted_distinct(col[known])
                before = self.distinct.get(a)
                self.distinct[a] = here if before is None else sorted_distinct(np.concatenate([before, here]))

    def merge(self, other: "_Tallies") -> None:
        """Add another part's tallies."""
        self.n += other.n
        self.class_n += other.class_n
        for a, counts in other.values.items():
            self.values[a] = self.values.get(a, 0) + counts
        for a, here in other.distinct.items():
            before = self.distinct.get(a)
            self.distinct[a] = here if before is None else sorted_distinct(np.concatenate([before, here]))
        for a, unknown in other.unknown.items():
            self.unknown[a] = self.unknown.get(a, False) or unknown

    def branch_bits(self, schema: Any) -> np.ndarray:
        """coding.branch_bits of all the cases tallied."""
        tallies: list[np.ndarray | int | None] = []
        for a, attr in enumerate(schema.attributes):
            if attr.is_discrete:
                tallies.append(self.values.get(a, np.zeros(len(attr.values), dtype=np.int64)))
            elif attr.is_continuous:
                got = self.distinct.get(a, np.zeros(0))
                tallies.append(count_distinct(got) + (1 if self.unknown.get(a) else 0))
            else:
                tallies.append(None)
        return branch_bits_of(self.n, tallies)


class _Conditions:
    """The tree's conditions (path_table's numbering) and their truth on a batch, as bit rows."""

    def __init__(self, tree: Node | FlatTree):
        self.tree = tree
        self._compiled: _Compiled | bool | None = None     # made from the first batch; False: too deep
        self.paths = paths = path_table(tree)
        self.count = len(paths.kind)
        # per tested attribute its kind of test (made once: a dict over ~200,000 conditions at 1M
        # noisy rows took 50 ms, paid by every batch's truth rows)
        self.kinds = dict(zip(paths.attribute.tolist(), paths.kind.tolist()))
        # per attribute, its conditions of each kind (thresholds: and side): their truth made
        # a block of rows at a time
        self.groups: list[tuple[int, int, int, np.ndarray]] = []
        for a in np.unique(paths.attribute).tolist():
            for kind, side in ((DISCRETE, -1), (THRESHOLD, 0), (THRESHOLD, 1), (SUBSET, -1)):
                mine = (paths.attribute == a) & (paths.kind == kind)
                if kind == THRESHOLD:
                    mine &= paths.outcome == side
                if mine.any():
                    self.groups.append((a, kind, side, np.flatnonzero(mine)))
        # per attribute, its threshold conditions of either side (their cuts' rows made at once)
        self.thresholds = {a: np.flatnonzero((paths.attribute == a) & (paths.kind == THRESHOLD))
                           for a in np.unique(paths.attribute).tolist()}
        self._planned: tuple[np.ndarray, tuple] | None = None    # (row, _plan's answer) of the last rows made
        # truth's words per thread (_sliced's rooms), each reused slice after slice
        self._rows: list[np.ndarray] = []
        self._batch_columns: tuple[Dataset, tuple] | None = None    # _columns' last batch and its columns

    def __getstate__(self) -> dict:
        # sent to Spark executors with a pass's closure: the last pass's plan stays here
        return {**self.__dict__, "_planned": None, "_rows": [], "_batch_columns": None}

    def condition(self, c: int) -> CondTest:
        return self.paths.condition(c)

    def leaf_order(self, batch: Dataset) -> np.ndarray | None:
        """A batch's cases leaf by leaf (generalize's leaf order), or None without the compiled
        module: cases satisfying most of a rule's conditions then share few words, and the
        words where two of its conditions hold for no case are many."""
        return self._compiled.leaf_order(batch) if self._ready(batch) else None

    def pool_tables(self, batch: Dataset, lists: "_Pooled", t0: np.ndarray, e0: np.ndarray, td: np.ndarray,
                    ed: np.ndarray) -> bool:
        """Add a batch's round counts of the rules `lists` holds (rule i: t0[i], e0[i], td[i],
        ed[i]) from each rule's pool of the cases failing at most one of its conditions (compiled
        pool_tables: rules sharing their first conditions share those levels' pools, as
        generalise's first round shares them along the tree's paths); False, nothing added,
        without the compiled module. No truth row over the batch is made: at 1M cases a slice
        of every condition's rows held ~1,300 cases, and every rule read every slice."""
        if not self._ready(batch):
            return False
        c = self._compiled
        k = len(lists.order)
        got = [np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64), np.zeros_like(td), np.zeros_like(ed)]
        _native.pool_tables(c.columns_of(batch), *c.conditions, lists.ptr, lists.cond, batch.n, c.n_keys,
                            np.ascontiguousarray(batch.y, dtype=np.int32), lists.klass, *got)
        for into, part in zip((t0, e0, td, ed), got):
            into[lists.order] += part
        return True

    def path_tables(self, batch: Dataset, lists: "_OnPaths", table: list, threads: int = 1) -> bool:
        """Add a batch's round counts of the rules `lists` holds into table[:4] (T0, E0, Td, Ed
        by rule) as generalise recounts: along the tree's paths, depth first, the current path's
        levels' truth rows over the batch's cases (in its leaf order) made as a rule needs them,
        each rule read from its leaf's path (compiled path_tables, on up to `threads` threads,
        each a run of the rules); False, nothing added, without the compiled module. Each rule
        is visited once a run of _PATH_CASES cases, where the truth rows of every counted
        condition over the batch were made and read a slice at a time (170-680 slices a pass at
        1M noisy rows)."""
        if not self._ready(batch):
            return False
        k = len(lists.at)
        cuts = np.linspace(0, k, max(1, min(threads, k)) + 1).astype(np.int64).tolist()
        for lo in range(0, batch.n, _PATH_CASES):
            rows = self.path_rows(batch, lo, min(lo + _PATH_CASES, batch.n))

            def run(i: int) -> None:
                _native.path_tables(*rows[:-1], lists.leaf, lists.ptr, lists.kept, rows[-1], lists.klass, lists.at,
                                    cuts[i], cuts[i + 1], *table[:4])
            # each run writes only its rules' rows
            thread_map(run, len(cuts) - 1, len(cuts) - 1)
        return True

    def path_rows(self, batch: Dataset, lo: int, hi: int) -> tuple:
        """What path_tables and path_fire_lists read of cases lo..hi-1 of `batch` (_ready first):
        their leaf order, the tested columns, the continuous ones' ranks and threshold rows, the
        conditions and the leaves' paths, the discrete tests' key rows and their empty words
        (made once here, shared by every path reading them), each threshold's rank among its
        column's known values; last, the classes' wrong rows."""
        c = self._compiled
        part = batch if (lo, hi) == (0, batch.n) else batch.subset(np.arange(lo, hi))
        columns = c.columns_of(part)
        order = c.leaf_order(part)
        ranks, snaps, (key_rows, key_empty, wrong, _), cut_rank = c.rows(
            columns, np.ascontiguousarray(part.y, dtype=np.int32), order, cut_ranks=True)
        return (order, columns, ranks, snaps, *c.conditions, c.leaf_ptr, c.leaf_cond, c.n_keys, key_rows, key_empty,
                cut_rank, wrong)

    def _ready(self, batch: Dataset) -> bool:
        """Whether the compiled module can take `batch` (made from the first batch seen)."""
        if _native is None or not self.count or batch.n >= 2**31:
            return False
        if self._compiled is None:
            self._compiled = _Compiled(self.tree, batch, np.zeros(len(batch.schema.classes), dtype=np.float32))
            if self._compiled.deepest() > _native.MAX_DEPTH:
                self._compiled = False
        return bool(self._compiled)

    def rows_of(self, used: np.ndarray) -> np.ndarray:
        """condition -> its row in `truth` of the conditions `used` (-1: not made; a group's
        rows one block), and the all-cases row at index `count`."""
        needed = np.zeros(self.count + 1, dtype=bool)
        needed[used] = True
        row = np.full(self.count + 1, -1, dtype=np.int64)
        at = 0
        for _, _, _, mine in self.groups:
            mine = mine[needed[mine]]
            row[mine] = np.arange(at, at + len(mine))
            at += len(mine)
        row[self.count] = at
        return row

    def truth(self, batch: Dataset, lo: int, hi: int, row: np.ndarray, room: int = 0) -> np.ndarray:
        """Bit rows (uint64 words) on cases lo..hi-1 of `batch` of the conditions `row` (rows_of)
        places, and of all those cases (an empty condition list's truth); padding bits 0.
        Unknown values satisfy no condition. The rows are valid until the next call with the
        same `room` (every row is written, so one buffer serves every slice: a fresh zeroed
        32 MB a slice was a tenth of a pass at 1M cases, in page faults); threads counting
        slices at once each use their own room (_sliced)."""
        n = hi - lo
        words = -(-n // 64)
        size = (int(row[self.count]) + 1) * words
        self.rooms(room + 1)
        if len(self._rows[room]) < size:
            self._rows[room] = np.empty(size, dtype=np.uint64)
        out = self._rows[room][:size].reshape(-1, words)
        cuts_of, plan, compiled = self._plan(row)
        if _native is not None:
            # one call without the GIL: threads counting slices at once make their rows at once
            # (numpy's calls a group at a time held it between them, and copied each block twice)
            _native.slice_truth(self._columns(batch), batch.n, lo, n, *compiled, int(row[self.count]), out)
            return out
        return self._truth_numpy(batch, lo, hi, cuts_of, plan, out)

    def _truth_numpy(self, batch: Dataset, lo: int, hi: int, cuts_of: dict[int, np.ndarray], plan: list[tuple],
                     out: np.ndarray) -> np.ndarray:
        """truth without the compiled module: `plan` (_plan's) made into `out`, a group at a time."""
        words = out.shape[1]
        out[-1] = _value_rows(np.zeros(hi - lo, dtype=np.int64), 1, words)[0]
        made: dict[int, tuple[np.ndarray, np.ndarray]] = {}   # per attribute: _at_most_rows' rows
        for a, kind, side, mine, start, at in plan:
            col = batch.columns[a][lo:hi]
            block = out[start:start + len(mine)]
            if kind == THRESHOLD:
                if a not in made:
                    made[a] = _at_most_rows(col, cuts_of[a], words)[1:]
                at_most, known = made[a]
                # x > cut: the known cases not at most it
                block[:] = at_most[at] if side == 0 else ~at_most[at] & known
            elif kind == DISCRETE:
                block[:] = _value_rows(col, int(at.max()) + 1, words)[at]
            else:
                block[:] = _bits(np.stack([self.condition(c).holds(col) for c in mine.tolist()]))
        return out

    def _columns(self, batch: Dataset) -> tuple:
        """The batch's columns as slice_truth reads them (the last batch's kept: its slices share them)."""
        held = self._batch_columns
        if held is None or held[0] is not batch:
            kinds = self.kinds
            held = self._batch_columns = (batch, tuple(
                np.ascontiguousarray(col, dtype=np.float64 if kinds[a] == THRESHOLD else np.int32)
                if a in kinds else None for a, col in enumerate(batch.columns)))
        return held[1]

    def rooms(self, count: int) -> None:
        """Make at least `count` truth buffers (made before threads share them: none is added then)."""
        while len(self._rows) < count:
            self._rows.append(np.zeros(0, dtype=np.uint64))

    def let_go(self) -> None:
        """Drop truth's buffers and the last batch (at the end of a pass: not held through the
        stages between)."""
        self._rows = []
        self._batch_columns = None

    def _plan(self, row: np.ndarray) -> tuple[dict[int, np.ndarray], list[tuple], tuple]:
        """What truth makes for the rows `row` places, the same for every slice of a pass (at 1M
        cases a pass has hundreds of slices, and these look-ups cost as much as the bits): per
        attribute its cuts (ascending, distinct), and per group of conditions made (attribute,
        kind, side, the conditions, their first row, and per condition its cut's place among
        the attribute's cuts or its value); and the same as slice_truth's entries, cuts, cuts'
        offsets and subset masks."""
        if self._planned is not None and self._planned[0] is row:
            return self._planned[1]
        p = self.paths
        cuts_of = {a: np.unique(p.cut[t[row[t] >= 0]]) for a, t in self.thresholds.items()}
        plan = []
        # slice_truth's entries (attribute, kind, side, param, length, row), its cuts and masks
        entries: list[np.ndarray] = []
        masks: list[np.ndarray] = []
        mask_at = 0
        for a, kind, side, mine in self.groups:
            mine = mine[row[mine] >= 0]
            if len(mine):
                at = np.searchsorted(cuts_of[a], p.cut[mine]) if kind == THRESHOLD else p.outcome[mine]
                plan.append((a, kind, side, mine, int(row[mine[0]]), at))
                param, length = at.astype(np.int64), np.zeros(len(mine), dtype=np.int64)
                if kind == SUBSET:
                    for j, c in enumerate(mine.tolist()):
                        values = p.values[c]
                        mask = np.zeros(max(values, default=-1) + 1, dtype=np.uint8)
                        mask[list(values)] = 1
                        masks.append(mask)
                        param[j], length[j] = mask_at, len(mask)
                        mask_at += len(mask)
                entries.append(np.stack([np.full(len(mine), a), np.full(len(mine), kind), np.full(len(mine), side),
                                         param, length, row[mine]], axis=1).astype(np.int64))
        n_attr = int(p.attribute.max(initial=-1)) + 1
        cut_at = np.zeros(n_attr + 1, dtype=np.int64)
        for a, cuts in cuts_of.items():
            cut_at[a + 1] = len(cuts)
        np.cumsum(cut_at, out=cut_at)
        compiled = (np.ascontiguousarray(np.concatenate(entries) if entries else np.zeros((0, 6), dtype=np.int64)),
                    np.concatenate([np.zeros(0)] + [cuts_of[a] for a in sorted(cuts_of)]).astype(np.float64),
                    cut_at, np.concatenate([np.zeros(0, dtype=np.uint8)] + masks))
        self._planned = (row, (cuts_of, plan, compiled))
        return cuts_of, plan, compiled


def _at_most_rows(col: np.ndarray, cuts: np.ndarray, words: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cuts, at_most, known): per cut (ascending, distinct) the cases valued at most it, and the
    known cases, as bit rows. A case ranked j (j cuts below its value) is at most every cut from
    the j-th: each row is the running OR of the rows per rank, not every case against every cut."""
    rank = np.searchsorted(cuts, col, side="left")      # unknown (NaN): past the end, in no row
    at_most = np.bitwise_or.accumulate(_value_rows(rank, len(cuts), words), axis=0)
    return cuts, at_most, _value_rows(np.where(np.isnan(col), -1, 0), 1, words)[0]


def _value_rows(slot: np.ndarray, n_slots: int, words: int) -> np.ndarray:
    """(n_slots, words) bit rows: row s has the cases whose slot is s (others, e.g. -1: none),
    64 a word, little-endian. Compiled, a bit set per case; in numpy, each case is one bit of
    one word: the words are sums of distinct powers of two, counted as two 32-bit halves (exact
    in float64) by bincount."""
    if _native is not None and words == -(-len(slot) // 64):
        out = np.zeros((n_slots, words), dtype=np.uint64)
        _native.value_rows(np.ascontiguousarray(slot, dtype=np.int64), n_slots, out)
        return out
    case = np.flatnonzero((slot >= 0) & (slot < n_slots))
    key = slot[case].astype(np.int64) * words + (case >> 6)
    bit = (case & 63).astype(np.float64)
    size = n_slots * words
    low = np.bincount(key, weights=np.where(bit < 32, np.exp2(bit), 0.0), minlength=size)
    high = np.bincount(key, weights=np.where(bit >= 32, np.exp2(bit - 32), 0.0), minlength=size)
    return (low.astype(np.uint64) | (high.astype(np.uint64) << np.uint64(32))).reshape(n_slots, words)


def _bits(rows: np.ndarray) -> np.ndarray:
    """Boolean rows as uint64 words, 64 cases a word, little-endian, padding bits 0."""
    packed = np.packbits(rows, axis=1, bitorder="little")
    words = -(-packed.shape[1] // 8)
    out = np.zeros((rows.shape[0], words * 8), dtype=np.uint8)
    out[:, :packed.shape[1]] = packed
    return out.view(np.uint64)


def round_cells(memory: int | None, threads: int = 1) -> int:
    """The truth bits a thread holds at once in a generalisation pass: _CELLS, or more (at most
    _ROUND_CELLS) where the budget `memory` gives each of the `threads` room for them, an eighth
    of it in all: the rounds hold the tree and their counts, neither the growth's tables (gone)
    nor the firing tables (not made yet). Each rule is counted once a slice, and at 1M noisy
    rows a pass's ~190,000 conditions left ~1,400 cases a 32 MB slice: 680 slices a pass, the
    per-rule set-up of each a quarter of the pass (4x the bits: -26% of the pass's CPU)."""
    if memory is None:
        return _CELLS
    return max(_CELLS, min(_ROUND_CELLS, int(memory) // max(threads, 1)))


def _slices(batch: Dataset, width: int, cells: int | None = None) -> Iterable[tuple[int, int]]:
    """Runs of a batch's cases small enough to hold `width` truth rows over (a multiple of 64),
    `cells` bits at most (None: _CELLS)."""
    step = max(64, ((_CELLS if cells is None else cells) // max(width, 1)) // 64 * 64)
    for lo in range(0, batch.n, step):
        yield lo, min(lo + step, batch.n)


# at most this many threads count a pass's slices: each one beyond the first holds, beside the
# memory budget, its own truth bits (up to 32 MB) and a copy of a round's counts (79 MB at 1M
# noisy rows, round_table_bytes)
_MAX_THREADS = 4


def slice_threads(jobs: int = 1) -> int:
    """The threads that count a batch's slices at once for `jobs` (the CLI's --jobs: -1, the
    cores this process may run on), at most _MAX_THREADS. The counts are whole numbers added up,
    the same in any order (and the firing tables take the slices' groups in slice order), so the
    model does not depend on it."""
    return max(1, min(resolve_jobs(jobs), _MAX_THREADS))


def _path_spans(n: int, threads: int = 1) -> list[tuple[int, int]]:
    """Runs of a batch's n cases counted along the tree's paths: at most _PATH_CASES each, and
    at least `threads` of them (whole words) where the cases allow."""
    step = min(_PATH_CASES, max(64, -(-n // max(threads, 1)) + 63) // 64 * 64)
    return [(lo, min(lo + step, n)) for lo in range(0, n, step)]


def _sliced(conds: _Conditions, batch: Dataset, width: int, work: Callable[[int, int, int], Any],
            threads: int, cells: int | None = None, spans: list[tuple[int, int]] | None = None) -> Iterator[Any]:
    """work(room, lo, hi) for each of the batch's slices (_slices(batch, width), or `spans`), the
    results in slice order, on up to `threads` threads: the truth rows and the compiled counts
    let go of the GIL, so a pass's slices are counted on every core. `room` (0 .. threads - 1):
    the thread's own truth buffer (_Conditions.truth) and whatever else `work` keeps per thread."""
    spans = list(_slices(batch, width, cells)) if spans is None else spans
    threads = max(1, min(threads, len(spans)))
    conds.rooms(threads)
    if threads == 1:
        for lo, hi in spans:
            yield work(0, lo, hi)
        return
    free: queue.SimpleQueue = queue.SimpleQueue()
    for room in range(threads):
        free.put(room)

    def run(span: tuple[int, int]) -> Any:
        room = free.get()
        try:
            return work(room, *span)
        finally:
            free.put(room)
    pool = ThreadPoolExecutor(threads)
    try:
        yield from pool.map(run, spans)
    finally:
        # a refused table (too_large) stops the pass: the slices not begun are not counted
        pool.shutdown(wait=True, cancel_futures=True)


def _rule_rows(conds: _Conditions, rules: list[list[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows (rows_of) of the conditions the rules read, and the compiled module's rule
    lists: each rule's conditions' truth rows one after another (int32), and where each rule
    starts (int64, one more)."""
    ptr = np.zeros(len(rules) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rules], out=ptr[1:])
    flat = np.fromiter(chain.from_iterable(rules), dtype=np.int64, count=int(ptr[-1]))
    row = conds.rows_of(flat)
    return row, row[flat].astype(np.int32), ptr


@dataclass
class _Pooled:
    """Rules' condition lists as pool_tables reads them: in ascending order of the lists (rules
    sharing first conditions side by side), `order[j]` the place of the j-th among the rules,
    its conditions cond[ptr[j]:ptr[j + 1]] (int32; ptr int64) and its class klass[j] (int32)."""

    order: np.ndarray
    ptr: np.ndarray
    cond: np.ndarray
    klass: np.ndarray

    @classmethod
    def of(cls, lists: list[list[int]], klass: np.ndarray) -> "_Pooled":
        order = sorted(range(len(lists)), key=lists.__getitem__)
        ptr = np.zeros(len(lists) + 1, dtype=np.int64)
        np.cumsum([len(lists[i]) for i in order], out=ptr[1:])
        cond = np.fromiter(chain.from_iterable(lists[i] for i in order), dtype=np.int32, count=int(ptr[-1]))
        at = np.asarray(order, dtype=np.int64)
        return cls(at, ptr, cond, np.ascontiguousarray(klass[at], dtype=np.int32))


@dataclass
class _OnPaths:
    """Rules as path_tables reads them: each a leaf's path with some of its levels kept, in
    ascending order of the leaves (a leaf's rules side by side); the j-th is the rule at place
    at[j], of leaf leaf[j], keeps the levels kept[ptr[j]:ptr[j + 1]] (int32) and counts for
    class klass[j] (int32)."""

    at: np.ndarray
    leaf: np.ndarray
    ptr: np.ndarray
    kept: np.ndarray
    klass: np.ndarray

    @classmethod
    def of(cls, leaves: list[int], kept: list[list[int]], klass: np.ndarray) -> "_OnPaths":
        at = np.argsort(np.asarray(leaves, dtype=np.int64), kind="stable")
        ptr = np.zeros(len(leaves) + 1, dtype=np.int64)
        order = at.tolist()
        np.cumsum([len(kept[i]) for i in order], out=ptr[1:])
        flat = np.fromiter(chain.from_iterable(kept[i] for i in order), dtype=np.int32, count=int(ptr[-1]))
        return cls(at, np.asarray(leaves, dtype=np.int64)[at], ptr, flat, np.ascontiguousarray(klass[at], dtype=np.int32))


def _checked(batch: Dataset, schema: Any) -> None:
    if batch.schema != schema:
        raise InputError(f"{batch.source}: a batch's columns differ from the first batch's")
    if batch.y is None:
        raise InputError(f"{batch.source}: the data has no class column")
    if batch.weights is not None:
        raise InputError(f"{batch.source}: weighted cases cannot be learnt in passes yet")


class _RoundTable(list):
    """A round pass's tables [T0, E0, Td, Ed, tallies] (_round_counts): pickled, as a Spark
    executor sends it to the driver (learn/spark.py), with its count arrays packed (pack_counts):
    mostly zeros (rules shorter than the widest) and small counts. `rooms`: per thread but the
    first (_sliced's rooms), its own [T0, E0, Td, Ed] counted so far, added in by `folded`
    (kept through the pass: made and added once a pass, not once a batch)."""

    rooms: dict[int, tuple[np.ndarray, ...]]

    def room(self, room: int) -> tuple[np.ndarray, ...]:
        """Thread `room`'s counts (the table's own for room 0). Each thread asks for its own
        room only, so the dict is never written by two threads at once."""
        if not room:
            return tuple(self[:4])
        rooms = self.__dict__.setdefault("rooms", {})
        if room not in rooms:
            rooms[room] = tuple(np.zeros_like(x) for x in self[:4])
        return rooms[room]

    def folded(self) -> "_RoundTable":
        """The table with every thread's counts added in (whole numbers: in any order the same)."""
        for mine in self.__dict__.pop("rooms", {}).values():
            for into, part in zip(self[:4], mine):
                into += part
        return self

    def __reduce__(self) -> tuple:
        return _round_table, ([pack_counts(x) if isinstance(x, np.ndarray) else x for x in self.folded()],)


def _round_table(items: list) -> _RoundTable:
    """_RoundTable.__reduce__'s items back."""
    return _RoundTable(unpack_counts(*x) if isinstance(x, tuple) else x for x in items)


def _round_counts(conds: _Conditions, batches: Batches, rules: list[int], levels: list[list[int]],
                  targets: np.ndarray, n_classes: int, tallies: _Tallies | None, schema: Any, pools: bool = False,
                  threads: int = 1, cells: int | None = None,
                  paths: tuple[list[int], list[list[int]]] | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One pass: per rule of `rules` (with the conditions numbered `levels[r]`), T0 and E0 (cases
    satisfying all, and those of them not of its class) and Td, Ed for each condition d (cases
    satisfying all but d). Also tallies the cases into `tallies` when given. `pools`: counted
    from the rules' pools where compiled (_Conditions.pool_tables), not from truth rows;
    `paths`: per rule r its leaf paths[0][r] and the levels of that leaf's path it keeps,
    paths[1][r] (the conditions levels[r], in turn): counted along the tree's paths where
    compiled (_Conditions.path_tables); `threads`: a batch's slices (or rules, along the
    paths) counted on up to that many threads (_sliced), each slice's truth at most `cells`
    bits (round_cells; None: _CELLS)."""
    k = len(rules)
    width = max((len(levels[r]) for r in rules), default=1)
    # the compiled recount (generalise's, rule by rule) reads each rule's truth rows, one list
    row, flat, ptr = _rule_rows(conds, [levels[r] for r in rules])
    everyone_at = int(row[conds.count])
    groups: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    klass = None
    if _native is not None:
        klass = targets[np.asarray(rules, dtype=np.int64)].astype(np.int32)
    else:
        # the rules grouped by their number of conditions: each group's conditions one array
        by_width = sorted(range(k), key=lambda i: len(levels[rules[i]]))
        for m in sorted({len(levels[r]) for r in rules}):
            at = np.array([i for i in by_width if len(levels[rules[i]]) == m], dtype=np.int64)
            idx = row[np.array([levels[rules[i]] for i in at.tolist()], dtype=np.int64).reshape(len(at), m)]
            groups.append((at, idx, targets[np.asarray(rules)[at]]))
    tally = tallies is not None
    pooled = _Pooled.of([levels[r] for r in rules], klass) if pools and klass is not None and k else None
    on_paths = (_OnPaths.of([paths[0][r] for r in rules], [paths[1][r] for r in rules], klass)
                if paths is not None and not pools and klass is not None and k >= _PATH_RULES else None)

    def zero() -> list:
        return _RoundTable([np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64),
                            np.zeros((k, width), dtype=np.int64), np.zeros((k, width), dtype=np.int64),
                            _Tallies(np.zeros(n_classes, dtype=np.int64)) if tally else None])

    def count(table: list, batch: Dataset) -> list:
        t0, e0, td, ed, tallied = table
        _checked(batch, schema)
        if tallied is not None:
            tallied.add(batch)
        if pooled is not None and conds.pool_tables(batch, pooled, t0, e0, td, ed):
            return table
        if on_paths is not None and conds.path_tables(batch, on_paths, table, threads):
            return table
        order = conds.leaf_order(batch)
        if order is not None:
            batch = batch.subset(order)

        def work(room: int, lo: int, hi: int) -> None:
            # each thread counts into its own room's counts (added in once the pass is done)
            bits = conds.truth(batch, lo, hi, row, room)
            y = batch.y[lo:hi]
            wrong = _bits(np.arange(n_classes)[:, None] != y[None, :])
            if _native is not None:
                _native.round_tables(bits, hi - lo, wrong, flat, ptr, klass, *table.room(room))
            else:
                _count_numpy(bits, wrong, groups, everyone_at, *table.room(room))
        for _ in _sliced(conds, batch, everyone_at + 1, work, threads, cells):
            pass
        return table

    def merge(a: _RoundTable, b: _RoundTable) -> _RoundTable:
        for mine, theirs in zip(a.folded()[:4], b.folded()[:4]):
            mine += theirs
        if a[4] is not None:
            a[4].merge(b[4])
        return a

    t0, e0, td, ed, tallied = reduce_batches(batches, zero, count, merge).folded()
    conds.let_go()
    if tallies is not None:
        tallies.merge(tallied)
    return t0, e0, td, ed


def _count_numpy(bits: np.ndarray, wrong: np.ndarray, groups: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
                 everyone_at: int, t0: np.ndarray, e0: np.ndarray, td: np.ndarray, ed: np.ndarray) -> None:
    """_round_counts on one slice without the compiled module: the rules grouped by their number
    of conditions (groups: their places, truth rows and classes), counts added in place."""
    words = bits.shape[1]
    # words where no case holds for a condition: a word where two of a rule's conditions
    # hold for no case has no case failing at most one of them, and is skipped
    empty = (bits == 0).view(np.uint8)
    for at, idx, klass in groups:
        m = idx.shape[1]
        if m == 1:
            # all but the one condition: every case
            rows, every = at, bits[idx[:, 0]]
            bad = wrong[klass]
            t0[rows] += np.bitwise_count(every).sum(axis=-1, dtype=np.int64)
            e0[rows] += np.bitwise_count(every & bad).sum(axis=-1, dtype=np.int64)
            td[rows, 0] += np.bitwise_count(bits[everyone_at]).sum(dtype=np.int64)
            ed[rows, 0] += np.bitwise_count(bad & bits[everyone_at]).sum(axis=-1, dtype=np.int64)
            continue
        step = max(1, _WORDS // max(1, m * words))
        for a in range(0, len(at), step):
            mine = idx[a:a + step]
            empties = empty[mine[:, 0]].copy()
            for j in range(1, m):
                empties += empty[mine[:, j]]
            pr, pw = np.nonzero(empties <= 1)      # (rule, word) pairs left, by rule
            if not len(pr):
                continue
            g = bits[mine[pr], pw[:, None]]                     # (pairs, m)
            before = np.bitwise_and.accumulate(g, axis=1)
            after = np.bitwise_and.accumulate(g[:, ::-1], axis=1)[:, ::-1]
            # all but d: the conditions before d and those after it
            excl = np.empty_like(g)
            excl[:, 0] = after[:, 1]
            excl[:, m - 1] = before[:, m - 2]
            np.bitwise_and(before[:, :m - 2], after[:, 2:], out=excl[:, 1:m - 1])
            every = before[:, -1]
            bad = wrong[klass[a:a + step][pr], pw]
            starts = np.flatnonzero(np.diff(pr, prepend=-1))
            rows = at[a:a + step][pr[starts]]
            def per_rule(c: np.ndarray) -> np.ndarray:
                return np.add.reduceat(c.astype(np.int64), starts, axis=0)
            t0[rows] += per_rule(np.bitwise_count(every))
            e0[rows] += per_rule(np.bitwise_count(every & bad))
            td[rows, :m] += per_rule(np.bitwise_count(excl))
            ed[rows, :m] += per_rule(np.bitwise_count(excl & bad[:, None]))


def generalise_in_passes(tree: Node | FlatTree, batches: Batches, schema: Any, *, cf: float = 0.25,
                         fisher: float | None = None, report: PassReport | None = None, memory: int | None = None,
                         threads: int = 1) -> tuple[list[CandidateRule], _Conditions, list[list[int]], _Tallies,
                                                    tuple[list[int], list[list[int]]]]:
    """generalise_rules over the batches: the candidate rules (without covers) in the same order,
    numbered alike; their conditions' numbers; the first pass's tallies; and per rule the leaf it
    came from and the levels of that leaf's path it keeps (its conditions: tables_in_passes'
    `paths`). Compiled, the first pass counts each leaf's path from its pool of the cases
    failing at most one condition, a later pass its rules along the tree's paths (or, few, from
    pools or truth rows); without the compiled module a later pass counts each rule's tables
    without its guessed next condition too (the module's docstring): two rounds a pass for the
    rules whose guess holds. `memory` bounds no table here
    (the rounds' tables grow with the rules, not the rows): it sets the slices' truth bits
    (round_cells), larger where it leaves room. `threads`: a batch's slices counted
    on up to that many threads (the same counts)."""
    report = report if report is not None else PassReport()
    conds = _Conditions(tree)
    p = conds.paths
    n_leaves = len(p.leaf_class)
    targets = p.leaf_class.astype(np.int64)
    paths = [p.leaf_cond[p.leaf_ptr[r]:p.leaf_ptr[r + 1]].tolist() for r in range(n_leaves)]
    # levels[r]: positions in leaf r's path of the conditions it still has
    levels = [list(range(len(path))) for path in paths]
    current = [[path[j] for j in lv] for path, lv in zip(paths, levels)]
    final: list[tuple[int, int, float] | None] = [None] * n_leaves
    tallies = _Tallies(np.zeros(len(schema.classes), dtype=np.int64))
    active = list(range(n_leaves))
    rates = default_errors = None
    # per rule, the condition (its number) its next round is guessed to drop: the runner-up of
    # its round before. A pass counts the rule's tables and, guessed, its tables without that
    # condition: when the round drops it, those are the next round's (two rounds a pass), at
    # the cost of one more rule's counts. Compiled, no guess: a pass along the tree's paths
    # costs its rules' counts, not a truth row of every condition over every case, and the
    # guessed lists (90% more in the second pass) cost more than the passes they save (1M noisy
    # rows: 44.8 CPU s in 10 passes with guesses, 35.4 in 13 without)
    guessing = _native is None
    guess: dict[int, int] = {}
    errors: list[float] = []
    cells = round_cells(memory, threads)
    while active or report.rounds == 0:     # a pass even for a tree of one leaf: the tallies
        width = max((len(levels[r]) for r in active), default=0)
        # the first pass: every leaf's whole path, none guessed (no round before to guess from)
        first = report.rounds == 0
        guessed = [r for r in active if r in guess]
        lists = [current[r] for r in active] + [[c for c in current[r] if c != guess[r]] for r in guessed]
        # each list's leaf and the levels of its path it keeps (counted along the paths)
        on_paths = (active + guessed, [levels[r] for r in active]
                    + [[j for j in levels[r] if paths[r][j] != guess[r]] for r in guessed])
        counted = np.concatenate([targets[active], targets[guessed]]).astype(np.int64)
        from_pools = first or len(lists) <= _POOL_RULES
        t0_a, e0_a, td_a, ed_a = _round_counts(conds, batches, list(range(len(lists))), lists, counted,
                                               len(schema.classes), tallies if first else None, schema,
                                               pools=from_pools, threads=threads, cells=cells, paths=on_paths)
        report.passes += 1
        report.round_passes += 1
        report.rounds += 1
        report.rule_counts += len(lists)
        report.pool_counts += len(lists) if from_pools and _native is not None else 0
        # T0, E0 and Td, Ed per condition of every rule counted, int64
        report.round_bytes = max(report.round_bytes, 8 * len(t0_a) * (2 + 2 * width))
        if rates is None:
            if tallies.n == 0:
                raise InputError("the batches hold no cases")
            default_errors = _default_errors(tallies.class_n, tallies.n)
            rates = _Rates(cf, tallies.n)
        guessed_at = {r: len(active) + j for j, r in enumerate(guessed)}
        second = False
        # each guessed rule's place of its guess (-1: none) before this round drops any
        was_at = [current[r].index(guess[r]) if r in guess else -1 for r in active]
        if fisher is None and all(lists):
            # the active rules' round at once (drop_choices), then the next round of those whose
            # guess held from their guessed tables, applied rule by rule below
            choices: dict[int, tuple] = {}

            def decide(at: list[int]) -> None:
                if not at:
                    return
                i = np.asarray(at, dtype=np.int64)
                got = drop_choices(t0_a[i], e0_a[i], td_a[i], ed_a[i], np.array([len(lists[j]) for j in at]),
                                   default_errors[counted[i]], rates)
                choices.update(zip(at, zip(*(x.tolist() for x in (got[0], got[1], got[2], t0_a[i], e0_a[i])))))
            decide(list(range(len(active))))
            decide([guessed_at[r] for i, r in enumerate(active)
                    if choices[i][0] >= 0 and choices[i][0] == was_at[i] and len(lists[i]) > 1])

            def drop(r: int, i: int) -> int | None:
                """Rule r's round from counted list i: the position of the condition dropped (and
                its next round's guess made: the runner-up), or None when it keeps them (final)."""
                best, p0, runner, t0r, e0r = choices[i]
                if best < 0:
                    final[r] = (t0r, e0r, p0)
                    return None
                if guessing:
                    guess[r] = current[r][runner]
                del levels[r][best], current[r][best]
                return best
        else:
            # Fisher's test (or a rule of no condition, a tree of one leaf): rule by rule
            t0, e0, td, ed = t0_a.tolist(), e0_a.tolist(), td_a.tolist(), ed_a.tolist()

            def drop(r: int, i: int) -> int | None:
                """drop above, rule r's round decided here (drop_choice)."""
                m = len(lists[i])
                best, p0 = drop_choice(t0[i], e0[i], td[i][:m], ed[i][:m], default_errors[targets[r]], rates, fisher,
                                       errors)
                if best is None:
                    final[r] = (t0[i], e0[i], p0)
                    return None
                if guessing:
                    guess[r] = current[r][lowest_error(errors, best)]
                del levels[r][best], current[r][best]
                return best

        # the round of this pass, rule by rule, and the next where the guess held
        for i, r in enumerate(active):
            guess.pop(r, None)
            best = drop(r, i)
            if best is None or not levels[r]:
                continue
            if best == was_at[i]:
                # the round dropped the guessed condition: the next round's counts are there
                report.guessed_right += 1
                second = True
                drop(r, guessed_at[r])
        # a rule of one condition has no next round to guess: dropping it leaves none
        active = [r for r in active if final[r] is None and levels[r]]
        for r in active:
            if len(levels[r]) < 2:
                guess.pop(r, None)
        report.rounds += second
    found: dict[tuple, CandidateRule] = {}
    origins: list[tuple[int, list[int]]] = []     # per rule kept: its leaf, the levels of its path it keeps
    tests = [conds.condition(c) for c in range(conds.count)]     # each condition's one CondTest
    for r in range(n_leaves):
        if final[r] is None:
            continue
        t0r, e0r, p0 = final[r]
        target = int(targets[r])
        if not worth_keeping(levels[r], t0r, p0, default_errors[target]):
            continue
        path = tuple(map(tests.__getitem__, paths[r]))
        rule = CandidateRule(0, sort_conditions(path, levels[r]), target, p0, t0r, e0r,
                             np.empty(0, dtype=np.int64))
        if _merge(found, _key(rule), rule):
            origins.append((r, levels[r]))
    rules = list(found.values())
    for number, rule in enumerate(rules, 1):
        rule.number = number
    # each rule's conditions by number, for the firing pass (a condition's CondTest is one object)
    number_of = {id(t): c for c, t in enumerate(tests)}
    rule_conds = [[number_of[id(t)] for t in rule.conditions] for rule in rules]
    report.candidates = len(rules)
    return rules, conds, rule_conds, tallies, ([r for r, _ in origins], [lv for _, lv in origins])


class _FireCounter:
    """Which of a set of rules fire on a slice's cases, grouped into a table of (label, firing
    rules) -> cases: `table.add(*fired(...))` counts one slice, `table.absorb` joins two tables (the
    map and the merge of a pass). `row`: the truth rows (rows_of) of the slices it reads, made
    for several counters at once."""

    def __init__(self, row: np.ndarray, rules: list[list[int]], count: int):
        self.k = k = len(rules)
        self.ptr = np.zeros(k + 1, dtype=np.int64)
        np.cumsum([len(r) for r in rules], out=self.ptr[1:])
        flat = np.fromiter(chain.from_iterable(rules), dtype=np.int64, count=int(self.ptr[-1]))
        self.flat = row[flat].astype(np.int32)
        # numpy: each rule's rows, padded with the all-cases row
        width = max((len(r) for r in rules), default=1)
        self.idx = np.full((k, width), row[count], dtype=np.int64)
        for i, r in enumerate(rules):
            self.idx[i, :len(r)] = row[r]
        # the rules along the tree's paths (fired_on_paths), when tables_in_passes counts so
        self.on_paths: _OnPaths | None = None

    def table(self) -> "_Lists | _Groups":
        """An empty table."""
        return _Lists() if _native is not None else _Groups(-(-self.k // 8) + 2)

    def fired(self, bits: np.ndarray, n: int, labels: np.ndarray) -> tuple[np.ndarray, ...]:
        """What a table adds (`table.add(*fired)`) to count a slice's n cases (their truth rows
        `bits`, their labels): the rules firing on each case, with its label; made apart from
        the table, so that slices are made on several threads and added in slice order."""
        if _native is not None:
            at = np.empty(n + 1, dtype=np.int64)
            # packed (about half the bytes of int32 lists): the table holds them so
            words = _native.fire_lists(bits, n, self.flat, self.ptr, labels.astype(np.int32), at, True)
            return at, np.frombuffer(words, dtype=np.int32), np.ones(n, dtype=np.int64)
        k, width = self.k, self.idx.shape[1]
        cover = np.empty((k, bits.shape[1]), dtype=np.uint64)
        step = max(1, _WORDS // max(1, width * bits.shape[1]))
        for a in range(0, k, step):
            cover[a:a + step] = np.bitwise_and.reduce(bits[self.idx[a:a + step]], axis=1)
        fire = np.unpackbits(cover.view(np.uint8), axis=1, bitorder="little")[:, :n].astype(bool)
        # a row per case: its label (2 bytes, big-endian: sorts as numbers), then its pattern's bytes
        case = np.zeros((n, -(-k // 8) + 2), dtype=np.uint8)
        case[:, 2:] = np.packbits(fire.T, axis=1, bitorder="little")
        label = labels.astype(np.uint16)
        case[:, 0], case[:, 1] = label >> 8, label & 255
        return case, np.ones(n, dtype=np.int64)

    def fired_on_paths(self, rows: tuple, labels: np.ndarray) -> tuple[np.ndarray, ...]:
        """fired's lists (compiled, packed) of the cases _Conditions.path_rows' `rows` are of, the
        rules' covers found along the tree's paths (path_fire_lists, `on_paths`): the same lists."""
        n = len(labels)
        at = np.empty(n + 1, dtype=np.int64)
        lists = self.on_paths
        words = _native.path_fire_lists(*rows[:-1], lists.leaf, lists.ptr, lists.kept, lists.at,
                                        np.ascontiguousarray(labels, dtype=np.int32), at, True)
        return at, np.frombuffer(words, dtype=np.int32), np.ones(n, dtype=np.int64)

    def lists(self, table: "_Lists | _Groups") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(at, words, counts): group g's label and then its firing rules (i: the i-th rule),
        ascending, packed (pack_lists) in words[at[g]:at[g + 1]]; counts[g] its number of cases.
        Compiled, the groups come in the order first seen (the later stages read sums of whole
        counts, alike in any order)."""
        if isinstance(table, _Lists):
            return table.merged()
        keys, counts = table.merged()
        # as lists: per group an entry for its label, then one per set bit, ordered by group
        group, rule = np.nonzero(np.unpackbits(keys[:, 2:], axis=1, bitorder="little", count=self.k).astype(bool))
        groups = np.concatenate([np.arange(len(keys)), group])
        ids = np.concatenate([keys[:, 0].astype(np.int64) * 256 + keys[:, 1], rule])
        first = np.concatenate([np.zeros(len(keys), dtype=np.int64), np.ones(len(rule), dtype=np.int64)])
        ids = ids[np.lexsort((ids, first, groups))].astype(np.int32)
        at = np.concatenate([[0], np.cumsum(np.bincount(groups, minlength=len(keys)))])
        return *pack_lists(at, ids), counts


def _search_bytes(table: "_Lists | _Groups") -> int:
    """What making a table's covers and the subset search's index over them will take.
    Compiled: per number of its lists a cover's varint (a gap between two of its G groups: at
    most as many bytes as G's own) and the search's case -> rules index (2 bytes), and per
    group the index's offset (8); in numpy, _covers' int64 arrays over all the numbers."""
    if _climb is None:
        return 40 * table.ids
    groups = table.groups
    varint = 1 + sum(groups >= 1 << bits for bits in (7, 14, 21, 28))
    return (varint + 2) * table.ids + 8 * groups


def _spills(table: "_Lists | _Groups", spill_over: int | None) -> bool:
    """Whether the compiled subset search over the table keeps its lists in files (its share
    beyond `spill_over` bytes: select.py _ClassSearch._spill)."""
    return _climb is not None and spill_over is not None and _search_bytes(table) > spill_over


def _table_bytes(table: "_Lists | _Groups", spill_over: int | None = None) -> int:
    """What a table holds, with its search's share (_search_bytes); a search that spills
    (_spills) writes its index to a file a run at a time: its 2 bytes a number not held."""
    return table.nbytes + _search_bytes(table) - (2 * table.ids if _spills(table, spill_over) else 0)


def too_large(stage: str, size: int, budget: int, rows: int, total: int | None = None) -> InputError:
    """The refusal of a rule stage's table beyond the budget, with the remedy; `total`: the
    data's rows, for the table's size at all of them at as many bytes a row as so far (about
    so on noisy data, whose firing patterns are nearly all distinct; less where they repeat)."""
    whole = "" if not total or total <= rows else \
        f" of {total} (about {size_text(size * total // max(rows, 1))} at all of them)"
    return InputError(f"the rules' {stage} needs {size_text(size)} after {rows} rows{whole}, beyond the memory"
                      f" budget of {size_text(budget)}: give a larger budget (--memory), or learn fewer"
                      f" candidate rules (a larger -m)")


def tables_in_passes(conds: _Conditions, rule_conds: list[list[int]], sets: dict[Any, tuple[list[int], Callable]],
                     batches: Batches, schema: Any, *, budget: int | None = None, stage: str = "firing",
                     report: PassReport | None = None, rows: int | None = None, threads: int = 1,
                     spill_over: int | None = None, paths: tuple[list[int], list[list[int]]] | None = None
                     ) -> dict[Any, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The firing tables of several rule sets, in as few passes as the budget allows.

    `sets[key] = (rules, labels)`: a table groups the cases by (labels(y), which of `rules` (indices
    into rule_conds) fire), as _FireCounter.lists gives it. One pass counts every table at once;
    when the tables together exceed `budget` bytes (_table_bytes), the largest is left to a
    later pass (its counts so far dropped); a table alone beyond it is an InputError naming
    `stage` (and, given the data's `rows`, the table's size at all of them). `report`: its
    passes, the most a pass's tables held and the largest table are updated. `threads`: the
    slices' firing rules found on up to that many threads, added to the tables in slice order.
    `spill_over`: a table whose search's share exceeds it is counted without its index, and
    its key noted in `report.spilled` (its search must then spill: learn_rules_in_passes).
    `paths`: per rule of rule_conds its leaf and the levels of that leaf's path it keeps (its
    conditions): compiled, the rules' firing is then found along the tree's paths (each rule's
    cover the AND of its levels' rows: _FireCounter.fired_on_paths) when a pass counts at least
    _PATH_RULES rules, instead of from every condition's truth rows a slice at a time."""
    report = report if report is not None else PassReport()
    done: dict[Any, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    waiting = list(sets)
    while waiting:
        row = conds.rows_of(np.fromiter(chain.from_iterable(rule_conds[r] for key in waiting for r in sets[key][0]),
                                        dtype=np.int64))
        counters = {key: _FireCounter(row, [rule_conds[r] for r in sets[key][0]], conds.count) for key in waiting}
        step = max(int(row[conds.count]) + 1, 8 * max(c.k for c in counters.values()))
        along = paths is not None and _native is not None and sum(c.k for c in counters.values()) >= _PATH_RULES
        if along:
            for key in waiting:
                counters[key].on_paths = _OnPaths.of([paths[0][r] for r in sets[key][0]],
                                                     [paths[1][r] for r in sets[key][0]],
                                                     np.zeros(counters[key].k, dtype=np.int32))

        def within_budget(part: dict) -> None:
            # a table never grows past the budget by more than a slice's groups
            tables = part["tables"]
            sizes = {key: _table_bytes(t, spill_over) for key, t in tables.items()}
            while budget is not None and sum(sizes.values()) > budget:
                largest = max(sizes, key=sizes.__getitem__)
                if len(tables) == 1:
                    raise too_large(f"{stage} table of class {largest!r}" if len(sets) > 1 else f"{stage} table",
                                    sizes[largest], budget, part["rows"], rows)
                part["later"].append(largest)
                del tables[largest], sizes[largest]
            part["peak"] = max(part["peak"], sum(sizes.values()))

        def zero() -> dict:
            return {"tables": {key: counters[key].table() for key in waiting}, "later": [], "rows": 0, "peak": 0}

        def count(part: dict, batch: Dataset) -> dict:
            _checked(batch, schema)
            on_paths = along and conds._ready(batch)

            def fired(room: int, lo: int, hi: int) -> tuple[int, dict]:
                # the tables still counted when the slice began (one left for later is not read)
                keys, y = list(part["tables"]), batch.y[lo:hi]
                if on_paths:
                    rows = conds.path_rows(batch, lo, hi)
                    return hi - lo, {key: counters[key].fired_on_paths(rows, sets[key][1](y)) for key in keys}
                bits = conds.truth(batch, lo, hi, row, room)
                return hi - lo, {key: counters[key].fired(bits, hi - lo, sets[key][1](y)) for key in keys}
            spans = _path_spans(batch.n, threads) if on_paths else None
            for n, made in _sliced(conds, batch, step, fired, threads, spans=spans):
                for key, table in part["tables"].items():
                    table.add(*made[key])
                part["rows"] += n
                within_budget(part)
            return part

        def merge(a: dict, b: dict) -> dict:
            # a table one part left for later is left by both
            a["later"] += [key for key in b["later"] if key not in a["later"]]
            for key in a["later"]:
                a["tables"].pop(key, None)
            for key, table in b["tables"].items():
                if key in a["tables"]:
                    a["tables"][key].absorb(table)
            a["rows"] += b["rows"]
            a["peak"] = max(a["peak"], b["peak"])
            within_budget(a)
            return a

        part = reduce_batches(batches, zero, count, merge)
        conds.let_go()
        later = part["later"]
        report.table_bytes = max(report.table_bytes, part["peak"])
        for key, t in part["tables"].items():
            size = _table_bytes(t, spill_over)
            if _spills(t, spill_over):
                report.spilled.append(key)
            if size > report.largest.get("bytes", -1):
                report.largest = {"stage": stage, "class": key if len(sets) > 1 else None,
                                  "groups": len(t.merged()[-1]), "numbers": t.ids, "bytes": size}
        report.passes += 1
        done.update((key, counters[key].lists(t)) for key, t in part["tables"].items())
        waiting = later
    return done


def _covers(at: np.ndarray, words: np.ndarray, k: int) -> list[PackedCases]:
    """Per rule i < k, the groups it fires on (_FireCounter.lists' packed lists), ascending;
    packed (cases.py) one rule after another in one buffer, as the compiled generalisation
    hands its covers to the subset search."""
    if not k:
        return []
    if _climb is not None:
        # compiled: packed straight from the packed lists, no (rule, group) pair arrays nor
        # the lists as int32 (at 1M rows those were int64 arrays over 59M pairs, the selection's peak)
        lo, hi, data, count = (np.frombuffer(b, dtype=t) for b, t in
                               zip(_climb.group_covers(at, words, k, True), (np.int64, np.int64, np.uint8, np.int64)))
        return [PackedCases(data, int(lo[i]), int(hi[i]), int(count[i])) for i in range(k)]
    at, ids = unpack_lists(at, words)
    lens = np.diff(at)
    group = np.repeat(np.arange(len(lens)), lens)
    fired = np.ones(len(ids), dtype=bool)
    fired[at[:-1][lens > 0]] = False              # each list's class
    rule, group = ids[fired], group[fired]
    order = np.argsort(rule, kind="stable")       # groups stay ascending within a rule
    cases = group[order].astype(np.int64)
    starts = np.searchsorted(rule[order], np.arange(k + 1))
    gaps = np.diff(cases, prepend=0)
    first = starts[:-1][starts[:-1] < starts[1:]]
    gaps[first] = cases[first]                    # each list's first number as itself
    data = pack_gaps(gaps.astype(np.uint64))
    # where each list's bytes start: the bytes of the numbers before it
    ends = np.concatenate([[0], np.cumsum((data < 128).astype(np.int64))])
    byte_at = np.searchsorted(ends, starts)
    return [PackedCases(data, int(byte_at[i]), int(byte_at[i + 1]), int(starts[i + 1] - starts[i]))
            for i in range(k)]


def pack_lists(at: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(at, words): lists of a label and ascending rules (list i: ids[at[i]:at[i + 1]]) packed as
    fire_lists(packed=True) packs them: varints (cases.py) of the label + 1, the first rule + 1
    and each rule less the one before, no number 0 (so no byte 0), each list padded with zero
    bytes to whole int32 words; list i is words[at[i]:at[i + 1]]."""
    ids = ids.astype(np.int64)
    lens = np.diff(at)
    first = at[:-1][lens > 0]
    gaps = np.diff(ids, prepend=np.int64(0))
    gaps[first] = ids[first] + 1
    second = at[:-1][lens > 1] + 1
    gaps[second] = ids[second] + 1
    data = pack_gaps(gaps.astype(np.uint64))
    # each list's bytes: the bytes of its numbers (each number's last byte is below 128)
    ends = np.concatenate([[0], np.cumsum((data < 128).astype(np.int64))])
    byte_at = np.searchsorted(ends, at)
    nbytes = np.diff(byte_at)
    word_at = np.concatenate([[0], np.cumsum(-(-nbytes // 4))]).astype(np.int64)
    out = np.zeros(int(word_at[-1]) * 4, dtype=np.uint8)
    out[np.arange(len(data)) - np.repeat(byte_at[:-1], nbytes) + np.repeat(4 * word_at[:-1], nbytes)] = data
    return word_at, out.view(np.int32)


def unpack_lists(at: np.ndarray, words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """pack_lists' (at, ids) back (ids int32)."""
    data = np.ascontiguousarray(words).view(np.uint8)
    on = data != 0
    values = unpack_values(data[on])
    # each list's numbers: its bytes below 128 but 0 (every number's last byte)
    last = np.concatenate([[0], np.cumsum(on & (data < 128))])
    num_at = last[4 * np.asarray(at, dtype=np.int64)]
    lens = np.diff(num_at)
    starts = num_at[:-1][lens > 0]
    gaps = values.copy()
    gaps[starts] = 0
    total = np.cumsum(gaps)
    # a rule: its list's gaps summed from the first rule, less 1; a label: its number less 1
    ids = total - np.repeat(total[num_at[:-1]], lens) - 1
    ids[starts] = values[starts] - 1
    return num_at, ids.astype(np.int32)


def list_labels(at: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Each packed list's label (its first number less 1), int64, without unpacking the lists."""
    data = np.ascontiguousarray(words).view(np.uint8)
    at4 = 4 * np.asarray(at[:-1], dtype=np.int64)
    label = np.zeros(len(at4), dtype=np.int64)
    going = np.ones(len(at4), dtype=bool)
    for j in range(5):
        byte = data[np.minimum(at4 + j, len(data) - 1)].astype(np.int64) if len(data) else label
        label += np.where(going, (byte & 127) << (7 * j), 0)
        going &= byte >= 128
    return label - 1


class _Lists:
    """Packed lists (fire_lists' words) -> summed counts in a compiled hash table (group_lists), memory bounded
    by the distinct lists; its lists and their room grown by doubling."""

    def __init__(self) -> None:
        self.used = 0
        self.entries = 0       # numbers in its distinct lists (labels and rules)
        self.key_at = np.zeros(1, dtype=np.int64)
        self.keys = np.zeros(0, dtype=np.int32)
        self.sums = np.zeros(0, dtype=np.int64)
        self._grow(1 << 6, 1 << 10)       # small: a table of few groups stays small (doubled as needed)

    def _grow(self, cap: int, room: int) -> None:
        used, key_at, keys, sums = self.used, self.key_at[:self.used + 1], self.keys, self.sums[:self.used]
        self.key_at = np.zeros(cap + 1, dtype=np.int64)
        self.keys = np.zeros(room, dtype=np.int32)
        self.sums = np.zeros(cap, dtype=np.int64)
        self.slots = np.full(2 * cap, -1, dtype=np.int64)
        self.used = 0
        if used:
            # distinct already: they go in in the same order, and all fit
            self.used = _native.group_lists(key_at, keys[:key_at[-1]], sums, self.key_at, self.keys, self.sums,
                                            self.slots, 0)[1]

    def add(self, at: np.ndarray, ids: np.ndarray, counts: np.ndarray) -> None:
        while len(counts):
            before = int(self.key_at[self.used])
            taken, self.used = _native.group_lists(at, ids, counts, self.key_at, self.keys, self.sums, self.slots,
                                                   self.used)
            # the numbers of the lists new here (each number's last byte is below 128, and not 0)
            new = self.keys[before:self.key_at[self.used]].view(np.uint8)
            self.entries += int(np.count_nonzero(new)) - int(np.count_nonzero(new >= 128))
            if taken == len(counts):
                return
            # full: more lists, or more room (at least for the list that did not fit)
            need = int(self.key_at[self.used] + at[taken + 1] - at[taken])
            cap = len(self.sums) * (2 if self.used == len(self.sums) else 1)
            self._grow(cap, max(len(self.keys) * (2 if need > len(self.keys) else 1), need))
            at, ids, counts = at[taken:] - at[taken], ids[at[taken]:], counts[taken:]

    def absorb(self, other: "_Lists") -> "_Lists":
        """Add another part's lists and counts."""
        self.add(*other.merged())
        return self

    def __getstate__(self) -> tuple:
        # the lists alone, not their room (sent from a Spark executor: learn/spark.py): their
        # lengths in words and in bytes but the padding, those bytes, and their counts
        key_at, keys, sums = self.merged()
        data = keys.view(np.uint8)
        on = data != 0
        nbytes = np.diff(np.concatenate([[0], np.cumsum(on)])[4 * key_at])
        return pack_values(np.diff(key_at)), pack_values(nbytes), data[on], pack_values(sums)

    def __setstate__(self, state: tuple) -> None:
        lens, nbytes, data, sums = state
        key_at = np.concatenate([[0], np.cumsum(unpack_values(lens))]).astype(np.int64)
        nbytes = unpack_values(nbytes)
        words = np.zeros(4 * int(key_at[-1]), dtype=np.uint8)
        # each list's bytes at the start of its words, the rest of them the padding
        byte_at = np.concatenate([[0], np.cumsum(nbytes)])
        words[np.arange(len(data)) - np.repeat(byte_at[:-1], nbytes) + np.repeat(4 * key_at[:-1], nbytes)] = data
        self.__init__()
        self.add(key_at, words.view(np.int32), unpack_values(sums))

    def merged(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinct lists (key_at, keys) in the order first seen, and each one's summed count."""
        return self.key_at[:self.used + 1], self.keys[:self.key_at[self.used]], self.sums[:self.used]

    @property
    def nbytes(self) -> int:
        """The bytes the table's arrays hold."""
        return self.key_at.nbytes + self.keys.nbytes + self.sums.nbytes + self.slots.nbytes

    @property
    def ids(self) -> int:
        """The numbers (labels and rules) of its distinct lists."""
        return self.entries

    @property
    def groups(self) -> int:
        """Its distinct lists."""
        return self.used


class _Groups:
    """Rows of bytes -> summed counts, without the compiled module: rows pile up and are merged
    (sorted, alike ones added) once they outnumber the merged ones: each row sorted O(log) times."""

    def __init__(self, width: int):
        self.width = width
        self.keys = np.zeros((0, width), dtype=np.uint8)
        self.counts = np.zeros(0, dtype=np.int64)
        self.pending: list[tuple[np.ndarray, np.ndarray]] = []
        self.waiting = 0

    def add(self, rows: np.ndarray, counts: np.ndarray) -> None:
        self.pending.append((rows, counts))
        self.waiting += len(rows)
        if self.waiting >= max(len(self.keys), 1 << 16):
            self._merge()

    def _merge(self) -> None:
        rows = np.concatenate([self.keys] + [r for r, _ in self.pending])
        counts = np.concatenate([self.counts] + [c for _, c in self.pending])
        self.pending, self.waiting = [], 0
        as_void = np.ascontiguousarray(rows).view(np.dtype((np.void, self.width))).reshape(-1)
        keys, inverse = np.unique(as_void, return_inverse=True)
        self.counts = np.bincount(inverse.reshape(-1), weights=counts, minlength=len(keys)).astype(np.int64)
        self.keys = keys.view(np.uint8).reshape(len(keys), self.width)

    def __getstate__(self) -> tuple:
        # merged, the counts packed (sent from a Spark executor: learn/spark.py)
        keys, counts = self.merged()
        return self.width, keys, pack_values(counts)

    def __setstate__(self, state: tuple) -> None:
        width, keys, counts = state
        self.__init__(width)
        self.keys, self.counts = keys, unpack_values(counts)

    def absorb(self, other: "_Groups") -> "_Groups":
        """Add another part's rows and counts."""
        self.add(*other.merged())
        return self

    def merged(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct rows, ascending, and each one's summed count."""
        if self.pending:
            self._merge()
        return self.keys, self.counts

    @property
    def nbytes(self) -> int:
        """The bytes the table's arrays hold, its rows waiting to be merged included."""
        return self.keys.nbytes + self.counts.nbytes + sum(r.nbytes + c.nbytes for r, c in self.pending)

    @property
    def ids(self) -> int:
        """The entries its rows become as lists (bounded by the rows' bits)."""
        return (len(self.keys) + self.waiting) * (self.width - 1)

    @property
    def groups(self) -> int:
        """Its rows, merged or waiting (at least its distinct ones)."""
        return len(self.keys) + self.waiting


# costs in whole multiples of 2^-16: any sum of them over up to 2^30 cases is exact in float64
_COST_GRAIN = 2.0**16


def _check_costs(costs: np.ndarray | None) -> None:
    """Refuse costs whose sums over the cases would depend on their order: ordering and sifting
    add a cost per case in memory, and a cost times a number of cases here (both exact for
    costs like 5 or 0.25, not for 0.1)."""
    if costs is None:
        return
    scaled = np.asarray(costs, dtype=np.float64) * _COST_GRAIN
    if not (np.isfinite(scaled).all() and (scaled == np.round(scaled)).all() and np.abs(scaled).max() < 2.0**23):
        raise InputError("misclassification costs that are not whole multiples of 1/65536 (or are 128 or more) "
                         "cannot be learnt in passes yet: their sums would depend on the order of the cases; "
                         "learn in memory, or round the costs")


def cases_in_passes(tree: Node | FlatTree, batches: Batches, *, cf: float = 0.25, fisher: float | None = None,
                    report: PassReport | None = None, memory: int | None = None, threads: int | None = None
                    ) -> tuple[list[CandidateRule], dict[str, Any], "RuleStages"]:
    """The generalised candidates of `tree`'s leaves over `batches` (each call a fresh pass over
    the data's cases, in Dataset batches sharing one Schema; unweighted cases only), the totals
    the later stages read (learn.pipeline.RuleCases' fields but the cases and the fingerprint)
    and the passes that give those stages their grouped cases (RuleStages). `fisher` is a
    fraction, as generalise_rules takes it; `report`: filled with passes and table sizes;
    `memory`: the bytes the grouped tables may hold (None: no bound); `threads`: each pass counts
    a batch's slices on up to that many threads (None: one; the model is the same)."""
    report = report if report is not None else PassReport()
    threads = 1 if threads is None else threads
    first = next(iter(batches()), None)
    if first is None:
        raise InputError("the batches hold no cases")
    schema = first.schema
    _check_costs(first.costs)
    cands, conds, rule_conds, tallies, rule_paths = generalise_in_passes(tree, batches, schema, cf=cf, fisher=fisher,
                                                                         report=report, memory=memory,
                                                                         threads=threads)
    report.rows = tallies.n
    totals = dict(schema=schema, costs=first.costs, class_n=tallies.class_n, total_weight=float(tallies.n),
                  branch_bits=tallies.branch_bits(schema), weight_record=first.weight_record)
    return cands, totals, RuleStages(conds, rule_conds, cands, batches, schema, tallies, memory, report, threads,
                                     rule_paths)


@dataclass
class RuleStages:
    """The cases the stages after generalisation read, grouped, one pass per table set.

    The subset selection of class c (spec 7.6) sums, over the cases, whether each is of class c
    and which of c's candidates fire on it (Fires, FP, FN, each rule's Right and Wrong): so its
    cases group by (is of c, c's candidates firing), one table per class (the candidates of
    the other classes do not split them). Ordering, the default class and sifting (7.7-7.9)
    read only the selected rules' firing and the class: one more table over those rules. Each
    group is a case weighing its number of cases (whole counts: the same sums as case by case)."""

    conds: _Conditions
    rule_conds: list[list[int]]
    cands: list[CandidateRule]
    batches: Batches
    schema: Any
    tallies: _Tallies
    memory: int | None
    report: PassReport
    threads: int = 1
    # per candidate its leaf and the levels of its path it keeps: its firing found along the paths
    rule_paths: tuple[list[int], list[list[int]]] | None = None

    def class_tables(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Per class with candidates, in class order: (positive, counts) of its groups (whether
        they are of the class, their number of cases); its firing candidates' `cases` become
        their groups there (the rest cover nothing any stage reads)."""
        names = self.schema.classes
        live: dict[int, list[int]] = {}
        for i, r in enumerate(self.cands):
            live.setdefault(r.klass, [])
            # rules that never fire (error above 0.7) cover nothing any later stage reads
            if fires(r):
                live[r.klass].append(i)
        if not any(live.values()):
            # nothing fires: per class, its cases and the others, with no pass
            n, class_n = self.tallies.n, self.tallies.class_n
            return {c: (np.array([True, False]), np.array([class_n[c], n - class_n[c]], dtype=np.int64))
                    for c in sorted(live)}
        sets = {names[c]: (rules, lambda y, c=c: y == c) for c, rules in sorted(live.items())}
        # a class's search whose lists take more than this part of the budget keeps them in files
        spill_over = None if self.memory is None else self.memory // select.SPILL_SHARE
        tables = tables_in_passes(self.conds, self.rule_conds, sets, self.batches, self.schema, budget=self.memory,
                                  stage="selection", report=self.report, rows=self.tallies.n,
                                  threads=self.threads, spill_over=spill_over, paths=self.rule_paths)
        out = {}
        for c, rules in sorted(live.items()):
            # each table let go once its covers are made: the lists (4 bytes a firing rule)
            # are not held beside the covers through the search
            at, ids, counts = tables.pop(names[c])
            for i, cover in enumerate(_covers(at, ids, len(rules))):
                self.cands[rules[i]].cases = cover
            out[c] = (list_labels(at, ids) == 1, counts)
            del at, ids
            self.report.patterns += len(counts)
        self.report.rows = int(counts.sum())
        return out

    def selected_table(self, selected: list[CandidateRule]) -> tuple[np.ndarray, np.ndarray]:
        """(classes, counts) of the groups of the cases by (class, which of `selected` fire):
        the selected rules' `cases` become their groups."""
        self.report.selected = len(selected)
        if not selected:
            class_n = self.tallies.class_n
            has = np.flatnonzero(class_n > 0)
            self.report.selected_patterns = len(has)
            return has.astype(np.int64), class_n[has].astype(np.int64)
        rules = [r.number - 1 for r in selected]        # generalise_in_passes numbers them from 1
        at, ids, counts = tables_in_passes(self.conds, self.rule_conds, {"ordering": (rules, lambda y: y)},
                                           self.batches, self.schema, budget=self.memory, stage="ordering",
                                           report=self.report, rows=self.tallies.n,
                                           threads=self.threads, paths=self.rule_paths)["ordering"]
        for r, cover in zip(selected, _covers(at, ids, len(rules))):
            r.cases = cover
        self.report.selected_patterns = len(counts)
        self.report.rows = int(counts.sum())
        return list_labels(at, ids), counts
