"""Subset tests (-s, spec 2.4): merging on a hand-computed table, and whole trees."""
import numpy as np
import pytest

import reference as R
from c45rules.data import load_stem
from c45rules.tree.classify import classify
from c45rules.tree.grow import grow_tree
from c45rules.tree.prune import check_possible_values, prune_tree
from c45rules.tree.node import Node
from c45rules.tree.subset import subset_test

# value 0 = unknown; values 1..4 as [class 0, class 1]
TABLE = [[0, 0], [4, 0], [0, 4], [4, 0], [2, 2]]


def test_merge_sequence_by_hand():
    # 1. pure blocks of one class merge: {v1, v3} = [8, 0]; blocks {v1,v3}, {v2}, {v4}
    #    (gain 0.704434, split H(8,4,4) = 1.5, ratio 0.469623)
    # 2. pairs: {v1,v3}+{v2} -> ratio 0.019367; {v1,v3}+{v4} -> [10,2],[0,4]:
    #    gain 0.954434 - 12 H(1/6)/16 = 0.466917, split H(12,4) = 0.811278, ratio 0.575533;
    #    {v2}+{v4} -> ratio 0.548795. Best 0.575533 > 0.469623 + 1e-5: merge; 2 blocks left.
    gain, split, subsets = subset_test(np.array(TABLE, np.float32), 16.0, 2, True)
    assert subsets == (frozenset({0, 2, 3}), frozenset({1}))
    assert gain == pytest.approx(0.466917, abs=2e-6)
    assert split == pytest.approx(0.811278, abs=2e-6)


def test_absent_values_form_the_last_branch():
    table = np.array(TABLE + [[0, 0], [0.25, 0]], np.float32)   # v5 absent, v6 weight <= 0.5
    gain, split, subsets = subset_test(table, 16.25, 2, True)
    assert subsets == (frozenset({0, 2, 3}), frozenset({1}), frozenset({4, 5}))


def test_unusable_without_known_cases():
    assert subset_test(np.array([[3, 2], [0, 0], [0, 0], [0, 0]], np.float32), 5.0, 2, True) is None


def test_check_possible_values_drops_unreachable_last_branch():
    def leaf():
        return Node(0, 1.0, 0.0, np.array([1.0, 0.0]))
    inner = Node(0, 1.0, 0.0, np.array([1.0, 0.0]), "subset", 0, 0.0,
                 (frozenset({0}), frozenset({1}), frozenset({2, 3})), [leaf(), leaf(), leaf()])
    root = Node(0, 1.0, 0.0, np.array([1.0, 0.0]), "subset", 0, 0.0,
                (frozenset({0, 1}), frozenset({2}), frozenset({3})), [inner, leaf(), leaf()])
    check_possible_values(root, {})
    # below {0, 1}, the inner test's last branch {2, 3} cannot be reached: dropped
    assert inner.subsets == (frozenset({0}), frozenset({1}))
    assert len(inner.branches) == 2
    assert len(root.branches) == 3


@pytest.mark.parametrize("name,max_error", [("soybean", 0.06), ("crx", 0.06), ("vote", 0.04), ("golf", 0.15)])
def test_subset_trees_grow_and_classify(name, max_error):
    train, _ = load_stem(R.stem(name))
    grown = grow_tree(train, subset=True)
    pruned = prune_tree(grown, train)
    err = float((classify(grown, train) != train.y).mean())
    assert err <= max_error
    if name in ("soybean", "crx"):
        assert any(n.kind == "subset" for n in grown.walk())
    for n in pruned.walk():
        if n.kind == "subset":
            assert len(n.subsets) == len(n.branches) and all(n.subsets)
    assert float((classify(pruned, train) != train.y).mean()) < 0.2
