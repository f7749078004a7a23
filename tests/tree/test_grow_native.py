"""The compiled level-wise passes (tree/_grow.c) grow the same trees as the numpy ones:
every field of every node, on shared data, with workers, and on random tables full of ties."""
import os

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as R
from c45rules.data import load_stem
from c45rules.data.schema import Attribute, Dataset, Schema
from c45rules.tree import grow

from .test_fast_paths import differences, random_table

native = grow._native

if native is None:
    if os.environ.get("CI"):
        # CI builds it: a missing module there is a broken build, not a machine without gcc
        raise ImportError("c45rules.tree._grow was not built (setup.py needs a C compiler)")
    pytest.skip("the compiled tree growth is not built here", allow_module_level=True)


def _grow_both(monkeypatch, data, jobs=1, **options):
    """(numpy tree, compiled tree) of the same data and options."""
    trees = []
    for module in (None, native):
        monkeypatch.setattr(grow, "_native", module)
        trees.append(grow.grow_tree(data, jobs=jobs, **options))
    return trees


# continuous only, discrete only, mixed, with unknowns (crx, hypo, labor), many classes
@pytest.mark.parametrize("name", ["iris", "glass", "vote", "monk2", "crx", "hypo", "labor", "credit-g",
                                  "soybean", "letter", "segment", "shuttle", "spambase", "synth_10k"])
def test_compiled_growth_equals_numpy_on_shared_data(monkeypatch, name):
    train, _ = load_stem(R.stem(name), test=False)
    by_numpy, compiled = _grow_both(monkeypatch, train)
    assert compiled.size() > 3
    assert differences(by_numpy, compiled) is None


def test_compiled_growth_equals_numpy_with_other_options(monkeypatch):
    train, _ = load_stem(R.stem("credit-g"), test=False)
    for min_objs, gain_ratio in [(5, True), (2, False), (1, True), (0.7, True)]:
        trees = _grow_both(monkeypatch, train, min_objs=min_objs, gain_ratio=gain_ratio)
        assert differences(*trees) is None


@pytest.mark.parametrize("name", ["letter", "synth_10k"])
def test_growth_with_two_workers_equals_numpy_in_one(monkeypatch, name):
    train, _ = load_stem(R.stem(name), test=False)
    monkeypatch.setattr(grow, "_native", None)
    by_numpy = grow.grow_tree(train)
    monkeypatch.setattr(grow, "_FORK_WORK", 0)     # workers at every level, however small
    # numpy: forked workers; compiled: threads
    for module in (None, native):
        monkeypatch.setattr(grow, "_native", module)
        assert differences(by_numpy, grow.grow_tree(train, jobs=2)) is None


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(5, 400), st.integers(2, 5), st.booleans(),
       st.sampled_from([1, 2, 3.5]))
def test_compiled_growth_equals_numpy_on_random_tables(seed, n, n_classes, unknowns, min_objs):
    data = random_table(seed, n, n_classes, unknowns, awkward=True)
    trees = []
    for module in (None, native):
        grow._native = module
        try:
            trees.append(grow.grow_tree(data, min_objs=min_objs))
        finally:
            grow._native = native
    assert differences(*trees) is None


def _grow_depth_first_both(data, **options):
    """(tree grown node by node in Python over the compiled node steps, the same grown depth first
    in the compiled module), and the case weights after each (restored as c4.5 restores them)."""
    out = []
    for compiled in (False, True):
        g = grow._Grower(data, options.get("min_objs", 2), options.get("gain_ratio", True), False)
        g.compiled = compiled
        out += [g.run(), g.weights]
    grow.forget_tables()
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(5, 400), st.integers(2, 5), st.sampled_from([1, 2, 3.5]),
       st.booleans())
def test_compiled_depth_first_growth_equals_python_node_by_node(seed, n, n_classes, min_objs, weighted):
    # unknown values (fractional weights from the root down) and, with `weighted`, case weights
    data = random_table(seed, n, n_classes, True, awkward=True)
    if weighted:
        data.weights = np.random.default_rng(seed).choice([0.5, 1.0, 2.0, 0.3], n)
    by_python, w_python, compiled, w_compiled = _grow_depth_first_both(data, min_objs=min_objs)
    assert differences(by_python, compiled) is None
    assert w_compiled.tobytes() == w_python.tobytes()


@pytest.mark.parametrize("name", ["income", "labor", "soybean", "hypo", "crx", "breast-cancer"])
def test_compiled_depth_first_growth_equals_python_on_sets_with_unknowns(name):
    train, _ = load_stem(R.stem(name), test=False)
    for gain_ratio in (True, False):
        by_python, _, compiled, _ = _grow_depth_first_both(train, gain_ratio=gain_ratio)
        assert compiled.size() > 8
        assert differences(by_python, compiled) is None


def test_compiled_growth_checks_its_ranks():
    g = grow._Grower(random_table(3, 50, 2, True), 2, True, False)
    ranks, k, values, values32, at = g.ranked()
    ranks = ranks.copy()
    ranks[0, 7] = len(values) + 5          # beyond attribute 0's unknown rank
    with pytest.raises(ValueError, match="value lists and ranks do not agree"):
        native.node_cuts(ranks, k, values, values32, at, np.arange(50), np.ones(50, np.float32),
                         g.y, 2, 50.0, 2.0, *(np.empty(k, t) for t in (np.float32, np.float32, np.int64,
                                                                        np.float64, np.float64)))


def test_compiled_node_by_node_growth_equals_numpy_with_unknowns_everywhere(monkeypatch):
    # 5% of every attribute unknown: nearly every case is split with a fraction of its weight,
    # so the whole tree grows node by node with fractional weights (node_cuts)
    train, _ = load_stem(R.stem("synth_10k"), test=False)
    rng = np.random.default_rng(11)
    cols = []
    for col in train.columns:
        col = col.copy()
        col[rng.random(train.n) < 0.05] = np.nan if col.dtype.kind == "f" else -1
        cols.append(col)
    holed = type(train)(train.schema, cols, train.y)
    by_numpy, compiled = _grow_both(monkeypatch, holed)
    assert compiled.size() > 1000
    assert differences(by_numpy, compiled) is None


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 200), st.integers(2, 4), st.sampled_from([1, 2, 3.5]))
def test_node_cuts_equals_best_cuts_bit_for_bit(seed, n, n_classes, min_objs):
    # fractional weights and many tied values: the float sums depend on the order of the
    # tied cases (the node's own order), which the compiled sort must keep
    from c45rules.tree.split import best_cuts, seq_sum
    rng = np.random.default_rng(seed)
    k = 3
    X = np.round(rng.random((n + 5, k)) * 4, 0) / 2
    X[rng.random((n + 5, k)) < 0.15] = np.nan
    X[rng.random((n + 5, k)) < 0.05] = -0.0       # equal to 0.0 in other bits
    idx = rng.permutation(n + 5)[:n]
    w = np.where(rng.random(n) < 0.5, 1.0, rng.random(n)).astype(np.float32)
    y = rng.integers(0, n_classes, n)
    cases = seq_sum(w)
    sub = X[idx]
    order = np.argsort(sub, axis=0, kind="stable")
    vals = np.take_along_axis(sub, order, axis=0)
    want_g, want_s, want_at = best_cuts(vals, w[order], y[order], n_classes, cases, min_objs)
    g, s = np.empty(k, np.float32), np.empty(k, np.float32)
    at, below, above = np.empty(k, np.int64), np.empty(k), np.empty(k)
    values = [np.unique(X[~np.isnan(X[:, j]), j]) for j in range(k)]
    starts = np.concatenate([[0], np.cumsum([len(v) for v in values])]).astype(np.int64)
    values = np.concatenate(values)
    native.node_cuts(grow.value_ranks(list(X.T), len(X)), k, values, values.astype(np.float32), starts,
                     idx.astype(np.int64), w, y.astype(np.int64), n_classes, float(cases), float(min_objs), g, s, at,
                     below, above)
    assert g.tobytes() == want_g.tobytes() and s.tobytes() == want_s.tobytes()
    assert list(at) == list(want_at)
    for j in range(k):
        if at[j] >= 0:
            assert (below[j], above[j]) == (vals[at[j], j], vals[at[j] + 1, j])


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 80), st.integers(2, 4), st.sampled_from([1, 2, 3.5]),
       st.sampled_from([np.int8, np.int16, np.int64]))
def test_node_discrete_equals_class_sums_and_discrete_gains_bit_for_bit(seed, n, n_classes, min_objs, dtype):
    from c45rules.tree.split import discrete_gains, seq_sum
    rng = np.random.default_rng(seed)
    nvals = np.array([2, 3, 5])
    max_v = int(nvals.max()) + 1
    codes = np.stack([rng.integers(-1, v, n + 5) for v in nvals], axis=1).astype(dtype)
    idx = rng.permutation(n + 5)[:n]
    w = np.where(rng.random(n) < 0.5, 1.0, rng.random(n)).astype(np.float32)
    y = rng.integers(0, n_classes, n)
    cases = seq_sum(w)
    offsets = np.arange(3) * max_v * n_classes
    flat = offsets[None, :] + (codes[idx].astype(np.int64) + 1) * n_classes + y[:, None]
    want_t = grow.class_sums(flat.ravel(), np.repeat(w, 3), 3 * max_v * n_classes).reshape(3, max_v, n_classes)
    want_g, want_s = discrete_gains(want_t, cases, min_objs)
    t = np.empty((3, max_v, n_classes), np.float32)
    g, s = np.empty(3, np.float32), np.empty(3, np.float32)
    native.node_discrete(codes, codes.itemsize, idx.astype(np.int64), w, y.astype(np.int64), n_classes, max_v,
                         float(cases), float(min_objs), t, g, s)
    assert t.tobytes() == want_t.tobytes()
    assert g.tobytes() == want_g.tobytes() and s.tobytes() == want_s.tobytes()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 300), st.integers(1, 5))
def test_node_counts_equal_seq_sum_and_class_sums(seed, n, n_classes):
    from c45rules.tree.split import seq_sum
    rng = np.random.default_rng(seed)
    weights = np.where(rng.random(n + 7) < 0.5, 1.0, rng.random(n + 7)).astype(np.float32)
    y = rng.integers(0, n_classes, n + 7)
    idx = rng.permutation(n + 7)[:n]
    dist = np.empty(n_classes, np.float32)
    cases = native.node_counts(weights, y, idx.astype(np.int64), dist)
    assert np.float32(cases) == cases
    assert np.float32(cases).tobytes() == np.float32(seq_sum(weights[idx])).tobytes()
    assert dist.tobytes() == grow.class_sums(y[idx], weights[idx], n_classes).tobytes()


def test_compiled_argsort_is_numpys_stable_argsort():
    rng = np.random.default_rng(5)
    special = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.5, -2.25, 5e-324, -5e-324, 1e308])
    for values in (special[rng.integers(0, len(special), 2000)], np.round(rng.normal(size=5000) * 100) / 7,
                   np.zeros(0), np.ones(3)):
        out = np.empty(len(values), dtype=np.int32)
        native.argsort(values, out)
        assert np.array_equal(out, np.argsort(values, kind="stable"))


def test_compiled_regroup_is_a_stable_scatter_and_checks_its_ranges():
    row = np.array([5, 1, 4, 0, 3, 2], dtype=np.int32)
    group = np.array([1, 0, -1, 1, 0, 0], dtype=np.int32)        # case 2 is dropped
    values = np.arange(6, dtype=np.float32)
    assert native.regroup(row, 6, group, np.array([0, 3, 5]), values) == 5
    assert row[:5].tolist() == [5, 1, 4, 0, 3]
    assert values[:5].tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="fill their groups"):
        native.regroup(np.array([0, 1], dtype=np.int32), 2, np.array([0, 0], dtype=np.int32),
                       np.array([0, 1, 2]))


def test_compiled_passes_check_their_array_sizes():
    with pytest.raises(ValueError, match="classes has 2 bytes, expected 3"):
        f4 = np.zeros(3, dtype=np.float32)
        native.cut_search(f4, np.zeros(2, dtype=np.int8), 1, np.array([0, 3]), np.zeros(2, dtype=np.int64),
                          np.zeros(3, dtype=np.uint8), np.zeros(1, dtype=np.float32), np.zeros(4), np.zeros(4),
                          2.0, np.zeros(1, dtype=np.float32), np.zeros(1, dtype=np.int64))
    with pytest.raises(ValueError, match="out has 8 bytes"):
        native.value_tables(np.zeros((2, 1), dtype=np.int8), 1, np.zeros(2, dtype=np.int64),
                            np.zeros(2, dtype=np.int32), np.zeros(1, dtype=np.int64), 1, 2, 2, np.zeros(1, dtype=np.int64))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 40), st.integers(2, 7), st.integers(2, 5),
       st.sampled_from([1, 2, 0.7, 5]))
def test_compiled_value_gains_equal_discrete_gains(seed, rows, n_values, n_classes, min_objs):
    from c45rules.tree.split import _xlogx_table, discrete_gains
    rng = np.random.default_rng(seed)
    # small counts with many zeros: equal informations and unusable tests are common
    tables = rng.integers(0, 6, (rows, n_values, n_classes)) * (rng.random((rows, n_values, n_classes)) < 0.6)
    tables[rng.random(rows) < 0.3, 0] = 0             # no unknowns in some rows
    cases = tables.sum(axis=(1, 2)).astype(np.float32)
    want = discrete_gains(tables.astype(np.float32), cases, min_objs)
    gain, split = np.empty(rows, dtype=np.float32), np.empty(rows, dtype=np.float32)
    native.value_gains(tables.astype(np.int64), n_values, n_classes, cases, _xlogx_table(int(cases.max())),
                       float(min_objs), gain, split)
    np.testing.assert_array_equal(gain, want[0])
    np.testing.assert_array_equal(split, want[1])


@pytest.mark.parametrize("longer", ["_XLOGX", "_LOG2"])
def test_compiled_cut_search_takes_tables_of_different_lengths(monkeypatch, longer):
    """The x log x and log2 tables grow separately (other steps use x log x too)."""
    from c45rules.tree import split
    train, _ = load_stem(R.stem("crx"), test=False)
    by_numpy = _grow_both(monkeypatch, train)[0]
    for name in ("_XLOGX", "_LOG2"):
        monkeypatch.setattr(split, name, np.zeros(1))
    if longer == "_XLOGX":
        split._xlogx_table(50_000)
    else:
        split.log2_table(50_000)
    monkeypatch.setattr(grow, "_native", native)
    assert differences(by_numpy, grow.grow_tree(train)) is None


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
def test_compiled_value_tables_count_as_bincount(dtype):
    rng = np.random.default_rng(7)
    m, D, S, V, C = 500, 4, 6, 9, 3
    codes = rng.integers(-1, V - 1, (m, D)).astype(dtype)
    node, classes = np.sort(rng.integers(0, S, m)), rng.integers(0, C, m).astype(np.int32)
    columns = np.array([3, 1], dtype=np.int64)
    out = np.zeros(len(columns) * S * V * C, dtype=np.int64)
    native.value_tables(codes, codes.itemsize, node, classes, columns, S, V, C, out)
    cell = (np.arange(len(columns)) * S)[None, :] + node[:, None]
    flat = (cell * V + codes[:, columns] + 1) * C + classes[:, None]
    assert np.array_equal(out, np.bincount(flat.ravel(), minlength=out.size))


def test_narrowed_rows_move_to_the_front_and_give_back_the_rest():
    from c45rules.tree.grow import narrow

    # what the allocator gives back depends on its history (glibc raises its mmap threshold
    # after large frees, and then a 32 MB block comes from the heap): measured in a fresh process
    given_back = subprocess.run([sys.executable, "-c", """
import numpy as np
from c45rules.tree.grow import narrow
def resident_mb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024
ref = np.arange(4 * 2_000_000, dtype=np.int32).reshape(4, 2_000_000)
rows = ref.copy()                    # 32 MB resident, owning its memory
before = resident_mb()
small = narrow(rows, 100_000)
assert small is rows and small.shape == (4, 100_000) and small.flags.c_contiguous
assert (small == ref[:, :100_000]).all()
print(before - resident_mb())
"""], capture_output=True, text=True, check=True)
    assert float(given_back.stdout) > 25, given_back.stdout
    ref = np.arange(4 * 2_000_000, dtype=np.int32).reshape(4, 2_000_000)
    small = narrow(ref.copy(), 100_000)
    # a step of less than an eighth stays a view; the next large one still moves the rows
    view = narrow(small, 95_000)
    assert view.base is small and not view.flags.c_contiguous and (view == ref[:, :95_000]).all()
    tiny = narrow(view, 10)
    assert tiny is small and tiny.tolist() == ref[:, :10].tolist()
    # not the owner's leading columns, or memory it does not own: a view, nothing moved
    shifted = np.arange(30).reshape(3, 10)
    assert np.shares_memory(narrow(shifted[:, 2:], 2), shifted) and shifted.tolist() == np.arange(30).reshape(3, 10).tolist()
    foreign = np.frombuffer(bytearray(240), dtype=np.int64).reshape(3, 10)
    assert narrow(foreign, 2).base is not None and foreign.shape == (3, 10)


def _prune_both(monkeypatch, grown, data, cf):
    """(pruned by prune.py's recursive estimate, pruned by the compiled prune_nodes)."""
    from c45rules.tree import prune
    out = []
    for module in (None, native):
        monkeypatch.setattr(prune, "_native", module)
        out.append(prune.prune_tree(grown, data, cf=cf))
    return out


@pytest.mark.parametrize("name", ["income", "labor", "soybean", "hypo", "crx", "breast-cancer", "credit-g"])
def test_compiled_pruning_equals_python_on_sets_with_unknowns(monkeypatch, name):
    train, _ = load_stem(R.stem(name), test=False)
    grown = grow.grow_tree(train)
    for cf in (0.25, 0.1, 0.6):
        by_python, compiled = _prune_both(monkeypatch, grown, train, cf)
        assert differences(by_python, compiled) is None
        assert compiled.size() > 1


@pytest.mark.parametrize("name,options", [("income", {}), ("income", {"gain_ratio": False}), ("soybean", {}),
                                          ("crx", {"min_objs": 5}), ("breast-cancer", {}), ("labor", {})])
def test_compiled_pruning_of_subset_tests_equals_python(monkeypatch, name, options):
    train, _ = load_stem(R.stem(name), test=False)
    grown = grow.grow_tree(train, subset=True, **options)
    for cf in (0.25, 0.1, 0.6):
        by_python, compiled = _prune_both(monkeypatch, grown, train, cf)
        assert differences(by_python, compiled) is None
    # the subset tests kept (and raised) carry their blocks, the last branch checked after
    tests = [n for n in compiled.walk() if n.kind == "subset"]
    assert tests and all(len(n.subsets) == len(n.branches) and all(n.subsets) for n in tests)


@pytest.mark.parametrize("subset", [False, True])
@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10_000), st.integers(5, 400), st.integers(2, 5), st.booleans(), st.sampled_from([0.25, 0.9]))
def test_compiled_pruning_equals_python_on_random_tables(subset, seed, n, n_classes, weighted, cf):
    """With and without subset tests (-s) in the grown tree."""
    from c45rules.tree import prune
    data = random_table(seed, n, n_classes, True, awkward=True)
    if weighted:
        data.weights = np.random.default_rng(seed).choice([0.5, 1.0, 2.0, 0.3], n)
    grown = grow.grow_tree(data, min_objs=1, subset=subset)
    trees = []
    for module in (None, native):
        prune._native = module
        try:
            trees.append(prune.prune_tree(grown, data, cf=cf))
        finally:
            prune._native = native
    assert differences(*trees) is None


def test_compiled_pruning_needs_the_subset_maps():
    # a subset test (kind 3) sending code 0 to branch 1 and code 1 to branch 0
    args = (np.zeros(3, np.int64), np.zeros(3), np.zeros(3), np.array([3, 0, 0], np.int8), np.array([0, -1, -1]),
            np.zeros(3), np.array([2, 0, 0]), np.zeros((3, 2), np.float32), (np.array([0, 1, 1], np.int32),),
            np.array([0, 1, 1]), np.ones(3, np.float32), lambda c, e: 0.0)
    with pytest.raises(ValueError, match="node kind"):
        native.prune_nodes(*args)
    with pytest.raises(ValueError, match="out of its node's bounds or branches"):
        native.prune_nodes(*args, (np.array([0, 2, 2, 2]), np.array([1, 2], np.int32)))
    out = native.prune_nodes(*args, (np.array([0, 2, 2, 2]), np.array([1, 0], np.int32)))
    # the class-1 cases (code 1) reach branch 0, the class-0 case branch 1: two perfect leaves,
    # which a leaf at the root (1 error, no extra errors) does not match: the test stays
    assert np.frombuffer(out[3], np.int8).tolist() == [3, 0, 0]
    assert np.frombuffer(out[1]).tolist() == [3, 2, 1] and np.frombuffer(out[0], np.int64).tolist() == [1, 1, 0]
    assert np.frombuffer(out[8], np.int64).tolist() == [0, 1, 2]


def test_compiled_pruning_checks_the_tree_shape():
    # a test of two branches with one node below it
    with pytest.raises(ValueError, match="the tree's shape is wrong"):
        native.prune_nodes(np.zeros(2, np.int64), np.zeros(2), np.zeros(2), np.array([1, 0], np.int8),
                           np.array([0, -1]), np.zeros(2), np.array([2, 0]), np.zeros((2, 2), np.float32),
                           (np.zeros(3, np.int32),), np.zeros(3, np.int64), np.ones(3, np.float32), lambda c, e: 0.0)


def test_compiled_cut_search_reads_ranks_through_a_table_as_the_values():
    """uint16 ranks into a float32 table give the very search the float32 values give."""
    rng = np.random.default_rng(11)
    P, C = 400, 3
    table = np.unique(np.round(rng.random(60), 2)).astype(np.float32)
    starts = np.array([0, 150, 400])
    ranks = np.concatenate([np.sort(rng.integers(0, len(table), 150)),
                            np.sort(rng.integers(0, len(table), 250))]).astype(np.uint16)
    classes = rng.integers(0, C, P).astype(np.int8)
    counts = np.stack([np.bincount(classes[a:b], minlength=C) for a, b in zip(starts, starts[1:])]).astype(np.int64)
    inside = np.ones(P, dtype=np.uint8)
    base = np.full(2, 1.2, dtype=np.float32)
    from c45rules.tree.split import _xlogx_table, log2_table
    xlogx, log2 = _xlogx_table(P), log2_table(P)
    got = []
    for values, extra in ((table[ranks], ()), (ranks, (table,))):
        best, at = np.empty(2, dtype=np.float32), np.empty(2, dtype=np.int64)
        native.cut_search(values, classes, 1, starts, counts, inside, base, xlogx, log2, 2.0, best, at, *extra)
        got.append((best.tolist(), at.tolist()))
    assert got[0] == got[1]
    assert all(a >= 0 for a in got[0][1])
    with pytest.raises(ValueError, match="beyond the table"):
        native.cut_search(ranks, classes, 1, starts, counts, inside, base, xlogx, log2, 2.0,
                          np.empty(2, dtype=np.float32), np.empty(2, dtype=np.int64), table[:5])


def test_regroup_moves_two_byte_payloads():
    row = np.array([0, 1, 2, 3], dtype=np.int32)
    group = np.array([1, 0, 1, 0], dtype=np.int32)
    ranks = np.array([10, 11, 12, 13], dtype=np.uint16)
    assert native.regroup(row, 4, group, np.array([0, 2, 4]), ranks) == 4
    assert row.tolist() == [1, 3, 0, 2]
    assert ranks.tolist() == [11, 13, 10, 12]


@pytest.mark.parametrize("jobs", [1, 2])
def test_few_values_tables_are_numpys_distinct_values_or_none_past_16_bits(jobs):
    rng = np.random.default_rng(11)
    n = 70_000
    few = np.round(rng.normal(size=n) * 50) / 4
    few[rng.random(n) < 0.1] = np.nan
    few[rng.random(n) < 0.05] = -0.0
    never_known = np.full(n, np.nan)
    many = rng.random(n)                            # ~70,000 distinct: over 2^16
    attrs = tuple(Attribute(f"x{i}", "continuous") for i in range(3))
    data = Dataset(Schema(attrs, ("a", "b")), [few, never_known, many], rng.integers(0, 2, n))
    assert grow.few_values_tables(data, [0, 1, 2], jobs) is None
    assert 2 not in data._sorted_values            # a many-valued column's values are not kept
    tables = grow.few_values_tables(data, [0, 1], jobs)
    for a, table in zip([0, 1], tables):
        want = np.unique(data.columns[a][~np.isnan(data.columns[a])])
        assert data._sorted_values[a].dtype == np.float64 and np.array_equal(data._sorted_values[a], want)
        assert table.dtype == np.float32 and table.tolist() == want.astype(np.float32).tolist()
    assert len(tables[0]) == len(np.unique(few[~np.isnan(few)])) and len(tables[1]) == 0
