"""The weighted generalisation's pessimistic rates computed in the compiled loop
(_generalize.c pessimistic_pair) are generalize.py _Rates.compute's, the reference, bit for bit
(issue 48: the loop no longer calls back into Python for each weighted pair)."""
import math
import os
import struct

import numpy as np
import pytest

import c45rules.rules.generalize as generalize
from c45rules.rules.generalize import F32, _Rates

COMPILED = generalize._native

if COMPILED is None:
    if os.environ.get("CI"):
        raise ImportError("c45rules.rules._generalize was not built (setup.py needs a C compiler)")
    pytest.skip("the compiled generalisation is not built here", allow_module_level=True)


def _bits(x: float) -> bytes:
    return struct.pack("<d", x)


def _pairs() -> list[tuple[float, float]]:
    """(cases, errors) pairs over every branch of AddErrs: no cases, no errors, errors under 1,
    at 0.9999 and 1e-6's edges, e + 0.5 >= n, whole and fractional counts, tiny and huge."""
    rng = np.random.default_rng(48)
    out = [(0.0, 0.0), (1.0, 0.0), (1.5, 1.0), (2.0, 1.0), (1.0, 1.0), (0.5, 0.0), (0.5, 0.25), (3.0, 0.9999),
           (3.0, 0.99989), (3.0, 1e-6), (3.0, 9.9e-7), (1e-300, 0.0), (1e300, 1e299), (7.0, 6.5), (7.0, 6.49)]
    cases = np.concatenate([rng.uniform(0, 10, 4000), rng.uniform(0, 1e5, 4000), np.exp(rng.uniform(-20, 14, 4000)),
                            rng.integers(1, 1000, 4000).astype(np.float64)])
    share = np.concatenate([rng.uniform(0, 1, 12000), np.zeros(2000), np.ones(1000), rng.uniform(0, 1e-5, 1000)])
    rng.shuffle(share)
    out += list(zip(cases.tolist(), (cases * share).tolist()))
    # errors near 1 and near n - 0.5 of small counts, where the branches change
    out += [(n, e) for n in (1.0, 1.25, 1.5, 2.0, 2.5, 3.0) for e in np.linspace(0.0, n, 41).tolist()]
    return out


@pytest.mark.parametrize("cf", [0.25, 0.1, 0.001, 0.5, 1.0, 0.37])
def test_compiled_weighted_rates_are_compute_bit_for_bit(cf):
    rates = _Rates(cf, 0)
    z2, log_cf = rates.constants
    pairs = _pairs()
    assert len(pairs) > 16000
    for cases, errors in pairs:
        want = rates.compute(cases, errors, F32(0))
        got = COMPILED.pessimistic_pair(cases, errors, z2, log_cf)
        assert [_bits(x) for x in got] == [_bits(x) for x in want], (cf, cases, errors, got, want)


def test_the_constants_are_the_formula_s():
    z2, log_cf = _Rates(0.25, 0).constants
    assert log_cf == math.log(0.25)
    assert z2 == generalize.z_squared(0.25)


def test_generalise_refuses_the_constants_for_unweighted_counts(monkeypatch):
    """(z2, log_cf) in place of the rate callback is for weighted counts only."""
    from c45rules.data import load_stem
    from c45rules.tree.grow import grow_tree
    import reference as R
    train, _ = load_stem(R.stem("golf"))
    tree = grow_tree(train)
    real = COMPILED.generalise

    def forced(*a):
        a = list(a)
        i = next(j for j, x in enumerate(a) if callable(x))
        a[i] = (1.0, -1.0)
        return real(*a)
    monkeypatch.setattr(COMPILED, "generalise", forced)
    with pytest.raises(ValueError, match="weighted counts only"):
        generalize.generalise_rules(tree, train)
