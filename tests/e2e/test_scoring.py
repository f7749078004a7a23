"""Scoring real tables (issue 27): only the columns the rules test are needed, values not seen in
training are reported (or refused with --strict), predict writes to stdout or Parquet, evaluate
and explain speak JSON, and rule id 0 means "the default class decided" in every output.

The fixture is a small HR-attrition table: the rules test dept, years, overtime and salary, not
branch; the scoring file has a new dept ('Legal') and new branches ('Leeds', 'York').
"""
from __future__ import annotations

import contextlib
import csv
import importlib.util
import io
import json
import re
import sqlite3

import numpy as np
import pandas as pd
import pytest

from c45rules import InputError
from c45rules.cli import main
from c45rules.export.yaml import load_yaml

from .conftest import cli_err, fails, ok, run

HEADER = "employee_id,dept,branch,years,overtime,salary,attrition"
NEW = [  # the case, then what the model says: class and rule id (0: the default class)
    ("1001,Sales,Leeds,2,Yes,45000,Yes", "Yes", 5),    # years <= 4 and overtime = Yes
    ("1002,Legal,York,8,No,25000,No", "No", 0),        # a new dept: no rule fires
    ("1003,R&D,Leeds,6,No,52000,No", "No", 4),         # overtime = No and salary > 30000
    ("1004,Sales,London,7,No,22000,Yes", "Yes", 8),    # dept = Sales and salary <= 28000
    ("1005,HR,Paris,1,No,29000,Yes", "No", 1),         # dept = HR and overtime = No (wrong)
    ("1006,R&D,Berlin,,Yes,40000,No", "No", 0),        # years unknown: no rule fires
]
NOTE = ("c45rules: note: {}: values not seen in training: dept 1 row ('Legal');"
        " branch 3 rows ('Leeds', 'York')")


def _train_rows() -> list[list]:
    depts, branches = ["Sales", "R&D", "HR"], ["London", "Paris", "Berlin", "Madrid"]
    rows = []
    for i in range(240):
        dept, branch, years = depts[i % 3], branches[(i // 3) % 4], (i * 7) % 12
        overtime = "Yes" if i % 5 in (0, 1) else "No"
        salary = 20000 + ((i * 37) % 50) * 1000
        left = (overtime == "Yes" and years <= 4) or (dept == "Sales" and salary < 30000)
        rows.append([i, dept, branch, years, overtime, salary, "Yes" if left else "No"])
    return rows


@pytest.fixture(scope="module")
def hr(tmp_path_factory):
    root = tmp_path_factory.mktemp("hr")
    with open(root / "train.csv", "w", newline="") as f:
        csv.writer(f).writerows([HEADER.split(",")] + _train_rows())
    ok("fit", root / "train.csv", "--target", "attrition", "--ignore", "employee_id", "-o", root / "model.yaml")
    rs = load_yaml(root / "model.yaml")
    # what the cases above rely on
    assert rs.used_attributes() == ("dept", "years", "overtime", "salary") and rs.default_class == "No"
    assert [r.id for r in rs.rules] == [5, 8, 3, 4, 9, 6, 1, 2, 7]
    (root / "new.csv").write_text("\n".join([HEADER] + [c for c, _, _ in NEW]) + "\n")
    frame = pd.read_csv(root / "new.csv", dtype=str, keep_default_na=False)
    frame.drop(columns="branch").to_csv(root / "nobranch.csv", index=False)
    frame.drop(columns="salary").to_csv(root / "nosalary.csv", index=False)
    return root


def _fails_here(*argv) -> str:
    """As conftest.fails, in this process (for the variations of a path that has a subprocess test)."""
    code, _, err = cli_err([str(a) for a in argv])
    assert code == 2 and err.count("\n") == 1 and err.startswith("c45rules: error: "), err
    return err.rstrip("\n")


def _scored_csv(cases=NEW) -> str:
    return "\n".join([HEADER + ",predicted_class,rule_id"] + [f"{c},{k},{r}" for c, k, r in cases]) + "\n"


# ---- predict: stdout, -o -, status line, rule id 0 ----------------------------------------------------
def test_predict_writes_csv_to_stdout_without_o_and_with_dash(hr):
    for extra in ((), ("-o", "-")):
        p = run("predict", hr / "model.yaml", "new.csv", *extra, cwd=hr)
        assert p.returncode == 0, p.stderr
        assert p.stdout == _scored_csv()                      # the CSV alone: no status line
        assert p.stderr == NOTE.format("new.csv") + "\n"
    assert not (hr / "-").exists()                            # once a file named '-'
    p = ok("predict", hr / "model.yaml", "new.csv", "-o", "scored.csv", cwd=hr)
    assert p.stdout == f"6 rows scored, written to scored.csv\n"
    assert (hr / "scored.csv").read_text() == _scored_csv()


def test_strict_refuses_values_not_seen_in_training(hr, tmp_path):
    out = tmp_path / "out.csv"
    msg = fails("predict", hr / "model.yaml", hr / "new.csv", "-o", out, "--strict")
    assert msg == (f"c45rules: error: {hr / 'new.csv'}: column 'dept': value 'Legal' was not seen in training"
                   " (1 row in that column; without --strict such values match no test and are reported"
                   " as a note)")
    assert not out.exists() and list(tmp_path.iterdir()) == []
    for argv in (("evaluate", hr / "model.yaml", hr / "new.csv"),
                 ("report", hr / "model.yaml", "--data", hr / "new.csv", "-o", out),
                 ("explain", hr / "model.yaml", "--row-number", "2", "--data", hr / "new.csv")):
        assert "column 'dept': value 'Legal' was not seen in training" in _fails_here(*argv, "--strict")
    assert not out.exists()
    # an unused column's new value is refused too: every column of the schema is checked
    msg = _fails_here("explain", hr / "model.yaml", "--row-number", "1", "--data", hr / "new.csv", "--strict")
    assert "column 'branch': value 'Leeds' was not seen in training (1 row" in msg
    # and without one, --strict changes nothing
    p = ok("explain", hr / "model.yaml", "--row-number", "4", "--data", hr / "new.csv", "--strict")
    assert p.stderr == "" and p.stdout.startswith("class Yes by rule 8 ")


def test_every_scoring_command_notes_unseen_values(hr, tmp_path):
    p = ok("evaluate", hr / "model.yaml", "new.csv", cwd=hr)
    assert p.stderr == NOTE.format("new.csv") + "\n"
    p = ok("report", hr / "model.yaml", "--data", "new.csv", "-o", tmp_path / "r.html", cwd=hr)
    assert p.stderr == NOTE.format("new.csv") + "\n"
    p = ok("explain", hr / "model.yaml", "--row-number", "2", "--data", "new.csv", cwd=hr)
    assert p.stderr == "c45rules: note: new.csv: values not seen in training: dept 1 row ('Legal'); branch 1 row ('York')\n"
    p = ok("explain", hr / "model.yaml", "--row", '{"dept": "Legal", "years": 3}')
    assert p.stderr == "c45rules: note: --row: values not seen in training: dept 1 row ('Legal')\n"
    p = ok("predict", hr / "model.yaml", "nobranch.csv", "-o", tmp_path / "o.csv", cwd=hr)
    assert p.stderr == "c45rules: note: nobranch.csv: values not seen in training: dept 1 row ('Legal')\n"


def test_unseen_counts_add_up_over_chunks(hr, tmp_path):
    """predict reads CSV in chunks: the note counts every chunk's rows and values."""
    p = ok("predict", hr / "model.yaml", hr / "new.csv", "-o", tmp_path / "o.csv", "--chunksize", "2")
    assert p.stderr == NOTE.format(hr / "new.csv") + "\n"
    assert (tmp_path / "o.csv").read_text() == _scored_csv()


# ---- only the columns the rules test ------------------------------------------------------------------
def test_a_missing_unused_column_is_unknown_everywhere(hr, tmp_path):
    rs = load_yaml(hr / "model.yaml")
    want = [r for _, _, r in NEW]
    p = ok("predict", hr / "model.yaml", hr / "nobranch.csv")
    got = pd.read_csv(io.StringIO(p.stdout), dtype=str, keep_default_na=False)
    assert list(got.columns) == [c for c in HEADER.split(",") if c != "branch"] + ["predicted_class", "rule_id"]
    assert got["rule_id"].astype(int).tolist() == want
    ev = json.loads(ok("evaluate", hr / "model.yaml", hr / "nobranch.csv", "--json").stdout)
    assert (ev["rows"], ev["errors"], ev["unseen"]) == (6, 1, {"dept": 1})
    ok("report", hr / "model.yaml", "--data", hr / "nobranch.csv", "-o", tmp_path / "r.html")
    assert "class No by rule 4 " in ok("explain", hr / "model.yaml", "--row-number", "3",
                                       "--data", hr / "nobranch.csv").stdout
    frame = pd.read_csv(hr / "nobranch.csv", dtype=str, keep_default_na=False)
    assert rs.predict_rule(frame).tolist() == want


MISSING = "column 'salary' is missing (the model needs: dept, overtime, salary, years)"


def test_a_missing_used_column_is_an_error_naming_it(hr, tmp_path):
    data = hr / "nosalary.csv"
    assert fails("predict", hr / "model.yaml", data, "-o", tmp_path / "o.csv") == f"c45rules: error: {data}: {MISSING}"
    for argv in (("predict", hr / "model.yaml", data),
                 ("evaluate", hr / "model.yaml", data),
                 ("explain", hr / "model.yaml", "--row-number", "1", "--data", data),
                 ("report", hr / "model.yaml", "--data", data, "-o", tmp_path / "r.html")):
        assert _fails_here(*argv) == f"c45rules: error: {data}: {MISSING}", argv
    assert list(tmp_path.iterdir()) == []
    rs = load_yaml(hr / "model.yaml")
    with pytest.raises(InputError, match=re.escape(f"<DataFrame>: {MISSING}")):
        rs.predict(pd.read_csv(data, dtype=str, keep_default_na=False))
    # a record (mapping) may leave fields out: they are unknown, as in explain --row
    assert rs.predict_rule({"dept": "Sales", "years": 2, "overtime": "Yes"}).tolist() == [5]
    assert rs.predict_rule([{"dept": "HR"}, {"dept": "HR", "overtime": "No"}]).tolist() == [0, 1]


def test_classifier_predict_rule_uses_the_same_ids(hr):
    """C45Rules follows scikit-learn's protocol (X has fit's columns, read by position), so a
    column left out is refused by scikit-learn's own check, naming it, used or not."""
    from c45rules import C45Rules
    train = pd.read_csv(hr / "train.csv", dtype=str, keep_default_na=False)
    model = C45Rules(ignore=("employee_id",)).fit(train.drop(columns="attrition"), train["attrition"])
    assert model.ruleset_.rules == load_yaml(hr / "model.yaml").rules   # the command's model
    new = pd.read_csv(hr / "new.csv", dtype=str, keep_default_na=False).drop(columns="attrition")
    assert model.predict_rule(new).tolist() == [r for _, _, r in NEW]
    assert model.predict(new).tolist() == [k for _, k, _ in NEW]
    for column in ("salary", "branch"):
        with pytest.raises(ValueError, match=f"missing:\n- {column}"):
            model.predict_rule(new.drop(columns=column))


# ---- evaluate: the heading names the file; --json -----------------------------------------------------
def test_evaluate_heading_names_the_file(hr):
    out = ok("evaluate", hr / "model.yaml", "new.csv", cwd=hr).stdout
    assert out.startswith("Evaluation on new.csv (6 items):\n")
    assert "Tested 6, errors 1 (16.7%)   <<" in out
    assert "   1     2   2.8%     1      1 (100.0%)\t     0 (0|0) \tNo" in out


def test_evaluate_json(hr):
    got = json.loads(ok("evaluate", hr / "model.yaml", "new.csv", "--json", cwd=hr).stdout)
    assert list(got) == ["data", "rows", "errors", "error_rate", "accuracy", "classes", "confusion", "rules", "unseen"]
    assert got == {
        "data": "new.csv", "rows": 6, "errors": 1, "error_rate": 1 / 6, "accuracy": 5 / 6,
        "classes": {"No": {"precision": 0.75, "recall": 1.0, "f1": 2 * 0.75 / 1.75, "support": 3},
                    "Yes": {"precision": 1.0, "recall": 2 / 3, "f1": 0.8, "support": 3}},
        "confusion": [[3, 0], [1, 2]],   # rows: true No, Yes; columns: predicted No, Yes
        "rules": [{"id": 5, "used": 1, "wrong": 0}, {"id": 8, "used": 1, "wrong": 0},
                  {"id": 3, "used": 0, "wrong": 0}, {"id": 4, "used": 1, "wrong": 0},
                  {"id": 9, "used": 0, "wrong": 0}, {"id": 6, "used": 0, "wrong": 0},
                  {"id": 1, "used": 1, "wrong": 1}, {"id": 2, "used": 0, "wrong": 0},
                  {"id": 7, "used": 0, "wrong": 0}, {"id": 0, "used": 2, "wrong": 0}],
        "unseen": {"dept": 1, "branch": 3},
    }
    assert got["classes"]["No"]["f1"] == pytest.approx(0.857142857)
    assert "rows = true class, columns = predicted" in " ".join(ok("evaluate", "--help").stdout.split())


def test_class_scores_of_classes_never_predicted_or_never_present():
    from c45rules.rules.evaluate import class_scores
    # class 0: 2 of 3 right; class 1: present, never predicted; class 2: predicted, never present
    precision, recall, f1 = class_scores(np.array([[2, 0, 1], [1, 0, 0], [0, 0, 0]]))
    assert precision.tolist() == [2 / 3, 0.0, 0.0]
    assert recall.tolist() == [2 / 3, 0.0, 0.0]
    assert f1.tolist() == [pytest.approx(2 / 3), 0.0, 0.0]
    assert class_scores(np.zeros((2, 2), dtype=int))[2].tolist() == [0.0, 0.0]


# ---- explain --json --------------------------------------------------------------------------------------
def test_explain_json_for_a_rule_and_for_the_default(hr):
    got = json.loads(ok("explain", hr / "model.yaml", "--row-number", "1", "--data", hr / "new.csv", "--json").stdout)
    assert got == {"class": "Yes", "rule_id": 5, "conditions": [
        {"rule": 5, "attribute": "years", "op": "<=", "value": 4.0, "case_value": 2.0, "satisfied": True},
        {"rule": 5, "attribute": "overtime", "op": "=", "value": "Yes", "case_value": "Yes", "satisfied": True}]}
    got = json.loads(ok("explain", hr / "model.yaml", "--row", '{"dept": "HR", "years": 2, "salary": 25000}',
                        "--json").stdout)
    assert got["class"] == "No" and got["rule_id"] == 0
    first_failed = [(c["rule"], c["attribute"], c["op"], c["value"], c["case_value"], c["satisfied"])
                    for c in got["conditions"]]
    assert first_failed == [
        (5, "overtime", "=", "Yes", None, False), (8, "dept", "=", "Sales", "HR", False),
        (3, "dept", "=", "Sales", "HR", False), (4, "overtime", "=", "No", None, False),
        (9, "years", ">", 4.0, 2.0, False), (6, "years", ">", 4.0, 2.0, False),
        (1, "overtime", "=", "No", None, False), (2, "dept", "=", "R&D", "HR", False),
        (7, "dept", "=", "R&D", "HR", False)]


# ---- predict --format parquet ----------------------------------------------------------------------------
def test_predict_parquet_to_a_file_and_a_pipe(hr, tmp_path):
    pytest.importorskip("pyarrow")
    p = ok("predict", hr / "model.yaml", hr / "new.csv", "-o", tmp_path / "s.parquet")
    assert p.stdout == f"6 rows scored, written to {tmp_path / 's.parquet'}\n"
    got = pd.read_parquet(tmp_path / "s.parquet")
    want = pd.read_csv(io.StringIO(_scored_csv()), dtype=str, keep_default_na=False)
    assert list(got.columns) == list(want.columns)
    assert got["rule_id"].dtype == np.int64 and got["rule_id"].tolist() == [r for _, _, r in NEW]
    assert got.drop(columns="rule_id").astype(str).equals(want.drop(columns="rule_id"))
    ok("predict", hr / "model.yaml", hr / "new.csv", "-o", tmp_path / "s.pq", "--chunksize", "4")
    assert pd.read_parquet(tmp_path / "s.pq").equals(got)
    ok("predict", hr / "model.yaml", hr / "new.csv", "-o", tmp_path / "s.bin", "--format", "parquet")
    assert pd.read_parquet(tmp_path / "s.bin").equals(got)
    # --format csv wins over the suffix
    ok("predict", hr / "model.yaml", hr / "new.csv", "-o", tmp_path / "c.parquet", "--format", "csv")
    assert (tmp_path / "c.parquet").read_text() == _scored_csv()
    import subprocess
    from .conftest import command
    piped = subprocess.run([*command(), "predict", str(hr / "model.yaml"), str(hr / "new.csv"), "--format",
                            "parquet"], capture_output=True, timeout=120)
    assert piped.returncode == 0 and pd.read_parquet(io.BytesIO(piped.stdout)).equals(got)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True

    @property
    def buffer(self):   # pragma: no cover - must not be written to
        raise AssertionError("binary data written to a terminal")


def test_parquet_to_a_terminal_is_refused(hr):
    err = io.StringIO()
    with contextlib.redirect_stdout(_Terminal()), contextlib.redirect_stderr(err):
        code = main(["predict", str(hr / "model.yaml"), str(hr / "new.csv"), "--format", "parquet"])
    assert code == 2
    assert err.getvalue() == ("c45rules: error: --format parquet writes binary data: give -o FILE.parquet"
                              " or redirect stdout to a file or pipe\n")


def test_parquet_failure_leaves_no_file(hr, tmp_path):
    pytest.importorskip("pyarrow")
    bad = tmp_path / "bad.csv"
    bad.write_text(HEADER + "\n" + NEW[0][0] + "\n1009,HR,Paris,lots,No,1,No\n")
    out = tmp_path / "o.parquet"
    code, _, err = cli_err(["predict", str(hr / "model.yaml"), str(bad), "-o", str(out), "--chunksize", "1"])
    assert code == 2 and err == (f"c45rules: error: {bad}: row 2: column 'years': 'lots' is not a number (rows"
                                 " count from 1 after the header; --bad-cells unknown reads such a cell as unknown)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


# ---- one rule-id convention: predict's CSV = SQL (SQLite, DuckDB) = the Python module ------------------
def test_rule_ids_agree_row_for_row_across_predict_sql_and_python(hr, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    scored = pd.read_csv(io.StringIO(ok("predict", hr / "model.yaml", hr / "new.csv").stdout),
                         dtype=str, keep_default_na=False)
    want = list(zip(scored["predicted_class"], scored["rule_id"].astype(int)))
    assert [r for _, r in want] == [5, 0, 4, 8, 1, 0]
    frame = pd.read_csv(hr / "new.csv", dtype=str, keep_default_na=False)
    typed = frame.assign(years=pd.to_numeric(frame["years"]), salary=pd.to_numeric(frame["salary"]))
    for dialect in ("sqlite", "duckdb"):
        sql = ok("export", hr / "model.yaml", "--to", "sql", "--dialect", dialect, "--table", "staff").stdout
        if dialect == "sqlite":
            con = sqlite3.connect(":memory:")
            con.execute('CREATE TABLE staff (employee_id TEXT, dept TEXT, branch TEXT, years REAL,'
                        ' overtime TEXT, salary REAL, attrition TEXT)')
            con.executemany("INSERT INTO staff VALUES (?, ?, ?, ?, ?, ?, ?)",
                            [tuple(None if isinstance(v, float) and np.isnan(v) else v for v in row)
                             for row in typed.itertuples(index=False)])
        else:
            con = duckdb.connect()
            con.register("typed", typed)
            con.execute("CREATE TABLE staff AS SELECT * FROM typed")
        got = con.execute(f"SELECT predicted_class, rule_id FROM ({sql.rstrip().rstrip(';')}) AS s"
                          " ORDER BY employee_id").fetchall()
        assert got == want, dialect
    ok("export", hr / "model.yaml", "--to", "python", "-o", tmp_path / "attrition.py")
    spec = importlib.util.spec_from_file_location("attrition_model", tmp_path / "attrition.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    records = frame.to_dict("records")
    assert [(module.predict(r), module.predict_rule(r)) for r in records] == want
    # the unused branch left out, and the unknown years left out rather than empty: the same
    trimmed = [{k: v for k, v in r.items() if k != "branch" and v != ""} for r in records]
    assert "years" not in trimmed[5]
    assert [(module.predict(r), module.predict_rule(r)) for r in trimmed] == want
    rs = load_yaml(hr / "model.yaml")
    assert list(zip(rs.predict(trimmed), rs.predict_rule(trimmed).tolist())) == want
    # the module's own CSV scorer writes the same rule column, 0 included
    module._main([str(hr / "new.csv"), "-o", str(tmp_path / "m.csv")])
    assert (tmp_path / "m.csv").read_text() == _scored_csv()
