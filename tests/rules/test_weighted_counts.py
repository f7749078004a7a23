"""Weighted counts of the generalisation's tables: the exact sum of the weights, rounded once
(math.fsum's value), compiled or not, so that they are the same on every machine."""
import math
import os

import numpy as np
import pytest

import c45rules.rules.generalize as generalize
import reference as R
from c45rules.data import load_stem
from c45rules.data.weights import weighted
from c45rules.rules.generalize import generalise_rules
from c45rules.tree.grow import grow_tree

native = generalize._native
if native is None:
    if os.environ.get("CI"):
        raise ImportError("c45rules.rules._generalize was not built (setup.py needs a C compiler)")
    pytest.skip("the compiled generalisation is not built here", allow_module_level=True)


def _sums(rows, at, w):
    """What weight_sums gives, by math.fsum."""
    bits = np.unpackbits(rows.view(np.uint8), axis=1, bitorder="little").astype(bool)
    return [math.fsum(w.reshape(-1, 64)[at].reshape(-1)[b].tolist()) for b in bits]


@pytest.mark.parametrize("spread", [0, 3, 20])
def test_compiled_weight_sums_are_fsum(spread):
    rng = np.random.default_rng(spread)
    words = 40
    w = rng.uniform(0.5, 2.0, 64 * words) * 2.0 ** rng.integers(-spread, spread + 1, 64 * words)
    w[rng.random(len(w)) < 0.1] = 0.0
    grains, exp = native.weight_grains(w)
    at = np.sort(rng.choice(words, 25, replace=False)).astype(np.int64)
    rows = rng.integers(0, 2**63, (6, 25)).astype(np.uint64) << np.uint64(1) | rng.integers(0, 2, (6, 25)).astype(np.uint64)
    rows[0] = 0
    got = native.weight_sums(rows, at, grains, exp)
    assert got == _sums(rows, at, w)
    assert got[0] == 0.0
    # whole weights: the exact count
    whole = np.floor(w * 4)
    grains, exp = native.weight_grains(whole)
    assert exp == 0
    assert native.weight_sums(rows, at, grains, exp) == (np.unpackbits(rows.view(np.uint8), axis=1, bitorder="little")
                                                        @ whole.reshape(-1, 64)[at].reshape(-1)).tolist()


def test_weight_grains_decline_what_128_bits_cannot_hold():
    assert native.weight_grains(np.array([1.0, 2.0**-80, 2.0**50])) is None      # 130 bits apart
    assert native.weight_grains(np.array([2.0**-1020, 1.0])) is None             # near the subnormals
    assert native.weight_grains(np.array([1.0, np.nan])) is None
    # 0.75 and 3 in quarters
    assert native.weight_grains(np.array([0.75, 3.0])) == (b"".join(v.to_bytes(16, "little") for v in (3, 12)), 2)


@pytest.mark.parametrize("name", ["crx", "credit-g", "soybean"])
def test_weighted_candidates_compiled_sums_equal_fsum(monkeypatch, name):
    data = load_stem(R.stem(name))[0]
    data = weighted(data, np.random.default_rng(4).uniform(0.2, 3.0, data.n))
    tree = grow_tree(data)
    by_c = generalise_rules(tree, data)
    monkeypatch.setattr(generalize, "_native", None)
    by_fsum = generalise_rules(tree, data)
    key = lambda r: (r.number, r.conditions, r.klass, r.error, r.covered, r.errors, r.cover.tolist())  # noqa: E731
    assert [key(r) for r in by_c] == [key(r) for r in by_fsum]
    assert any(not float(r.covered).is_integer() for r in by_c)


def _candidate(r):
    return (r.number, r.conditions, r.klass, r.error, r.covered, type(r.covered), r.errors, len(r.cases),
            r.cover.tolist())


@pytest.mark.parametrize("name,jobs,fisher,whole", [
    ("crx", 1, None, False), ("hypo", 2, None, False), ("letter", 2, None, False),
    ("segment", 1, None, False), ("vote", 1, 0.05, True), ("credit-g", 2, 0.1, True)])
def test_compiled_weighted_loop_equals_the_numpy_path(monkeypatch, name, jobs, fisher, whole):
    """Weighted cases go through the compiled loop (its first round summing weights in pool
    order as bincount does, its recount summing grains), with the numpy path's rules."""
    data = load_stem(R.stem(name))[0]
    rng = np.random.default_rng(len(name))
    w = rng.integers(1, 4, data.n).astype(float) if whole else rng.uniform(0.05, 3.0, data.n)
    data = weighted(data, w)
    tree = grow_tree(data)
    monkeypatch.setattr(generalize, "_SPLIT_WORK", 0.0)     # several runs, in threads, when jobs > 1
    runs = []
    real_run = generalize._Compiled.run

    def run(self, *args):
        runs.append(bool(self.weighted))
        return real_run(self, *args)

    monkeypatch.setattr(generalize._Compiled, "run", run)
    by_c = generalise_rules(tree, data, fisher=fisher, jobs=jobs)
    assert runs and all(runs) and len(runs) == (1 if jobs == 1 else min(2 * jobs, len(runs)))
    monkeypatch.setattr(generalize, "_native", None)
    by_numpy = generalise_rules(tree, data, fisher=fisher, jobs=jobs)
    assert len(by_c) > 5
    assert [_candidate(r) for r in by_c] == [_candidate(r) for r in by_numpy]
    assert all(isinstance(r.covered, float) for r in by_c)
    if not whole:
        assert any(not r.covered.is_integer() for r in by_c)


def test_weights_without_grains_take_the_numpy_path(monkeypatch):
    """Weights 128-bit sums cannot hold exactly are summed by the numpy path (math.fsum)."""
    data = load_stem(R.stem("crx"))[0]
    w = np.random.default_rng(1).uniform(0.5, 2.0, data.n)
    w[0] = 1.1 * 2.0**-90     # 143 bits below the point
    data = weighted(data, w)
    assert native.weight_grains(w) is None
    monkeypatch.setattr(generalize._Compiled, "run", lambda *a: pytest.fail("the compiled loop ran"))
    rules = generalise_rules(grow_tree(data), data)
    assert len(rules) > 5
