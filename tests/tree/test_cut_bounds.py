"""The weighted growth's skipping of candidate cuts that cannot win (_grow.c cuts_core, issue
48) keeps the same cuts: trees grown over weighted cases with and without it are equal field
by field, and so are boosted rulesets; and it does skip (the bound is not idle)."""
import os

import numpy as np
import pytest

import reference as R
from c45rules.data import load_stem
from c45rules.data.weights import weighted
from c45rules.learn.pipeline import fit_dataset
from c45rules.tree import grow

from .test_fast_paths import differences, random_table

native = grow._native

if native is None:
    if os.environ.get("CI"):
        raise ImportError("c45rules.tree._grow was not built (setup.py needs a C compiler)")
    pytest.skip("the compiled tree growth is not built here", allow_module_level=True)


@pytest.fixture
def bounds():
    """Switch the bound on or off; back on (the default) after the test."""
    yield native.cut_bounds
    native.cut_bounds(True)


def _both(bounds, make):
    """make() with the bound off, then on; and how many candidates the second one skipped."""
    bounds(False)
    plain = make()
    before = bounds(True)
    fast = make()
    return plain, fast, bounds(True) - before


def _weights(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "spread":
        return rng.exponential(1.0, n)
    if kind == "boosted":
        # a few distinct fractional weights, as boosting's reweighting leaves them
        return rng.choice([0.37, 0.37, 0.37, 1.9, 4.25, 0.001], n)
    return rng.uniform(1e-3, 1e3, n)          # wide


@pytest.mark.parametrize("name, kind", [
    ("synth_10k", "spread"), ("synth_10k", "boosted"), ("letter", "boosted"), ("segment", "wide"),
    ("crx", "spread"), ("hypo", "boosted"), ("credit-g", "wide"), ("spambase", "spread"),
    ("income", "boosted"),
])
def test_weighted_trees_are_the_same_with_and_without_the_bound(bounds, name, kind):
    train, _ = load_stem(R.stem(name), test=False)
    data = weighted(train, _weights(kind, train.n, 48))
    plain, fast, skipped = _both(bounds, lambda: grow.grow_tree(data))
    assert fast.size() > 8
    assert differences(plain, fast) is None
    if name in ("synth_10k", "letter", "spambase"):
        assert skipped > 1000


@pytest.mark.parametrize("seed", range(40))
def test_random_weighted_tables_with_ties_and_unknowns_grow_the_same(bounds, seed):
    data = random_table(seed, 300 + 17 * seed, 2 + seed % 4, True, awkward=True)
    data.weights = np.random.default_rng(seed).choice([0.5, 1.0, 2.0, 0.3, 1e-3, 7.25], data.n)
    for min_objs in (1, 2, 3.5):
        plain, fast, _ = _both(bounds, lambda: grow.grow_tree(data, min_objs=min_objs))
        assert differences(plain, fast) is None


def test_boosted_rulesets_are_the_same_with_and_without_the_bound(bounds):
    train, _ = load_stem(R.stem("synth_10k"), test=False)

    def rules():
        boosted, _, _ = fit_dataset(train, trials=4)
        return [[(r.conditions, r.prediction) for r in t.rules] for t in boosted.trials]
    plain, fast, skipped = _both(bounds, rules)
    assert len(plain) == 4 and plain == fast
    assert skipped > 1000
