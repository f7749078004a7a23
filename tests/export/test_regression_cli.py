"""`c45rules export` of a regression model (issue 54): sql, python, pmml, yaml and dbt agree with predict;
what a number has no form in is refused in one line."""
from __future__ import annotations

import json
import os
import runpy
import sqlite3
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml
from regression_cases import DATA, close, fold_scored, hand_model

from c45rules.cli import main
from c45rules.export import dump_yaml, load_yaml
from c45rules.export.dbt import dbt_model_sql
from c45rules.model.regression import Instances, RegressionModel

DATA_AUTO = DATA / "auto" / "auto.csv"


@pytest.fixture
def model_file(tmp_path):
    s = fold_scored("auto")
    path = tmp_path / "auto.yaml"
    path.write_text(dump_yaml(s.model))
    return s, path


def test_export_sql_python_pmml_yaml(model_file, tmp_path, capsys):
    s, path = model_file
    assert main(["export", str(path), "--to", "sql", "--table", "cases", "-o", str(tmp_path / "m.sql"),
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["dialect"] == "sqlite" and summary["warnings"] == []
    con = sqlite3.connect(":memory:")
    s.frame.to_sql("cases", con, index=False)
    got = [r[-1] for r in con.execute((tmp_path / "m.sql").read_text().rstrip().rstrip(";"))]
    assert close(got, s.want)
    assert main(["export", str(path), "--to", "sql", "--case-only", "--dialect", "duckdb",
                 "-o", str(tmp_path / "e.sql")]) == 0
    assert "NULLIF" in (tmp_path / "e.sql").read_text()
    assert main(["export", str(path), "--to", "python", "-o", str(tmp_path / "m.py")]) == 0
    predict = runpy.run_path(str(tmp_path / "m.py"))["predict"]
    records = [{k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
               for r in s.frame.to_dict("records")]
    assert close([predict(r) for r in records], s.want)
    assert main(["export", str(path), "--to", "pmml", "-o", str(tmp_path / "m.pmml")]) == 0
    assert 'multipleModelMethod="average"' in (tmp_path / "m.pmml").read_text()
    assert main(["export", str(path), "--to", "yaml", "-o", str(tmp_path / "back.yaml")]) == 0
    assert load_yaml(tmp_path / "back.yaml") == s.model


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "c45rules", *args], capture_output=True, text=True, env=env)


def test_refusals_are_one_line(model_file, tmp_path):
    _, path = model_file
    for extra in (["--to", "dmn"], ["--to", "dot"], ["--to", "sql", "--confidence"],
                  ["--to", "sql", "--form", "nested"]):
        out = _cli("export", str(path), *extra)
        assert out.returncode == 2 and "Traceback" not in out.stderr and out.stderr.count("\n") == 1, out.stderr
    m = hand_model()
    knn = RegressionModel(m.schema, m.committees, 0.0, 100.0, 0.05, m.means, 1, Instances(((1.0, 0.0, "red"),), (3.0,)))
    (tmp_path / "knn.yaml").write_text(dump_yaml(knn))
    for to in ("sql", "python", "pmml"):
        out = _cli("export", str(tmp_path / "knn.yaml"), "--to", to, "-o", str(tmp_path / f"knn.{to}"))
        assert out.returncode == 2 and "instances (neighbors = 1)" in out.stderr, out.stderr
        assert not (tmp_path / f"knn.{to}").exists()


def test_dbt_files_of_a_regression_model(tmp_path):
    jinja2 = pytest.importorskip("jinja2")
    m = hand_model()
    text = dbt_model_sql(m, ("raw", "cases"), "duckdb")
    rendered = jinja2.Environment().from_string(text).render(config=lambda **kw: "",
                                                             source=lambda schema, table: "SRC")
    assert '"predicted_value"' in rendered and "NULLIF" in rendered
    path = tmp_path / "m.yaml"
    path.write_text(dump_yaml(m))
    assert main(["export", str(path), "--to", "dbt", str(tmp_path / "p"), "--source", "raw.cases",
                 "--name", "scored"]) == 0
    schema = yaml.safe_load((tmp_path / "p" / "models" / "schema.yml").read_text())
    column = schema["models"][0]["columns"][-1]
    assert column["name"] == "predicted_value" and column["data_tests"] == ["not_null"]


@pytest.mark.slow
def test_dbt_run_builds_predict(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    dbt = os.path.join(os.path.dirname(sys.executable), "dbt")
    if not os.path.exists(dbt):
        pytest.skip("dbt is not installed (pip install '.[test]')")
    s = fold_scored("auto")
    database = tmp_path / "warehouse.duckdb"
    frame = s.frame.copy()
    frame.insert(0, "row", np.arange(len(frame)))
    with duckdb.connect(str(database)) as con:
        con.register("f", frame)
        con.execute('CREATE TABLE main."auto cases" AS SELECT * FROM f')
    project, profile = tmp_path / "project", "c45rules_regression"
    project.mkdir()
    dev = {"type": "duckdb", "path": str(database), "threads": 1}
    (project / "dbt_project.yml").write_text(yaml.safe_dump({"name": profile, "version": "1.0", "profile": profile,
                                                             "model-paths": ["models"]}))
    (tmp_path / "profiles.yml").write_text(yaml.safe_dump({profile: {"target": "dev", "outputs": {"dev": dev}}}))
    (tmp_path / "auto.yaml").write_text(dump_yaml(s.model))
    assert main(["export", str(tmp_path / "auto.yaml"), "--to", "dbt", str(project), "--source", "main.auto cases",
                 "--name", "auto_scored"]) == 0
    env = {**os.environ, "DBT_PROFILES_DIR": str(tmp_path), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
           "DBT_LOG_PATH": str(tmp_path / "logs"), "DBT_TARGET_PATH": str(tmp_path / "target"), "DO_NOT_TRACK": "1"}
    for command in ("run", "test"):
        p = subprocess.run([dbt, command, "--project-dir", str(project)], capture_output=True, text=True, env=env,
                           timeout=180, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    with duckdb.connect(str(database), read_only=True) as con:
        built = con.execute('SELECT * FROM main.auto_scored ORDER BY "row"').df()
    assert close(built["predicted_value"].tolist(), s.want)


def test_explain_names_the_rules_their_models_values_and_averages(tmp_path, capsys):
    m = hand_model()
    path = tmp_path / "m.yaml"
    path.write_text(dump_yaml(m))
    assert main(["explain", str(path), "--row", '{"x": 5, "z": 0, "colour": "red"}', "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    first, second = got["committees"]
    assert [(r["rule"], r["value"]) for r in first["rules"]] == [(1, 11.0), (2, 100.0)] and first["value"] == 55.5
    assert second["rules"][0]["model"] == "20 + 1.5 x" and second["value"] == 27.5
    assert got["average"] == got["value"] == 41.5 == float(m.predict({"x": 5, "z": 0, "colour": "red"})[0])
    # a model value beyond the rule's bounds is shown cut; no rule: the default model
    assert main(["explain", str(path), "--row", '{"x": 6, "z": 200, "colour": "blue"}']) == 0
    text = capsys.readouterr().out
    assert "-> 14 (model 113, bounded)" in text and "average of 2 committees" in text
    one = tmp_path / "one.yaml"
    one.write_text(dump_yaml(hand_model(committees=1)))
    assert main(["explain", str(one), "--row", '{"x": null, "z": 3, "colour": "red"}']) == 0
    assert "no rule applies: the default y = 50 + 1 z -> 53" in capsys.readouterr().out


def test_report_shows_each_rule_with_its_model_evidence_and_the_data(model_file, tmp_path):
    s, path = model_file
    data = tmp_path / "cases.csv"
    pd.read_csv(DATA_AUTO).head(60).to_csv(data, index=False)
    out = tmp_path / "r.html"
    assert main(["report", str(path), "--data", str(data), "--row-number", "2", "-o", str(out)]) == 0
    page = out.read_text()
    for k, committee in enumerate(s.model.committees, 1):
        for r in committee.rules:
            assert f'id="rule-{k}-{r.id}"' in page and f"{r.cases}</td>" in page
            assert str(r.model).split(" ")[0] in page
    cases = pd.read_csv(DATA_AUTO).head(60)
    rmse = float(np.sqrt(np.mean((s.model.predict(cases) - cases["mpg"].to_numpy()) ** 2)))
    assert f'id="rmse">{rmse:.6g}<' in page
    assert 'id="explanation">' in page and "mpg = " in page
    refused = _cli("report", str(path), "--compare", str(path), "-o", str(out))
    assert refused.returncode == 2 and "--compare" in refused.stderr and "Traceback" not in refused.stderr


def test_diff_pairs_rules_per_committee_and_measures_the_predictions(tmp_path, capsys):
    from c45rules.govern.regression_diff import diff_regression
    from c45rules.model.regression import Committee, LinearModel, RegressionRule
    from c45rules.model.ruleset import Condition
    old = hand_model()
    c1 = old.committees[0]
    moved = RegressionRule(1, (Condition("x", "<=", 7.0),), c1.rules[0].model, 10, 7.0, 1.0, 13.0, 0.5, 0.0, 14.0)
    extra = RegressionRule(3, (Condition("colour", "=", "blue"),), LinearModel(30.0), 4, 30.0, 28.0, 32.0, 1.0,
                           27.0, 33.0)
    new = RegressionModel(old.schema, (Committee((moved, c1.rules[1], extra), LinearModel(40.0)),), 0.0, 100.0,
                          0.05, old.means)
    d = diff_regression(old, new)
    first, second = d.committees
    assert (first.added, first.removed, first.changed, first.unchanged) == ((3,), (), ((1, 1),), ((2, 2),))
    assert second.removed == (1,) and d.old_committees == 2 and d.new_committees == 1
    (tmp_path / "old.yaml").write_text(dump_yaml(old))
    (tmp_path / "new.yaml").write_text(dump_yaml(new))
    (tmp_path / "cases.csv").write_text("x,z,colour\n6.5,0,blue\n1,1,red\n")
    assert main(["diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"), "--data",
                 str(tmp_path / "cases.csv"), "--json"]) == 0
    values = json.loads(capsys.readouterr().out)["values"]
    frame = pd.DataFrame({"x": [6.5, 1.0], "z": [0.0, 1.0], "colour": ["blue", "red"]})
    change = new.predict(frame) - old.predict(frame)
    assert values["rows"] == 2 and values["changed"] == 2 and values["max_change"] == pytest.approx(abs(change).max())
    assert main(["diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")]) == 0
    text = capsys.readouterr().out
    assert "changed  rule 1: if x <= 6 then y = 1 + 2 x + 0.5 z" in text and "Default: y = 50 + 1 z -> y = 40" in text


def test_rescore_measures_each_rule_and_keeps_the_predictions(tmp_path, capsys):
    m = hand_model()
    (tmp_path / "m.yaml").write_text(dump_yaml(m))
    # rule 1 of committee 1 (x <= 6) covers rows 1-3; rule 2 (x > 4, red or green) covers row 3 and 4
    (tmp_path / "cases.csv").write_text("y,x,z,colour\n10,1,0,blue\n14,3,0,red\n90,5,2,red\n100,9,4,green\n"
                                        "50,,1,blue\n")
    assert main(["rescore", str(tmp_path / "m.yaml"), "--data", str(tmp_path / "cases.csv"), "-o",
                 str(tmp_path / "new.yaml"), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    r1, r2, r3 = got["rules"]
    assert (r1["cases"], r1["mean"], r1["low"], r1["high"]) == (3, 38.0, 10.0, 90.0)
    # 3 cases and 3 parameters: no estimate (infinite); committee 2's 20 + 1.5 x on all five rows (x unknown:
    # its mean 5) gives 21.5, 24.5, 27.5, 33.5, 27.5: MAE 34.7, times (5 + 2) / (5 - 2)
    assert r1["error"] == float("inf")
    assert got["rules"][2]["error"] == pytest.approx(34.7 * 7 / 3)
    assert (r2["cases"], r2["mean"]) == (2, 95.0) and (r3["committee"], r3["cases"]) == (2, 5)
    new = load_yaml(tmp_path / "new.yaml")
    frame = pd.DataFrame({"x": [1.0, 5.0, None], "z": [0.0, 2.0, 1.0], "colour": ["blue", "red", "blue"]})
    assert new.predict(frame).tolist() == m.predict(frame).tolist()
    assert [r.cases for r in new.rules] == [3, 2, 5]
