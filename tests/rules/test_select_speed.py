"""The incremental subset search equals the straightforward one: Cost(S) and every rule's change,
recomputed from scratch at each step from the covers (spec 7.6.3), bit for bit."""
import math
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference as R
from c45rules.data import load_stem
from c45rules.learn.pipeline import learn_tree
from c45rules.rules.cases import PackedCases, pack_cases, unpack_cases
from c45rules.rules.coding import CODE_WEIGHT, ExceptionCoder, attribute_test_bits, branch_bits, log_fact, rule_bits
from c45rules.rules.generalize import CandidateRule, generalise_rules
from c45rules.rules.order import fires
from c45rules.rules.random import GlibcRandom
from c45rules.rules.select import _ClassSearch, packed_pairs, select_rules


def _scratch(search: _ClassSearch, rules: list[CandidateRule], positive: np.ndarray) -> tuple[float, np.ndarray, int]:
    """Cost(S), each rule's change and the best toggle for S = search.inside, from a dense rule x case table."""
    inside, bits, n = search.inside, search.bits, len(positive)
    table = np.zeros((len(rules), n), dtype=bool)
    for i, r in enumerate(rules):
        if fires(r):
            table[i, r.cover] = True
    count = table[inside].sum(axis=0)
    fired = count > 0
    n_fires, fp = int(fired.sum()), int((fired & ~positive).sum())
    fn = int(positive.sum()) - (n_fires - fp)
    alone = table & (count[None, :] == inside[:, None])
    right = (alone & positive[None, :]).sum(axis=1)
    wrong = (alone & ~positive[None, :]).sum(axis=1)
    size = int(inside.sum())
    rb = math.fsum(bits[inside].tolist()) - log_fact(size)
    coder = search.coder
    cost = CODE_WEIGHT * rb + float(coder.bits(n_fires, fp, fn))
    sign = np.where(inside, -1, 1)
    lg = lambda x: math.log2(x) if x > 0 else 0.0  # noqa: E731
    # the change of toggling r, Cost(S) - cost after, written as D(side) - key(r) (spec 7.6.3)
    key = CODE_WEIGHT * (sign * bits)
    moved = (right + wrong) > 0
    sg, r, w = sign[moved], right[moved], wrong[moved]
    if moved.any():
        subset = float(coder.bits(n_fires, fp, fn))
        key[moved] = (coder.bits(n_fires + sg * (r + w), fp + sg * w, fn - sg * r) - subset) + key[moved]
    change = np.where(inside, -CODE_WEIGHT * lg(size), CODE_WEIGHT * lg(size + 1)) - key
    # the best toggle: each side's least (key, signed bits, number), then the larger change
    best, gain = -1, -math.inf
    signed = sign * bits
    for side in (False, True):
        on = np.flatnonzero(inside == side)
        if on.size:
            i = int(on[np.lexsort((on, signed[on], key[on]))[0]])
            if change[i] > gain or (change[i] == gain and i < best):
                best, gain = i, float(change[i])
    return cost, change, best


def _check_cells(search: _ClassSearch) -> None:
    """Every rule sits in the cell of its (side, Right + Wrong, Wrong), and each cell's count,
    best rank and key are those of its members."""
    cells = search.cells
    side = search.inside.astype(int)
    members: dict[int, list[int]] = {}
    for r in range(len(search.rules)):
        cell = cells.cell_of[r]
        assert (int(cells.side[cell]), int(cells.a[cell]), int(cells.w[cell])) == \
            (side[r], int(search.alone[r]), int(search.wrong[r]))
        members.setdefault(cell, []).append(r)
    assert sorted(members) == sorted(c for c in range(len(cells.code)) if cells.code[c] >= 0)
    for cell, rs in members.items():
        s = int(cells.side[cell])
        best = min(cells.rank[s][r] for r in rs)
        assert (cells.count[cell], int(cells.best[cell])) == (len(rs), best)
        assert cells.key[s, cell] == cells.h[cell] + CODE_WEIGHT * search.signed_bits[cells.rule_at[s, best]]
        assert cells.key[1 - s, cell] == np.inf


def _checked_evaluate(search, rules, positive):
    search.evaluate()
    _check_cells(search)
    cost, expected, best = _scratch(search, rules, positive)
    assert np.array_equal(search.changes(), expected)
    assert search.best_toggle() == (best, expected[best])
    assert search.best_cost <= cost
    return search.best_toggle()


def _walk(rules: list[CandidateRule], bits: np.ndarray, positive: np.ndarray, rng: GlibcRandom) -> np.ndarray:
    """The greedy search of select_rules, then an annealing run, checking every evaluation."""
    search = _ClassSearch(rules, bits, positive, len(positive))
    k = len(rules)
    ends = []
    for trial in range(11):
        search.best_cost, search.best = math.inf, None
        search.start(np.array([rng.uniform() < trial / 10.0 for _ in range(k)], dtype=bool))
        while True:
            r, change = _checked_evaluate(search, rules, positive)
            if change <= 0:
                break
            search.toggle(r)
        ends.append((search.best_cost, search.best.copy()))
    # the least cost; among trials ending on it, the first with the largest summed rule Error
    least = min(cost for cost, _ in ends)
    tied = [(math.fsum(float(r.error) for r, keep in zip(rules, sub) if keep), -t, sub)
            for t, (cost, sub) in enumerate(ends) if cost == least]
    greedy_best = max(tied, key=lambda e: e[:2])[2]
    search.start(np.zeros(k, dtype=bool))
    for _ in range(4 * k):
        _checked_evaluate(search, rules, positive)
        search.toggle(min(int(k * rng.uniform()), k - 1))
    return greedy_best


def _inputs(name):
    train, _ = load_stem(R.stem(name))
    tree = learn_tree(train)
    cands = generalise_rules(tree.unpruned, train)
    bb = branch_bits(train)
    nvals = [len(a.values) for a in train.schema.attributes]
    bits = {r.number: rule_bits(r.conditions, bb, attribute_test_bits(bb), nvals, 1.0) for r in cands}
    return cands, bits, train.y, len(train.schema.classes)


@pytest.mark.parametrize("name", ["crx", "monk2", "soybean", "credit-g"])
def test_incremental_search_equals_scratch_on_shared_data(name):
    _walk_classes(name)


def test_pair_work_in_small_runs_equals_scratch(monkeypatch):
    """Starting counts and toggles split their (rule, case) pairs into runs (a few million at
    scale); runs of a few pairs give the same search."""
    import c45rules.rules.select as select
    monkeypatch.setattr(select, "_PAIRS", 5)
    _walk_classes("crx")


def _walk_classes(name):
    cands, bits, y, n_classes = _inputs(name)
    rng = GlibcRandom(1)
    searched = 0
    for c in range(n_classes):
        mine = [r for r in cands if r.klass == c]
        if len(mine) > 10:
            _walk(mine, np.array([bits[r.number] for r in mine]), y == c, rng)
            searched += 1
    assert searched > 0


@st.composite
def _class_rules(draw):
    n = draw(st.integers(1, 40))
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    k = draw(st.integers(11, 18))
    rules, bits = [], []
    for i in range(k):
        cover = sorted(draw(st.sets(st.integers(0, n - 1), max_size=n)))
        error = draw(st.sampled_from([0.05, 0.3, 0.69, 0.8]))     # 0.8: never fires (7.6.1)
        rules.append(CandidateRule(i + 1, (), 0, error, len(cover), 0, np.array(cover, dtype=np.int64)))
        bits.append(draw(st.sampled_from([0.5, 1.0, 2.0, 3.5, 7.25])) + draw(st.integers(0, 20)))
    return rules, np.array(bits), y


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_class_rules(), st.integers(1, 2**31 - 1))
def test_incremental_search_equals_scratch_on_random_covers(case, seed):
    rules, bits, y = case
    best = _walk(rules, bits, y == 0, GlibcRandom(seed))
    chosen = select_rules(rules, {r.number: b for r, b in zip(rules, bits)}, y, 3, seed=seed)
    assert [r.number for r in chosen] == [r.number for r, keep in zip(rules, best) if keep]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 7, 10, 13])
def test_subset_bits_equal_bits_on_every_subset_count(n):
    coder = ExceptionCoder(n)
    counts = np.array([(f, fp, fn) for f in range(n + 1) for fp in range(f + 1) for fn in range(n - f + 1)])
    fires, fp, fn = counts.T
    assert np.array_equal(coder.subset_bits(fires, fp, fn), coder.bits(fires, fp, fn))


@given(st.integers(1, 5000), st.data())
def test_subset_bits_equal_bits_on_random_counts(n, data):
    fires = np.array(data.draw(st.lists(st.integers(0, n), min_size=1, max_size=30)))
    fp = np.array([data.draw(st.integers(0, f)) for f in fires])
    fn = np.array([data.draw(st.integers(0, n - f)) for f in fires])
    coder = ExceptionCoder(n)
    assert np.array_equal(coder.subset_bits(fires, fp, fn), coder.bits(fires, fp, fn))


def _rule(number, cases, error=0.1):
    return CandidateRule(number, (), 0, error, len(cases), 0, cases)


def test_packed_pairs_reads_one_buffer_in_place_and_packs_otherwise():
    covers = [[1, 5, 9], [0, 300], [2], [7, 8]]
    data = np.frombuffer(b"".join(pack_cases(np.array(c)) for c in covers), dtype=np.uint8)
    ends = np.cumsum([len(pack_cases(np.array(c))) for c in covers]).tolist()
    starts = [0] + ends[:-1]
    packed = [PackedCases(data, a, b, len(c)) for a, b, c in zip(starts, ends, covers)]
    rules = [_rule(i + 1, p) for i, p in enumerate(packed)]
    rules[2].error = 0.8          # never fires: no cases for the search
    firing = [fires(r) for r in rules]
    lo, hi, got, labels = packed_pairs(rules, firing)
    assert got is data and labels is None                   # read in place
    assert lo.tolist() == [starts[0], starts[1], 0, starts[3]] and hi.tolist() == [ends[0], ends[1], 0, ends[3]]
    # covers from two buffers, or as arrays: packed one after another into a new buffer
    mixed = rules[:2] + [_rule(3, np.array([4, 6], dtype=np.int32))]
    lo, hi, got, labels = packed_pairs(mixed, [True, True, True])
    assert got is not data and not np.shares_memory(got, data) and labels is None
    assert [unpack_cases(got[a:b]).tolist() for a, b in zip(lo, hi)] == [[1, 5, 9], [0, 300], [4, 6]]
    assert packed_pairs([], [])[2].tolist() == []


def test_packed_covers_numbered_by_labels_unpack_to_cases():
    # numbers are places in an order of the cases: number i stands for case order[i]
    order = np.array([3, 0, 301, 2, 1, 4, 6, 5, 7, 8, 9] + list(range(10, 301)) + [302], dtype=np.int64)
    covers = [[0, 2, 4], [1, 300]]
    data = np.frombuffer(b"".join(pack_cases(np.array(c)) for c in covers), dtype=np.uint8)
    ends = np.cumsum([len(pack_cases(np.array(c))) for c in covers]).tolist()
    packed = [PackedCases(data, a, b, len(c), order) for a, b, c in zip([0] + ends[:-1], ends, covers)]
    assert packed[0].unpack().tolist() == [1, 3, 301] and packed[1].unpack().tolist() == [0, 299]
    rules = [_rule(1, packed[0]), _rule(2, packed[1])]
    lo, hi, got, labels = packed_pairs(rules, [True, True])
    assert got is data and labels is order                  # read in place, with the numbering
    # from two buffers with one numbering: the bytes copied, the numbering kept
    apart = PackedCases(np.frombuffer(data.tobytes(), dtype=np.uint8), 0, ends[0], 3, order)
    lo, hi, got, labels = packed_pairs([_rule(1, apart), rules[1]], [True, True])
    assert got is not data and labels is order and got.tobytes() == data.tobytes()
    # mixed with plain cases: packed again as cases, the numbering gone
    lo, hi, got, labels = packed_pairs(rules + [_rule(3, np.array([4, 6], dtype=np.int32))], [True] * 3)
    assert labels is None
    assert [unpack_cases(got[a:b]).tolist() for a, b in zip(lo, hi)] == [[1, 3, 301], [0, 299], [4, 6]]
    # a pickle keeps the numbering, and one made before it existed unpacks as cases
    again = pickle.loads(pickle.dumps(packed[0]))
    assert again.unpack().tolist() == [1, 3, 301]
    old = PackedCases.__new__(PackedCases)
    old.__setstate__((None, {"data": data, "lo": 0, "hi": ends[0], "count": 3}))
    assert old.labels is None and old.unpack().tolist() == [0, 2, 4]


def test_cases_pack_as_varint_gaps_and_unpack_back():
    assert pack_cases(np.array([0, 1, 129, 129 + 2**14])) == bytes([0, 1, 0x80, 0x01, 0x80, 0x80, 0x01])
    assert pack_cases(np.array([], dtype=np.int64)) == b"" and unpack_cases(b"").tolist() == []
    big = np.array([5, 2**21, 2**28 + 7, 2**31 - 1])
    assert unpack_cases(pack_cases(big), np.int64).tolist() == big.tolist()
    with pytest.raises(ValueError, match="ascending"):
        pack_cases(np.array([3, 2]))
    with pytest.raises(ValueError, match="end inside a number"):
        unpack_cases(bytes([5, 0x80]))


@given(st.lists(st.integers(0, 2**31 - 1), unique=True, max_size=60))
def test_cases_round_trip(values):
    v = np.sort(np.array(values, dtype=np.int64))
    assert unpack_cases(pack_cases(v), np.int64).tolist() == v.tolist()


def test_search_reads_a_class_covers_where_the_generalisation_wrote_them():
    train, _ = load_stem(R.stem("synth_10k"))
    cands = generalise_rules(learn_tree(train).unpruned, train)
    from c45rules.rules import generalize
    if generalize._native is None:
        pytest.skip("the compiled generalisation writes covers per class; numpy keeps them apart")
    for c in range(len(train.schema.classes)):
        mine = [r for r in cands if r.klass == c]
        search = _ClassSearch(mine, np.ones(len(mine)), train.y == c, train.n)
        firing = [r for r in mine if fires(r)]
        lo, hi, data = search.packed[:3]
        assert data is firing[0].cases.data           # the class's buffer, not a copy
        # numbered by place in leaf order: number i is case packed_labels[i]
        labels = search.packed_labels
        assert labels is not None and labels is firing[0].cases.labels
        assert [np.sort(labels[unpack_cases(data[a:b])]).tolist() for a, b, r in zip(lo, hi, mine) if fires(r)] \
            == [r.cover.tolist() for r in firing]
        assert all(a == b for a, b, r in zip(lo, hi, mine) if not fires(r))
        assert search.r_case.tolist() == np.concatenate([r.cover for r in firing]).tolist()
        # the compiled generalisation packs a cover's places as cases.py does
        place = np.empty(train.n, dtype=np.int64)
        place[labels] = np.arange(train.n)
        assert all(r.cases.data[r.cases.lo:r.cases.hi].tobytes() == pack_cases(np.sort(place[r.cover])) for r in mine)


def _open_fds() -> int:
    import os
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.parametrize("name", ["crx", "soybean", "letter"])
def test_spilled_search_makes_the_in_memory_choices(name):
    # the lists read back from files 64 (or 200) bytes at a time: every toggle and the start
    # cross buffer ends (numbers and lists cut), on one thread and two, the same rules
    from c45rules.rules import select
    if select._native is None:
        pytest.skip("no compiled module")
    cands, bits, y, n_classes = _inputs(name)
    before = _open_fds()
    in_memory = [r.number for r in select_rules(cands, bits, y, n_classes)]
    for chunk, jobs in ((64, 1), (200, 2)):
        spilled = [r.number for r in select_rules(cands, bits, y, n_classes, jobs=jobs, spill_above=0, chunk=chunk)]
        assert spilled == in_memory
    assert _open_fds() == before         # the files closed (they have no name: gone)


def _random_class(rng, n, k):
    y = rng.integers(0, 3, n)
    rules = []
    for i in range(k):
        cover = np.flatnonzero(rng.random(n) < rng.choice([0.02, 0.1, 0.4]))
        rules.append(CandidateRule(i + 1, (), 0, float(rng.choice([0.05, 0.3, 0.69])), len(cover), 0, cover))
    bits = rng.choice([0.5, 1.0, 2.0, 3.5, 7.25], k) + rng.integers(0, 20, k)
    return rules, bits, y


def test_spilled_climb_equals_in_memory_on_random_covers():
    # trial by trial, the same least cost and subset, with and without counts, the buffers as
    # small as allowed and odd-sized, so that every list is cut somewhere
    from c45rules.rules import select
    from c45rules.rules.coding import WeightedExceptionCoder
    if select._native is None:
        pytest.skip("no compiled module")
    rng = np.random.default_rng(7)
    for trial in range(20):
        n, k = int(rng.integers(5, 400)), int(rng.integers(11, 60))
        rules, bits, y = _random_class(rng, n, k)
        counts = rng.integers(1, 6, n) if trial % 2 else None
        total = n if counts is None else int(counts.sum())
        coder = None if counts is None else WeightedExceptionCoder(float(total))
        for start in (np.zeros(k, dtype=bool), rng.random(k) < 0.5, np.ones(k, dtype=bool)):
            found = []
            for spill in (None, 0):
                search = select._ClassSearch(rules, bits, y == 0, total, coder, counts, spill, 64 + 2 * trial + 1)
                assert bool(search._files) == (spill is not None)
                found.append(search._native_trial(start, np.inf))
                search.close()
            (cost_a, best_a), (cost_b, best_b) = found
            assert cost_a == cost_b and np.array_equal(best_a, best_b), trial


def test_spilled_climb_reads_wide_rule_gaps():
    # more than 0xFFFF rules: a case's rules hold 3-word gaps, cut by the buffer's end too
    from c45rules.rules import select
    if select._native is None:
        pytest.skip("no compiled module")
    rng = np.random.default_rng(3)
    n, k = 40, 70_000
    y = rng.integers(0, 2, n)
    rules = []
    for i in range(k):
        # the first and the last 30 fire (a case's rules jump by 0xFFFF or more), the rest never
        live = i < 30 or i >= k - 30
        cover = np.flatnonzero(rng.random(n) < 0.3) if live else np.empty(0, dtype=np.int64)
        rules.append(CandidateRule(i + 1, (), 0, 0.1 if live else 0.9, len(cover), 0, cover))
    bits = rng.integers(1, 30, k).astype(np.float64)
    start = np.zeros(k, dtype=bool)
    found = []
    for spill in (None, 0):
        search = select._ClassSearch(rules, bits, y == 1, n, None, None, spill, 64)
        found.append(search._native_trial(start, np.inf))
        search.close()
    assert found[0][0] == found[1][0] and np.array_equal(found[0][1], found[1][1])


def test_spilled_search_holds_no_pairs_and_closes_its_files(monkeypatch):
    # what stays in memory is per rule and per case (offsets), not the (rule, case) lists; the
    # files are closed when the class's search ends, also when it fails
    from c45rules.rules import select
    if select._native is None:
        pytest.skip("no compiled module")
    rng = np.random.default_rng(5)
    rules, bits, y = _random_class(rng, 300, 40)
    search = select._ClassSearch(rules, bits, y == 0, 300, None, None, 0, 64)
    r_lo, r_hi, data, c_ptr, c_data = search.packed
    assert data.nbytes == 0 and c_data.nbytes == 0 and len(search._files) == 2
    assert sum(a.nbytes for a in (r_lo, r_hi, c_ptr)) <= 16 * 40 + 8 * 301
    search.close()
    assert search._files == []
    # a class searched through files that fails midway still closes them
    before = _open_fds()

    def broken(self, rng, jobs=1):
        assert self._files
        raise RuntimeError("stop")
    monkeypatch.setattr(select._ClassSearch, "greedy", broken)
    with pytest.raises(RuntimeError, match="stop"):
        select_rules(rules, {r.number: float(b) for r, b in zip(rules, bits)}, y, 3, spill_above=0)
    assert _open_fds() == before


def test_spilled_climb_fails_clearly_on_a_bad_file():
    # a file that cannot be read is an OSError, not a crash nor a wrong climb
    from c45rules.rules import select
    if select._native is None:
        pytest.skip("no compiled module")
    rng = np.random.default_rng(6)
    rules, bits, y = _random_class(rng, 200, 30)
    search = select._ClassSearch(rules, bits, y == 0, 200, None, None, 0, 64)
    head, tail = search._native_call()
    counts, (r_fd, c_fd, r_size, c_words, chunk) = search._native_extra
    with open("/dev/null", "rb") as empty:
        with pytest.raises(OSError):
            select._native.climb(*head, np.ones(30, dtype=np.uint8), *tail, np.inf, counts,
                                 (empty.fileno(), c_fd, r_size, c_words, chunk))
    with pytest.raises(ValueError, match="chunk"):
        select._native.climb(*head, np.ones(30, dtype=np.uint8), *tail, np.inf, counts, (r_fd, c_fd, r_size, c_words, 8))
    search.close()
