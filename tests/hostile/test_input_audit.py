"""Inputs from the data-loading audit: each gives a clear InputError naming the column or
file and the value, or the documented behaviour (decoded values, predictions)."""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

import c45rules
from c45rules import InputError
from c45rules.cli.cases import predict_file
from c45rules.data import from_frame, load_data, load_stem, read_csv
from c45rules.data.frame import encode_frame
from c45rules.export import dump_yaml, load_yaml
from reference import DATA

Y = ["p"] * 10 + ["q"] * 10
BEYOND = "is beyond single precision's range (|value| <= 1.7e38): C4.5 computes in float"


# ---- 1. continuous values single precision cannot split -------------------------------------------
@pytest.mark.parametrize("low, high, message", [
    (-1e39, 1e39, "<DataFrame>: row 1: column 'a': value -1e+39 " + BEYOND),
    (3.0e38, 3.4e38, "<DataFrame>: row 1: column 'a': value 3e+38 " + BEYOND),   # float32 midpoint overflows
    (1.0, -math.inf, "<DataFrame>: row 11: column 'a': infinite value; replace it or mark it unknown"),
])
def test_values_beyond_single_precision_are_refused_when_a_frame_is_loaded(low, high, message):
    with pytest.raises(InputError) as err:
        from_frame(pd.DataFrame({"a": [low] * 10 + [high] * 10, "y": Y}), "y")
    assert str(err.value) == message


def test_values_beyond_single_precision_are_refused_in_csv_and_c45_files(tmp_path):
    (tmp_path / "t.csv").write_text("a,y\n1,p\n-2e39,q\n")
    with pytest.raises(InputError, match=r"t\.csv: row 2: column 'a': value -2e\+39 is beyond"):
        read_csv(tmp_path / "t.csv", "y")
    (tmp_path / "s.names").write_text("p, q.\na: continuous.\n")
    (tmp_path / "s.data").write_text("1,p\n3.4e38,q\n")
    with pytest.raises(InputError, match=r"s\.data: case 2: attribute 'a': value 3\.4e\+38 is beyond"):
        load_stem(tmp_path / "s")


def test_the_largest_values_allowed_still_fit_and_scoring_keeps_any_number():
    df = pd.DataFrame({"a": [-1.7e38] * 10 + [1.7e38] * 10, "y": Y})
    rs = c45rules.fit(df, "y")
    assert list(rs.predict(df)) == Y
    # scoring only compares with the threshold: no midpoint, so any number is kept
    assert list(rs.predict(pd.DataFrame({"a": [-1e39, 1e39, -math.inf, math.inf, 1e308]}))) == list("pqpqq")


# ---- 2. an empty cell of a `discrete N` attribute is unknown ----------------------------------------
def test_an_empty_cell_of_a_discrete_n_attribute_is_unknown(tmp_path):
    (tmp_path / "s.names").write_text("x, y.\na: discrete 2.\nb: continuous.\n")
    (tmp_path / "s.data").write_text("p,1,y\n,2,x\nq,3,y\n?,4,x\n")
    train, _ = load_stem(tmp_path / "s")
    assert train.schema.attribute("a").values == ("p", "q")
    assert train.columns[0].tolist() == [0, -1, 1, -1]
    (tmp_path / "t.csv").write_text("a,b,class\np,1,y\n,2,x\nq,3,y\n")
    train, _ = load_data(tmp_path / "t.csv", names=tmp_path / "s.names")
    assert train.schema.attribute("a").values == ("p", "q")
    assert train.columns[0].tolist() == [0, -1, 1]


# ---- 3. '' and '?' among a Categorical's categories are unknown -----------------------------------
@pytest.mark.parametrize("unknown", ["", "?"])
def test_unknown_categories_of_a_categorical_column_are_unknown(tmp_path, unknown):
    df = pd.DataFrame({"a": pd.Categorical(["u"] * 9 + [unknown] + ["v"] * 10), "y": Y})
    ds = from_frame(df, "y")
    assert ds.schema.attribute("a").values == ("u", "v")
    assert ds.columns[0][8:11].tolist() == [0, -1, 1]
    rs = c45rules.fit(df, "y")
    assert load_yaml(dump_yaml(rs)) == rs
    df.to_parquet(tmp_path / "cat.parquet")
    assert read_csv(tmp_path / "cat.parquet", "y").schema.attribute("a").values == ("u", "v")
    assert encode_frame(df, rs.schema).columns[0][8:11].tolist() == [0, -1, 1]


# ---- 4. bool and number cells match the value spelling the same boolean or number ------------------
def test_a_bool_column_scores_like_its_text():
    golf = DATA / "golf" / "golf.csv"
    rs = c45rules.fit(str(golf), "class")
    assert rs.schema.attribute("windy").values == ("false", "true")
    typed = pd.read_csv(golf)
    assert typed["windy"].dtype == bool
    assert list(rs.predict(typed)) == list(rs.predict(pd.read_csv(golf, dtype=str))) == list(typed["class"])


def test_a_number_cell_matches_the_value_spelling_the_same_number(tmp_path):
    (tmp_path / "t.csv").write_text("code,y\n" + "".join(f"{c},{k}\n" for c, k in zip(["1.0"] * 10 + ["2.0"] * 10, Y)))
    rs = c45rules.fit(str(tmp_path / "t.csv"), "y", discrete=["code"])   # as text: '1.0', '2.0'
    assert rs.schema.attribute("code").values == ("1.0", "2.0")
    assert "".join(rs.predict(pd.DataFrame({"code": [1.0, 2.0, 2, np.nan]}))) == "pqqp"
    schema = rs.schema
    codes = encode_frame(pd.DataFrame({"code": pd.Series([1, 2.0, 3, "1", True], dtype=object)}), schema).columns[0]
    assert codes.tolist() == [0, 1, -2, -2, -2]   # text and bools are matched as written


def test_a_typed_cell_matching_two_values_or_text_stays_unseen():
    ds = from_frame(pd.DataFrame({"c": ["1.0", "01", "TRUE", "True", "x"] * 4, "y": list("pqpqp") * 4}), "y")
    got = encode_frame(pd.DataFrame({"c": pd.Series([1, True, "true", 1.0], dtype=object)}), ds.schema)
    assert got.columns[0].tolist() == [-2, ds.schema.attribute("c").values.index("True"), -2, -2]


# ---- 5. dates, durations, complex numbers and other dtypes must be converted first ----------------
@pytest.mark.parametrize("column, dtype", [
    (pd.Series(pd.date_range("2020-01-01", periods=20)), "datetime64[us]"),
    (pd.Series(pd.date_range("2020-01-01", periods=20, tz="UTC")), "datetime64[us, UTC]"),
    (pd.Series(pd.to_timedelta(range(20), unit="s")), "timedelta64[us]"),
    (pd.Series(pd.period_range("2020-01-01", periods=20, freq="D")), "period[D]"),
    (pd.Series(pd.interval_range(0, 20)), "interval[int64, right]"),
    (pd.Series(np.arange(20) + 1j), "complex128"),
])
def test_columns_that_are_not_numbers_text_or_booleans_are_refused(column, dtype):
    with pytest.raises(InputError) as err:
        c45rules.fit(pd.DataFrame({"d": column, "y": Y}), "y")
    assert str(err.value).endswith(f"column 'd' has dtype {dtype}: convert it to numbers or text first")
    rs = c45rules.fit(pd.DataFrame({"d": np.arange(20.0), "y": Y}), "y")
    with pytest.raises(InputError, match=re.escape(f"column 'd' has dtype {dtype}")):
        rs.predict(pd.DataFrame({"d": column}))


def test_complex_objects_are_numbers_only_when_real():
    rs = c45rules.fit(pd.DataFrame({"d": np.arange(20.0), "y": Y}), "y")
    assert list(rs.predict(pd.DataFrame({"d": pd.Series([1 + 0j, 15], dtype=object)}))) == ["p", "q"]
    with pytest.raises(InputError, match=r"row 1: column 'd': \(70\+100j\) is not a number"):
        rs.predict(pd.DataFrame({"d": pd.Series([70 + 100j], dtype=object)}))


# ---- 6. a UTF-8 byte order mark starts no C4.5 value ----------------------------------------------
@pytest.mark.parametrize("comment", ["", " | the general reader"])
def test_a_byte_order_mark_is_removed_from_c45_files(tmp_path, comment):
    bom = b"\xef\xbb\xbf"
    (tmp_path / "s.names").write_bytes(bom + b"x, y.\na: discrete 3.\nb: continuous.\n")
    (tmp_path / "s.data").write_bytes(bom + f"p,1,x{comment}\np,2,y\nq,3,x\n".encode())
    (tmp_path / "s.test").write_bytes(bom + b"q,1,y\n")
    train, test = load_stem(tmp_path / "s", test=True)
    assert train.schema.classes == ("x", "y")
    assert train.schema.attribute("a").values == ("p", "q")
    assert test.columns[0].tolist() == [1] and test.y.tolist() == [1]


# ---- 7. .names declarations a model could not use ------------------------------------------------
def test_a_declared_value_list_holding_the_unknown_mark_is_refused(tmp_path):
    (tmp_path / "s.names").write_text("x, y.\na: p, ?.\nb: continuous.\n")
    (tmp_path / "s.data").write_text("p,1,x\n?,2,y\n")
    with pytest.raises(InputError, match=r"s\.names:2: attribute 'a' lists the value '\?', which means unknown"):
        load_stem(tmp_path / "s")


def test_an_attribute_named_class_fits_and_scores_its_own_data(tmp_path):
    (tmp_path / "c.names").write_text("x, y.\nclass: p, q.\nb: continuous.\n")
    (tmp_path / "c.data").write_text("p,1,x\nq,1,y\n" * 6)
    rs = c45rules.fit(str(tmp_path / "c"))
    assert rs.schema.target == "_class" and rs.schema.names == ("class", "b")
    assert predict_file(rs, tmp_path / "c.data", tmp_path / "o.csv")[0] == 12
    out = pd.read_csv(tmp_path / "o.csv", dtype=str)
    assert list(out.columns) == ["class", "b", "_class", "predicted_class", "rule_id"]
    assert list(out["predicted_class"]) == list(out["_class"])


# ---- 8. the CSV reader names the true offset of a byte that is not UTF-8 ---------------------------
def test_a_csv_byte_that_is_not_utf8_is_named_by_its_offset_in_the_file(tmp_path):
    body = "a,y\n" + "".join(f"{i},{'pq'[i % 2]}\n" for i in range(5000))
    path = tmp_path / "t.csv"
    path.write_bytes(body.encode() + b"\xe9,q\n")
    with pytest.raises(InputError) as err:
        read_csv(path, "y")
    assert str(err.value) == (f"{path}: bytes that are not UTF-8 (at byte {len(body)}) on line 5002;"
                              " give the file's codec as encoding='latin-1' or another")


# ---- 9. no raw exception from the data layer ------------------------------------------------------
def test_zero_rows_of_a_bool_column_score_to_nothing_and_booleans_are_not_numbers():
    rs = c45rules.fit(str(DATA / "golf" / "golf.csv"), "class")
    empty = pd.DataFrame({"outlook": pd.Series([], dtype=object), "humidity": pd.Series([], dtype=bool),
                          "windy": pd.Series([], dtype=object)})
    assert len(rs.predict(empty)) == 0
    with pytest.raises(InputError, match="row 1: column 'humidity': .*True.* is not a number"):
        rs.predict(empty.reindex([0]).assign(humidity=True))


def test_a_lone_surrogate_is_refused_naming_row_and_column():
    df = pd.DataFrame({"a": pd.Series(["v"] * 10 + ["\ud800"] * 10, dtype=object), "y": Y})
    with pytest.raises(InputError, match=r"<DataFrame>: row 11: column 'a': '\\ud800' is not valid Unicode"):
        c45rules.fit(df, "y")


# ---- 10. a target that is not a string is found by its label --------------------------------------
def test_a_target_column_is_found_by_its_own_label():
    rs = c45rules.fit(pd.DataFrame({0: range(20), 1: Y}), 1)
    assert rs.schema.target == "1" and list(rs.predict(pd.DataFrame({0: [0, 19]}))) == ["p", "q"]
    rs = c45rules.fit(pd.DataFrame({("a", "b"): range(20), ("c", "y"): Y}), ("c", "y"))
    assert rs.schema.target == "('c', 'y')" and rs.schema.names == ("('a', 'b')",)
    with pytest.raises(InputError, match=r"target column 2 not found \(columns: 0, 1\)"):
        c45rules.fit(pd.DataFrame({0: range(20), 1: Y}), 2)


def test_booleans_with_a_missing_value_are_discrete_like_a_bool_column():
    from c45rules.export import to_python
    df = pd.DataFrame({"x": [True] * 10 + [False] * 10 + [None] * 2, "y": ["a"] * 10 + ["b"] * 12})
    rs = c45rules.fit(df, "y", min_objs=1)
    assert rs.schema.attributes[0].kind == "discrete" and rs.schema.attributes[0].values == ("False", "True")
    ns: dict = {}
    exec(to_python(rs), ns)
    assert list(rs.predict(df[["x"]])) == [ns["predict"](r) for r in df[["x"]].to_dict("records")]
    assert list(rs.predict(pd.DataFrame({"x": [True, False]}))) == ["a", "b"]
