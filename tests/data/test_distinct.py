"""data/distinct.py: the numpy way (small arrays) gives exactly pandas' codes and values."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from c45rules.data import distinct
from c45rules.data.distinct import count_distinct, factorize


def _both(values: np.ndarray) -> tuple:
    codes, uniques = factorize(values)
    ref_codes, ref_uniques = pd.factorize(values, use_na_sentinel=False)
    return codes, uniques, ref_codes, np.asarray(ref_uniques, dtype=values.dtype)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "?", "", "x y", "é", "10", "1e3"]), max_size=60))
def test_texts_coded_as_pandas_codes_them(texts):
    codes, uniques, ref_codes, ref_uniques = _both(np.array(texts, dtype=object))
    assert codes.tolist() == ref_codes.tolist()
    assert uniques.tolist() == ref_uniques.tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, 2.0, np.nan, 1e300, -7.25]), max_size=60))
def test_numbers_coded_as_pandas_codes_them_nan_one_value(numbers):
    codes, uniques, ref_codes, ref_uniques = _both(np.array(numbers, dtype=np.float64))
    assert codes.tolist() == ref_codes.tolist()
    assert np.array_equal(uniques, ref_uniques, equal_nan=True)
    known = np.array([x for x in numbers if x == x], dtype=np.float64)
    assert count_distinct(known) == len(pd.unique(known))


def test_words_and_missing_values():
    words = np.array([7, 3, 7, 2**63 + 5, 3, 0], dtype=np.uint64)
    assert factorize(words)[0].tolist() == [0, 1, 0, 2, 1, 3]
    assert factorize(words)[1].tolist() == [7, 3, 2**63 + 5, 0]
    # None, NaN and pandas' NA are one missing value, as pandas counts them
    mixed = np.array(["b", None, "a", np.nan, pd.NA, "b"], dtype=object)
    assert factorize(mixed)[0].tolist() == pd.factorize(mixed, use_na_sentinel=False)[0].tolist() \
        == [0, 1, 2, 1, 1, 0]


@pytest.mark.parametrize("values", [np.array(["q", "r", "q"] * 5, dtype=object),
                                    np.array([3.0, 1.0, 3.0, 2.0] * 4)])
def test_large_arrays_go_to_pandas_with_the_same_result(values, monkeypatch):
    small = factorize(values)
    monkeypatch.setattr(distinct, "HASH_FROM", 2)
    large = factorize(values)
    assert small[0].tolist() == large[0].tolist() and small[1].tolist() == large[1].tolist()
