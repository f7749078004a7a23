"""The compiled hill-climb (rules/_climb.c) takes the same steps as the numpy one: the same
subsets and the same costs, bit for bit, on shared data and on random covers."""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import c45rules.rules.select as select
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
    with pytest.raises(ValueError, match="r_ptr has 8 bytes, expected 16"):
        f8, i4, u1 = np.zeros(1), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.uint8)
        native.climb(np.zeros(1, dtype=np.int64), i4, np.zeros(1, dtype=np.int64), i4, u1, f8,
                     np.zeros(2, dtype=np.int32), np.zeros(1, dtype=np.uint8), f8, f8, np.zeros(2), np.zeros(3),
                     0, 0, 0.0, np.inf)


def test_case_index_filled_in_c_equals_the_rule_by_rule_loop(monkeypatch):
    cands, bits, y, _ = _inputs("letter")
    mine = [r for r in cands if r.klass == 0]
    compiled = _ClassSearch(mine, np.array([bits[r.number] for r in mine]), y == 0, len(y))
    monkeypatch.setattr(select, "_native", None)
    plain = _ClassSearch(mine, np.array([bits[r.number] for r in mine]), y == 0, len(y))
    assert len(plain.c_rule) > 1000
    assert compiled.c_rule.tolist() == plain.c_rule.tolist()
    assert np.all(np.diff(plain.c_rule[plain.c_ptr[0]:plain.c_ptr[1]]) > 0)    # rules ascend within a case


def test_case_index_checks_its_arrays():
    with pytest.raises(ValueError, match="case_rules: a case is out of range"):
        native.case_rules(np.array([0, 2], dtype=np.int64), np.array([0, 5], dtype=np.int32),
                          np.array([0, 1, 2], dtype=np.int64), np.zeros(2, dtype=np.int32))
