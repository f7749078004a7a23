"""The compiled generalisation (rules/_generalize.c) gives the numpy loop's candidates:
every field and every cover, on larger shared data than the plain-computation tests reach."""
import os

import numpy as np
import pytest

import c45rules.rules.generalize as generalize
import reference as R
from c45rules.data import load_stem
from c45rules.rules.generalize import _InBitOrder, generalise_rules
from c45rules.tree.grow import grow_tree

COMPILED = generalize._native

if COMPILED is None:
    if os.environ.get("CI"):
        raise ImportError("c45rules.rules._generalize was not built (setup.py needs a C compiler)")
    pytest.skip("the compiled generalisation is not built here", allow_module_level=True)


def _fields(rules):
    return [(r.number, r.conditions, r.klass, r.error, r.covered, r.errors, r.cover.dtype.str, r.cover.tolist())
            for r in rules]


@pytest.mark.parametrize("stem, options", [
    ("letter", {}), ("income", {}), ("synth_10k", {}), ("credit-g", {"fisher": 0.05}), ("segment", {"cf": 0.1}),
])
def test_compiled_equals_numpy_on_shared_data(monkeypatch, stem, options):
    train, _ = load_stem(R.stem(stem))
    tree = grow_tree(train)
    compiled = generalise_rules(tree, train, **options)
    monkeypatch.setattr(generalize, "_native", None)
    plain = generalise_rules(tree, train, **options)
    assert len(compiled) > 20
    assert _fields(compiled) == _fields(plain)


def test_compiled_equals_numpy_in_two_workers(monkeypatch):
    train, _ = load_stem(R.stem("letter"))
    tree = grow_tree(train)
    compiled = generalise_rules(tree, train, jobs=2)
    monkeypatch.setattr(generalize, "_native", None)
    assert _fields(compiled) == _fields(generalise_rules(tree, train))


def test_ranked_positions_leave_out_unknowns_and_ascend():
    train, _ = load_stem(R.stem("crx"))
    order = np.arange(train.n)[::-1].copy()
    columns = _InBitOrder(train, order)
    a = next(i for i, att in enumerate(train.schema.attributes) if att.is_continuous)
    col = columns[a]
    ranked = columns.ranked(a)
    assert ranked.dtype == np.int32
    assert len(ranked) == int(np.count_nonzero(~np.isnan(col))) < train.n    # crx's A2 has unknowns
    assert np.all(np.diff(col[ranked]) >= 0)


def test_compiled_checks_array_sizes():
    i4, f8 = np.zeros(3, dtype=np.int32), np.zeros(3)
    with pytest.raises(ValueError, match="array sizes do not agree"):
        COMPILED.generalise(i4, np.zeros(2, dtype=np.int64), (), (), (), i4, i4, i4, f8, np.zeros(3, dtype=np.int64),
                            i4, np.zeros(0, dtype=np.uint8), np.zeros(3, dtype=np.int64), i4,
                            np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32),
                            np.zeros(0), 0, 2, None, None, None)
