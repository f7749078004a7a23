"""The compiled hill-climb (rules/_climb.c) takes the same steps as the numpy one: the same
subsets and the same costs, bit for bit, on shared data and on random covers."""
import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import c45rules.rules.select as select
from c45rules.rules.cases import pack_cases
from c45rules.rules.generalize import CandidateRule
from c45rules.rules.random import GlibcRandom
from c45rules.rules.select import _ClassSearch, select_rules

from .test_select_speed import _class_rules, _inputs

native = select._native

if native is None:
    if os.environ.get("CI"):
        # CI builds it: a missing module there is a broken build, not a machine without gcc
        raise ImportError("c45rules.rules._climb was not built (setup.py needs a C compiler)")
    pytest.skip("the compiled climb is not built here", allow_module_level=True)


def _greedy_both(monkeypatch, rules, bits, positive, seed=1):
    """(best cost, best subset) of the greedy search in numpy and compiled."""
    out = []
    for module in (None, native):
        monkeypatch.setattr(select, "_native", module)
        search = _ClassSearch(rules, bits, positive, len(positive))
        search.greedy(GlibcRandom(seed))
        out.append((search.best_cost, search.best.tolist()))
    return out


@pytest.mark.parametrize("name", ["crx", "credit-g", "soybean", "letter", "synth_10k"])
def test_compiled_climb_equals_numpy_on_shared_data(monkeypatch, name):
    cands, bits, y, n_classes = _inputs(name)
    compared = 0
    for c in range(n_classes):
        mine = [r for r in cands if r.klass == c]
        if len(mine) > 10:
            (cost_np, best_np), (cost_c, best_c) = _greedy_both(
                monkeypatch, mine, np.array([bits[r.number] for r in mine]), y == c)
            assert cost_c == cost_np
            assert best_c == best_np
            compared += 1
    assert compared > 0


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_class_rules(), st.integers(1, 2**31 - 1))
def test_compiled_climb_equals_numpy_on_random_covers(case, seed):
    rules, bits, y = case
    chosen = []
    for module in (None, native):
        select._native = module
        try:
            chosen.append([r.number for r in select_rules(rules, {r.number: b for r, b in zip(rules, bits)}, y, 3,
                                                          seed=seed)])
        finally:
            select._native = native
    assert chosen[0] == chosen[1]


def test_compiled_climb_declines_theory_bits_it_cannot_sum_exactly(monkeypatch):
    """Bits 2^-200 apart cannot be summed exactly in 128 bits: the climb says so (None) and
    the search climbs in numpy instead, with the same result as numpy alone."""
    n, k = 30, 12
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, n)
    rules = [CandidateRule(i + 1, (), 0, 0.1, 0, 0, np.sort(rng.choice(n, 6, replace=False)))
             for i in range(k)]
    bits = np.full(k, 5.0)
    bits[3] = 2.0 ** -200
    search = _ClassSearch(rules, bits, y == 0, n)
    assert not search._climb_native(np.ones(k, dtype=bool))
    (cost_np, best_np), (cost_c, best_c) = _greedy_both(monkeypatch, rules, bits, y == 0)
    assert (cost_c, best_c) == (cost_np, best_np)
    assert np.isfinite(cost_c)


def test_compiled_climb_checks_its_array_sizes():
    f8, u1, i8 = np.zeros(2), np.zeros(0, dtype=np.uint8), np.zeros(2, dtype=np.int64)
    tail = (np.zeros(4, dtype=np.int32), np.zeros(2, dtype=np.uint8), np.zeros(1), np.zeros(1), np.zeros(3),
            np.zeros(4), 0, 0, 0.0, np.inf)
    with pytest.raises(ValueError, match="r_lo has 8 bytes, expected 16"):
        native.climb(np.zeros(1, dtype=np.int64), i8, u1, np.zeros(1, dtype=np.int64), u1, u1, f8, *tail)
    # a rule's bytes must lie inside the buffer
    with pytest.raises(ValueError, match="rule range 1 lies outside its bytes"):
        native.climb(i8, np.array([0, 3], dtype=np.int64), np.zeros(2, dtype=np.uint8), np.zeros(1, dtype=np.int64),
                     u1, u1, f8, *tail)


def _gaps16(words) -> list[int]:
    """Numbers from 16-bit gaps (_varint.h gap16: 0xFFFF, then the low and high halves)."""
    out, at, total = [], 0, 0
    while at < len(words):
        gap = int(words[at])
        if gap == 0xFFFF:
            gap, at = int(words[at + 1]) | int(words[at + 2]) << 16, at + 3
        else:
            at += 1
        total += gap
        out.append(total)
    return out


def _case_lists(search):
    """Each case's rules, decoded from the compiled search's index."""
    c_ptr, c_data = search.packed[3], search.packed[4]
    return [_gaps16(c_data[c_ptr[c]:c_ptr[c + 1]]) for c in range(len(c_ptr) - 1)]


def test_case_index_made_in_c_equals_the_rule_by_rule_loop(monkeypatch):
    cands, bits, y, _ = _inputs("letter")
    mine = [r for r in cands if r.klass == 0]
    compiled = _ClassSearch(mine, np.array([bits[r.number] for r in mine]), y == 0, len(y))
    monkeypatch.setattr(select, "_native", None)
    plain = _ClassSearch(mine, np.array([bits[r.number] for r in mine]), y == 0, len(y))
    assert plain.packed is None and len(plain.c_rule) > 1000
    numbered = _case_lists(compiled)
    # the compiled generalisation numbers cases by their place in leaf order
    labels = compiled.packed_labels
    assert labels is not None and sorted(labels.tolist()) == list(range(len(y)))
    lists = [None] * len(y)
    for i, lst in enumerate(numbered):
        lists[labels[i]] = lst
    assert [x for lst in lists for x in lst] == plain.c_rule.tolist()
    assert [len(lst) for lst in lists] == np.diff(plain.c_ptr).tolist()
    assert all(np.all(np.diff(lst) > 0) for lst in lists)       # rules ascend within a case
    # 2 bytes a pair, against 4 as int32
    assert compiled.packed[4].nbytes == 2 * len(plain.c_rule)


def test_case_index_checks_the_packed_cases():
    def index(cases_per_rule, m):
        data = b"".join(pack_cases(np.array(c)) for c in cases_per_rule)
        ends = np.cumsum([len(pack_cases(np.array(c))) for c in cases_per_rule])
        return native.case_rules(np.concatenate([[0], ends[:-1]]).astype(np.int64), ends.astype(np.int64),
                                 np.frombuffer(data, dtype=np.uint8), m)

    c_ptr, c_data = index([[0, 2], [1, 2]], 3)
    assert np.frombuffer(c_ptr, dtype=np.uint32).tolist() == [0, 1, 2, 4]     # offsets fit 32 bits
    assert np.frombuffer(c_data, dtype=np.uint16).tolist() == [0, 1, 0, 1]    # case 2: rule 0, then a gap of 1
    # a gap of 0xFFFF rules or more: 0xFFFF, then its halves
    far = np.zeros(70_001, dtype=np.int64)
    one = np.frombuffer(pack_cases(np.array([1])), dtype=np.uint8)
    hi = far.copy()
    hi[[0, 70_000]] = 1
    c_ptr, c_data = native.case_rules(far, hi, one, 2)
    words = np.frombuffer(c_data, dtype=np.uint16)
    assert np.frombuffer(c_ptr, dtype=np.uint32).tolist() == [0, 0, 4]
    assert words.tolist() == [0, 0xFFFF, 70_000 & 0xFFFF, 70_000 >> 16] and _gaps16(words) == [0, 70_000]
    bad = "case_rules: a rule's packed cases are not ascending cases below m"
    with pytest.raises(ValueError, match=bad):
        index([[0, 5]], 3)                        # a case past the last
    with pytest.raises(ValueError, match=bad):
        native.case_rules(np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64), np.array([0x81], dtype=np.uint8), 3)
    with pytest.raises(ValueError, match=bad):
        native.case_rules(np.zeros(1, dtype=np.int64), np.full(1, 2, dtype=np.int64), np.array([1, 0], dtype=np.uint8), 3)


def test_compiled_climb_reads_offsets_of_either_width():
    # case_rules gives 32-bit offsets while they fit; the climb takes 64-bit ones as well
    cands, bits, y, _ = _inputs("letter")
    mine = [r for r in cands if r.klass == 0]
    search = _ClassSearch(mine, np.array([bits[r.number] for r in mine]), y == 0, len(y))
    assert search.packed[3].dtype == np.uint32
    start = np.random.default_rng(3).uniform(size=len(mine)) < 0.3
    narrow = search._native_trial(start, math.inf)
    search.packed = search.packed[:3] + (search.packed[3].astype(np.int64),) + search.packed[4:]
    search._native_args = None
    wide = search._native_trial(start, math.inf)
    assert narrow[0] == wide[0] and np.array_equal(narrow[1], wide[1]) and narrow[1].any()
    search.packed = search.packed[:3] + (search.packed[3][:-1],) + search.packed[4:]
    search._native_args = None
    with pytest.raises(ValueError, match="c_ptr has"):
        search._native_trial(start, math.inf)


def test_compiled_climb_reads_rule_gaps_of_0xffff_or_more(monkeypatch):
    """A case covered by rules 70,000 apart: its index holds an escaped gap, and the climb
    gives the numpy climb's subset and cost."""
    n, k = 40, 70_001
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, n)
    covers = {0: [1, 2, 3, 9, 20], 1: [2, 3, 4, 30], 69_999: [3, 9, 31, 32, 33], 70_000: [1, 3, 5, 20, 33, 39]}
    rules = [CandidateRule(i + 1, (), 0, 0.1, 0, 0, np.array(covers.get(i, []), dtype=np.int32)) for i in range(k)]
    bits = np.full(k, 3.0)
    start = np.zeros(k, dtype=bool)
    start[[0, 70_000]] = True
    got = []
    for module in (native, None):
        monkeypatch.setattr(select, "_native", module)
        search = _ClassSearch(rules, bits, y == 0, n)
        if module is native:
            # case 3's rules: 0, 1, 69,999, 70,000 -> gaps 0, 1, 69,998 (escaped), 1
            c_ptr, words = search.packed[3], search.packed[4]
            assert words[c_ptr[3]:c_ptr[4]].tolist() == [0, 1, 0xFFFF, 69_998 & 0xFFFF, 69_998 >> 16, 1]
            assert search._climb_native(start)
        else:
            search.hill_climb(start)
        got.append((search.best_cost, np.flatnonzero(search.best).tolist()))
    assert search.packed is None and got[0] == got[1] and got[0][1]


@pytest.mark.parametrize("chunk", [0, 64])
def test_case_index_written_to_a_file_a_run_at_a_time(chunk, tmp_path):
    # the index written run by run (a buffer of `chunk` bytes, or one case's list when longer)
    # holds the bytes case_rules makes in memory, 3-word gaps included; the same offsets
    rng = np.random.default_rng(chunk)
    covers = [np.flatnonzero(rng.random(300) < p) for p in rng.choice([0.01, 0.1, 0.5], 70_010)]
    covers[1:69_990] = [np.zeros(0, dtype=np.int64)] * 69_989      # rules 0 and 69_990 on: gaps past 0xFFFF
    parts = [pack_cases(c) if len(c) else b"" for c in covers]
    ends = np.cumsum([len(p) for p in parts]).astype(np.int64)
    lo, data = np.concatenate([[0], ends[:-1]]).astype(np.int64), np.frombuffer(b"".join(parts), dtype=np.uint8)
    c_ptr, c_data = native.case_rules(lo, ends, data, 300)
    with open(tmp_path / "index", "wb+") as f:
        ptr, none = native.case_rules(lo, ends, data, 300, f.fileno(), chunk)
        f.seek(0)
        assert none is None and ptr == c_ptr and f.read() == c_data
    assert 0xFFFF in np.frombuffer(c_data, dtype=np.uint16)
    with open(tmp_path / "index", "rb") as f:      # not writable: an OSError
        with pytest.raises(OSError):
            native.case_rules(lo, ends, data, 300, f.fileno(), chunk)
