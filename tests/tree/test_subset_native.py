"""The compiled subset search (tree/_subset.c) finds the same subset tests as the numpy one:
the same gain and split information to the bit and the same value blocks, on random tables
full of ties, on every node of -s trees on shared data, and as whole trees."""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as R
from c45rules.data import load_stem
from c45rules.tree import grow, subset
from c45rules.tree.split import seq_sum

from .test_fast_paths import differences

native = subset._native

if native is None:
    if os.environ.get("CI"):
        # CI builds it: a missing module there is a broken build, not a machine without gcc
        raise ImportError("c45rules.tree._subset was not built (setup.py needs a C compiler)")
    pytest.skip("the compiled subset search is not built here", allow_module_level=True)


def assert_same_test(table, cases, min_objs, gain_ratio):
    """subset_test through the compiled module and through numpy agree bit for bit; the result."""
    by_numpy = subset._subset_test_numpy(table, cases, min_objs, gain_ratio)
    compiled = subset.subset_test(table, cases, min_objs, gain_ratio)
    if by_numpy is None:
        assert compiled is None
        return None
    assert compiled is not None
    (g0, s0, b0), (g1, s1, b1) = by_numpy, compiled
    assert type(g1) is np.float32 and type(s1) is np.float32
    assert g0.tobytes() == g1.tobytes() and s0.tobytes() == s1.tobytes()
    assert b0 == b1
    return compiled


# weights that make equal gains and equal block weights common: small integers, halves and
# quarters (exact), thirds and tenths (rounded), and weights at the 0.5 "absent" threshold
_WEIGHTS = st.sampled_from([0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 0.5, 0.25, 1 / 3, 0.1, 2.5, 7.0, 12.0])


@st.composite
def tables(draw):
    values = draw(st.integers(3, 12))
    classes = draw(st.integers(2, 5))
    cells = draw(st.lists(_WEIGHTS, min_size=(values + 1) * classes, max_size=(values + 1) * classes))
    table = np.array(cells, dtype=np.float32).reshape(values + 1, classes)
    if draw(st.booleans()):
        table[0] = 0                     # no unknown values at the node
    return table


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")   # an all-zero table
@settings(max_examples=300, deadline=None)
@given(tables(), st.sampled_from([1, 2, 0.7, 1.5, 5]), st.booleans(), st.sampled_from([0.0, 0.0, 1.5]))
def test_compiled_search_equals_numpy_on_random_tables(table, min_objs, gain_ratio, extra_cases):
    # the node's weight is the table's, or more (c4.5 counts it apart from the table's sums)
    cases = seq_sum(table.reshape(-1)) + np.float32(extra_cases)
    assert_same_test(table, cases, min_objs, gain_ratio)


def test_compiled_search_equals_numpy_on_many_seeded_tables():
    rng = np.random.default_rng(32)
    usable = merged = 0
    for _ in range(400):
        values, classes = int(rng.integers(3, 11)), int(rng.integers(2, 7))
        shape = (values + 1, classes)
        kind = rng.integers(3)
        if kind == 0:
            table = rng.integers(0, 6, shape).astype(np.float32)
        elif kind == 1:
            table = (rng.integers(0, 20, shape) * rng.choice([0.25, 0.5, 0.1])).astype(np.float32)
        else:
            table = (rng.random(shape) * rng.choice([1, 5, 30]) * (rng.random(shape) < 0.6)).astype(np.float32)
        res = assert_same_test(table, seq_sum(table.reshape(-1)), float(rng.choice([1, 2, 0.7, 5])),
                               bool(rng.random() < 0.8))
        if res is not None:
            usable += 1
            merged += any(len(b) > 1 for b in res[2])
    # most tables give a usable test, and most of those merge values (the seed's counts)
    assert (usable, merged) == (380, 350)


def test_compiled_search_hand_computed_tables():
    # tests/tree/test_subset.py's table (value 0 = unknown; [class 0, class 1]) with an absent
    # value v6 of weight 0.25: {v1, v3} join as pure blocks, then {v4} joins them. Known weight
    # 16.25 = [10.25, 6]; gain H(10.25, 6)/16.25 - H(10, 2)/16.25 = 0.470063, split
    # H(12, 4)/16.25 = 0.798797 (H: total weight times entropy); v5, v6 the last branch
    table = np.array([[0, 0], [4, 0], [0, 4], [4, 0], [2, 2], [0, 0], [0.25, 0]], np.float32)
    gain, split, subsets = assert_same_test(table, np.float32(16.25), 2, True)
    assert subsets == (frozenset({0, 2, 3}), frozenset({1}), frozenset({4, 5}))
    assert gain == pytest.approx(0.470063, abs=2e-6) and split == pytest.approx(0.798797, abs=2e-6)
    # one unknown case of class 0 (17 cases): the unknown weight in the split information
    # turns the last merge: {v2, v4} = [2, 6] has ratio 0.516513 / H(1, 8, 8)/17 = 0.408655,
    # {v4} into {v1, v3} 0.439451 / H(1, 12, 4)/17 = 0.404535
    table = np.array([[1, 0], [4, 0], [0, 4], [4, 0], [2, 2]], np.float32)
    gain, split, subsets = assert_same_test(table, np.float32(17), 2, True)
    assert subsets == (frozenset({0, 2}), frozenset({1, 3}))
    assert gain == pytest.approx(0.516513, abs=2e-6) and split == pytest.approx(1.263933, abs=2e-6)


def _node_tables(monkeypatch, name: str, every: int = 1, **options) -> list[tuple]:
    """The (table, cases, min_objs, gain_ratio) of every `every`-th subset search made while
    growing NAME's -s tree."""
    calls = []
    search = grow.subset_test

    def record(table, cases, min_objs, gain_ratio):
        calls.append((np.array(table, dtype=np.float32), cases, min_objs, gain_ratio))
        return search(table, cases, min_objs, gain_ratio)

    monkeypatch.setattr(grow, "subset_test", record)
    train, _ = load_stem(R.stem(name), test=False)
    grow.grow_tree(train, subset=True, **options)
    monkeypatch.undo()
    return calls[::every]


# many classes (soybean), unknowns and fractional weights (crx, breast-cancer, income),
# many values (crx: 14, breast-cancer: 13), large (income, synth_10k: a sample of the nodes)
@pytest.mark.parametrize("name,every,options", [
    ("soybean", 1, {}), ("crx", 1, {}), ("crx", 1, {"gain_ratio": False}), ("breast-cancer", 1, {}),
    ("credit-g", 1, {"min_objs": 5}), ("vote", 1, {}), ("monk2", 1, {}), ("income", 20, {}),
    ("synth_10k", 10, {})])
def test_compiled_search_equals_numpy_at_every_node_of_shared_data(monkeypatch, name, every, options):
    calls = _node_tables(monkeypatch, name, every, **options)
    assert len(calls) > 100
    results = [assert_same_test(*call) for call in calls]
    assert any(r is None for r in results) or name in ("vote", "monk2")
    assert any(r is not None and any(len(b) > 1 for b in r[2]) for r in results)


@pytest.mark.parametrize("name,options", [("soybean", {}), ("crx", {"gain_ratio": False}), ("breast-cancer", {"min_objs": 5})])
def test_compiled_search_grows_the_numpy_tree(monkeypatch, name, options):
    train, _ = load_stem(R.stem(name), test=False)
    trees = []
    for module in (None, native):
        monkeypatch.setattr(subset, "_native", module)
        trees.append(grow.grow_tree(train, subset=True, **options))
    assert any(n.kind == "subset" for n in trees[1].walk())
    assert differences(*trees) is None
