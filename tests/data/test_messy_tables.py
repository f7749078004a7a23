"""Messy tables in: missing-value tokens, separators, decimal commas, encodings, stray strings,
pandas extension dtypes, polars and pyarrow frames, date columns (c45rules/data/reading.py)."""
from __future__ import annotations

import datetime
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import c45rules
from c45rules import InputError
from c45rules.data.frame import encode_frame, from_frame, load_data, read_table
from c45rules.data.reading import PANDAS_NA_TOKENS, ReadOptions, sniff_separator
from c45rules.errors import DataWarning
from c45rules.export import dump_yaml

FIXTURES = Path(__file__).parent / "fixtures"
PENGUINS = FIXTURES / "penguins.csv"
REGIONS = FIXTURES / "regions.csv"


def penguins_yaml(**kw) -> str:
    return dump_yaml(c45rules.fit(str(kw.pop("path", PENGUINS)), "species", **kw))


# ---- 1. missing-value tokens -------------------------------------------------------------------
def test_our_na_token_list_is_pandas_own():
    """reading.PANDAS_NA_TOKENS is kept in the code so that reading a CSV need not import
    pandas (issue 52); it must stay pandas' read_csv default list."""
    from pandas._libs.parsers import STR_NA_VALUES
    assert PANDAS_NA_TOKENS == frozenset(STR_NA_VALUES)


def test_na_in_a_numeric_column_keeps_it_continuous_and_the_rules_test_thresholds():
    train, _ = load_data(PENGUINS, target="species")
    kinds = {a.name: a.kind for a in train.schema.attributes}
    assert kinds == {"island": "discrete", "bill_length_mm": "continuous", "bill_depth_mm": "continuous",
                     "flipper_length_mm": "continuous", "body_mass_g": "continuous", "sex": "discrete"}
    assert train.schema.attribute("sex").values == ("female", "male")
    col = train.columns[train.schema.index("bill_length_mm")]
    assert np.flatnonzero(np.isnan(col)).tolist() == [3, 71]
    assert train.unknown_tokens == {"bill_length_mm": {"NA": 2}, "bill_depth_mm": {"NA": 1},
                                    "flipper_length_mm": {"NA": 1}, "body_mass_g": {"NA": 1},
                                    "sex": {"NA": 5}}
    rs = c45rules.fit(str(PENGUINS), "species")
    assert [str(r.conditions[0]) for r in rs.rules] == [
        "bill_length_mm <= 40.7", "bill_length_mm > 40.7", "flipper_length_mm > 206"]
    assert len(rs.rules) == 3


def test_every_pandas_token_and_the_c45_question_mark_are_unknown():
    tokens = sorted(PANDAS_NA_TOKENS | {"?"})
    assert {"NA", "N/A", "NULL", "NaN", "nan", "n/a", "-NaN", "#N/A", "<NA>", "None", ""} <= set(tokens)
    numbers = [str(i) for i in range(len(tokens))]
    df = pd.DataFrame({"x": tokens + numbers, "y": ["p", "q"] * len(tokens)})
    ds = from_frame(df, "y")
    assert ds.schema.attributes[0].kind == "continuous"
    assert np.isnan(ds.columns[0][:len(tokens)]).all()
    assert ds.columns[0][len(tokens):].tolist() == [float(v) for v in numbers]
    # '' and '?' were unknown all along: the count covers the other tokens, once each
    assert ds.unknown_tokens == {"x": {t: 1 for t in tokens if t not in ("", "?")}}


def test_na_values_adds_tokens_and_keep_na_tokens_reads_pandas_tokens_as_values():
    df = pd.DataFrame({"x": ["1", "2", "missing", "4", "-", "6", "NA"] * 3, "y": list("pqpqpqp") * 3})
    plain = from_frame(df, "y")
    assert plain.schema.attributes[0].kind == "discrete"   # 'missing' and '-' are values
    more = from_frame(df, "y", read=ReadOptions(na_values=("missing", "-")))
    assert more.schema.attributes[0].kind == "continuous"
    assert more.unknown_tokens == {"x": {"-": 3, "NA": 3, "missing": 3}}
    kept = from_frame(df, "y", read=ReadOptions(na_values=("missing", "-"), keep_na_tokens=True))
    assert kept.schema.attributes[0].values == ("1", "2", "4", "6", "NA")
    assert kept.unknown_tokens == {"x": {"-": 3, "missing": 3}}
    # the empty cell and '?' stay unknown with keep_na_tokens
    odd = from_frame(pd.DataFrame({"x": ["NA", "", "?", "EU"] * 3, "y": list("pqqp") * 3}), "y",
                     read=ReadOptions(keep_na_tokens=True))
    assert odd.schema.attributes[0].values == ("EU", "NA") and odd.columns[0][1:3].tolist() == [-1, -1]


def test_a_model_that_learned_NA_as_a_value_scores_NA_as_that_value():
    kept = c45rules.fit(str(REGIONS), "plan", keep_na_tokens=True)
    assert kept.schema.attribute("region").values == ("AS", "EU", "NA")
    na_rule = next(r for r in kept.rules if [str(c) for c in r.conditions] == ["region = NA"])
    cases = pd.DataFrame({"region": ["NA", "EU", "NA"], "spend": ["20", "20", "NA"]})
    # default reading options when scoring: 'NA' is the region, yet unknown for spend
    assert kept.predict_rule(cases).tolist() == [na_rule.id, 2, na_rule.id]
    assert encode_frame(cases, kept.schema).unknown_tokens == {"spend": {"NA": 1}}
    assert str(kept.explain({"region": "NA", "spend": "20"}).rule.id) == str(na_rule.id)
    # without keep_na_tokens the same file has no 'NA' region: it was read as unknown
    plain = c45rules.fit(str(REGIONS), "plan")
    assert plain.schema.attribute("region").values == ("AS", "EU")
    assert encode_frame(cases, plain.schema).columns[0].tolist() == [-1, 1, -1]


def test_a_token_in_the_target_is_an_unknown_class_with_a_hint():
    df = pd.DataFrame({"x": [1, 2, 3, 4], "y": ["p", "None", "p", "q"]})
    with pytest.raises(InputError, match=r"target column 'y' has 1 unknown value\(s\) \(first at row 2\);"
                                         r" drop or label those rows, or use keep_na_tokens to read 'None'"):
        from_frame(df, "y")
    assert from_frame(df, "y", read=ReadOptions(keep_na_tokens=True)).schema.classes == ("None", "p", "q")


# ---- 2. separators, decimal commas, encodings -----------------------------------------------------
def _rewrite(path: Path, sep: str, decimal: str, encoding: str = "utf-8") -> Path:
    df = pd.read_csv(PENGUINS, dtype=str, keep_default_na=False)
    if decimal == ",":
        df = df.apply(lambda c: c.str.replace(".", ",", regex=False))
    df.to_csv(path, sep=sep, index=False, encoding=encoding)
    return path


def test_a_semicolon_file_with_decimal_commas_gives_the_plain_csv_model(tmp_path):
    path = _rewrite(tmp_path / "penguins.csv", ";", ",")
    assert "38,5" in path.read_text()
    assert sniff_separator(path, ReadOptions(decimal=",")) == ";"
    assert penguins_yaml(path=path, decimal=",") == penguins_yaml()
    # without --decimal , the comma numbers are text: the columns turn discrete, not silently
    with pytest.warns(DataWarning) as caught:
        train, _ = load_data(path, target="species")
    assert train.schema.attribute("bill_length_mm").kind == "discrete"
    said = [str(w.message) for w in caught]
    assert any(m.startswith(f"{path}: column 'bill_length_mm' holds numbers written with a decimal comma ('")
               and m.endswith("); read as discrete; decimal=',' (with a separator other than ',') reads"
                              " them as numbers") for m in said), said
    # one such column per warning; integer-only columns are numbers either way
    assert not any("'body_mass_g'" in m for m in said)


def test_text_that_only_looks_like_a_decimal_comma_number_gets_no_such_warning():
    df = pd.DataFrame({"code": ["1,5", "A,1", "2,5", "3"], "y": ["a", "b", "a", "b"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        ds = from_frame(df, "y")
    assert ds.schema.attribute("code").kind == "discrete"


@pytest.mark.parametrize("sep,suffix", [(";", ".csv"), ("\t", ".tsv"), ("\t", ".csv"), ("|", ".csv")])
def test_the_separator_is_detected(tmp_path, sep, suffix):
    path = _rewrite(tmp_path / f"p{suffix}", sep, ".")
    assert penguins_yaml(path=path) == penguins_yaml()


@pytest.mark.parametrize("given", [";", "tab", "\\t", "\t", "|", ","])
def test_sep_is_one_of_four_and_tab_has_three_spellings(given):
    assert ReadOptions(sep=given).sep == {"tab": "\t", "\\t": "\t"}.get(given, given)


def test_bad_separators_and_decimals_are_refused(tmp_path):
    with pytest.raises(InputError, match="sep: expected ',', ';', tab"):
        ReadOptions(sep=":")
    with pytest.raises(InputError, match="decimal=',' needs another separator than ',' \\(give sep=';'"):
        ReadOptions(sep=",", decimal=",")
    with pytest.raises(InputError, match="decimal: expected '.' or ','"):
        ReadOptions(decimal="'")
    with pytest.raises(InputError, match="encoding: unknown encoding 'klingon'"):
        ReadOptions(encoding="klingon")
    # a comma file read with --decimal , and no --sep: the clash is named, not a missing column
    with pytest.raises(InputError, match=r"penguins.csv: its fields are separated by ',', which decimal=','"
                                         " cannot share; give the separator with sep$"):
        c45rules.fit(str(PENGUINS), "species", decimal=",")


def test_with_decimal_comma_a_dotted_number_is_not_a_number():
    # '1.234' may be a thousands separator in a decimal-comma file: not read as 1.234
    df = pd.DataFrame({"x": ["1,5", "2,5", "3,5", "1.234"] * 3, "y": list("pqpq") * 3})
    ds = from_frame(df, "y", read=ReadOptions(decimal=","))
    assert ds.schema.attributes[0].values == ("1,5", "1.234", "2,5", "3,5")
    ds = from_frame(df.iloc[:3], "y", read=ReadOptions(decimal=","))
    assert ds.columns[0].tolist() == [1.5, 2.5, 3.5]


def test_a_latin1_file_needs_its_encoding(tmp_path):
    path = tmp_path / "towns.csv"
    rows = "".join(f"{t},{n},{c}\n" for t, n, c in [("Zürich", 3, "a"), ("Genève", 8, "b")] * 6)
    path.write_bytes(("town,n,class\n" + rows).encode("latin-1"))
    with pytest.raises(InputError, match=r"towns.csv: bytes that are not UTF-8 \(at byte 14\) on line 2;"
                                         r" give the file's codec as encoding='latin-1' or another"):
        load_data(path, target="class")
    train, _ = load_data(path, target="class", read=ReadOptions(encoding="latin-1"))
    assert train.schema.attribute("town").values == ("Genève", "Zürich")
    assert read_table(path, ReadOptions(encoding="latin-1"))["town"].tolist()[:2] == ["Zürich", "Genève"]


def test_reading_options_are_refused_for_a_c45_stem():
    stem = Path(__file__).resolve().parents[2] / "examples" / "crx" / "crx"
    with pytest.raises(InputError, match="apply to CSV/Parquet data; a C4.5 file's unknown value is '\\?'"):
        c45rules.fit(str(stem), na_values=["x"])


# ---- 3. stray strings in a numeric column ---------------------------------------------------------
def _ages(*strays: str) -> pd.DataFrame:
    ages = [str(20 + i) for i in range(40)]   # 4 strays in 40: 90% numbers, the rule's edge
    for i, s in enumerate(strays):
        ages[3 * i + 1] = s
    return pd.DataFrame({"age": ages, "y": ["a", "b"] * 20})


def test_a_numeric_column_with_a_few_stray_strings_warns_and_is_discrete():
    with pytest.warns(DataWarning) as caught:
        ds = from_frame(_ages("unknown", "n.a.", "unknown"), "y", source="data.csv")
    assert [str(w.message) for w in caught] == [
        "data.csv: column 'age' is numeric except for 'unknown', 'n.a.' (3 rows); read as discrete;"
        " use na_values to read them as unknown or continuous=['age']"]
    assert caught[0].message.cli.endswith("use --na-values to read them as unknown or --continuous age")
    assert ds.schema.attributes[0].kind == "discrete"
    # as suggested: declared continuous, the strays are unknown (and counted)
    cont = from_frame(_ages("unknown", "n.a.", "unknown"), "y", continuous=["age"])
    assert cont.schema.attributes[0].kind == "continuous"
    assert np.flatnonzero(np.isnan(cont.columns[0])).tolist() == [1, 4, 7]
    assert cont.unknown_tokens == {"age": {"n.a.": 1, "unknown": 2}}
    tokens = from_frame(_ages("unknown", "n.a.", "unknown"), "y", read=ReadOptions(na_values=("unknown", "n.a.")))
    assert tokens.schema.attributes[0].kind == "continuous"


def test_three_strays_name_two_and_four_or_a_large_share_do_not_warn():
    with pytest.warns(DataWarning, match=r"except for 'x', 'w' and 1 more \(4 rows\)"):
        from_frame(_ages("w", "x", "x", "v"), "y")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert from_frame(_ages("a", "b", "c", "d"), "y").schema.attributes[0].kind == "discrete"
        few = pd.DataFrame({"age": ["1", "2", "3", "w"] * 2, "y": list("abab") * 2})   # 75% numbers
        assert from_frame(few, "y").schema.attributes[0].kind == "discrete"
        with pytest.raises(InputError, match="column 'age' declared continuous but row 4 holds 'w'"):
            from_frame(few, "y", continuous=["age"])


# ---- 4. pandas extension dtypes, polars, pyarrow, dates ---------------------------------------
def _plain() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    n = 90
    num = rng.integers(0, 100, n).astype(float)
    flag = rng.integers(0, 2, n).astype(bool)
    colour = np.array(["red", "green", "blue"])[rng.integers(0, 3, n)]
    count = rng.integers(0, 10, n).astype(float)
    y = np.where((num > 50) & flag, "yes", np.where(colour == "red", "maybe", "no"))
    df = pd.DataFrame({"num": num, "flag": flag.astype(object), "colour": colour.astype(object),
                       "count": count, "y": y.astype(object)})
    df.loc[[2, 7, 30], ["num", "count"]] = np.nan
    df.loc[[2, 7, 30], ["flag", "colour"]] = None
    return df


PANDAS_DTYPES = {
    "category": lambda d: d.assign(colour=d.colour.astype("category"), y=d.y.astype("category")),
    "Int64": lambda d: d.assign(count=d["count"].astype("Int64")),
    "Float64": lambda d: d.assign(num=d.num.astype("Float64")),
    "boolean": lambda d: d.assign(flag=d.flag.astype("boolean")),
    "string-python": lambda d: d.assign(colour=d.colour.astype("string[python]"), y=d.y.astype("string[python]")),
    "string-pyarrow": lambda d: d.assign(colour=d.colour.astype("string[pyarrow]"), y=d.y.astype("string[pyarrow]")),
}


@pytest.mark.parametrize("dtype", list(PANDAS_DTYPES))
def test_pandas_extension_dtypes_give_the_plain_columns_model(dtype):
    plain = _plain()
    typed = PANDAS_DTYPES[dtype](plain)
    assert any(str(t) != str(u) for t, u in zip(typed.dtypes, plain.dtypes))
    rs = c45rules.fit(typed, "y")
    assert dump_yaml(rs) == dump_yaml(c45rules.fit(plain, "y"))   # the fingerprint included
    assert rs.predict(typed).tolist() == rs.predict(plain).tolist()


def test_a_bool_column_and_tokens_in_a_category_column():
    df = _plain().dropna()
    assert dump_yaml(c45rules.fit(df.assign(flag=df.flag.astype(bool)), "y")) == dump_yaml(c45rules.fit(df, "y"))
    with_na = df.assign(colour=df.colour.where(df.index % 9 != 0, "NA"))
    as_category = from_frame(with_na.assign(colour=with_na.colour.astype("category")), "y")
    assert as_category.schema.attribute("colour").values == ("blue", "green", "red")
    assert as_category.unknown_tokens == {"colour": {"NA": int((df.index % 9 == 0).sum())}}


def _arrow_ready(df: pd.DataFrame) -> pd.DataFrame:
    """The same values with the dtypes polars/pyarrow hold: nullable bool and int, text."""
    return df.assign(flag=df.flag.astype("boolean"), count=df["count"].astype("Int64"))


def test_polars_and_pyarrow_frames_give_the_pandas_model_and_predictions():
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    plain = _plain()
    ref = c45rules.fit(plain, "y")
    expected = ref.predict(plain).tolist()
    frames = {"polars": pl.from_pandas(_arrow_ready(plain)),
              "pyarrow": pa.Table.from_pandas(_arrow_ready(plain), preserve_index=False)}
    for name, frame in frames.items():
        rs = c45rules.fit(frame, "y")
        assert dump_yaml(rs) == dump_yaml(ref), name
        assert ref.predict(frame).tolist() == expected, name
        assert ref.predict_rule(frame).tolist() == ref.predict_rule(plain).tolist(), name
    X, y = plain.drop(columns="y"), plain["y"]
    model = c45rules.C45Rules().fit(X, y)
    for X_other, y_other in ((pl.from_pandas(_arrow_ready(plain)).drop("y"), pl.Series(y.tolist())),
                             (pa.Table.from_pandas(_arrow_ready(X), preserve_index=False),
                              pa.array(y.tolist()))):
        other = c45rules.C45Rules().fit(X_other, y_other)
        assert dump_yaml(other.ruleset_) == dump_yaml(model.ruleset_)
        assert other.predict(X_other).tolist() == model.predict(X).tolist()


def test_polars_categorical_and_pyarrow_dictionary_columns_are_text():
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    plain = _plain()
    ref = dump_yaml(c45rules.fit(plain, "y"))
    frame = pl.from_pandas(_arrow_ready(plain)).with_columns(pl.col("colour").cast(pl.Categorical))
    assert dump_yaml(c45rules.fit(frame, "y")) == ref
    table = pa.Table.from_pandas(_arrow_ready(plain).assign(colour=plain.colour.astype("category")),
                                 preserve_index=False)
    assert pa.types.is_dictionary(table.schema.field("colour").type)
    assert dump_yaml(c45rules.fit(table, "y")) == ref


def _dated(kind: str):
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": list("pqpq")})
    day = datetime.date(2024, 1, 1)
    if kind == "pandas-datetime":
        return df.assign(when=pd.to_datetime(["2024-01-01"] * 4))
    if kind == "pandas-timedelta":
        return df.assign(when=pd.to_timedelta([1, 2, 3, 4], unit="D"))
    if kind == "pandas-date-objects":
        return df.assign(when=[day] * 4)
    if kind.startswith("polars"):
        pl = pytest.importorskip("polars")
        value = day if kind == "polars-date" else datetime.timedelta(days=1)
        return pl.from_pandas(df).with_columns(when=pl.lit(value))
    pa = pytest.importorskip("pyarrow")
    value = day if kind == "pyarrow-date" else datetime.datetime(2024, 1, 1)
    return pa.Table.from_pandas(df, preserve_index=False).append_column("when", pa.array([value] * 4))


@pytest.mark.parametrize("kind,shown", [
    ("pandas-datetime", "has dtype datetime64"), ("pandas-timedelta", "has dtype timedelta64"),
    ("pandas-date-objects", "holds date values"), ("polars-date", "has dtype Date"),
    ("polars-duration", "has dtype Duration"), ("pyarrow-date", "has dtype date32"),
    ("pyarrow-timestamp", "has dtype timestamp")])
def test_date_and_time_columns_are_refused_by_name(kind, shown):
    with pytest.raises(InputError, match=f"column 'when' {shown}.*: convert it to numbers or text first"):
        c45rules.fit(_dated(kind), "y")
