"""The compiled weighted climb (rules/_climb.c wclimb) takes the numpy weighted search's steps:
the same subsets and the same costs, bit for bit, whether its sums are updated (exact weights)
or added again in numpy's order (fractional ones)."""
import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import c45rules.rules.select as select
from c45rules.data.weights import sums_are_exact
from c45rules.rules.coding import WeightedExceptionCoder
from c45rules.rules.random import GlibcRandom
from c45rules.rules.select import _WeightedSearch, select_rules

from .test_select_speed import _class_rules, _inputs

native = select._native

if native is None:
    if os.environ.get("CI"):
        raise ImportError("c45rules.rules._climb was not built (setup.py needs a C compiler)")
    pytest.skip("the compiled climb is not built here", allow_module_level=True)


def _weights(kind, n, seed=5):
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        return rng.uniform(0.5, 2.0, n)
    if kind == "boosted":       # most cases 1, a few heavier (as after a boosting trial)
        return np.where(rng.random(n) < 0.05, rng.uniform(2.0, 10.0, n), 1.0)
    if kind == "whole":
        return rng.integers(1, 4, n).astype(np.float64)
    return rng.integers(1, 8, n) / 4.0      # quarters: exact too


@pytest.mark.parametrize("n", [*range(0, 40), 127, 128, 129, 255, 256, 1000, 8191, 8193, 65537, 100003])
def test_pairwise_sum_is_numpys_sum(n):
    rng = np.random.default_rng(n)
    x = rng.uniform(0.5, 2.0, n) * 10.0 ** rng.integers(-8, 8, n)
    assert native.pairwise_sum(x) == float(x.sum())
    some = x[rng.random(n) < 0.3]
    assert native.pairwise_sum(some) == float(some.sum())


def test_sums_are_exact_for_whole_and_dyadic_weights_only():
    assert sums_are_exact(np.array([1.0, 2.0, 3.0]))
    assert sums_are_exact(np.array([0.5, 0.25, 3.0]))
    assert not sums_are_exact(np.array([0.1, 0.2]))
    assert not sums_are_exact(np.random.default_rng(1).uniform(0.5, 2.0, 10))
    assert sums_are_exact(np.array([2.0**52, 1.0]))                 # sum 2^52 + 1: still exact
    assert not sums_are_exact(np.array([2.0**52, 2.0**52, 1.0]))    # 2^53 + 1 is not a double
    assert not sums_are_exact(np.array([2.0**-1070, 1.0]))


def _search(rules, bits, positive, w, exact):
    coder = WeightedExceptionCoder(math.fsum(w.tolist()))
    return _WeightedSearch(rules, bits, positive, w, coder, exact)


def _greedy(monkeypatch, module, rules, bits, positive, w, exact, seed=1):
    monkeypatch.setattr(select, "_native", module)
    search = _search(rules, bits, positive, w, exact)
    search.greedy(GlibcRandom(seed))
    return search.best_cost, search.best.tolist()


@pytest.mark.parametrize("name,kind", [("crx", "uniform"), ("credit-g", "boosted"), ("soybean", "uniform"),
                                       ("credit-g", "whole"), ("crx", "quarters"), ("segment", "boosted")])
def test_weighted_climb_equals_numpy_on_shared_data(monkeypatch, name, kind):
    cands, bits, y, n_classes = _inputs(name)
    w = _weights(kind, len(y))
    exact = sums_are_exact(w)
    assert exact == (kind in ("whole", "quarters"))
    compared = 0
    for c in range(n_classes):
        mine = [r for r in cands if r.klass == c]
        if len(mine) <= 10:
            continue
        b = np.array([bits[r.number] for r in mine])
        by_numpy = _greedy(monkeypatch, None, mine, b, y == c, w, exact)
        assert _greedy(monkeypatch, native, mine, b, y == c, w, exact) == by_numpy
        if exact:
            # adding the sums again in numpy's order gives the same search as updating them
            assert _greedy(monkeypatch, native, mine, b, y == c, w, False) == by_numpy
        compared += 1
    assert compared > 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_class_rules(), st.integers(1, 2**31 - 1), st.sampled_from(["uniform", "boosted", "whole", "quarters"]))
def test_weighted_climb_equals_numpy_on_random_covers(case, seed, kind):
    rules, bits, y = case
    w = _weights(kind, len(y), seed % 1000)
    chosen = []
    for module in (None, native):
        select._native = module
        try:
            chosen.append([r.number for r in select_rules(rules, {r.number: b for r, b in zip(rules, bits)}, y, 3,
                                                          seed=seed, weights=w)])
        finally:
            select._native = native
    assert chosen[0] == chosen[1]


def test_weighted_climb_declines_theory_bits_it_cannot_sum_exactly():
    """As the unweighted climb: None, and the numpy climb then runs."""
    from c45rules.rules.generalize import CandidateRule
    n, k = 30, 12
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, n)
    rules = [CandidateRule(i + 1, (), 0, 0.1, 0, 0, np.sort(rng.choice(n, 6, replace=False))) for i in range(k)]
    bits = np.full(k, 5.0)
    bits[3] = 2.0 ** -200
    search = _search(rules, bits, y == 0, rng.uniform(0.5, 2, n), False)
    assert search._native_trial(np.ones(k, dtype=bool), math.inf) is None
    search.hill_climb(np.ones(k, dtype=bool))
    assert search.best is not None


def test_in_case_order_numbers_the_covered_cases_in_case_order():
    from c45rules.rules.cases import pack_cases, unpack_cases
    # three rules' covers numbered by place in a leaf order (labels), the way the compiled
    # generalisation writes them; case 5 and case 0 are covered by no rule
    labels = np.array([6, 2, 0, 4, 1, 3, 5], dtype=np.int32)
    covers = [[0, 1, 3], [1, 4], [], [3, 4, 5]]      # leaf-order numbers
    parts = [pack_cases(np.array(c, dtype=np.int64)) for c in covers]
    lo = np.cumsum([0] + [len(p) for p in parts[:-1]]).astype(np.int64)
    hi = lo + np.array([len(p) for p in parts], dtype=np.int64)
    data = np.frombuffer(b"".join(parts), dtype=np.uint8)
    lo_b, hi_b, data_b, kept_b = native.in_case_order(lo, hi, data, labels, 7)
    kept = np.frombuffer(kept_b, dtype=np.int32)
    assert kept.tolist() == [1, 2, 3, 4, 6]          # the cases any rule covers, ascending
    got_lo, got_hi = np.frombuffer(lo_b, dtype=np.int64), np.frombuffer(hi_b, dtype=np.int64)
    got = np.frombuffer(data_b, dtype=np.uint8)
    as_cases = [kept[unpack_cases(got[a:b])].tolist() for a, b in zip(got_lo, got_hi)]
    assert as_cases == [[2, 4, 6], [1, 2], [], [1, 3, 4]]
    # without labels the numbers are cases already: only the uncovered ones drop out
    lo_b, hi_b, data_b, kept_b = native.in_case_order(lo, hi, data, np.zeros(0, dtype=np.int32), 7)
    assert np.frombuffer(kept_b, dtype=np.int32).tolist() == [0, 1, 3, 4, 5]
    with pytest.raises(ValueError):
        native.in_case_order(lo, hi, data, labels, 6)     # label 6 is not below n
