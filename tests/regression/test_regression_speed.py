"""The compiled searches of regression rules (rules/_regress.c, issue 54 point 3) learn exactly
the rules the numpy steps learn: same conditions, same models, same evidence, to the last bit."""
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import c45rules.rules.regression as steps
from c45rules.export.yaml import dump_yaml
from c45rules.learn.regression import fit_regression, read_regression, regression_frame

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("C45RULES_SHARED", REPO.parent / "shared")) / "data-regression"


def both_ways(monkeypatch, ds, y, **options) -> tuple[str, str]:
    """The YAML of the model learnt with the compiled searches, and with the numpy ones."""
    assert steps._native is not None, "the compiled module rules/_regress is not built"
    compiled = dump_yaml(fit_regression(ds, y, **options))
    monkeypatch.setattr(steps, "_native", None)
    return compiled, dump_yaml(fit_regression(ds, y, **options))


def mixed_frame(n: int = 800, seed: int = 3) -> pd.DataFrame:
    """Continuous and discrete attributes, both with unknowns, and a target with steps in it."""
    rng = np.random.default_rng(seed)
    a, b, c = rng.uniform(0, 10, n), rng.normal(size=n), rng.uniform(-1, 1, n)
    colour = rng.choice(np.array(["red", "green", "blue", "grey"]), n)
    y = np.where(a > 5, 3 * b, 10 - b) + np.where(colour == "red", 4.0, 0.0) + 2 * c + rng.normal(size=n)
    a[rng.random(n) < 0.05] = np.nan
    colour = np.where(rng.random(n) < 0.05, None, colour)
    return pd.DataFrame({"a": a, "b": b, "c": c, "colour": colour, "y": y})


@pytest.mark.parametrize("scope_from", [0, 10 ** 9])
def test_compiled_searches_learn_the_numpy_model_on_mixed_data_with_unknowns(monkeypatch, scope_from):
    # scope_from 0: the condition search reads only the cases the tree walk gives (discrete
    # splits, unknowns sent down by the nearer mean); 10 ** 9: every case
    monkeypatch.setattr(steps, "SCOPE_FROM_ROWS", scope_from)
    ds, y = regression_frame(mixed_frame(), "y")
    compiled, numpy_steps = both_ways(monkeypatch, ds, y, committees=2)
    assert compiled == numpy_steps
    assert compiled.count("rule") > 3


@pytest.mark.skipif(not DATA.is_dir(), reason="shared regression data not found")
@pytest.mark.parametrize("name", ["airquality", "auto", "boston"])
def test_compiled_searches_learn_the_numpy_model_on_the_shared_sets(monkeypatch, name):
    ds, y = read_regression(DATA / name / name)
    compiled, numpy_steps = both_ways(monkeypatch, ds, y, committees=2)
    assert compiled == numpy_steps


def grid_frame(n: int = 6000, seed: int = 0) -> pd.DataFrame:
    """A target that steps over a 5 x 5 x 5 grid of three attributes, plus a slope in a fourth:
    each rule keeps tests on three attributes, so few cases fail at most one of them."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1, (n, 4))
    cell = np.floor(x[:, 0] * 5) * 25 + np.floor(x[:, 1] * 5) * 5 + np.floor(x[:, 2] * 5)
    y = (cell * 7919 % 101) + x[:, 3] + rng.normal(0, 0.1, n)
    return pd.DataFrame(x, columns=["a", "b", "c", "d"]).assign(y=y)


def test_condition_search_reads_the_rules_neighbourhood_not_every_case(monkeypatch):
    # issue 54: the compiled condition search read every training case once per leaf (and a
    # leaf holds a few cases), so a fit's cost grew with the square of its size; it now reads
    # the cases the tree says may fail at most one test, and learns the same model
    ds, y = regression_frame(grid_frame(), "y")
    monkeypatch.setattr(steps, "WORK", {"searches": 0, "searched_cases": 0})
    # the walk pays from tens of thousands of rows; here it is asked for at a few thousand
    monkeypatch.setattr(steps, "SCOPE_FROM_ROWS", 0)
    # the leaves' rules (those that grew with the square): an inner node's rule reads its
    # node's wider neighbourhood, the root's every case
    monkeypatch.setattr(steps, "RULES_FROM_EVERY_NODE", False)
    compiled, numpy_steps = both_ways(monkeypatch, ds, y)
    assert compiled == numpy_steps
    work = steps.WORK
    assert work["searches"] > 100
    # every case per search was 100%; these rules' neighbourhoods hold about a tenth
    assert work["searched_cases"] < 0.25 * work["searches"] * ds.n



def _nodes(root) -> list:
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.children)
    return out


def test_each_node_of_the_model_tree_is_fit_once(monkeypatch):
    # issue 54: growing fits a linear model at each node it tries to split (the split is on
    # its residuals) and fit_and_prune fitted the same model on the same cases again; it now
    # takes growing's, so growing and pruning make one fit per node (a work count, not a time)
    import c45rules.tree.model_tree as mt
    from c45rules.learn.regression import _columns

    ds, y = regression_frame(grid_frame(3000), "y")
    cols, _ = _columns(ds)
    real, calls = mt.fit_linear, []
    monkeypatch.setattr(mt, "fit_linear", lambda *a: calls.append(a[1].size) or real(*a))
    root = mt.grow_model_tree(cols, y, np.arange(y.size), 5)
    grown, nodes = len(calls), len(_nodes(root))
    assert grown > 50 and nodes > 2 * grown
    mt.fit_and_prune(root, cols, y)
    assert len(calls) == nodes        # was nodes + grown
    # each kept model is the one a fit on the node's cases gives, to the bit
    for node in _nodes(root):
        again = real(cols.xf[node.rows], y[node.rows], np.arange(cols.n_cont))
        assert node.model.intercept == again.intercept and node.model.error == again.error
        assert np.array_equal(node.model.columns, again.columns) and np.array_equal(node.model.coefs, again.coefs)


def test_compiled_rule_selection_keeps_the_numpy_rules_when_every_case_keeps_a_rule(monkeypatch):
    # the switch COVER_EVERY_CASE (off by default) guards the same rules in both loops
    monkeypatch.setattr(steps, "COVER_EVERY_CASE", True)
    ds, y = regression_frame(mixed_frame(), "y")
    compiled, numpy_steps = both_ways(monkeypatch, ds, y, committees=2)
    assert compiled == numpy_steps
    monkeypatch.setattr(steps, "COVER_EVERY_CASE", False)
    assert dump_yaml(fit_regression(ds, y, committees=2)) != numpy_steps


@pytest.mark.parametrize("compiled", [True, False])
def test_rules_ending_on_the_same_cases_share_one_refit(monkeypatch, compiled):
    # x <= 19 and x <= 19.5 cover the same 20 cases: one refit serves both (an inner node's
    # rule and a leaf's often end so with RULES_FROM_EVERY_NODE), each rule with its own copy
    # and its own estimate, equal to those made without sharing
    if not compiled:
        monkeypatch.setattr(steps, "_native", None)
    x = np.arange(40, dtype=float).reshape(-1, 1)
    y = np.where(x[:, 0] <= 19, 1.0 + 0.5 * x[:, 0], 30.0) + np.where(np.arange(40) % 2, 0.1, -0.1)
    cols = steps.Columns(x, [0], np.zeros((40, 0), dtype=np.int32), [], [], x)
    zero = steps.Fitted(0.0, np.array([], dtype=np.intp), np.zeros(0), 0.0, 0.0)
    fits = []
    real = steps.fit_linear
    monkeypatch.setattr(steps, "fit_linear", lambda *a: fits.append(1) or real(*a))
    alone = [steps.simplify([(0, "<=", cut)], zero, cols, y) for cut in (19.0, 19.5)]
    assert len(fits) == 2
    refits: dict = {}
    shared = [steps.simplify([(0, "<=", cut)], zero, cols, y, None, refits) for cut in (19.0, 19.5)]
    assert len(fits) == 3 and len(refits) == 1
    assert shared[0].model is not shared[1].model
    for a, b in zip(alone, shared):
        assert a.tests == b.tests and a.covered.tolist() == b.covered.tolist() == list(range(20))
        assert (a.model.intercept, a.model.coefs.tolist(), a.model.estimate, a.estimate) == \
               (b.model.intercept, b.model.coefs.tolist(), b.model.estimate, b.estimate)


def test_a_rule_covering_exactly_a_nodes_cases_takes_the_nodes_fit(monkeypatch):
    # every column a candidate of every node's model: a node's model is the refit a rule
    # ending on its cases would make (same cases, same order, same candidates), so it is taken
    # instead of fitted again, and the model learnt is the same to the bit
    ds, y = regression_frame(grid_frame(3000), "y")
    fits = []
    real = steps.fit_linear
    monkeypatch.setattr(steps, "fit_linear", lambda *a: fits.append(1) or real(*a))
    seeded = dump_yaml(fit_regression(ds, y))
    with_nodes = len(fits)
    fits.clear()
    monkeypatch.setattr(steps, "node_fits", lambda root: {})
    assert dump_yaml(fit_regression(ds, y)) == seeded
    assert with_nodes < 0.7 * len(fits)
