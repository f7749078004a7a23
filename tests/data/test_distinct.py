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


@pytest.mark.skipif(distinct._native is None, reason="the compiled _distinct is not built")
@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, 2.0, np.nan, -np.nan, 1e300, -7.25, 5e-324]), max_size=80),
       st.sampled_from(["float64", "int64", "uint64"]))
def test_hashed_without_pandas_codes_as_pandas(numbers, dtype):
    values = np.array(numbers, dtype=np.float64)
    if dtype != "float64":   # words and codes: any 64-bit pattern, the sign bit among them
        values = values.view(dtype)
    codes, uniques = factorize(values, hashed=True)
    ref_codes, ref_uniques = pd.factorize(values, use_na_sentinel=False)
    assert codes.tolist() == ref_codes.tolist()
    assert np.array_equal(uniques, np.asarray(ref_uniques), equal_nan=True)
    if dtype == "float64":
        known = values[values == values]
        big = np.tile(known, -(-distinct.HASH_FROM // max(len(known), 1)))   # over HASH_FROM: hashed
        assert count_distinct(big) == len(pd.unique(big)) == len(set(known.tolist()))


def test_a_large_c45_file_is_read_and_learnt_without_pandas(tmp_path):
    """Issue 33: importing pandas holds ~80 MB; the C4.5-file path of `rules` never needs it."""
    import subprocess
    import sys
    rng = np.random.default_rng(5)
    n = 60_000   # over HASH_FROM: every distinct-value step hashes
    (tmp_path / "t.names").write_text("yes, no.\n\na: continuous.\nb: p, q, r.\n")
    a = rng.integers(0, 1000, n) / 10
    b = rng.choice(["p", "q", "r", "?"], n)
    y = np.where((a > 50) ^ (b == "q"), "yes", "no")
    (tmp_path / "t.data").write_text("".join(f"{x},{v},{c}\n" for x, v, c in zip(a, b, y)))
    code = ("import sys; from c45rules.data import names; names.HASH_FILE_BYTES = 0\n"
            "from c45rules.learn.pipeline import fit_dataset\n"
            f"train, _ = names.load_stem({str(tmp_path / 't')!r})\n"
            "rs = fit_dataset(train)[0]\n"
            "print(len(rs.rules), 'pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert int(out[0]) >= 2 and out[1] == "False"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.25, 1e-300, -np.inf, np.inf, 3.0, 5e-324]), max_size=80),
       st.sampled_from([np.float64, np.float32, np.int64, np.int8]))
def test_sorted_distinct_is_np_unique_bit_for_bit(values, dtype):
    with np.errstate(invalid="ignore", over="ignore"):
        x = np.array(values, dtype=np.float64)
        x = x if dtype in (np.float64, np.float32) else np.nan_to_num(x, posinf=9, neginf=-9)
        x = x.astype(dtype)
    got, want = distinct.sorted_distinct(x), np.unique(x)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
