"""Several trees generalised in one pass (generalise_rules given a list, as from_ensemble does
with an ensemble's trees) give what each tree's pass pooled through the duplicate check gives
(composite.pooled): the same candidates in the same order, whichever loop (compiled or numpy)."""
import numpy as np
import pytest

import c45rules.rules.generalize as generalize
import reference as R
from c45rules.data import load_stem
from c45rules.rules.composite import pooled
from c45rules.rules.extract import forest_table, path_table
from c45rules.rules.generalize import generalise_rules
from c45rules.tree.grow import grow_tree


def _fields(rules):
    # a condition as it reads: its node number is only its identity (numbered on through the trees)
    return [(r.number, [(c.attribute, c.kind, c.outcome, c.cut, c.values) for c in r.conditions], r.klass,
             r.error, r.covered, r.errors, sorted(np.asarray(r.cover).tolist())) for r in rules]


def _trees(stem: str):
    train, _ = load_stem(R.stem(stem))
    # different trees of the same cases (subset tests among them), one of them twice: its
    # rules are all repeats
    trees = [grow_tree(train, subset=True), grow_tree(train, min_objs=8), grow_tree(train, gain_ratio=False)]
    return train, trees + [trees[0]]


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("stem", ["crx", "soybean"])
def test_several_trees_in_one_pass_give_each_trees_rules_pooled(monkeypatch, stem, native):
    train, trees = _trees(stem)
    if not native:
        monkeypatch.setattr(generalize, "_native", None)
    apart = pooled([generalise_rules(t, train) for t in trees])
    together = generalise_rules(trees, train)
    assert len(apart) > 10
    assert _fields(together) == _fields(apart)


def test_a_repeated_path_is_generalised_once():
    train, _ = load_stem(R.stem("crx"))
    trees = [grow_tree(train, min_objs=8), grow_tree(train, gain_ratio=False)]
    one = path_table(trees[0])
    table = forest_table(trees + [trees[0]])
    # the last tree is the first again (no subset test, whose identity is its node): none of its paths is left
    assert len(table.leaf_class) == len(forest_table(trees).leaf_class) > len(one.leaf_class)
    assert table.leaf_class[:len(one.leaf_class)].tolist() == one.leaf_class.tolist()
    assert table.leaf_ptr[-1] == len(table.leaf_cond)
