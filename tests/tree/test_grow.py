"""Unit tests of the split evaluation (spec 2.2-2.5) on hand-computed examples."""
import numpy as np
import pytest

from c45rules.data.schema import Attribute, Dataset, Schema
from c45rules.tree.grow import grow_tree
from c45rules.tree.split import best_cuts, discrete_gains, info, worth

# golf (spec 10): outlook sunny 2 Play/3 Don't, overcast 4/0, rain 3/2; windy false 6/2, true 3/3
GOLF_OUTLOOK = [[0, 0], [2, 3], [4, 0], [3, 2]]
GOLF_WINDY = [[0, 0], [6, 2], [3, 3], [0, 0]]          # padded to the same number of values


def test_info_is_total_weight_times_entropy():
    # 14 log2 14 - 9 log2 9 - 5 log2 5 = 14 * 0.940286
    assert info(np.array([9.0, 5.0])) == pytest.approx(13.164003, abs=1e-5)
    assert info(np.array([4.0, 0.0])) == 0.0
    assert info(np.array([[1.0, 1.0], [2.0, 2.0]])).tolist() == [2.0, 4.0]


def test_info_rounds_like_c45():
    # c4.5 rounds its running sum to float after each term, so the order of the terms
    # shows in the last bit: this decides exact ties between attributes (glass, fertility)
    a = info(np.array([0.0, 5.0, 3.0]))
    b = info(np.array([0.0, 3.0, 5.0]))
    assert a.dtype == np.float32
    assert float(a) == pytest.approx(7.6354733, abs=1e-7)
    assert float(b) == pytest.approx(7.6354713, abs=1e-7)
    assert a > b


def test_discrete_gains_golf():
    tables = np.array([GOLF_OUTLOOK, GOLF_WINDY], dtype=np.float32)
    gain, split = discrete_gains(tables, 14.0, 2)
    # outlook: 0.940286 - (5 * 0.970951 * 2) / 14; split = H(5, 4, 5)
    assert gain[0] == pytest.approx(0.246750, abs=2e-6)
    assert split[0] == pytest.approx(1.577406, abs=2e-6)
    # windy: 0.940286 - (8 * 0.811278 + 6 * 1) / 14; split = H(8, 6)
    assert gain[1] == pytest.approx(0.048127, abs=2e-6)
    assert split[1] == pytest.approx(0.985228, abs=2e-6)


def test_discrete_gain_with_unknowns_and_unusable():
    # 2 unknown cases of 15: gain scaled by the known fraction 13/15, and the unknowns
    # are an extra outcome of the split information
    t = np.array([[[1, 1], [2, 3], [4, 0], [2, 2]]], dtype=np.float32)
    gain, split = discrete_gains(t, 15.0, 2)
    base = 0.961237                              # H(8/13)
    after = (5 * 0.970951 + 0 + 4 * 1.0) / 13    # H(2/5), H(1), H(1/2)
    assert gain[0] == pytest.approx(13 / 15 * (base - after), abs=2e-6)     # 0.242755
    assert split[0] == pytest.approx(1.932914, abs=2e-6)                    # H(2, 5, 4, 4)
    # only one value with >= MINOBJS cases: unusable
    t = np.array([[[0, 0], [5, 3], [1, 0], [0, 1]]], dtype=np.float32)
    gain, split = discrete_gains(t, 10.0, 2)
    assert gain[0] == np.float32(-1e-3) and split[0] == 0


def test_best_cuts_penalised_gain():
    # 6 cases, classes split perfectly after the 3rd: MinSplit = max(0.1*6/2, 2) = 2, so
    # candidate cuts after rows 1, 2, 3 (low weight 2, 3, 4): Tries = 3
    v = np.array([[1, 2, 3, 4, 5, 6.0]]).T
    w = np.ones((6, 1), np.float32)
    c = np.array([[0, 0, 0, 1, 1, 1]]).T
    gain, split, at = best_cuts(v, w, c, 2, 6.0, 2)
    assert gain[0] == pytest.approx(1 - np.log2(3) / 6, abs=1e-6)     # 0.735840
    assert split[0] == 1.0
    assert at[0] == 2


def test_best_cuts_unknown_and_gap():
    # two values closer than 1e-5 cannot be cut between; an unknown case reduces the gain
    v = np.array([[1, 1.000001, 2, 3, 4, np.nan]]).T
    w = np.ones((6, 1), np.float32)
    c = np.array([[0, 0, 0, 1, 1, 1]]).T
    gain, split, at = best_cuts(v, w, c, 2, 6.0, 2)
    # K = 5, MinSplit 2: candidates after rows 1 (low 2) and 2 (low 3); row 0 is no cut
    # best: after row 2 (3 vs 2, pure): gain = 5/6 * H(3/5) - log2(2)/6
    assert at[0] == 2
    assert gain[0] == pytest.approx(5 / 6 * 0.970951 - 1 / 6, abs=2e-6)
    assert split[0] == pytest.approx((6 * np.log2(6) - 3 * np.log2(3) - 2 * np.log2(2)) / 6, abs=2e-6)


def test_worth_average_gain_filter():
    gain = np.array([0.2, 0.05, 0.3], dtype=np.float32)
    split = np.array([1.0, 0.1, 0.0005], dtype=np.float32)
    val = worth(gain, split, 0.1, True)
    # 0.05 is below the average gain; split 0.0005 is <= Epsilon
    assert val.tolist() == pytest.approx([0.2, -1e-3, -1e-3])


def _golf_like() -> Dataset:
    schema = Schema((Attribute("x", "discrete", ("a", "b", "c")),), ("yes", "no"))
    x = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, -1], dtype=np.int32)
    y = np.array([0, 0, 0, 0, 1, 1, 0, 1, 1, 0], dtype=np.int32)
    return Dataset(schema, [x], y)


def test_grow_distributes_unknown_weight():
    tree = grow_tree(_golf_like())
    assert tree.kind == "discrete"
    # the unknown case goes to every branch with weight (known cases there) / 9
    assert [b.items for b in tree.branches] == pytest.approx([4 + 4 / 9, 3 + 3 / 9, 2 + 2 / 9], abs=1e-6)
    assert tree.branches[1].errors == pytest.approx(1 + 3 / 9, abs=1e-6)


def test_growing_lets_go_of_its_data_sized_tables():
    """k log k and log k tables sized to the data are not kept after a tree (16 MB at 1M
    cases); the next tree makes them again and comes out the same."""
    from c45rules.tree import split
    from c45rules.tree.report import format_tree
    rng = np.random.default_rng(3)
    x = rng.normal(size=400)
    schema = Schema([Attribute("x", "continuous")], ["a", "b"])
    data = Dataset(schema, [x], (np.sin(4 * x) + rng.normal(scale=0.3, size=400) > 0).astype(np.int32))
    first = grow_tree(data)
    assert len(split._XLOGX) == 1 and len(split._LOG2) == 1
    again = grow_tree(data)
    assert first.size() > 3 and format_tree(first, schema) == format_tree(again, schema)
