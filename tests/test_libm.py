"""Every log and exp of the learning is the C library's, compiled or through Python's math module."""
import math

import numpy as np
import pytest

from c45rules import estimate, libm
from c45rules.rules.coding import ExceptionCoder
from c45rules.tree.split import log2_c


def _sample() -> np.ndarray:
    rng = np.random.default_rng(7)
    # whole counts (class weights, table sizes) and fractional weights, as the tree sums them
    return np.concatenate([np.arange(1, 200_001, dtype=np.float64),
                           rng.uniform(0, 1000, 200_000).astype(np.float32).astype(np.float64)])


@pytest.mark.parametrize("name, ref", [("log", math.log), ("log2", math.log2)])
def test_logs_are_the_c_librarys_bit_for_bit(name, ref):
    x = _sample()
    want = np.array([ref(v) for v in x])
    assert np.array_equal(getattr(libm, name)(x), want)
    assert np.array_equal(getattr(libm, name)(x, native=False), want)


def test_exp_is_the_c_librarys_bit_for_bit():
    # AddErrs takes exp(log(cf) / n) for every case count n
    x = math.log(0.25) / np.arange(1, 400_001, dtype=np.float64)
    want = np.array([math.exp(v) for v in x])
    assert np.array_equal(libm.exp(x), want)
    assert np.array_equal(libm.exp(x, native=False), want)


@pytest.mark.skipif(libm._native is None, reason="the compiled _libm is not built")
def test_edges_and_shapes_agree_between_compiled_and_python():
    x = np.array([[0.0, -1.0, np.inf, np.nan], [1.0, 1e-310, 710.0, -750.0]])
    for name in ("log", "log2", "exp"):
        native, python = getattr(libm, name)(x, native=True), getattr(libm, name)(x, native=False)
        assert native.shape == (2, 4)
        assert np.array_equal(native, python, equal_nan=True)
    assert list(libm.log(x)[0, :3]) == [-np.inf, pytest.approx(np.nan, nan_ok=True), np.inf]
    assert libm.exp(x)[1, 2] == np.inf and libm.exp(x)[1, 3] == 0.0
    out = np.arange(1.0, 5.0)
    assert libm.log2(out, out=out) is out and list(out) == [0.0, 1.0, math.log2(3.0), 2.0]
    with pytest.raises(ValueError, match="out must be"):
        libm.log(np.ones(3), out=np.ones(4))


def test_the_learning_uses_them():
    n = np.arange(1, 5001, dtype=np.float64)
    # the tree's Log(x) and the pessimistic estimate with no errors, as c4.5 computes them
    assert np.array_equal(log2_c(n), np.array([math.log(v) / 0.69314718055994530942 for v in n]))
    rate = estimate.rate_function(0.25)
    assert np.array_equal(estimate.pessimistic_rate(n, np.zeros_like(n)), [rate(v, 0) for v in n])
    coder = ExceptionCoder(1000)
    assert np.array_equal(coder.log2_half[1:], [math.log2(j / 2) for j in range(1, 2001)])
