"""generalise_rules (pools, truth bits in leaf order, word skipping) equals the plain
computation of spec 7.3-7.5: every condition evaluated on every case, every round. Both
ways of running it are checked: numpy, and the compiled module (rules/_generalize.c)."""
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference as R
from c45rules.data import load_stem
from c45rules.data.frame import from_frame
from c45rules.estimate import pessimistic_rate
from c45rules.rules.extract import leaf_paths
import c45rules.rules.generalize as generalize
from c45rules.rules.generalize import fisher_tail, generalise_rules, sort_conditions
from c45rules.tree.grow import grow_tree

F32 = np.float32
COMPILED = generalize._native


@pytest.fixture(params=["numpy", "compiled"], autouse=True)
def way(request, monkeypatch):
    """Run each test with the numpy loop and with the compiled one."""
    if request.param == "numpy":
        monkeypatch.setattr(generalize, "_native", None)
    elif COMPILED is None:
        if os.environ.get("CI"):
            pytest.fail("c45rules.rules._generalize was not built (setup.py needs a C compiler)")
        pytest.skip("the compiled generalisation is not built here")
    return request.param


def plain_generalise(tree, data, cf=0.25, fisher=None):
    """(conditions, class, error, covered, errors, cover) of each kept rule, straight from the spec."""
    y, n = data.y, data.n
    class_n = np.bincount(y, minlength=len(data.schema.classes))
    out, seen = [], {}
    for path, leaf in leaf_paths(tree):
        if not path:
            continue
        target = leaf.klass
        default_error = F32(1.0 - (class_n[target] + 1.0) / (n + 2.0))
        truth = [c.satisfied(data) for c in path]
        wrong = y != target
        levels = list(range(len(path)))
        while True:
            fails = sum((~truth[j]).astype(np.int64) for j in levels)
            none = fails == 0
            t = [int(none.sum())] + [int((none | ((fails == 1) & ~truth[j])).sum()) for j in levels]
            e = [int((none & wrong).sum())] + [int(((none | ((fails == 1) & ~truth[j])) & wrong).sum())
                                              for j in levels]
            tt, ee = np.array(t, dtype=np.float64), np.array(e, dtype=np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):
                actual = np.where(tt > 0, (ee / tt).astype(F32), F32(0))
                pess = np.where(tt > 0, pessimistic_rate(tt, ee, cf).astype(F32), default_error)
            best = max(k for k in range(len(levels)) if pess[1 + k] == pess[1:].min())
            drop = bool((pess[1:] <= pess[0]).any() or (actual[1:] <= actual[0]).any())
            if fisher is not None and not drop:
                drop = any(fisher_tail(e[0], e[1 + k] - e[0], t[0] - e[0], (t[1 + k] - t[0]) - (e[1 + k] - e[0]))
                           > fisher for k in range(len(levels)))
            if not drop:
                break
            del levels[best]
            if not levels:
                break
        if not levels or t[0] == 0 or pess[0] >= default_error:
            continue
        conds = sort_conditions(path, levels)
        key = (target, tuple((c.attribute, c.kind, c.cut if c.kind == 2 else 0.0,
                              c.outcome if c.kind == 1 else (c.node, c.outcome) if c.kind == 3 else 0)
                             for c in conds))
        if key in seen:
            seen[key][2] = max(seen[key][2], float(pess[0]))
            continue
        seen[key] = [conds, target, float(pess[0]), t[0], e[0], np.flatnonzero(none).tolist()]
        out.append(seen[key])
    return out


def fast(tree, data, cf=0.25, fisher=None):
    return [[r.conditions, r.klass, r.error, r.covered, r.errors, r.cover.tolist()]
            for r in generalise_rules(tree, data, cf=cf, fisher=fisher)]


@pytest.mark.parametrize("stem, cf, fisher", [
    ("golf", 0.25, None), ("labor", 0.25, None), ("crx", 0.25, None), ("crx", 0.25, 0.25),
    ("soybean", 0.1, None), ("hypo", 0.25, None), ("breast-cancer", 0.25, 0.05),
    ("monk2", 0.4, None), ("vote", 0.25, None),
])
def test_shared_datasets_give_the_plain_computation(stem, cf, fisher):
    train, _ = load_stem(R.stem(stem))
    tree = grow_tree(train)
    assert fast(tree, train, cf, fisher) == plain_generalise(tree, train, cf, fisher)


def test_subset_tests_give_the_plain_computation():
    train, _ = load_stem(R.stem("soybean"))
    tree = grow_tree(train, subset=True)
    assert fast(tree, train) == plain_generalise(tree, train)


@st.composite
def small_tables(draw):
    """Up to 300 rows (several 64-case words), continuous and discrete columns, some unknowns."""
    n = draw(st.integers(2, 300))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    k = draw(st.integers(2, 4))
    cols = {}
    for a in range(draw(st.integers(1, 5))):
        p_unknown = draw(st.sampled_from([0.0, 0.0, 0.1]))
        if draw(st.booleans()):
            v = rng.integers(0, draw(st.integers(2, 12)), n).astype(float)
            v[rng.random(n) < p_unknown] = np.nan
        else:
            v = rng.choice(["a", "b", "c", "d"][: draw(st.integers(2, 4))], n).astype(object)
            v[rng.random(n) < p_unknown] = None
        cols[f"x{a}"] = v
    # a class that depends on the first attribute, with noise, so trees are not trivial
    first = pd.factorize(pd.Series(cols["x0"]).astype(str))[0] % k
    cols["y"] = np.where(rng.random(n) < 0.7, first, rng.integers(0, k, n)).astype(str)
    return pd.DataFrame(cols), draw(st.sampled_from([(0.25, None), (0.1, None), (0.25, 0.25)])), \
        draw(st.booleans())


# the fixture only picks the way of running, the same for every example
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(small_tables())
def test_random_tables_give_the_plain_computation(case):
    df, (cf, fisher), subset = case
    data = from_frame(df, "y")
    tree = grow_tree(data, min_objs=1, subset=subset)
    assert fast(tree, data, cf, fisher) == plain_generalise(tree, data, cf, fisher)
