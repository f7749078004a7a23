"""The whole-level paths give exactly the trees of the node-by-node c4.5 procedures.

Subtrees whose cases weigh 1 and have no unknowns are grown a whole level at a time,
and such trees are pruned children first from one routing of all cases; every field of
every node (test, cut, class, counts, errors) must equal what the recursive procedures
compute, on real data and on small random tables full of ties.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as R
from c45rules.data import load_stem
from c45rules.data.schema import Attribute, Dataset, Schema
from c45rules.tree.grow import _Grower


def differences(a, b, path="root"):
    """First difference between two trees, or None."""
    for f in ("kind", "attribute", "cut", "klass", "items", "errors", "subsets"):
        if getattr(a, f) != getattr(b, f):
            return f"{path}: {f} {getattr(a, f)!r} != {getattr(b, f)!r}"
    if a.class_dist.dtype != b.class_dist.dtype or not np.array_equal(a.class_dist, b.class_dist):
        return f"{path}: class counts {a.class_dist} != {b.class_dist}"
    if len(a.branches) != len(b.branches):
        return f"{path}: {len(a.branches)} != {len(b.branches)} branches"
    for i, (x, y) in enumerate(zip(a.branches, b.branches)):
        found = differences(x, y, f"{path}/{i}")
        if found:
            return found
    return None


def both(data, min_objs=2, gain_ratio=True):
    by_node = _Grower(data, min_objs, gain_ratio, False, by_level=False).run()
    by_level = _Grower(data, min_objs, gain_ratio, False, by_level=True).run()
    return by_node, by_level


# continuous only, discrete only, mixed, with unknowns (crx, hypo, labor), many classes
@pytest.mark.parametrize("name", ["iris", "glass", "vote", "monk2", "crx", "hypo", "labor",
                                  "credit-g", "soybean", "synth_10k", "segment"])
def test_same_tree_on_shared_data(name):
    train, _ = load_stem(R.stem(name), test=False)
    by_node, by_level = both(train)
    assert by_node.size() > 3
    assert differences(by_node, by_level) is None


def test_same_tree_with_other_options():
    train, _ = load_stem(R.stem("credit-g"), test=False)
    for min_objs, gain_ratio in [(5, True), (2, False), (1, True)]:
        assert differences(*both(train, min_objs, gain_ratio)) is None


def random_table(seed: int, n: int, n_classes: int, unknowns: bool, awkward: bool = False) -> Dataset:
    """Three continuous and three discrete attributes with few distinct values, so that ties
    between cuts and between attributes are common; `awkward` adds -0.0 next to 0.0 (equal
    values in different bits) and 1e-6 (closer to 0 than the 1e-5 gap)."""
    rng = np.random.default_rng(seed)
    cont = [np.round(rng.random(n) * rng.integers(2, 12), 1) for _ in range(3)]
    if awkward:
        cont[2][rng.random(n) < 0.2] = -0.0
        cont[2][rng.random(n) < 0.2] = 1e-6
    disc = [rng.integers(0, v, n) for v in (2, 3, 5)]
    if unknowns:
        cont[0][rng.random(n) < 0.1] = np.nan
        disc[1][rng.random(n) < 0.1] = -1
    y = (cont[1] > 3).astype(int) + (disc[0] == 1) + rng.integers(0, 2, n)
    y = np.minimum(y, n_classes - 1)
    attrs = ([Attribute(f"x{i}", "continuous") for i in range(3)]
             + [Attribute(f"d{i}", "discrete", tuple(f"v{j}" for j in range(v)))
                for i, v in enumerate((2, 3, 5))])
    schema = Schema(tuple(attrs), tuple(f"c{i}" for i in range(n_classes)))
    return Dataset(schema, [c.astype(float) for c in cont] + [d.astype(np.int64) for d in disc], y)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 300), st.integers(2, 4), st.booleans())
def test_same_tree_on_random_tables(seed, n, n_classes, unknowns):
    assert differences(*both(random_table(seed, n, n_classes, unknowns))) is None


# pruning a tree every case follows down one path: settled children first from one
# routing of all cases, instead of case by case; the result must be the same tree
@pytest.mark.parametrize("name", ["letter", "synth_10k", "credit-g", "spambase", "vote", "monk2"])
def test_bottom_up_pruning_equals_recursive(name, monkeypatch):
    from c45rules.tree import prune
    train, _ = load_stem(R.stem(name), test=False)
    grown = _Grower(train, 2, True, False).run()
    assert prune.one_path_each(grown, train)
    # the compiled pruning, taken first when built, must agree with both numpy paths
    compiled = prune.prune_tree(grown, train) if prune._native is not None else None
    monkeypatch.setattr(prune, "_native", None)
    fast = prune.prune_tree(grown, train)
    monkeypatch.setattr(prune, "one_path_each", lambda *a: False)
    slow = prune.prune_tree(grown, train)
    assert fast.size() < grown.size()
    assert differences(fast, slow) is None
    assert compiled is None or differences(compiled, slow) is None


def test_leaf_of_cases_matches_the_path_each_case_takes():
    from c45rules.tree.classify import leaf_of_cases
    from c45rules.tree.grow import branch_of
    train, _ = load_stem(R.stem("credit-g"), test=False)
    tree = _Grower(train, 2, True, False).run()
    nodes = list(tree.walk())
    leaf = leaf_of_cases(nodes, train)
    for case in range(0, train.n, 37):
        node = tree
        while not node.is_leaf:
            v = int(branch_of(node, train.columns[node.attribute][case:case + 1])[0])
            node = node.branches[v]
        assert nodes[leaf[case]] is node


@pytest.mark.parametrize("name", ["letter", "credit-g", "monk2"])
def test_class_weights_by_leaf_equal_the_descent(name, monkeypatch):
    from c45rules.tree import classify
    train, _ = load_stem(R.stem(name), test=False)
    grown = _Grower(train, 2, True, False).run()
    fast = classify.class_weights(grown, train)
    monkeypatch.setattr(classify, "one_path_each", lambda *a: False)
    slow = classify.class_weights(grown, train)
    assert fast.dtype == slow.dtype == np.float32
    assert np.array_equal(fast, slow)


# the compiled growth as arrays, collapsed without node objects (run_flat): the same tree,
# field by field, as the nodes collapse() settles; crx and income have tests collapsed, and
# grown by level too their clean subtrees are grown as nodes and spliced into the arrays
@pytest.mark.parametrize("name,by_level", [("crx", False), ("hypo", False), ("letter", False), ("income", False),
                                           ("credit-g", False), ("crx", True), ("income", True), ("soybean", True)])
def test_flat_growth_equals_the_nodes(name, by_level):
    from c45rules.tree.grow import _native
    from c45rules.tree.node import FlatTree
    if _native is None:
        pytest.skip("the compiled module is not built")
    train, _ = load_stem(R.stem(name), test=False)
    flat = _Grower(train, 2, True, False, by_level=by_level).run_flat()
    nodes = FlatTree(_Grower(train, 2, True, False, by_level=by_level).run())
    assert isinstance(flat, FlatTree)
    assert len(flat) == len(nodes) > 3
    for field in ("klass", "items", "errors", "kind", "attribute", "cut", "fanout", "dist"):
        assert np.array_equal(getattr(flat, field), getattr(nodes, field)), field


def test_flat_collapse_drops_the_collapsed_subtrees():
    from c45rules.tree.grow import collapsed_flat
    # root tests into a leaf (errors 1) and a test whose two leaves err 2 + 1.5 >= its own 3
    klass = np.array([0, 0, 1, 1, 0])
    items = np.array([10.0, 4.0, 6.0, 3.0, 3.0])
    errors = np.array([5.0, 1.0, 3.0, 2.0, 1.5])
    kind = np.array([2, 0, 2, 0, 0], dtype=np.int8)
    attribute = np.array([0, -1, 1, -1, -1])
    cut = np.array([0.5, 0.0, 2.5, 0.0, 0.0])
    fanout = np.array([2, 0, 2, 0, 0])
    dist = np.arange(10, dtype=np.float32).reshape(5, 2)
    flat = collapsed_flat(klass, items, errors, kind, attribute, cut, fanout, dist)
    assert flat.kind.tolist() == [2, 0, 0]
    assert flat.fanout.tolist() == [2, 0, 0]
    assert flat.attribute.tolist() == [0, -1, -1]
    assert flat.cut.tolist() == [0.5, 0.0, 2.5]        # make_leaf keeps the cut
    assert flat.errors.tolist() == [4.5, 1.0, 3.5]     # 1 + 3.5 < 5: the root stays a test
    assert flat.dist.tolist() == [[0, 1], [2, 3], [4, 5]]
