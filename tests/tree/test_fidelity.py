"""Trees equal to C4.5 R8's on the datasets of the original distribution (SUMMARY.md)."""
import pytest

import reference as R
from c45rules.data import load_stem
from c45rules.tree.classify import classify
from c45rules.tree.grow import grow_tree
from c45rules.tree.prune import prune_tree
from c45rules.tree.report import format_tree

ORIGINAL = ["golf", "labor-neg", "vote", "crx", "hypo", "monk1", "monk2", "monk3", "soybean"]
SUMMARY = R.tree_summary()


def _errors(tree, data):
    return "-" if data is None else str(int((classify(tree, data) != data.y).sum()))


@pytest.fixture(scope="module")
def trees():
    out = {}
    for name in ORIGINAL:
        train, test = load_stem(R.stem(name), test=True)
        grown = grow_tree(train)
        out[name] = (train, test, grown, prune_tree(grown, train))
    return out


@pytest.mark.parametrize("name", ORIGINAL)
def test_sizes_and_errors(trees, name):
    train, test, grown, pruned = trees[name]
    ref = SUMMARY[name]
    ours = {"u_size": str(grown.size()), "u_train": _errors(grown, train), "u_test": _errors(grown, test),
            "p_size": str(pruned.size()), "p_train": _errors(pruned, train), "p_test": _errors(pruned, test),
            "estimate": f"{100 * pruned.errors / train.n:.1f}"}
    assert ours == {k: ref[k] for k in ours}


@pytest.mark.parametrize("name", ["golf", "crx", "vote"])
def test_printed_unpruned_tree(trees, name):
    train, _, grown, _ = trees[name]
    assert format_tree(grown, train.schema) == R.tree_text(name)
