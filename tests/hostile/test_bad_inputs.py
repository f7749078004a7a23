"""The catalogue of bad inputs (docs/errors.md): each gives its documented outcome, and an
error is the library's own class with a message naming the place (file, line, row, column,
option or model field). Only the public API is used."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import c45rules
from c45rules import InputError, ModelError
from c45rules.errors import DataWarning
from c45rules.data import load_data, load_stem, read_csv
from c45rules.data.reading import ReadOptions
from c45rules.export import dump_yaml, load_yaml

from export_cases import golf_ruleset

XY = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "y": ["p", "p", "q", "q"]})


def write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


def stem(tmp_path: Path, names: str | bytes, data: str | bytes) -> Path:
    write(tmp_path / "s.names", names)
    write(tmp_path / "s.data", data)
    return tmp_path / "s"


NAMES = "x, y.\na: continuous.\nb: p, q.\n"


# ---- tables: CSV files and DataFrames -------------------------------------------------------------
CSV_CASES = [
    # (id, file content, error class or None, message)
    ("empty file", "", InputError, "t.csv: empty file (expected a header row)"),
    ("header only", "a,y\n", InputError, "t.csv: no rows"),
    ("duplicate column names", "a,a,y\n1,2,p\n", InputError,
     "t.csv: duplicate column name(s) in the header: 'a'"),
    ("target missing", "a,b\n1,2\n", InputError, "t.csv: target column 'y' not found (columns: a, b)"),
    ("target unknown", "a,y\n1,p\n2,?\n3,q\n", InputError,
     "t.csv: target column 'y' has 1 unknown value(s) (first at row 2)"),
    ("target empty", "a,y\n1,p\n2,\n", InputError, "target column 'y' has 1 unknown value(s) (first at row 2)"),
    ("non-UTF-8 cell", b"a,y\n1,p\n\xff,q\n", InputError, "t.csv: bytes that are not UTF-8 (at byte 8)"),
    ("non-UTF-8 header", b"a\xe9,y\n1,p\n", InputError, "t.csv: bytes that are not UTF-8 (at byte 1)"),
    ("a line with a field too many", "a,y\n1,p\n2,q,\n", InputError, "t.csv:3: 3 field(s), but the header has 2"),
    ("a line with a field too few", "a,b,y\n1,2,p\n2,q\n", InputError, "t.csv:3: 2 field(s), but the header has 3"),
    ("unterminated quote", 'a,y\n1,"p\n2,q\n', InputError, "t.csv"),
]


def test_inf_text_in_a_csv_is_a_word_at_fit(tmp_path):
    # 'inf', '-inf', '1e999' are not numbers as text (data/numbers.py, the rule scoring and the
    # exported SQL share): a few among numbers are stray strings, a column of them is discrete
    rows = "".join(f"{i},{'pq'[i % 2]}\n" for i in range(20))
    path = write(tmp_path / "t.csv", "a,y\n" + rows + "-inf,p\n1e999,q\n")
    with pytest.warns(DataWarning, match=r"t\.csv: column 'a' is numeric except for '-inf', '1e999'"):
        data = read_csv(path, "y")
    assert data.schema.attribute("a").is_discrete
    data = read_csv(path, "y", continuous=["a"])   # declared: the two cells are unknown, counted
    assert data.unknown_tokens == {"a": {"-inf": 1, "1e999": 1}} and np.isnan(data.columns[0][-2:]).all()
    only = read_csv(write(tmp_path / "i.csv", "a,y\ninf,p\ninf,q\n"), "y")
    assert only.schema.attribute("a").values == ("inf",)


@pytest.mark.parametrize("content, error, message", [c[1:] for c in CSV_CASES], ids=[c[0] for c in CSV_CASES])
def test_bad_csv_files(tmp_path, content, error, message):
    path = write(tmp_path / "t.csv", content)
    with pytest.raises(error) as err:
        c45rules.fit(str(path), "y")
    assert message in str(err.value)
    with pytest.raises(error):                 # the same through the loaders
        read_csv(path, "y")


def test_missing_file_and_csv_without_target(tmp_path):
    with pytest.raises(InputError, match="nope.csv: file not found"):
        read_csv(tmp_path / "nope.csv", "y")
    path = write(tmp_path / "t.csv", "a,y\n1,p\n")
    with pytest.raises(InputError, match=r"t\.csv: a CSV/Parquet file needs target=COLUMN"):
        load_data(path)
    with pytest.raises(InputError, match=r"nostem: no such C4.5 stem \(.*nostem.names not found\)"):
        load_data(tmp_path / "nostem")


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"a": [], "y": []}), "<DataFrame>: no rows"),
    (pd.DataFrame([[1, 2, "p"]], columns=["a", "a", "y"]), "<DataFrame>: duplicate column name(s): 'a'"),
    (pd.DataFrame([[1, 2, "p"]], columns=[1, "1", "y"]), "<DataFrame>: duplicate column name(s): '1'"),
    (pd.DataFrame({"a": [1, 2]}), "<DataFrame>: target column 'y' not found (columns: a)"),
    (pd.DataFrame({"a": [1, 2], "y": ["p", None]}),
     "<DataFrame>: target column 'y' has 1 unknown value(s) (first at row 2)"),
    (pd.DataFrame({"a": [1, 2], "y": ["p", math.nan]}), "target column 'y' has 1 unknown value(s)"),
    (pd.DataFrame({"a": [math.inf] * 4, "y": list("ppqq")}), "<DataFrame>: row 1: column 'a': infinite value"),
    (pd.DataFrame({"y": list("ppqq")}), "<DataFrame>: no attribute columns besides the target 'y'"),
    (pd.DataFrame({"": [1, 2], "y": ["p", "q"]}), "<DataFrame>: column 1 has an empty name"),
])
def test_bad_dataframes(frame, message):
    with pytest.raises(InputError) as err:
        c45rules.fit(frame, "y")
    assert message in str(err.value)


def test_kind_overrides_name_unknown_or_contradictory_columns():
    with pytest.raises(InputError, match="^<DataFrame>: continuous names unknown column.*'zz'"):
        c45rules.fit(XY, "y", continuous=["zz"])
    with pytest.raises(InputError, match="column 'k' declared continuous but row 2 holds 'w', not a number"):
        c45rules.fit(XY.assign(k=["1", "w", "2", "3"]), "y", continuous=["k"])
    with pytest.raises(InputError, match="given two kinds: a"):
        c45rules.fit(XY, "y", continuous=["a"], discrete=["a"])


# ---- documented outcomes that are not errors ------------------------------------------------------
def test_one_row_or_one_class_is_refused_naming_the_class(tmp_path):
    # issue 2: a single class is a clear error (there is nothing to learn a rule for)
    path = write(tmp_path / "t.csv", "a,y\n1,only\n")
    with pytest.raises(InputError, match=r"t.csv: all 1 cases are of class 'only'; learning needs at least two classes"):
        c45rules.fit(str(path), "y")
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["u", "v", "u"], "y": ["k"] * 3})
    with pytest.raises(InputError, match="all 3 cases are of class 'k'"):
        c45rules.fit(df, "y")


def test_a_column_of_only_unknown_values_is_kept_and_never_tested():
    """Every spelling of unknown; no known value, so by the kind rule (every known value is
    a number) the column is continuous; it offers no test, the other column decides."""
    df = pd.DataFrame({"u": [None, math.nan, "", "?"] * 3, "a": [1, 2, 3, 4] * 3, "y": list("ppqq") * 3})
    rs = c45rules.fit(df, "y", min_objs=1)
    assert rs.schema.attribute("u").kind == "continuous"
    assert "u" not in rs.used_attributes() and rs.rules
    assert list(rs.predict(df)) == list(df["y"])


def test_mixed_numbers_and_words_make_a_discrete_column_with_canonical_values():
    df = pd.DataFrame({"m": [1, "two", 3.0, "x", 1.0, None] * 2, "y": list("pqqppq") * 2})
    rs = c45rules.fit(df, "y", min_objs=1)
    assert rs.schema.attribute("m").values == ("1", "3", "two", "x")   # all text: sorted as text
    assert "m" in rs.used_attributes()
    assert list(rs.predict(pd.DataFrame({"m": [1.0, "1", 1]}))) == [rs.predict({"m": "1"})] * 3


# ---- C4.5 .names / .data -------------------------------------------------------------------------
STEM_CASES = [
    ("a line with too few values", NAMES, "1,p,x\n2,q\n", "s.data:2: expected 3 values, found 2"),
    ("a line with too many values", NAMES, "1,p,x\n2,q,y,9\n", "s.data:2: expected 3 values, found 4"),
    ("a first line with too many values", NAMES, "0,1,p,x\n2,q,y\n", "s.data:1: expected 3 values, found 4"),
    ("too few values, slow path", NAMES, "1,p,x | comment\n2,q\n", "s.data:2: expected 3 values, found 2"),
    ("a value not in the declared list", NAMES, "1,p,x\n2,r,y\n",
     "s.data: case 2: attribute 'b': value 'r' is not one of its declared values"),
    ("an undeclared class", NAMES, "1,p,x\n2,q,z\n", "s.data: case 2: class 'z' is not in the class list (x, y)"),
    ("a word where a number is declared", NAMES, "1,p,x\nten,q,y\n",
     "s.data: case 2: attribute 'a': 'ten' is not a number"),
    # the text 'inf' is no number (data/numbers.py), as everywhere else
    ("inf in a continuous attribute", NAMES, "1,p,x\ninf,q,y\n", "s.data: case 2: attribute 'a': 'inf' is not a number"),
    ("no cases", NAMES, "", "s.data: no cases"),
    ("non-UTF-8 .data", NAMES, b"1,p,x\n2,\xff,y\n", "s.data:2: bytes that are not UTF-8 (at byte 8)"),
    ("non-UTF-8 .names", b"x, y.\na: continuous.\nb: p, \xe9.\n", "1,p,x\n",
     "s.names:3: bytes that are not UTF-8 (at byte 27)"),
    ("empty .names", "", "1,p,x\n", "s.names: empty names file (expected a class list)"),
    ("attribute before the classes", "a: continuous.\n", "1,x\n", "s.names:1: expected the class list first"),
    ("attribute with a single value", "x, y.\na: p.\n", "p,x\n", "s.names:2: attribute 'a' has a single value 'p'"),
    ("attribute declared twice", "x, y.\na: continuous.\na: continuous.\n", "1,2,x\n",
     "s.names: attribute 'a' declared twice"),
    ("class listed twice", "x, x.\na: continuous.\n", "1,x\n", "s.names: a class is listed twice"),
    ("discrete N exceeded", "x, y.\na: discrete 1.\n", "p,x\nq,y\n",
     "s.data: attribute 'a' declared 'discrete 1' has 2 values"),
]


@pytest.mark.parametrize("names, data, message", [c[1:] for c in STEM_CASES], ids=[c[0] for c in STEM_CASES])
def test_names_and_data_disagreement(tmp_path, names, data, message):
    s = stem(tmp_path, names, data)
    with pytest.raises(InputError) as err:
        load_stem(s)
    assert message in str(err.value)
    with pytest.raises(InputError):
        c45rules.fit(str(s))


def test_an_unknown_class_in_a_c45_file_is_refused(tmp_path):
    s = stem(tmp_path, NAMES, "1,p,x\n2,q,?\n")
    with pytest.raises(InputError, match=r"s\.data: case 2: class '\?' is not in the class list"):
        load_stem(s)


def test_the_pandas_fast_path_no_longer_shifts_values(tmp_path):
    """Before the fix, a first line with one value too many became an index column and
    every value moved one attribute to the left, silently when the shifted values fit."""
    s = stem(tmp_path, "x, y.\na: continuous.\nb: continuous.\n", "7,1,2,x\n3,4,y\n")
    with pytest.raises(InputError, match=r"s\.data:1: expected 3 values, found 4"):
        load_stem(s)


# ---- options -------------------------------------------------------------------------------------
@pytest.mark.parametrize("options, message", [
    ({"cf": 0}, "option cf must be a confidence level in (0, 1], got 0"),
    ({"cf": 2}, "option cf must be a confidence level in (0, 1], got 2"),
    ({"cf": math.nan}, "option cf must be a confidence level in (0, 1], got nan"),
    ({"cf": "0.25"}, "option cf must be a confidence level in (0, 1], got '0.25'"),
    ({"rules_cf": 1.5}, "option rules_cf must be a confidence level in (0, 1], got 1.5"),
    ({"min_objs": 0}, "option min_objs must be >= 1, got 0"),
    ({"min_objs": math.nan}, "option min_objs must be >= 1, got nan"),
    ({"fisher": 0}, "option fisher is a percentage in (0, 100], got 0"),
    ({"fisher": 101}, "option fisher is a percentage in (0, 100], got 101"),
    ({"redundancy": 0}, "option redundancy must be > 0 and finite, got 0"),
    ({"bogus": 1}, "unknown option(s): bogus (known: cf, min_objs"),
])
def test_bad_option_values_are_named(options, message):
    with pytest.raises(InputError) as err:
        c45rules.fit(XY, "y", **options)
    assert message in str(err.value)


@pytest.mark.parametrize("options", [{"fisher": "5"}, {"seed": "x", "annealing": True},
                                     {"annealing": "x"}, {"redundancy": math.inf}])
def test_options_of_the_wrong_type_are_named(options):
    name = next(iter(options))
    with pytest.raises(InputError, match=f"option {name}"):
        c45rules.fit(XY, "y", **options)


# ---- hand-edited YAML models -----------------------------------------------------------------------
GOLF = dump_yaml(golf_ruleset())


def _edit(old: str, new: str) -> str:
    assert old in GOLF, old
    return GOLF.replace(old, new, 1)


YAML_CASES = [
    ("wrong type: id as text", _edit("  - id: 5", '  - id: "5"'), "rules[1].id: expected an integer, found a string '5'"),
    ("wrong type: threshold as text", _edit('op: ">", value: 75.0', 'op: ">", value: "75"'),
     "rules[0].conditions[1].value: expected a number, found a string '75'"),
    ("wrong type: classes as a string", _edit('classes: ["Play", "Don\'t Play"]', 'classes: "Play"'),
     "schema.classes: expected a list, found a string"),
    ("unknown attribute", _edit('{attribute: "outlook", op: "=", value: "rain"}', '{attribute: "wind", op: "=", value: "rain"}'),
     "rules[2].conditions[0].attribute: 'wind' is not an attribute of the schema"),
    ("value not in the schema", _edit('{attribute: "windy", op: "=", value: "true"}', '{attribute: "windy", op: "=", value: "maybe"}'),
     "rules[2].conditions[1].value: 'maybe' is not a value of attribute 'windy'"),
    ("prediction not a class", _edit('prediction: "Play"', 'prediction: "Golf"'), "rules[3].prediction: 'Golf' is not a class"),
    ("unknown key", _edit("default_class:", "weights: [1]\ndefault_class:"), "unknown key 'weights'"),
    ("not a mapping", "- a\n- list\n", "a model file holds a mapping, found a list"),
    ("not YAML", "format: [unclosed\n", "not valid YAML"),
    ("python object tag", _edit('fingerprint: ""', 'fingerprint: !!python/object/apply:os.system ["true"]'),
     "not valid YAML or uses a tag a model file cannot hold"),
    ("python name tag", _edit('fingerprint: ""', "fingerprint: !!python/name:os.system ''"),
     "uses a tag a model file cannot hold"),
    ("python module tag", _edit('fingerprint: ""', "fingerprint: !!python/module:os ''"), "tag"),
    ("alias", _edit("class_counts: [9, 5]", "class_counts: &c [9, 5]").replace("default_counts: [2, 1]", "default_counts: *c"),
     "line 42: YAML aliases are not allowed in a model file"),
    ("alias bomb", "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                   "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
     "line 2: YAML aliases are not allowed"),
    ("deep nesting", "format: " + "[" * 50_000 + "]" * 50_000 + "\n", "nested more than 20 levels deep"),
    ("deep mappings", "options: " + "{a: " * 40 + "1" + "}" * 40 + "\n", "nested more than 20 levels deep"),
    ("duplicate key", _edit("default_class:", 'default_class: "Play"\ndefault_class:'), "duplicate key 'default_class'"),
]


@pytest.mark.parametrize("text, message", [c[1:] for c in YAML_CASES], ids=[c[0] for c in YAML_CASES])
def test_hand_edited_yaml_is_refused_naming_the_field(tmp_path, text, message):
    with pytest.raises(ModelError) as err:
        load_yaml(text)
    assert message in str(err.value)
    path = write(tmp_path / "model.yaml", text)
    with pytest.raises(ModelError) as err:
        load_yaml(path)
    assert str(err.value).startswith(f"{path}: ")


def test_a_maliciously_large_model_is_refused_unread(tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:                   # sparse: 60 MB on paper, nothing read
        f.write(GOLF.encode())
        f.seek(60 * 1024 * 1024)
        f.write(b"\n")
    with pytest.raises(ModelError, match=r"big\.yaml: \d+ bytes exceeds the 52428800-byte model size limit"):
        load_yaml(big)
    with pytest.raises(ModelError, match="exceeds"):
        load_yaml(GOLF + "#" * (50 * 1024 * 1024))


def test_a_non_utf8_model_file_is_refused(tmp_path):
    with pytest.raises(ModelError, match=r"m\.yaml: bytes that are not UTF-8 \(at byte 8\)"):
        load_yaml(write(tmp_path / "m.yaml", b"format: \xff\n"))


def test_no_tag_constructs_anything(tmp_path):
    marker = tmp_path / "pwned"
    for tag in (f'!!python/object/apply:os.system ["touch {marker}"]',
                f'!!python/object/new:os.system ["touch {marker}"]',
                f"!!python/object/apply:subprocess.call [[touch, {marker}]]",
                '!!binary "aGVsbG8="', "!!set {a, b}", "!custom x"):
        with pytest.raises(ModelError):
            load_yaml(_edit('fingerprint: ""', f"fingerprint: {tag}"))
    assert not marker.exists()


# ---- scoring input ---------------------------------------------------------------------------------
def test_scoring_refusals_name_the_column_and_row():
    rs = golf_ruleset()
    with pytest.raises(InputError, match="column 'humidity' is missing"):
        rs.predict(pd.DataFrame({"outlook": ["sunny"]}))
    with pytest.raises(InputError, match="row 2: column 'humidity': 'high' is not a number"):
        rs.predict(pd.DataFrame({"outlook": ["sunny"] * 2, "humidity": ["80", "high"], "windy": ["true"] * 2}))
    with pytest.raises(InputError, match="duplicate column name"):
        rs.predict(pd.DataFrame([["sunny", 1, 2]], columns=["outlook", "humidity", "humidity"]))
    with pytest.raises(InputError, match="cannot score str"):
        rs.predict("outlook=sunny")
    # what scoring accepts: inf, unknown spellings, unseen categories (default or a rule)
    got = rs.predict(pd.DataFrame({"outlook": ["sunny", "?", "snow", None],
                                   "humidity": [math.inf, 70.0, -math.inf, math.nan],
                                   "windy": ["true", "", "false", np.nan]}))
    assert list(got) == ["Don't Play", "Play", "Play", "Play"]


def test_only_cr_and_lf_end_a_line_of_a_c45_file(tmp_path):
    """A value holding U+2028 (or \\x0c, \\x85) is one value, with or without comments in
    the file (the comment-aware reader used str.splitlines, which splits there)."""
    names = "x, y.\na: p\u2028q, r.\nb: continuous.\n"
    for data in ("p\u2028q,1,x\nr,2,y\n", "p\u2028q,1,x | a comment\nr,2,y\n"):
        train, _ = load_stem(stem(tmp_path, names, data))
        assert train.schema.attribute("a").values == ("p\u2028q", "r")
        assert train.columns[0].tolist() == [0, 1]


def test_discrete_value_order_ignores_row_order_even_with_nan_text():
    # 'nan' is text here (a discrete value, pandas' token kept): as a float key it would make
    # the order depend on the rows' order; the value list falls back to string order instead
    a = pd.DataFrame({"a": ["nan", "0.5", "nan", "0.5"], "y": list("pqpq")})
    b = a.iloc[::-1].reset_index(drop=True)
    keep = ReadOptions(keep_na_tokens=True)
    sa = c45rules.data.from_frame(a, "y", read=keep).schema
    assert sa == c45rules.data.from_frame(b, "y", read=keep).schema
    assert sa.attribute("a").values == ("0.5", "nan")
