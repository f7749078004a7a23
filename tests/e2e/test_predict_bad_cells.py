"""predict's bad cells (issue 47.1), literal file names in DuckDB (47.5) and spreadsheet-safe
CSV output (47.8).

A continuous text cell that is neither unknown nor a number as data/numbers.py defines one
('inf', '1e999', '١٢', '1_000', 'abc') is a bad cell: `--bad-cells error` (the default) stops
naming the row, the column and the cell and leaves no output; `--bad-cells unknown` reads it as
unknown, on every engine alike.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from c45rules import Attribute, Condition, InputError, Rule, RuleSet, Schema
from c45rules.errors import DataWarning
from c45rules.export import write_yaml, write_python

from .conftest import cli_err, fails, ok

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))
from test_no_data_lost import FILES, RULES  # noqa: E402  (the tricky-file corpus)

SCHEMA = Schema((Attribute("x", "continuous"), Attribute("z", "discrete", ("a", "b"))), ("hi", "lo", "=cmd|' /C calc'!A0"))
MODEL = RuleSet(SCHEMA, (Rule(1, (Condition("x", ">", 5.0),), "hi", 3, 0, 0.2, 1.5),
                         Rule(2, (Condition("z", "=", "b"),), "=cmd|' /C calc'!A0", 2, 0, 0.3, 1.4),
                         Rule(3, (Condition("x", "<=", 5.0),), "lo", 3, 0, 0.2, 1.5)),
                "hi", (5, 5, 2), (1, 0, 0))
BAD = ["inf", "1e999", "١٢", "1_000", "abc", "-Infinity", " "]
TEXT = "x,z,note\n" + "".join(f"{x},a,r{i}\n" for i, x in enumerate(["1", "7", *BAD, "?", " 3 ", "-1e2"]))


@pytest.fixture()
def model(tmp_path) -> Path:
    path = tmp_path / "m.yaml"
    write_yaml(MODEL, path)
    return path


def _data(tmp_path, text=TEXT, name="in.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _scored(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_a_bad_cell_stops_predict_naming_row_and_column_and_writes_nothing(model, tmp_path):
    data, out = _data(tmp_path), tmp_path / "out.csv"
    out.write_text("old\n")
    # 'inf' was read as a number (to_numeric) before: rule 1 fired on it
    for extra in ((), ("--chunksize", "1"), ("--engine", "duckdb")):
        assert fails("predict", model, data, "-o", out, *extra) == (
            f"c45rules: error: {data}: row 3: column 'x': 'inf' is not a number (rows count from 1 after the header;"
            " --bad-cells unknown reads such a cell as unknown)")
        assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "m.yaml", "out.csv"]   # no temp file
    for k, text in enumerate(BAD):   # each alone, found in a later chunk
        lines = TEXT.splitlines()
        lines = [ln for ln in lines if ln.split(",")[0] not in BAD] + [f"{text},a,late"]
        data = _data(tmp_path, "\n".join(lines) + "\n", "one.csv")
        assert fails("predict", model, data, "-o", tmp_path / "o.csv", "--chunksize", "2").startswith(
            f"c45rules: error: {data}: row {len(lines) - 1}: column 'x': {text!r} is not a number")
        assert not (tmp_path / "o.csv").exists()


def test_bad_cells_unknown_decides_as_an_unknown_cell_on_both_engines(model, tmp_path):
    data = _data(tmp_path)
    blanked = _data(tmp_path, "".join(ln.replace(ln.split(",")[0], "", 1) if ln.split(",")[0] in BAD else ln
                                      for ln in TEXT.splitlines(keepends=True)), "blank.csv")
    p = ok("predict", model, data, "-o", tmp_path / "d.csv", "--bad-cells", "unknown")
    assert p.stderr == f"c45rules: note: {data}: {len(BAD)} values of x read as unknown ({', '.join(BAD)})\n"
    ok("predict", model, data, "-o", tmp_path / "k.csv", "--bad-cells", "unknown", "--engine", "duckdb")
    ok("predict", model, blanked, "-o", tmp_path / "b.csv")
    got, want = _scored(tmp_path / "d.csv"), _scored(tmp_path / "b.csv")
    assert got["rule_id"].tolist() == want["rule_id"].tolist()
    assert got["rule_id"].tolist() == ["3", "1", *["0"] * len(BAD), "0", "3", "3"]
    assert got.drop(columns=["x"]).equals(want.drop(columns=["x"]))
    assert (tmp_path / "k.csv").read_bytes() == (tmp_path / "d.csv").read_bytes()


def test_the_python_api_takes_bad_cells():
    frame = pd.DataFrame({"x": ["7", "inf", "1e999", "2"], "z": ["a", "a", "b", "a"]})
    with pytest.raises(InputError, match=r"^<DataFrame>: row 2: column 'x': 'inf' is not a number$"):
        MODEL.predict(frame)
    assert MODEL.predict_rule(frame, bad_cells="unknown").tolist() == [1, 0, 2, 3]
    assert MODEL.predict(frame, bad_cells="unknown")[1] == "hi"
    assert MODEL.predict_proba(frame, bad_cells="unknown").shape == (4, 3)
    with pytest.raises(InputError, match="bad_cells must be 'error' or 'unknown', got 'skip'"):
        MODEL.predict(frame, bad_cells="skip")
    # typed numbers are numbers, infinite or not: the rule is about text
    assert MODEL.predict_rule(pd.DataFrame({"x": [np.inf, -np.inf], "z": ["a", "a"]})).tolist() == [1, 3]


def test_a_boosted_model_takes_bad_cells_as_a_single_one():
    from c45rules.model.boosted import BoostedRuleSet
    boosted = BoostedRuleSet((MODEL, MODEL))
    frame = pd.DataFrame({"x": ["7", "inf", "2"], "z": ["a", "a", "a"]})
    with pytest.raises(InputError, match=r"row 2: column 'x': 'inf' is not a number"):
        boosted.predict(frame)
    assert boosted.predict(frame, bad_cells="unknown").tolist() == MODEL.predict(frame, bad_cells="unknown").tolist()
    assert boosted.trial_rules(frame, bad_cells="unknown")[:, 0].tolist() == MODEL.predict_rule(frame, bad_cells="unknown").tolist()
    assert boosted.predict_proba(frame, bad_cells="unknown").shape == (3, 3)
    assert boosted.predict_confidence(frame, bad_cells="unknown").shape == (3,)


def test_duckdb_reads_the_file_named_not_a_glob(model, tmp_path):
    _data(tmp_path, "x,z,note\n9,a,decoy\n", "g1.csv")   # what the glob g[1].csv matches
    data = _data(tmp_path, "x,z,note\n1,a,real\n2,a,real\n", "g[1].csv")
    for name in ("g[1].csv", "g?.csv", "*.csv"):
        data = _data(tmp_path, "x,z,note\n1,a,real\n2,a,real\n", name)
        out = tmp_path / "out" / "o.csv"
        out.parent.mkdir(exist_ok=True)
        assert ok("predict", model, data, "-o", out, "--engine", "duckdb").stdout.startswith("2 rows scored")
        assert _scored(out)["note"].tolist() == ["real", "real"]


@pytest.mark.parametrize("text", [*FILES.values(), '"a",b,"n\nq"\n1,x,1\n7,x,2\n', 'a,"b\n\nc",b\n1,2,x\n'],
                         ids=[*FILES.keys(), "quoted header newline", "quoted blank line in header"])
def test_duckdb_scores_the_tricky_files_as_the_default_engine_or_refuses_them(tmp_path, text):
    model = tmp_path / "m.yaml"
    write_yaml(RULES, model)
    data = _data(tmp_path, text)
    code, _, err = cli_err(["predict", str(model), str(data), "-o", str(tmp_path / "d.csv")])
    code_k, _, err_k = cli_err(["predict", str(model), str(data), "-o", str(tmp_path / "k.csv"), "--engine", "duckdb"])
    if code_k == 0:   # the same rows, as the default engine reads them
        assert code == 0 and _scored(tmp_path / "k.csv").equals(_scored(tmp_path / "d.csv"))
    else:             # a clear one-line error, and no output
        assert code_k == 2 and err_k.startswith(f"c45rules: error: {data}") and len(err_k.splitlines()) == 1
        assert not (tmp_path / "k.csv").exists()


def test_a_row_count_duckdb_disagrees_on_is_an_error(model, tmp_path, monkeypatch):
    from c45rules.engines import duckdb as engine
    data = _data(tmp_path)
    real, plain = engine.check_csv_layout, engine._plain_header
    monkeypatch.setattr(engine, "check_csv_layout", lambda *a: (real(*a)[0], real(*a)[1] + 1))
    # the count of a file of plain lines (issue 52: a byte scan) is checked the same way
    monkeypatch.setattr(engine, "_plain_header", lambda *a: (lambda h: h and (h[0], h[1] + 1))(plain(*a)))
    with pytest.raises(InputError, match=r"DuckDB read 12 rows where the default engine reads 13"):
        engine.score_file(MODEL, data, tmp_path / "o.csv", bad_cells="unknown")
    assert not (tmp_path / "o.csv").exists()


def test_a_class_a_spreadsheet_would_run_is_written_escaped(model, tmp_path):
    data = _data(tmp_path, "x,z,note\n1,b,=1+2\n9,a,@x\n")
    outs = {}
    for engine in ("default", "duckdb"):
        outs[engine] = tmp_path / f"{engine}.csv"
        ok("predict", model, data, "-o", outs[engine], "--engine", engine)
    got = _scored(outs["default"])
    assert got["predicted_class"].tolist() == ["'=cmd|' /C calc'!A0", "hi"]
    assert got["note"].tolist() == ["=1+2", "@x"]          # input cells as read
    assert outs["duckdb"].read_bytes() == outs["default"].read_bytes()
    ok("predict", model, data, "-o", tmp_path / "raw.csv", "--no-csv-safe")
    assert _scored(tmp_path / "raw.csv")["predicted_class"].tolist() == ["=cmd|' /C calc'!A0", "hi"]
    pytest.importorskip("pyarrow")
    ok("predict", model, data, "-o", tmp_path / "p.parquet")   # Parquet holds no formulas
    assert pd.read_parquet(tmp_path / "p.parquet")["predicted_class"].tolist() == ["=cmd|' /C calc'!A0", "hi"]
    # the exported module's CSV scorer writes the same
    module = write_python(MODEL, tmp_path / "model.py")
    import subprocess
    done = subprocess.run([sys.executable, str(module), str(data)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == outs["default"].read_text()


def test_fit_warns_of_classes_and_values_a_spreadsheet_would_run(tmp_path):
    import c45rules
    rows = "".join(f"{i},{'=HYPERLINK(1)' if i % 2 else '-1'},{'+a' if i % 3 else '@b'}\n" for i in range(30))
    data = _data(tmp_path, "x,y,z\n" + rows)
    with pytest.warns(DataWarning) as caught:
        c45rules.fit(str(data), "y")
    texts = [str(w.message) for w in caught]
    assert f"{data}: class '=HYPERLINK(1)' would run as a spreadsheet formula; predict writes it to CSV with a" \
           " leading apostrophe (csv_safe=False: as it is)" in texts
    assert f"{data}: column 'z': values '+a', '@b' would run as a spreadsheet formula in a CSV file" in texts
    assert not any("'-1'" in t for t in texts)   # a number is no formula
    said = ok("fit", data, "--target", "y", "-o", tmp_path / "m.yaml").stderr
    assert "class '=HYPERLINK(1)' would run" in said and "(--no-csv-safe: as it is)" in said
