"""Pessimistic error (spec 3.1), pruning (3.2) and classification (4) on hand-made cases."""
import numpy as np
import pytest

from c45rules.data.schema import Attribute, Dataset, Schema
from c45rules.estimate import add_errors
from c45rules.tree.classify import class_weights, classify
from c45rules.tree.grow import grow_tree
from c45rules.tree.prune import prune_tree


def test_add_errors_spec_values():
    # spec 10: leaf with 4 cases, 0 errors: 4 (1 - 0.25^(1/4)) = 1.172
    assert add_errors(4, 0) == pytest.approx(1.171573, abs=1e-6)
    # spec 10: 5 cases, 1 error: (1 + AddErrs(5, 1)) / 5 = 45.4%
    assert (1 + add_errors(5, 1)) / 5 == pytest.approx(0.454, abs=5e-4)
    # e + 0.5 >= N: 0.67 (N - e)
    assert add_errors(3, 2.6) == pytest.approx(0.67 * 0.4)


def _data(x, y) -> Dataset:
    schema = Schema((Attribute("x", "discrete", ("a", "b")),), ("yes", "no"))
    return Dataset(schema, [np.array(x, dtype=np.int32)], np.array(y, dtype=np.int32))


def test_pruning_keeps_a_useful_split():
    # x=a: 4 yes; x=b: 1 yes, 2 no. Grown: a -> yes (4), b -> no (3/1).
    data = _data([0, 0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 0, 1, 1])
    tree = grow_tree(data)
    assert tree.kind == "discrete"
    pruned = prune_tree(tree, data)
    # leaf: 2 + AddErrs(7, 2) = 3.41583; subtree: AddErrs(4, 0) + 1 + AddErrs(3, 1)
    # = 1.171573 + 2.056860 = 3.228433 < 3.41583 - 0.1, and the largest branch (a, with
    # all 7 cases: 3.41583) is no better: the split stays
    assert pruned.kind == "discrete"
    assert pruned.errors == pytest.approx(3.228433, abs=1e-5)
    assert pruned.branches[0].errors == pytest.approx(1.171573, abs=1e-6)
    assert pruned.branches[1].errors == pytest.approx(2.056860, abs=1e-5)


def test_pruning_replaces_a_weak_split_by_a_leaf():
    # x=a: 4 yes 1 no; x=b: 2 yes 3 no (grown: 3 errors < 4 as a leaf, so the split stays).
    # Subtree: (1 + AddErrs(5, 1)) + (2 + AddErrs(5, 2)) = 2.2710 + 3.2396 = 5.5106;
    # leaf: 4 + AddErrs(10, 4) = 5.5874 <= 5.5106 + 0.1, and <= the largest branch + 0.1
    data = _data([0, 0, 0, 0, 0, 1, 1, 1, 1, 1], [0, 0, 0, 0, 1, 0, 0, 1, 1, 1])
    tree = grow_tree(data)
    assert tree.kind == "discrete"
    pruned = prune_tree(tree, data)
    assert pruned.is_leaf
    assert pruned.klass == 0
    assert pruned.errors == pytest.approx(5.5874, abs=1e-4)
    assert pruned.items == 10
    assert tree.kind == "discrete"       # the grown tree is not modified


def test_classify_unknown_value_splits_weight():
    data = _data([0, 0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 0, 1, 1])
    tree = grow_tree(data)
    case = _data([-1, 0, 1], [0, 0, 0])
    w = class_weights(tree, case)
    # unknown: 4/7 to leaf a (4 yes), 3/7 to leaf b (1 yes, 2 no)
    assert w[0] == pytest.approx([5 / 7, 2 / 7], abs=1e-6)
    assert w[1] == pytest.approx([1.0, 0.0])
    assert w[2] == pytest.approx([1 / 3, 2 / 3], abs=1e-6)
    assert classify(tree, case).tolist() == [0, 0, 1]


def test_nodes_pickle_and_unpickle_the_layout_from_before_slots():
    import pickle

    from c45rules.tree.node import Node
    leaf = Node(0, 3.0, 1.0, np.array([2.0, 1.0], dtype=np.float32))
    test = Node(1, 5.0, 2.0, np.array([2.0, 3.0], dtype=np.float32), "threshold", 4, 1.5, (), [leaf, leaf.copy()])
    back = pickle.loads(pickle.dumps(test))
    assert (back.kind, back.attribute, back.cut, back.klass, back.items) == ("threshold", 4, 1.5, 1, 5.0)
    assert [b.errors for b in back.branches] == [1.0, 1.0] and back.class_dist.tolist() == [2.0, 3.0]
    # pickles made before Node had slots hold the fields as a plain dict
    old = Node.__new__(Node)
    old.__setstate__({"klass": 0, "items": 3.0, "errors": 1.0, "class_dist": np.zeros(2), "kind": "leaf",
                      "attribute": -1, "cut": 0.0, "subsets": (), "branches": []})
    assert old.is_leaf and old.items == 3.0 and old.size() == 1


def test_subtree_raising_takes_every_field_of_the_raised_node():
    from c45rules.tree.node import Node
    child = Node(2, 7.0, 1.5, np.array([1.0, 0.0, 6.0], dtype=np.float32), "discrete", 3, 0.0, (),
                 [Node(2, 7.0, 1.0, np.array([1.0, 0.0, 6.0], dtype=np.float32))])
    node = Node(0, 9.0, 4.0, np.array([3.0, 0.0, 6.0], dtype=np.float32), "threshold", 1, 2.5, (), [child])
    node.become(child)
    assert (node.klass, node.items, node.errors, node.kind, node.attribute, node.cut) == (2, 7.0, 1.5, "discrete", 3, 0.0)
    assert node.branches is child.branches and node.class_dist.tolist() == [1.0, 0.0, 6.0]


def _fields(node):
    return (node.klass, type(node.klass), node.items, node.errors, node.kind, node.attribute, node.cut,
            node.subsets, node.class_dist.dtype, node.class_dist.tolist(), len(node.branches))


@pytest.mark.parametrize("name,subset", [("crx", False), ("crx", True), ("labor", False)])
def test_flat_tree_rebuilds_the_same_tree(name, subset):
    import reference as R
    from c45rules.data import load_stem
    from c45rules.tree.node import FlatTree

    train, _ = load_stem(R.stem(name))
    grown = grow_tree(train, subset=subset)
    for tree in (grown, prune_tree(grown, train)):
        again = FlatTree(tree).rebuilt()
        # node for node, depth first, every field; no node shared with the original
        pairs = list(zip(tree.walk(), again.walk(), strict=True))
        assert [_fields(a) for a, _ in pairs] == [_fields(b) for _, b in pairs]
        assert not {id(a) for a, _ in pairs} & {id(b) for _, b in pairs}
        assert (classify(again, train) == classify(tree, train)).all()
    if subset:
        assert any(n.kind == "subset" for n in grown.walk())


def test_flat_tree_keeps_class_distributions_of_mixed_types():
    from c45rules.tree.node import FlatTree, Node
    leaf = Node(1, 2.0, 0.0, np.array([0.0, 2.0]))            # float64, as a hand-made tree may hold
    root = Node(0, 5.0, 2.0, np.array([3.0, 2.0], dtype=np.float32), "threshold", 0, 1.5, (),
                [Node(0, 3.0, 0.0, np.array([3.0, 0.0], dtype=np.float32)), leaf])
    again = FlatTree(root).rebuilt()
    assert [n.class_dist.dtype for n in again.walk()] == [np.float32, np.float32, np.float64]
    assert again.branches[1].class_dist.tolist() == [0.0, 2.0] and again.branches[1].class_dist is not leaf.class_dist
    assert (again.kind, again.cut, [b.klass for b in again.branches]) == ("threshold", 1.5, [0, 1])


def test_tree_keeps_the_unpruned_tree_flat_and_makes_its_nodes_once():
    import pickle

    import reference as R
    from c45rules.data import load_stem
    from c45rules.learn.pipeline import learn_tree
    from c45rules.tree.node import FlatTree, Tree

    train, _ = load_stem(R.stem("crx"))
    tree = learn_tree(train)
    assert tree._unpruned is None and isinstance(tree.unpruned_flat, FlatTree)
    grown = grow_tree(train)
    nodes = tree.unpruned
    assert nodes is tree.unpruned and len(tree.unpruned_flat) == nodes.size() == grown.size() == 90
    assert [_fields(a) for a in nodes.walk()] == [_fields(b) for b in grown.walk()]
    back = pickle.loads(pickle.dumps(tree))
    assert back._unpruned is None and [_fields(a) for a in back.unpruned.walk()] == [_fields(b) for b in grown.walk()]
    assert back.pruned.size() == tree.pruned.size() and back.options == tree.options
    # a pickle from before the flat form holds the nodes themselves
    old = Tree.__new__(Tree)
    old.__setstate__({"schema": train.schema, "unpruned": grown, "pruned": tree.pruned, "options": {}})
    assert old.unpruned is grown and len(old.unpruned_flat) == 90


def test_pruning_keeps_nothing_behind():
    # pruning sums each node's weights (seq_sum): np.cumsum(dtype=...) kept small blocks in
    # Python's arenas (200 over crx's pruning), and over a large tree's pruning each held a
    # 1 MB arena of freed nodes (60 MB resident after the tree at 1M cases)
    import gc
    import tracemalloc

    import reference as R
    from c45rules.data import load_stem
    from c45rules.tree.split import seq_sum
    assert seq_sum(np.array([0.1, 0.2, 0.3], dtype=np.float32)) == np.float32(0.1) + np.float32(0.2) + np.float32(0.3)
    data, _ = load_stem(R.stem("crx"))
    grown = grow_tree(data)
    tracemalloc.start(25)      # frames enough to reach split.py from inside numpy
    try:
        pruned = prune_tree(grown, data)
        assert pruned.size() == 58
        del pruned
        gc.collect()
        snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.DomainFilter(True, 0)])
    finally:
        tracemalloc.stop()
    assert [t for t in snapshot.traces if any(f.filename.endswith("split.py") for f in t.traceback)] == []


def test_a_small_tree_is_not_followed_by_a_full_collection(monkeypatch):
    # a full collection walks the whole heap, not the tree: 0.2 s a fit in a process holding
    # a million small objects (a notebook, cv's folds, the test suite), for a 40-case table
    import pandas as pd

    import c45rules
    from c45rules.tree.growers import c45 as grower
    calls = []
    monkeypatch.setattr(grower.gc, "collect", lambda *a: calls.append(a) or 0)
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.integers(0, 5, 40).astype(str), "b": rng.normal(size=40),
                       "y": rng.choice(["p", "q"], 40)})
    c45rules.fit(df, "y", min_objs=1)
    assert calls == [] and grower.COLLECT_FROM_NODES > 1000
