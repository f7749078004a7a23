"""The compiled generalisation (rules/_generalize.c) gives the numpy loop's candidates:
every field and every cover, on larger shared data than the plain-computation tests reach."""
import os

import numpy as np
import pytest

import c45rules.rules.generalize as generalize
import reference as R
from c45rules.data import load_stem
from c45rules.rules.extract import SUBSET, leaf_paths
from c45rules.rules.generalize import _Compiled, _leaf_order, generalise_rules, known_by_value, narrow_ranks
from c45rules.tree.grow import grow_tree

COMPILED = generalize._native

if COMPILED is None:
    if os.environ.get("CI"):
        raise ImportError("c45rules.rules._generalize was not built (setup.py needs a C compiler)")
    pytest.skip("the compiled generalisation is not built here", allow_module_level=True)


def _fields(rules):
    return [(r.number, r.conditions, r.klass, r.error, r.covered, r.errors, r.cover.dtype.str, r.cover.tolist())
            for r in rules]


@pytest.mark.parametrize("stem, options", [
    ("letter", {}), ("income", {}), ("synth_10k", {}), ("credit-g", {"fisher": 0.05}), ("segment", {"cf": 0.1}),
])
def test_compiled_equals_numpy_on_shared_data(monkeypatch, stem, options):
    train, _ = load_stem(R.stem(stem))
    tree = grow_tree(train)
    compiled = generalise_rules(tree, train, **options)
    monkeypatch.setattr(generalize, "_native", None)
    plain = generalise_rules(tree, train, **options)
    assert len(compiled) > 20
    assert _fields(compiled) == _fields(plain)


@pytest.mark.parametrize("popcnt", [True, False])
def test_both_popcounts_give_the_numpy_candidates(monkeypatch, popcnt):
    """The recount counts with the popcnt instruction where the CPU has it, else by summing
    bits: the same candidates either way."""
    train, _ = load_stem(R.stem("income"))
    tree = grow_tree(train)
    was = COMPILED.use_popcnt(popcnt)
    try:
        compiled = generalise_rules(tree, train)
    finally:
        COMPILED.use_popcnt(was > 0)
    assert was in (-1, 0, 1)
    monkeypatch.setattr(generalize, "_native", None)
    assert len(compiled) > 20
    assert _fields(compiled) == _fields(generalise_rules(tree, train))


def test_paths_deeper_than_the_compiled_pools_take_numpy(monkeypatch):
    """Pools number levels in 16 bits: the compiled module refuses deeper paths, and
    generalise_rules then takes the numpy path (here forced by lowering the limit)."""
    assert COMPILED.MAX_DEPTH == 2**15 - 1
    col = (np.array([0.5, 1.5, np.nan]),)
    deep = 2**15
    with pytest.raises(ValueError, match="leaf_order: a leaf's path is deeper than 32767 levels"):
        COMPILED.leaf_order(col, *_conditions(), np.array([0, deep], dtype=np.int64),
                            np.zeros(deep, dtype=np.int32), 3, 0)
    train, _ = load_stem(R.stem("crx"))
    tree = grow_tree(train)
    compiled = generalise_rules(tree, train)
    monkeypatch.setattr(COMPILED, "MAX_DEPTH", 3)
    monkeypatch.setattr(generalize._Compiled, "leaf_order", None)     # must not be reached
    plain = generalise_rules(tree, train)
    assert len(compiled) > 10 and max(len(r.conditions) for r in compiled) > 0
    assert _fields(compiled) == _fields(plain)


def test_compiled_equals_numpy_in_two_workers(monkeypatch):
    monkeypatch.setattr(generalize, "_SPLIT_WORK", 0)      # runs in threads even on small data
    train, _ = load_stem(R.stem("letter"))
    tree = grow_tree(train)
    compiled = generalise_rules(tree, train, jobs=2)
    monkeypatch.setattr(generalize, "_native", None)
    assert _fields(compiled) == _fields(generalise_rules(tree, train))


@pytest.mark.parametrize("stem, subset", [("crx", False), ("letter", False), ("soybean", True), ("hypo", False)])
def test_compiled_leaf_order_equals_numpy(stem, subset):
    """Cases leaf by leaf, then those reaching no leaf (crx and hypo have unknown values)."""
    train, _ = load_stem(R.stem(stem))
    tree = grow_tree(train, subset=subset)
    leaves = [(p, leaf) for p, leaf in leaf_paths(tree) if p]
    class_n = np.bincount(train.y, minlength=len(train.schema.classes))
    compiled = _Compiled(tree, train, class_n).leaf_order()
    plain = _leaf_order(leaves, train)
    assert sorted(compiled.tolist()) == list(range(train.n))
    assert compiled.tolist() == plain.tolist()


def test_ranked_positions_leave_out_unknowns_and_ascend():
    train, _ = load_stem(R.stem("crx"))
    order = np.arange(train.n)[::-1].copy()         # bit position -> case
    position = np.empty(train.n, dtype=np.int32)
    position[order] = np.arange(train.n, dtype=np.int32)
    a = next(i for i, att in enumerate(train.schema.attributes) if att.is_continuous)
    col = train.columns[a]
    ranked = known_by_value(col, position)
    assert ranked.dtype == np.int32
    assert len(ranked) == int(np.count_nonzero(~np.isnan(col))) == 481     # crx.data: 490 cases, A2 unknown in 9
    in_bit_order = col[order]
    assert np.all(np.diff(in_bit_order[ranked]) >= 0)
    assert sorted(ranked.tolist()) == np.flatnonzero(~np.isnan(in_bit_order)).tolist()


def test_known_by_value_compiled_sorts_every_kind_of_double():
    _native = COMPILED
    if _native is None:
        pytest.skip("the compiled module is not built")
    rng = np.random.default_rng(5)
    special = [np.nan, -0.0, 0.0, np.inf, -np.inf, 5e-324, -5e-324, 1e308, -1e308, 2.5, -2.5]
    col = np.concatenate([rng.choice(special, 3000), rng.normal(0, 1e3, 3000).round(1),
                          rng.integers(-50, 50, 3000).astype(np.float64)])
    rng.shuffle(col)
    position = rng.permutation(len(col)).astype(np.int32)
    ranked = np.frombuffer(_native.known_by_value(col, position), dtype=np.int32)
    case = np.empty(len(col), dtype=np.int64)
    case[position] = np.arange(len(col))
    values = col[case[ranked]]
    # the known values ascending (-0.0 and 0.0 are equal), each known case once
    assert np.array_equal(values, np.sort(col[~np.isnan(col)]))
    assert sorted(case[ranked].tolist()) == np.flatnonzero(~np.isnan(col)).tolist()
    # equal values keep case order (the sort is stable): one answer for one input
    same = values[1:] == values[:-1]
    assert np.all(case[ranked][1:][same & (np.signbit(values[1:]) == np.signbit(values[:-1]))]
                  > case[ranked][:-1][same & (np.signbit(values[1:]) == np.signbit(values[:-1]))])
    with pytest.raises(ValueError, match="do not agree"):
        _native.known_by_value(col, position[:-1])
    with pytest.raises(ValueError, match="out of range"):
        _native.known_by_value(col[:3], np.array([0, 1, 3], dtype=np.int32))


def _conditions(attr=0, kind=2):
    """One condition row: (kind, attr, outcome, cut, node, key, masks, mask_off, mask_len)."""
    return (np.array([kind], dtype=np.int32), np.array([attr], dtype=np.int32), np.zeros(1, dtype=np.int32),
            np.zeros(1), np.zeros(1, dtype=np.int64), np.array([-1 if kind == 2 else 0], dtype=np.int32),
            np.zeros(0, dtype=np.uint8), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int32))


def test_compiled_checks_its_inputs():
    col = (np.array([0.5, 1.5, np.nan]),)
    one_leaf = (np.array([0, 1], dtype=np.int64), np.zeros(1, dtype=np.int32))
    assert np.frombuffer(COMPILED.leaf_order(col, *_conditions(), *one_leaf, 3, 0), dtype=np.int64).tolist() \
        == [0, 1, 2]    # 0.5 <= 0 holds for none: every case reaches no leaf
    with pytest.raises(ValueError, match="leaf_order: condition 0 is malformed"):
        COMPILED.leaf_order(col, *_conditions(attr=4), *one_leaf, 3, 0)
    with pytest.raises(ValueError, match="leaf_order: column 0 has 24 bytes, expected 32"):
        COMPILED.leaf_order(col, *_conditions(), *one_leaf, 4, 0)
    with pytest.raises(ValueError, match="leaf_order: a leaf names no condition"):
        COMPILED.leaf_order(col, *_conditions(), np.array([0, 1], dtype=np.int64), np.array([3], dtype=np.int32), 3, 0)
    with pytest.raises(ValueError, match="leaf_order: leaf paths are malformed"):
        COMPILED.leaf_order(col, *_conditions(), np.array([0, 2], dtype=np.int64), np.zeros(1, dtype=np.int32), 3, 0)
    with pytest.raises(ValueError, match="generalise: array sizes do not agree"):
        COMPILED.generalise(np.zeros(3, dtype=np.int32), np.zeros(2, dtype=np.int64), col, col, col,
                            *_conditions(),
                            *one_leaf, np.zeros(1, dtype=np.int32), np.zeros(1), 0, 2, None, None,
                            np.zeros(1, dtype=np.int32), b"", b"", bytes(16), b"")
    with pytest.raises(ValueError, match="truth_rows: the order is not of the cases"):
        COMPILED.truth_rows(np.zeros(3, dtype=np.int32), np.array([0, 1, 3]), col, *_conditions(), 0, 2)
    with pytest.raises(ValueError, match="truth_rows: array sizes do not agree"):
        COMPILED.truth_rows(np.zeros(3, dtype=np.int32), np.array([0, 1]), col, *_conditions(), 0, 2)


def test_ranks_narrow_to_three_bytes_up_to_2_24_cases():
    ranked = np.array([0, 5, 70000, 2**24 - 1], dtype=np.int32)
    assert narrow_ranks(ranked, 2**24).tolist() == [0, 0, 0, 5, 0, 0, 0x70, 0x11, 0x01, 255, 255, 255]
    wide = narrow_ranks(ranked, 2**24 + 1)
    assert wide.dtype == np.dtype("<i4") and wide.tolist() == ranked.tolist()


def test_generalise_rejects_ranks_that_are_not_positions():
    """Three cases: ranks are 3-byte positions, so 4 bytes (or a position of 3) is refused."""
    col = (np.array([0.5, 1.5, np.nan]),)
    rows = (COMPILED.threshold_rows(3, np.array([0, 1], dtype=np.int32)),)
    args = (np.zeros(3, dtype=np.int32), np.arange(3, dtype=np.int64), col)
    rest = (*_conditions(), np.array([0, 1], dtype=np.int64), np.zeros(1, dtype=np.int32),
            np.zeros(1, dtype=np.int32), np.zeros(1), 0, 2, None, None, np.zeros(1, dtype=np.int32), b"", b"",
            bytes(16), b"")
    with pytest.raises(ValueError, match="ranks of column 0 are not 3-byte positions of at most 3 cases"):
        COMPILED.generalise(*args, (np.array([0], dtype=np.int32),), rows, *rest)
    with pytest.raises(ValueError, match="ranks of column 0 are out of range"):
        COMPILED.generalise(*args, (narrow_ranks(np.array([3], dtype=np.int32), 3),), rows, *rest)


def test_a_run_hands_its_arrays_over_read_only_and_an_empty_run_gives_empty_arrays():
    train, _ = load_stem(R.stem("crx"))
    tree = grow_tree(train)
    class_n = np.bincount(train.y, minlength=len(train.schema.classes))
    compiled = _Compiled(tree, train, generalize._default_errors(class_n, train.n))
    order = compiled.leaf_order()
    compiled.gather(order)
    rates = generalize._Rates(0.25, train.n)
    leaf, kept, kept_at, t0, e0, p0, covers, lo, hi, keys, key_at = compiled.run(0, len(compiled.targets), order,
                                                                               rates, None)
    assert len(leaf) > 10 and kept_at[0] == 0 and len(kept_at) == len(leaf) + 1
    assert {type(b).__name__ for b in covers.values()} == {"Pages"}
    klass = compiled.targets[leaf]
    for c, buf in covers.items():
        packed = np.frombuffer(buf, dtype=np.uint8)
        assert not packed.flags.writeable and len(packed) == hi[klass == c].max()
    assert not t0.flags.writeable and int(t0.sum()) > 0
    # no leaf: nothing kept, every class's cover None, kept_at and key_at one zero each
    empty = compiled.run(0, 0, order, rates, None)
    assert [len(a) for a in (empty[0], empty[3], empty[4], empty[5], empty[7], empty[8])] == [0] * 6
    assert empty[2].tolist() == [0] and empty[10].tolist() == [0] and empty[6] == {}


def test_threshold_rows_hold_evenly_spaced_cuts_and_the_known_values():
    x = np.array([3.0, np.nan, 1.0, 2.0] * 40)               # 160 cases: 3 words, 120 known
    ranked = np.argsort(x)[:120].astype(np.int32)
    rows = np.frombuffer(COMPILED.threshold_rows(160, ranked), dtype=np.uint64).reshape(17, 3)
    bits = np.unpackbits(rows.view(np.uint8), bitorder="little").reshape(17, -1)[:, :160].astype(bool)
    for s in range(17):
        assert bits[s].tolist() == np.isin(np.arange(160), ranked[:120 * s // 16]).tolist()
    assert bits[16].tolist() == (~np.isnan(x)).tolist()
    with pytest.raises(ValueError, match="ranked positions do not fit the column"):
        COMPILED.threshold_rows(160, np.array([200], dtype=np.int32))


def test_truth_rows_hold_each_discrete_key_and_each_class_in_leaf_order():
    """The rows the runs share: a key's truth (unknown: false) and empty words, and per class
    the cases of another class, all over the cases in `order`; and each key's truth over the
    cases in their own order."""
    rng = np.random.default_rng(5)
    n = 200                                                   # 4 words: one block
    col = rng.integers(-1, 3, n).astype(np.int32)             # -1: unknown
    y = rng.integers(0, 3, n).astype(np.int32)
    order = rng.permutation(n).astype(np.int64)
    # keys 0 and 1: col == 2 (discrete), col in {0, 1} (subset); condition 2 repeats key 0
    conditions = (np.array([1, 3, 1], dtype=np.int32), np.zeros(3, dtype=np.int32),
                  np.array([2, 0, 2], dtype=np.int32), np.zeros(3), np.arange(3, dtype=np.int64),
                  np.array([0, 1, 0], dtype=np.int32), np.array([1, 1], dtype=np.uint8),
                  np.array([0, 0, 0], dtype=np.int64), np.array([0, 2, 0], dtype=np.int32))
    rows, empty, wrong, own = COMPILED.truth_rows(y, order, (col,), *conditions, 2, 3)

    def bits(buf, count):
        words = np.frombuffer(buf, dtype=np.uint64).reshape(count, -1)
        return np.unpackbits(words.view(np.uint8), bitorder="little").reshape(count, -1)[:, :n].astype(bool)

    got = bits(rows, 2)
    assert got[0].tolist() == (col[order] == 2).tolist()
    assert got[1].tolist() == np.isin(col[order], [0, 1]).tolist()
    assert bits(wrong, 3).tolist() == [(y[order] != c).tolist() for c in range(3)]
    assert bits(own, 2).tolist() == [(col == 2).tolist(), np.isin(col, [0, 1]).tolist()]
    empty_words = np.frombuffer(empty, dtype=np.uint64)
    for k in range(2):
        per_word = [not got[k][w * 64:(w + 1) * 64].any() for w in range(4)]
        assert [bool(empty_words[k] >> w & 1) for w in range(4)] == per_word


def test_compiled_threads_equal_numpy_with_the_fisher_test(monkeypatch):
    """Runs in threads call back into Python (rates, the Fisher test) with the GIL taken back."""
    monkeypatch.setattr(generalize, "_SPLIT_WORK", 0)
    train, _ = load_stem(R.stem("credit-g"))
    tree = grow_tree(train)
    compiled = generalise_rules(tree, train, fisher=0.05, jobs=2)
    monkeypatch.setattr(generalize, "_native", None)
    assert _fields(compiled) == _fields(generalise_rules(tree, train, fisher=0.05))


def test_an_error_in_a_threaded_run_reaches_the_caller(monkeypatch):
    monkeypatch.setattr(generalize, "_SPLIT_WORK", 0)
    train, _ = load_stem(R.stem("letter"))
    tree = grow_tree(train)
    calls = []

    def failing(self, cases, errors, default_error):
        calls.append(cases)
        if len(calls) > 500:
            raise ArithmeticError(f"no rate for {cases} cases")
        return original(self, cases, errors, default_error)

    original = generalize._Rates.compute
    monkeypatch.setattr(generalize._Rates, "compute", failing)
    with pytest.raises(ArithmeticError, match="no rate for"):
        generalise_rules(tree, train, jobs=2)


@pytest.mark.parametrize("stem, subset", [("crx", False), ("soybean", True), ("letter", False)])
def test_path_table_holds_the_paths_leaf_paths_gives(stem, subset):
    from c45rules.rules.extract import path_table
    train, _ = load_stem(R.stem(stem))
    tree = grow_tree(train, subset=subset)
    table = path_table(tree)
    leaves = [(p, leaf) for p, leaf in leaf_paths(tree) if p]
    rows = [[table.condition(c) for c in table.leaf_cond[a:b].tolist()]
            for a, b in zip(table.leaf_ptr[:-1].tolist(), table.leaf_ptr[1:].tolist())]
    assert rows == [list(p) for p, _ in leaves]
    assert table.leaf_class.tolist() == [leaf.klass for _, leaf in leaves]
    # one CondTest per condition, as leaf_paths shares them between neighbouring leaves
    assert table.condition(5) is table.condition(5)
    assert len(table.kind) == len({id(t) for p, _ in leaves for t in p})
    assert (SUBSET in table.kind.tolist()) == subset
    # the conditions that are not subset tests share one empty set of values (one each
    # was 35 MB at 1M cases)
    plain = [table.condition(c) for c in np.flatnonzero(table.kind != SUBSET).tolist()]
    assert len(plain) > 10 and len({id(t.values) for t in plain}) == 1 and plain[0].values == frozenset()


def test_a_condition_names_its_node_by_number_depth_first():
    train, _ = load_stem(R.stem("crx"))
    tree = grow_tree(train)
    nodes = list(tree.walk())
    seen = 0
    for path, leaf in leaf_paths(tree):
        for t, below in zip(path, path[1:] + (None,)):
            tested = nodes[t.node]
            assert (tested.attribute, tested.kind != "leaf") == (t.attribute, True)
            seen += 1
    assert seen > 100
