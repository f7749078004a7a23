"""c4.5rules in passes over batches (rules/passes.py, issue 50): the same RuleSet as learn_rules,
YAML for YAML, on every shared set, at batch sizes that put every stage across batch boundaries."""
import numpy as np
import pytest

import reference as R
from c45rules.data import load_stem
from c45rules.errors import InputError
from c45rules.export.yaml import dump_yaml
from c45rules.learn.pipeline import learn_rules, learn_tree
from c45rules.rules.passes import PassReport, learn_rules_in_passes

# big sets: batches of 997 (9973 for the largest) keep the file's time down; the rest: 7
BATCH = {"letter": 997, "income": 997, "shuttle": 997, "synth_10k": 997, "spambase": 997, "hypo": 97,
         "fertility": 9973, "synth_100k": 33334}
SLOW = {"synth_100k"}     # about 40 s: marked slow (pytest -m "not slow" leaves it out)


def batches(ds, k):
    """A batch source over an in-memory Dataset (h50src's dataset_batches, written inline)."""
    return lambda: (ds.subset(np.arange(i, min(i + k, ds.n))) for i in range(0, ds.n, k))


def both(name, k=None, **options):
    ds, _ = load_stem(R.stem(name))
    tree = learn_tree(ds)
    report = PassReport()
    memory, trace = learn_rules(tree, ds, **options)
    streamed, trace2 = learn_rules_in_passes(tree.unpruned_flat, batches(ds, k or BATCH.get(name, 7)),
                                             fingerprint=ds.fingerprint(), report=report, **options)
    return ds, memory, streamed, trace, trace2, report


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else []) for n in R.datasets()])
def test_streamed_rules_equal_in_memory(name):
    ds, memory, streamed, trace, trace2, report = both(name)
    assert dump_yaml(streamed) == dump_yaml(memory)
    # the candidates and the rules before sifting alike too, and the sifted ones
    assert [(r.number, r.conditions, r.klass, r.error, r.covered, r.errors) for r in trace2.candidates] == \
        [(r.number, r.conditions, r.klass, r.error, r.covered, r.errors) for r in trace.candidates]
    assert [r.number for r in trace2.final] == [r.number for r in trace.final]
    assert trace2.dropped == trace.dropped
    # every case is in one group; the generalisation took a pass per round, the groups one more
    assert report.rows == ds.n
    assert report.passes == report.rounds + 1
    assert report.patterns <= ds.n


@pytest.mark.parametrize("k", [1, 2, 64, 10_000])
def test_batch_size_changes_nothing(k):
    ds, memory, streamed, *_ = both("labor-neg" if k == 1 else "crx", k)
    assert dump_yaml(streamed) == dump_yaml(memory)


def test_options_fisher_redundancy_annealing():
    for options in ({"fisher": 25.0}, {"redundancy": 2.0}, {"annealing": True, "seed": 3}, {"cf": 0.1}):
        _, memory, streamed, *_ = both("vehicle", 13, **options)
        assert dump_yaml(streamed) == dump_yaml(memory), options


def test_unknown_values_cross_batches():
    # labor: a third of the cells unknown; soybean: discrete unknowns; hypo: 5%
    for name in ("labor", "soybean", "hypo"):
        _, memory, streamed, *_ = both(name, 3)
        assert dump_yaml(streamed) == dump_yaml(memory), name


def test_bad_batches():
    ds, _ = load_stem(R.stem("golf"))
    tree = learn_tree(ds).unpruned_flat
    with pytest.raises(InputError, match="no cases"):
        learn_rules_in_passes(tree, lambda: iter(()), fingerprint="x")
    weighted = ds.subset(np.arange(ds.n))
    weighted.weights = np.ones(ds.n)
    with pytest.raises(InputError, match="weighted"):
        learn_rules_in_passes(tree, lambda: iter([weighted]), fingerprint="x")
    other, _ = load_stem(R.stem("iris"))
    with pytest.raises(InputError, match="differ"):
        learn_rules_in_passes(tree, lambda: iter([ds, other]), fingerprint="x")
    unlabelled = ds.subset(np.arange(ds.n))
    unlabelled.y = None
    with pytest.raises(InputError, match="no class column"):
        learn_rules_in_passes(tree, lambda: iter([unlabelled]), fingerprint="x")


def test_costs():
    from c45rules.data.costs import cost_option, with_costs
    ds, _ = load_stem(R.stem("crx"))
    for costs in ({("+", "-"): 5}, {("-", "+"): 0.25, ("+", "-"): 3}):
        data = with_costs(ds, cost_option(costs))
        tree = learn_tree(data)
        memory, _ = learn_rules(tree, data)
        streamed, _ = learn_rules_in_passes(tree.unpruned_flat, batches(data, 7), fingerprint=data.fingerprint())
        assert dump_yaml(streamed) == dump_yaml(memory), costs
    # a tenth has no exact sums: refused, not a model that might differ in its last bit
    data = with_costs(ds, cost_option({("+", "-"): 0.1}))
    with pytest.raises(InputError, match="costs"):
        learn_rules_in_passes(learn_tree(data).unpruned_flat, batches(data, 7), fingerprint="x")


def test_one_leaf_tree_and_empty_batches():
    import pandas as pd
    from c45rules.data.frame import from_frame
    ds = from_frame(pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6], "class": ["n", "y", "n", "y", "n", "n"]}), "class")
    tree = learn_tree(ds)
    memory, _ = learn_rules(tree, ds)
    parts = [np.arange(0), np.arange(3), np.arange(0), np.arange(3, 6)]
    report = PassReport()
    streamed, _ = learn_rules_in_passes(tree.unpruned_flat, lambda: (ds.subset(p) for p in parts),
                                        fingerprint=ds.fingerprint(), report=report)
    assert dump_yaml(streamed) == dump_yaml(memory)
    assert (report.passes, report.candidates, report.rows) == (2, 0, 6)
