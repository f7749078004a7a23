"""Selecting a subset of rules per class by description length (c4.5rules ConstructRuleset, 7.6).

A class's candidate rules are scored by Cost(S) = theory bits of S (weighted 0.5, credited
for order) + exception bits of S's false positives and negatives over all training cases.
<= 10 rules: every subset is costed at once from a histogram of which rules cover each case.
More: repeated greedy hill-climbing (or simulated annealing) from random starts drawn from
glibc's random() stream (of equally costly trial ends, the one of larger summed rule Error).
Each step's best toggle is found from the rules grouped by what decides their value (side,
Right + Wrong, Wrong), so a step costs what its toggle touched plus the few hundred groups,
not a pass over every rule of the class.
"""
from __future__ import annotations

import heapq
import math
import tempfile

import numpy as np

from ..data.distinct import sorted_distinct
from ..data.weights import sums_are_exact
from ..errors import InputError
from ..progress import Progress, report
from ..workers import fork_map, give_back_memory, thread_map
from .cases import PackedCases, pack_cases
from .coding import CODE_WEIGHT, ExceptionCoder, WeightedExceptionCoder, log2_or_zero, log_fact
from .generalize import CandidateRule
from .order import fires
from .random import GlibcRandom

try:
    # the compiled hill-climb (setup.py builds it when a C compiler is there)
    from . import _climb as _native
except ImportError:     # pragma: no cover - depends on the install
    _native = None

EXHAUSTIVE_LIMIT = 10
_GRAIN = 1074               # 2^-1074: the least positive double
_ONE = 1 << _GRAIN
_PAIRS = 1 << 22             # (rule, case) pairs handled at once in the search's pair-wide steps
_FORK_PAIRS = 1 << 20        # fewer (rule, case) pairs: a class's trials run in this process
_NO_TABLE = np.zeros(0)      # the compiled climb computes log2 instead of reading a table
SPILL_CHUNK = 1 << 20        # bytes of each of a spilled climb's two read buffers
# learning in passes under a memory budget, a class's search spills its lists beyond this part
# of it: the tables, the tree and the generalisation's state hold the rest (docs/large-data.md)
SPILL_SHARE = 8


class _Cells:
    """A class's rules grouped by (side, Right + Wrong, Wrong), with each group's best rule.

    Toggling a rule changes the exception bits by an amount H that depends only on these
    three numbers (0 when the rule alone covers nothing), so a rule's key (evaluate) is
    H of its cell + half its signed bits, and a cell's least key is that of its member
    with the least signed bits. Each side's rules are ranked once by (signed bits,
    number); a cell keeps its best rank and that rule's key. A change of Fires/FP then
    re-costs the live cells (hundreds) instead of every rule, and a toggle moves only the
    few rules it touched, one by one in plain Python (cheaper than numpy calls at that size).
    """

    def __init__(self, bits: np.ndarray):
        k = len(bits)
        self.k = k
        number = np.arange(k)
        # [side, rank] -> rule: outside rules by +bits, inside ones by -bits (their signed bits)
        self.rule_at = np.stack([np.lexsort((number, bits)), np.lexsort((number, -bits))])
        rank = np.empty((2, k), dtype=np.int64)
        rank[0, self.rule_at[0]] = number
        rank[1, self.rule_at[1]] = number
        self.rank = rank.tolist()

    def reset(self, inside: np.ndarray, alone: np.ndarray, wrong: np.ndarray) -> None:
        """Group every rule afresh."""
        self.ids: dict[int, int] = {}                    # cell code -> cell
        self.free: list[int] = []
        self.code: list[int] = []                        # per cell; -1: free
        self.count: list[int] = []
        self.stale: set[int] = set()                     # cells whose H is not computed
        self.side = np.zeros(64, dtype=np.int64)
        self.a = np.zeros(64, dtype=np.int64)
        self.w = np.zeros(64, dtype=np.int64)
        self.best = np.zeros(64, dtype=np.int64)         # least rank of a member
        self.alive = np.zeros(64, dtype=bool)
        self.h = np.zeros(64)
        self.key = np.full((2, 64), np.inf)              # [side, cell]: the best rule's key
        self.cell_of = [-1] * self.k
        self.cell_at = [[-1] * self.k, [-1] * self.k]    # [side][rank] -> cell
        self.heap: list[list[int]] = []                  # per cell: member ranks, and some stale ones
        self.move(range(self.k), inside.tolist(), alone.tolist(), wrong.tolist())

    def _reserve(self, extra: int) -> None:
        """Room for `extra` more cells in the per-cell arrays."""
        need, cap = len(self.code) + extra, len(self.h)
        if need > cap:
            more = max(need, 2 * cap) - cap
            grow = lambda x, fill: np.concatenate([x, np.full(x.shape[:-1] + (more,), fill, dtype=x.dtype)], axis=-1)  # noqa: E731
            self.side, self.a, self.w = grow(self.side, 0), grow(self.a, 0), grow(self.w, 0)
            self.best, self.alive, self.h = grow(self.best, 0), grow(self.alive, False), grow(self.h, 0.0)
            self.key = grow(self.key, np.inf)

    def _cell(self, code: int, side: int, a: int, w: int) -> int:
        if self.free:
            cell = self.free.pop()
            self.code[cell], self.count[cell], self.heap[cell] = code, 0, []
        else:
            cell = len(self.code)
            self.code.append(code), self.count.append(0), self.heap.append([])
        self.side[cell], self.a[cell], self.w[cell], self.best[cell], self.alive[cell] = side, a, w, self.k, True
        self.ids[code] = cell
        self.stale.add(cell)
        return cell

    def move(self, rules, inside: list[bool], alone: list[int], wrong: list[int]) -> set[int]:
        """Put `rules` (distinct) into the cells of their side, Right + Wrong and Wrong; the cells changed."""
        self._reserve(len(rules))
        ids, cell_of, count, best, rank, cell_at = self.ids, self.cell_of, self.count, self.best, self.rank, self.cell_at
        heap = self.heap
        changed: set[int] = set()
        dirty: list[int] = []
        for r, s, a, w in zip(rules, inside, alone, wrong):
            s = int(s)
            code = (a * (a + 1) // 2 + w) * 2 + s
            cell = ids.get(code)
            if cell is None:
                cell = self._cell(code, s, a, w)
            old = cell_of[r]
            if old == cell:
                continue
            if old >= 0:
                # out of the old cell; if it was the best, the cell must look for its next one
                os = int(self.side[old])
                at = rank[os][r]
                cell_at[os][at] = -1
                count[old] -= 1
                if best[old] == at:
                    dirty.append(old)
            at = rank[s][r]
            cell_of[r] = cell
            cell_at[s][at] = cell
            count[cell] += 1
            heapq.heappush(heap[cell], at)
            if at < best[cell]:
                best[cell] = at
                changed.add(cell)
        for cell in dirty:
            if count[cell]:
                # the least rank still in the cell: drop the heap's ranks of rules gone
                h, row = heap[cell], cell_at[int(self.side[cell])]
                while row[h[0]] != cell:
                    heapq.heappop(h)
                best[cell] = h[0]
                changed.add(cell)
            else:
                del ids[self.code[cell]]
                self.code[cell] = -1
                heap[cell] = []
                self.alive[cell] = False
                self.key[:, cell] = np.inf
                self.free.append(cell)
                changed.discard(cell)
                self.stale.discard(cell)
        return changed

    def refresh(self, cells: set[int] | None, search: "_ClassSearch", fn: int) -> None:
        """Re-key `cells` (all live cells when None, after Fires/FP changed).

        A step changes a handful of cells: those are done in plain floats (the same doubles
        as the array formulas, which cost more in calls than in work at that size)."""
        if cells is None:
            todo = np.flatnonzero(self.alive[:len(self.code)])
            stale = todo
        else:
            todo, stale = list(cells), [c for c in self.stale if self.count[c]]
        self.stale.clear()
        if len(stale) <= 8 and len(todo) <= 8:
            bits, fires, fp, base = search.coder.bits_one, search.fires, search.fp, search.subset_exc
            for c in stale:
                a, w, sg = int(self.a[c]), int(self.w[c]), 1 - 2 * int(self.side[c])
                self.h[c] = bits(fires + sg * a, fp + sg * w, fn - sg * (a - w)) - base if a else 0.0
            for c in todo:
                s = int(self.side[c])
                self.key[s, c] = self.h[c] + CODE_WEIGHT * search.signed_bits[self.rule_at[s, self.best[c]]]
            return
        stale, todo = np.asarray(stale, dtype=np.int64), np.asarray(todo, dtype=np.int64)
        if stale.size:
            a, w, sg = self.a[stale], self.w[stale], 1 - 2 * self.side[stale]
            h = search.coder.subset_bits(search.fires + sg * a, search.fp + sg * w, fn - sg * (a - w))
            self.h[stale] = np.where(a > 0, h - search.subset_exc, 0.0)
        side = self.side[todo]
        self.key[side, todo] = self.h[todo] + CODE_WEIGHT * search.signed_bits[self.rule_at[side, self.best[todo]]]

    def best_rules(self) -> list[tuple[int, float] | None]:
        """Each side's rule with the least key, and the key (None for an empty side)."""
        keys = self.key[:, :len(self.code)]
        cells = keys.argmin(axis=1)
        lows = keys[(0, 1), cells]
        last = keys.shape[1] - 1 - keys[:, ::-1].argmin(axis=1)    # a tie if the first least is not the last
        out: list[tuple[int, float] | None] = []
        for s in (0, 1):
            low = float(lows[s])
            if low == math.inf:
                out.append(None)
                continue
            rank = int(self.best[cells[s]])
            if last[s] != cells[s]:     # equal keys in two cells: the lower rank, as within a cell
                rank = int(self.best[np.flatnonzero(keys[s] == low)].min())
            out.append((int(self.rule_at[s, rank]), low))
        return out


def packed_pairs(rules: list[CandidateRule], firing: list[bool]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """(r_lo, r_hi, data, labels): each firing rule's cases packed (cases.py) at
    data[r_lo:r_hi], the others empty; number i stands for case labels[i] (None: for case
    i). The buffer the compiled generalisation wrote a class's covers into is read where it
    lies when every firing rule's cover is there (no copy); else the covers are packed one
    after another into a new one (renumbered as cases unless all share one numbering)."""
    k = len(rules)
    lo, hi = np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64)
    some = [r.cases for r, f in zip(rules, firing) if f]
    # one numbering for all (the packed bytes are copied as they are), else cases
    labels = some[0].labels if some and isinstance(some[0], PackedCases) else None
    same = all(isinstance(c, PackedCases) and c.labels is labels for c in some)
    if some and same and all(c.data is some[0].data for c in some):
        for i, (r, f) in enumerate(zip(rules, firing)):
            if f:
                lo[i], hi[i] = r.cases.lo, r.cases.hi
        return lo, hi, some[0].data, labels
    labels = labels if same else None
    parts, at = [], 0
    for i, (r, f) in enumerate(zip(rules, firing)):
        if f:
            c = r.cases
            b = c.data[c.lo:c.hi].tobytes() if same else pack_cases(c.unpack() if isinstance(c, PackedCases) else c)
            lo[i], hi[i] = at, at + len(b)
            parts.append(b)
            at += len(b)
    return lo, hi, np.frombuffer(b"".join(parts), dtype=np.uint8), labels


class _ClassSearch:
    """State of the subset search for one class: covers, bits and the best subset seen.

    The compiled climb reads the (rule, case) pairs packed (cases.py), each rule's cases
    where the generalisation wrote them (`packed_pairs`, numbered by place in leaf order:
    `packed_labels`) and each case's rules in an index made per class; the numpy steps read
    them as arrays of case numbers, made when first needed. For the greedy and annealing
    searches, each toggle updates the per-case count of selected rules and every rule's
    Right/Wrong (7.6.3) only where a case's count crosses 0/1 or 1/2, using a case -> rules
    index, so a step costs the size of one cover, not of all.
    A rule's exception bits after its toggle depend only on Fires, FP (FN follows) and its
    own side, Right and Wrong, which _Cells exploits to find the best toggle.
    """

    def __init__(self, rules: list[CandidateRule], bits: np.ndarray, positive: np.ndarray, n: int,
                 coder: ExceptionCoder | None = None, counts: np.ndarray | None = None,
                 spill_above: int | None = None, chunk: int = SPILL_CHUNK):
        self.rules = rules
        self._files: list = []
        self.bits = bits
        self.n = n
        self.pos = positive
        # counts: case i stands for counts[i] alike cases (a group of learning in passes), n
        # their sum; the compiled climb reads them, the numpy steps climb them as weights (hill_climb)
        self.counts = None if counts is None else np.asarray(counts, dtype=np.int64)
        self.n_pos = int(positive.sum()) if counts is None else int(counts[positive].sum())
        self._native_extra = () if counts is None else (self.counts.astype(np.int32),)   # n < 2^31 there
        self.firing = firing = [fires(r) for r in rules]
        r_ptr = np.concatenate([[0], np.cumsum([len(r.cases) if f else 0 for r, f in zip(rules, firing)])])
        self.r_ptr = r_ptr.astype(np.int64)
        self.r_bounds = self.r_ptr.tolist()
        self.n_pairs = self.r_bounds[-1]
        self.packed: tuple | None = None
        self.packed_labels: np.ndarray | None = None
        self._plain: tuple | None = None
        if _native is not None and n < 2**31:
            # the compiled climb reads both lists packed: at 1M cases the largest class's
            # (rule, case) pairs took 160 MB as int32 each way; 41 MB as the rules' varints
            # (their cases in leaf order) and 80 MB as the cases' 16-bit gaps
            r_lo, r_hi, data, labels = packed_pairs(rules, firing)
            m = len(positive)
            # the case -> rules index: 2 bytes a pair (a few more past 0xFFFF rules), 8 a case
            if spill_above is not None and data.nbytes + 2 * self.n_pairs + 8 * (m + 1) > spill_above:
                c_ptr, c_data = self._spill(r_lo, r_hi, data, m, chunk=chunk)
                data = data[:0]         # read from its file (this copy goes with the rules' covers)
            else:
                c_ptr, c_data = _native.case_rules(r_lo, r_hi, data, m)
                c_data = np.frombuffer(c_data, dtype=np.uint16)
            wide = np.int64 if len(c_ptr) == 8 * (m + 1) else np.uint32
            self.packed = (r_lo, r_hi, data, np.frombuffer(c_ptr, dtype=wide), c_data)
            # the climb's cases are the packed numbers (number i is case packed_labels[i])
            self.packed_labels = labels
            if self.counts is not None and labels is not None:
                self._native_extra = (self.counts[labels].astype(np.int32),)
            if self._files:
                counts = self._native_extra[0] if self._native_extra else b""
                files = tuple(f.fileno() for f in self._files)
                self._native_extra = (counts, (*files, self._spilled[0], self._spilled[1] // 2, chunk))
            give_back_memory()      # the index's scratch (48 MB at 1M cases), before the climbs
        self._c_neg: np.ndarray | None = None
        self.best_cost = math.inf
        self.best: np.ndarray | None = None
        self.coder = coder or ExceptionCoder(n)
        self.cells = _Cells(self.bits)
        self._grains: list[int] | None = None
        self._native_args: tuple | None = None
        self._as_weights: _WeightedSearch | None = None

    def _spill(self, r_lo: np.ndarray, r_hi: np.ndarray, data: np.ndarray, m: int, *, chunk: int
               ) -> tuple[bytes, np.ndarray]:
        """Put the packed lists in temporary files the compiled climb reads back `chunk` bytes at
        a time: each rule's cases (data, copied) and each case's rules (case_rules writes them
        there a run of cases at a time, never whole in memory). A class's search then holds
        its per-rule and per-case state, not its (rule, case) pairs. The files have no name
        (gone when closed, also if the process dies); `close` closes them. (c_ptr, no c_data)."""
        try:
            covers = tempfile.TemporaryFile(prefix="c45rules-select-")
            self._files.append(covers)
            covers.write(memoryview(np.ascontiguousarray(data)).cast("B"))
            covers.flush()
            index = tempfile.TemporaryFile(prefix="c45rules-select-")
            self._files.append(index)
            c_ptr = _native.case_rules(r_lo, r_hi, data, m, index.fileno(), chunk)[0]
            self._spilled = (data.nbytes, index.seek(0, 2))      # the files' bytes
        except OSError as e:
            self.close()
            raise InputError(f"the subset search could not spill its lists to a temporary file ({e.strerror}):"
                             f" free space in {tempfile.gettempdir()} or set TMPDIR") from None
        return c_ptr, np.zeros(0, dtype=np.uint16)

    def close(self) -> None:
        """Close (and so remove) the spilled lists' files, if any."""
        for f in self._files:
            f.close()
        self._files = []

    @property
    def grains(self) -> list[int]:
        """Bits(r) in units of 2^-1074 (every double is a whole number of them), for the numpy
        steps: the subset's sum is kept exact under toggles and rounded once, as math.fsum
        would give it. Made when first needed (10 MB of big integers at 1M cases, which the
        compiled climb does not read)."""
        if self._grains is None:
            self._grains = [(num << _GRAIN) // den for num, den in (float(b).as_integer_ratio() for b in self.bits)]
        return self._grains

    def _index(self, covers: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(r_case, c_ptr, c_rule) as arrays, for the numpy steps: the covers one after
        another, and the case -> rules index (case c's rules, ascending, at
        c_rule[c_ptr[c]:c_ptr[c + 1]])."""
        # (rule, case) pairs number in the tens of millions at 1M cases: 32-bit indices
        index = np.int32 if self.n < 2**31 else np.int64
        r_case = np.concatenate(covers).astype(index, copy=False) if covers else np.empty(0, dtype=index)
        # a block at a time: bincount copies its input as int64 (320 MB for 40M pairs)
        per_case = np.zeros(self.n, dtype=np.int64)
        for at in range(0, len(r_case), _PAIRS):
            per_case += np.bincount(r_case[at:at + _PAIRS], minlength=self.n)
        c_ptr = np.concatenate([[0], np.cumsum(per_case)]).astype(np.int64)
        # filled rule by rule (a rule's cases are distinct) rather than by sorting the pairs
        c_rule = np.empty(len(r_case), dtype=index)
        fill = c_ptr[:-1].copy()
        for r in range(len(covers)):
            cases = r_case[self.r_bounds[r]:self.r_bounds[r + 1]]
            c_rule[fill[cases]] = r
            fill[cases] += 1
        return r_case, c_ptr, c_rule

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._plain is None:
            # the numpy steps (annealing, <= 10 rules, no compiled climb) read plain arrays
            self._plain = self._index([r.cover if f else np.empty(0, dtype=np.int64)
                                       for r, f in zip(self.rules, self.firing)])
        return self._plain

    @property
    def r_case(self) -> np.ndarray:
        """The covers one after another (rule r's at r_case[r_ptr[r]:r_ptr[r + 1]])."""
        return self._arrays()[0]

    @property
    def c_ptr(self) -> np.ndarray:
        return self._arrays()[1]

    @property
    def c_rule(self) -> np.ndarray:
        return self._arrays()[2]

    # ---- state ------------------------------------------------------------------------
    def start(self, inside: np.ndarray) -> None:
        """Make `inside` the current subset and compute counts from scratch."""
        self.inside = inside.copy()
        self.size = int(inside.sum())
        self.bits_in = sum(self.grains[r] for r in np.flatnonzero(inside).tolist())
        self.signed_bits = np.where(inside, -1, 1) * self.bits
        k = len(self.rules)
        # per (rule, case) pair work, a block of rules at a time: tens of millions of pairs
        # at 1M cases, so no pair-sized temporaries beyond one block
        blocks = self._pair_blocks()
        count = np.zeros(self.n, dtype=np.int64)
        for lo, hi in blocks:
            member = inside[self._owners(lo, hi)]
            count += np.bincount(self.r_case[self.r_bounds[lo]:self.r_bounds[hi]][member], minlength=self.n)
        self.count = count.astype(np.int32)
        fired = self.count > 0
        self.fires = int(fired.sum())
        self.fp = int((fired & ~self.pos).sum())
        self.alone = np.zeros(k, dtype=np.int64)                 # Right + Wrong
        self.wrong = np.zeros(k, dtype=np.int64)
        for lo, hi in blocks:
            a, b = self.r_bounds[lo], self.r_bounds[hi]
            cases = self.r_case[a:b]
            owners = self._owners(lo, hi)
            alone = self.count[cases] == inside[owners]
            rules = owners[alone]
            self.alone += np.bincount(rules, minlength=k)
            self.wrong += np.bincount(rules[~self.pos[cases[alone]]], minlength=k)
        self.cells.reset(self.inside, self.alone, self.wrong)
        self.exc_for: tuple[int, int] | None = None     # (Fires, FP) the keys were computed at
        self.subset_exc = 0.0                           # ExceptionBits of the subset itself there
        self.touched: list[np.ndarray] = []
        self.toggled: list[int] = []

    @property
    def c_neg(self) -> np.ndarray:
        """Per (case, rule) pair of the case -> rules index: the case is negative (made when
        first needed: the compiled climb reads the cases' classes instead)."""
        if self._c_neg is None:
            self._c_neg = np.repeat(~self.pos, np.diff(self.c_ptr))
        return self._c_neg

    def _owners(self, lo: int, hi: int) -> np.ndarray:
        """The rule of each (rule, case) pair of rules lo..hi-1."""
        return np.repeat(np.arange(lo, hi), np.diff(self.r_ptr[lo:hi + 1]))

    def _pair_blocks(self) -> list[tuple[int, int]]:
        """Runs of rules [lo, hi) holding about _PAIRS (rule, case) pairs each."""
        out, lo, k, size = [], 0, len(self.rules), _PAIRS
        while lo < k:
            hi = max(lo + 1, int(np.searchsorted(self.r_ptr, self.r_ptr[lo] + size, side="right")) - 1)
            hi = min(hi, k)
            out.append((lo, hi))
            lo = hi
        return out

    def _touch(self, starts: np.ndarray, lens: np.ndarray, ends: np.ndarray, one: np.ndarray, r: int,
               step: int) -> None:
        """Change by `step` the Right/Wrong of the rules that r's toggle leaves alone on, or takes
        from alone on, some cases: their rules are c_rule[starts:starts + lens], `ends` the
        running sum of `lens`; `one`: one selected rule other than r is on the case."""
        at = np.arange(int(ends[-1])) + np.repeat(starts - (ends - lens), lens)
        others = self.c_rule[at]
        keep = (self.inside[others] == np.repeat(one, lens)) & (others != r)
        others, negative = others[keep], self.c_neg[at][keep]
        np.add.at(self.alone, others, step)
        np.add.at(self.wrong, others[negative], step)
        self.touched.append(sorted_distinct(others) if len(others) > 4096 else others)

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
            n_fp = int(np.count_nonzero(~self.pos[cases[newly]]))
            self.fires += n_newly if adding else -n_newly
            self.fp += n_fp if adding else -n_fp
        # the rules whose Right/Wrong change: on a case crossing 0/1 the non-selected ones,
        # on one crossing 1/2 the one other selected rule (r itself is the same on both sides)
        near = crossing <= 1
        hit = cases[near]
        if hit.size:
            one = crossing[near] == 1
            starts = self.c_ptr[hit]
            lens = self.c_ptr[hit + 1] - starts
            ends = np.cumsum(lens)
            # a toggle on a case-rich rule reaches tens of millions of (rule, case) pairs:
            # taken a bounded run of cases at a time
            cuts = [0, *np.searchsorted(ends, np.arange(_PAIRS, int(ends[-1]), _PAIRS)).tolist(), len(hit)]
            for a, b in zip(cuts, cuts[1:]):
                if a < b:
                    before = ends[a - 1] if a else 0
                    self._touch(starts[a:b], lens[a:b], ends[a:b] - before, one[a:b], r, -1 if adding else 1)
        self.toggled.append(r)
        self.inside[r] = adding
        self.signed_bits[r] = -self.signed_bits[r]
        self.size += 1 if adding else -1
        self.bits_in += self.grains[r] if adding else -self.grains[r]

    def evaluate(self) -> None:
        """Cost the current subset (remembered if best) and find each side's best toggle.

        Spec 7.6.3 defines each rule's Value from the cost with and without it; the change
        the search looks at (-Value for a rule inside, +Value outside) is in both cases
        Cost(S) minus the estimated cost after the toggle. Written out, the theory bits of
        S cancel and the change is D(side) - key(r), with D the log2 |S| credit of the side
        (`credit`) and key(r) = (its exception bits after the toggle - those of S) + half
        its signed bits; the first term depends only on r's cell (_Cells).
        """
        inside = self.inside
        fires, fp = self.fires, self.fp
        fn = self.n_pos - (fires - fp)
        changed = None
        if self.touched or self.toggled:
            if sum(len(t) for t in self.touched) < 4096:
                todo = set(self.toggled)
                for t in self.touched:
                    todo.update(t.tolist())
                todo = sorted(todo)
            else:
                # a toggle on a case-rich rule can touch millions of (rule, case) pairs:
                # no Python list of them
                todo = sorted_distinct(np.concatenate([*self.touched, np.array(self.toggled, dtype=np.int64)])).tolist()
            changed = self.cells.move(todo, inside[todo].tolist(), self.alone[todo].tolist(), self.wrong[todo].tolist())
        self.touched, self.toggled = [], []
        if self.exc_for != (fires, fp):
            self.exc_for = (fires, fp)
            self.subset_exc = self.coder.bits_one(fires, fp, fn)
            changed = None
            self.cells.refresh(None, self, fn)
        elif changed is not None:
            self.cells.refresh(changed, self, fn)
        rb = self.bits_in / _ONE - log_fact(self.size)
        cost = CODE_WEIGHT * rb + self.subset_exc
        if cost < self.best_cost:
            self.best_cost, self.best = cost, inside.copy()
        self.side_best = self.cells.best_rules()

    def credit(self) -> tuple[float, float]:
        """D(side) of evaluate: the order credit change of adding a rule (index 0) or taking one out (1)."""
        return CODE_WEIGHT * log2_or_zero(self.size + 1), -CODE_WEIGHT * log2_or_zero(self.size)

    def changes(self) -> np.ndarray:
        """Every rule's change after evaluate (the cost saved by toggling it)."""
        add, remove = self.credit()
        key = self.cells.h[self.cells.cell_of] + CODE_WEIGHT * self.signed_bits
        return np.where(self.inside, remove, add) - key

    def change(self, r: int) -> float:
        """Rule r's change after evaluate."""
        key = self.cells.h[self.cells.cell_of[r]] + CODE_WEIGHT * self.signed_bits[r]
        return self.credit()[int(self.inside[r])] - key

    def best_toggle(self) -> tuple[int, float]:
        """The rule whose toggle saves most after evaluate, and the saving.

        Each side's best is its least key, on ties the least signed bits, then the lowest
        number; between the two sides the larger change wins, the lower number on a tie.
        """
        best, gain = -1, -math.inf
        for found, credit in zip(self.side_best, self.credit()):
            if found is None:
                continue
            r, key = found
            change = credit - key
            if change > gain or (change == gain and r < best):
                best, gain = r, change
        return best, gain

    _native_extra: tuple = ()      # the compiled climb's arguments after best_cost (the counts)

    def hill_climb(self, inside: np.ndarray) -> None:
        """Toggle the best rule from `inside` while that saves bits; best/best_cost keep the least seen."""
        if self.packed is not None and self._climb_native(inside):
            return
        if self.counts is not None:
            # the numpy steps count each case once: cases standing for several climb as weights
            # (whole: the same search)
            if self._as_weights is None:
                self._as_weights = _WeightedSearch(self.rules, self.bits, self.pos, self.counts.astype(np.float64),
                                                   WeightedExceptionCoder(float(self.n)), exact=True)
            other = self._as_weights
            other.best_cost, other.best = self.best_cost, self.best
            other.hill_climb(inside)
            self.best_cost, self.best = other.best_cost, other.best
            return
        self.start(inside)
        while True:
            self.evaluate()
            r, change = self.best_toggle()
            if change <= 0:
                return
            self.toggle(r)

    def _climb_native(self, inside: np.ndarray) -> bool:
        """hill_climb in the compiled module (same steps, same doubles); False if it declines."""
        got = self._native_trial(inside, self.best_cost)
        if got is None:
            return False
        cost, best = got
        if best is not None:
            self.best_cost, self.best = cost, best
        return True

    def _native_trial(self, inside: np.ndarray, best_cost: float) -> tuple[float, np.ndarray | None] | None:
        """A compiled climb from `inside`: (least cost, its subset if below best_cost), None if
        it declines. It changes nothing here, so trials can climb in threads."""
        head, tail = self._native_call()
        got = getattr(_native, self._native_name)(*head, inside.astype(np.uint8), *tail, best_cost,
                                                  *self._native_extra)
        if got is None:
            return None
        cost, best, _ = got
        return cost, None if best is None else np.frombuffer(best, dtype=np.uint8).astype(bool)

    _native_name = "climb"    # the compiled climb _native_call's arguments are for

    def _native_call(self) -> tuple:
        """The compiled climb's arguments but the start and the bound (made once)."""
        if self._native_args is None:
            k = len(self.rules)
            self._native_args = (
                *self.packed,
                (self.pos if self.packed_labels is None else self.pos[self.packed_labels]).astype(np.uint8),
                np.ascontiguousarray(self.bits, dtype=np.float64),
                self.cells.rule_at.astype(np.int32).reshape(-1),
            ), (
                *((self.coder.log2_half, self.coder.total_log2) if self.counts is None else (_NO_TABLE, _NO_TABLE)),
                np.array([log_fact(s) for s in range(k + 1)]),
                np.array([log2_or_zero(s) for s in range(k + 2)]),
                self.n, self.n_pos, self.coder.log2_n,
            )
        return self._native_args

    def exhaustive(self) -> None:
        k = len(self.rules)
        mask = np.zeros(self.n, dtype=np.int64)
        np.bitwise_or.at(mask, self.r_case, 1 << self._owners(0, k))
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

    def greedy(self, rng: GlibcRandom, jobs: int = 1) -> None:
        k = len(self.rules)
        # the climbs draw nothing, so every start can be drawn first, in the same order
        starts = [rng.uniforms(k) < trial / 10.0 for trial in range(11)]

        def climb(trial: int) -> tuple[float, np.ndarray | None]:
            self.best_cost, self.best = math.inf, None
            self.hill_climb(starts[trial])
            return self.best_cost, self.best

        if self.n_pairs < _FORK_PAIRS:
            jobs = 1    # forking would cost more than the class's whole search
        # later trials start with more rules and climb longer: handed out first, so that
        # two workers finish together
        last = len(starts) - 1
        if self.packed is not None and jobs != 1:
            # the compiled climb lets go of the GIL and keeps its state to itself: threads
            # share the case index instead of forked workers each touching their copy
            self._native_call()
            found = thread_map(lambda i: self._native_trial(starts[last - i], math.inf), len(starts), jobs)[::-1]
            # a trial the compiled climb declines climbs in numpy, here
            found = [climb(t) if got is None else got for t, got in enumerate(found)]
        else:
            found = fork_map(lambda i: climb(last - i), len(starts), jobs)[::-1]
        # a trial's best is its first least cost; in trial order a lower cost replaces the
        # best so far, and an equal one does when its rules' summed Error is larger: the
        # subsets c4.5rules keeps on every tie of the shared sets (FIDELITY.md, glass and
        # shuttle -t 10), where the first or the last tied trial does not fit both
        best_cost, best, best_error = math.inf, None, -math.inf
        errors = [float(r.error) for r in self.rules]
        for cost, subset in found:
            if subset is None or cost > best_cost:
                continue
            error = math.fsum(e for e, keep in zip(errors, subset) if keep)
            if cost < best_cost or error > best_error:
                best_cost, best, best_error = cost, subset, error
        self.best_cost, self.best = best_cost, best

    def anneal(self, rng: GlibcRandom) -> None:
        k = len(self.rules)
        self.start(np.zeros(k, dtype=bool))
        temperature = 1000.0
        while temperature > 0.001:
            self.evaluate()
            accepted = False
            for _ in range(100):
                r = min(int(k * rng.uniform()), k - 1)
                change = self.change(r)
                if change > 0 or rng.uniform() < math.exp(change / temperature):
                    self.toggle(r)
                    accepted = True
                    break
            if not accepted:
                break
            temperature *= 0.95
        self.hill_climb(self.best.copy())


class _WeightedSearch:
    """The subset search of one class over weighted cases (spec 7.6 with every count a sum of
    case weights): the same steps, ties and doubles as _ClassSearch. The numpy steps recount
    Fires, FP and every rule's Right/Wrong from the (rule, case) pairs at each step (whole
    weights give exactly the search of the repeated cases; fractional ones are the new case);
    the compiled climb (_climb.c wclimb) updates them as a toggle changes them, adding every
    sum in the order numpy adds it, so that it finds the same subsets to the last bit."""

    def __init__(self, rules: list[CandidateRule], bits: np.ndarray, positive: np.ndarray,
                 weights: np.ndarray, coder: WeightedExceptionCoder, exact: bool = False):
        k = len(rules)
        self.rules, self.bits, self.pos, self.w, self.coder = rules, bits, positive, weights, coder
        self.exact = exact
        self.firing = [fires(r) for r in rules]
        self.n_pairs = sum(len(r.cases) for r, f in zip(rules, self.firing) if f)
        self._pairs: tuple | None = None
        self.n_pos = float(weights[positive].sum())
        number = np.arange(k)
        # [side, rank] -> rule and [side, rule] -> rank: outside rules by +bits, inside ones
        # by -bits, then number (_Cells)
        self.rule_at = np.stack([np.lexsort((number, bits)), np.lexsort((number, -bits))])
        self.rank = np.empty((2, k), dtype=np.int64)
        self.rank[0, self.rule_at[0]] = number
        self.rank[1, self.rule_at[1]] = number
        self.best_cost, self.best = math.inf, None
        self.packed: tuple | None = None
        self._native_args: tuple | None = None
        # the compiled climb's cases: those some rule covers, in case order (`kept`)
        self.kept: np.ndarray | None = None
        if _native is not None and len(weights) < 2**31:
            # the compiled climb adds each rule's weights in cover order, so its numbers must keep
            # the cases' order; it numbers only the covered cases, which alone can fire (every
            # step of a fractional climb adds Fires over them all again)
            r_lo, r_hi, data, labels = packed_pairs(rules, self.firing)
            lo_b, hi_b, data_b, kept_b = _native.in_case_order(
                r_lo, r_hi, data, np.zeros(0, dtype=np.int32) if labels is None else
                np.ascontiguousarray(labels, dtype=np.int32), len(weights))
            r_lo, r_hi = np.frombuffer(lo_b, dtype=np.int64), np.frombuffer(hi_b, dtype=np.int64)
            data, self.kept = np.frombuffer(data_b, dtype=np.uint8), np.frombuffer(kept_b, dtype=np.int32)
            m = len(self.kept)
            c_ptr, c_data = _native.case_rules(r_lo, r_hi, data, m)
            wide = np.int64 if len(c_ptr) == 8 * (m + 1) else np.uint32
            self.packed = (r_lo, r_hi, data, np.frombuffer(c_ptr, dtype=wide), np.frombuffer(c_data, dtype=np.uint16))

    @property
    def pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(rule, case, weight, negative) of every (rule, case) pair, rule by rule in cover
        order, for the numpy steps (made when first needed)."""
        if self._pairs is None:
            covers = [r.cover if f else np.empty(0, dtype=np.int64) for r, f in zip(self.rules, self.firing)]
            pair_rule = np.repeat(np.arange(len(self.rules)), [len(c) for c in covers])
            pair_case = np.concatenate(covers).astype(np.int64) if covers else np.empty(0, dtype=np.int64)
            self._pairs = (pair_rule, pair_case, self.w[pair_case], ~self.pos[pair_case])
        return self._pairs

    def start(self, inside: np.ndarray) -> None:
        """Make `inside` the current subset."""
        self.inside = inside.copy()

    def evaluate(self) -> None:
        """_ClassSearch.evaluate: cost the subset (remembered if best), key every rule."""
        inside, w = self.inside, self.w
        pair_rule, pair_case, pair_w, pair_neg = self.pairs
        count = np.bincount(pair_case[inside[pair_rule]], minlength=len(w))
        fired = count > 0
        fires_w, fp = float(w[fired].sum()), float(w[fired & ~self.pos].sum())
        fn = self.n_pos - (fires_w - fp)
        self.size = size = int(inside.sum())
        subset_exc = self.coder.bits_one(fires_w, fp, fn)
        cost = CODE_WEIGHT * (math.fsum(self.bits[inside].tolist()) - log_fact(size)) + subset_exc
        if cost < self.best_cost:
            self.best_cost, self.best = cost, inside.copy()
        # Right + Wrong and Wrong: the weight a rule alone covers (alone: no other selected rule)
        alone = count[pair_case] == inside[pair_rule]
        k = len(self.rules)
        a = np.bincount(pair_rule[alone], weights=pair_w[alone], minlength=k)
        bad = alone & pair_neg
        wr = np.bincount(pair_rule[bad], weights=pair_w[bad], minlength=k)
        sg = np.where(inside, -1.0, 1.0)
        h = self.coder.bits(fires_w + sg * a, fp + sg * wr, fn - sg * (a - wr)) - subset_exc
        h = np.where(a > 0, h, 0.0)
        self.key = h + CODE_WEIGHT * np.where(inside, -self.bits, self.bits)

    def credit(self) -> tuple[float, float]:
        """_ClassSearch.credit."""
        return CODE_WEIGHT * log2_or_zero(self.size + 1), -CODE_WEIGHT * log2_or_zero(self.size)

    def change(self, r: int) -> float:
        """Rule r's change after evaluate."""
        return self.credit()[int(self.inside[r])] - float(self.key[r])

    def best_toggle(self) -> tuple[int, float]:
        """_ClassSearch.best_toggle: per side the least key (ties: least rank), then the larger change."""
        best, gain = -1, -math.inf
        for side, credit in enumerate(self.credit()):
            mine = np.flatnonzero(self.inside == bool(side))
            if not mine.size:
                continue
            r = int(mine[np.lexsort((self.rank[side, mine], self.key[mine]))[0]])
            change = credit - float(self.key[r])
            if change > gain or (change == gain and r < best):
                best, gain = r, change
        return best, gain

    def toggle(self, r: int) -> None:
        """Add rule r to the subset or take it out."""
        self.inside[r] = not self.inside[r]

    _native_name = "wclimb"
    _native_extra = _ClassSearch._native_extra
    counts = None       # its weights are the cases' own (hill_climb)

    def _native_call(self) -> tuple:
        """The compiled weighted climb's arguments but the start and the bound (made once)."""
        if self._native_args is None:
            k = len(self.rules)
            self._native_args = (
                *self.packed, self.pos[self.kept].astype(np.uint8), np.ascontiguousarray(self.bits, dtype=np.float64),
                self.rule_at.astype(np.int32).reshape(-1),
            ), (
                np.ascontiguousarray(self.w[self.kept], dtype=np.float64),
                np.array([log_fact(s) for s in range(k + 1)]),
                np.array([log2_or_zero(s) for s in range(k + 2)]),
                self.coder.n, self.n_pos, self.coder.log2_n, self.exact,
            )
        return self._native_args

    hill_climb = _ClassSearch.hill_climb
    _climb_native = _ClassSearch._climb_native
    _native_trial = _ClassSearch._native_trial

    def exhaustive(self) -> None:
        """_ClassSearch.exhaustive with each case counted by its weight."""
        k, w = len(self.rules), self.w
        pair_rule, pair_case = self.pairs[:2]
        mask = np.zeros(len(w), dtype=np.int64)
        np.bitwise_or.at(mask, pair_case, 1 << pair_rule)
        pos_hist = np.bincount(mask[self.pos], weights=w[self.pos], minlength=1 << k)
        neg_hist = np.bincount(mask[~self.pos], weights=w[~self.pos], minlength=1 << k)
        subsets = np.arange(1 << k)
        overlap = ((subsets[:, None] & subsets[None, :]) != 0).astype(np.float64)
        tp, fp = overlap @ pos_hist, overlap @ neg_hist
        member = ((subsets[:, None] >> np.arange(k)[None, :]) & 1).astype(bool)
        sizes = member.sum(axis=1)
        theory = CODE_WEIGHT * (member @ self.bits - np.array([log_fact(int(s)) for s in sizes]))
        costs = theory + self.coder.bits(tp + fp, fp, self.n_pos - tp)
        best = int(np.argmin(costs))
        self.best_cost, self.best = float(costs[best]), member[best].copy()

    greedy = _ClassSearch.greedy
    anneal = _ClassSearch.anneal


def select_rules(rules: list[CandidateRule], bits: dict[int, float], y: np.ndarray, n_classes: int,
                 *, annealing: bool = False, seed: int | None = None, jobs: int = 1,
                 weights: np.ndarray | None = None, rng: GlibcRandom | None = None,
                 progress: Progress | None = None, counts: np.ndarray | None = None,
                 spill_above: int | None = None, chunk: int | None = None) -> list[CandidateRule]:
    """The rules chosen for each class, class by class (spec 7.6); `weights`: each case's weight;
    `counts` (instead of weights): case i stands for counts[i] alike cases (the groups of learning
    in passes): the same search as over the cases one by one; `rng`: a random() stream to continue
    (c4.5rules draws from one stream for all the trees of a -t run, spec 7.10); `progress` hears
    of each class (stage select, c45rules/progress.py); `spill_above`: a class's compiled greedy
    search whose packed lists exceed that many bytes reads them from temporary files, `chunk`
    bytes at a time (None: SPILL_CHUNK; _ClassSearch._spill: the same choices)."""
    if rng is None:
        rng = GlibcRandom(1 if seed is None else seed)
    chosen: list[CandidateRule] = []
    # the same tables for every class
    total = len(y) if counts is None else int(counts.sum())
    if counts is not None:
        # no log2 tables (24 bytes a case of the whole data, not of the groups): computed alike
        coder = WeightedExceptionCoder(float(total))
    else:
        coder = ExceptionCoder(total) if weights is None else WeightedExceptionCoder(math.fsum(weights.tolist()))
    exact = weights is not None and sums_are_exact(weights)
    for c in range(n_classes):
        report(progress, "select", c, n_classes)
        mine = [r for r in rules if r.klass == c]
        if not mine:
            continue
        search = None       # the last class's search is freed before this one is built
        give_back_memory()
        class_bits = np.array([bits[r.number] for r in mine], dtype=np.float64)
        greedy = not annealing and len(mine) > EXHAUSTIVE_LIMIT
        if counts is not None and not (greedy and _native is not None):
            # the numpy steps count each case once: the counts searched as whole weights
            search = _WeightedSearch(mine, class_bits, y == c, counts.astype(np.float64), coder, True)
        elif weights is None:
            search = _ClassSearch(mine, class_bits, y == c, total, coder, counts,
                                  spill_above if greedy else None, SPILL_CHUNK if chunk is None else chunk)
        else:
            search = _WeightedSearch(mine, class_bits, y == c, weights, coder, exact)
        try:
            if len(mine) <= EXHAUSTIVE_LIMIT:
                search.exhaustive()
            elif annealing:
                search.anneal(rng)
            else:
                search.greedy(rng, jobs)
        finally:
            if isinstance(search, _ClassSearch):
                search.close()
        chosen.extend(r for r, keep in zip(mine, search.best) if keep)
    return chosen
