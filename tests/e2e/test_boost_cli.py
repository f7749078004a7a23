"""Boosting on the command line (issue 34): fit/rules/cv --trials N and -b, evaluate, predict,
rescore and diff of a boosted model."""
from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess

import numpy as np
import pytest

from c45rules.learn.crossval import stratified_folds
from c45rules.data import load_stem
from c45rules.export.yaml import load_yaml
from c45rules.learn.pipeline import fit_dataset

from .conftest import DATA, fails, ok
from .test_crossval import C50, _fold_stem

CRX = DATA / "crx" / "crx"
LABOR = DATA / "labor-neg" / "labor-neg"


@pytest.fixture(scope="module")
def boosted(tmp_path_factory):
    """labor-neg boosted with -b (all 10 trials) and the printout of fit."""
    path = tmp_path_factory.mktemp("boost") / "labor.yaml"
    out = ok("fit", LABOR, "-b", "-o", path).stdout
    return path, out


def test_fit_b_writes_the_library_model(boosted):
    path, out = boosted
    train, _ = load_stem(str(LABOR))
    assert load_yaml(path) == fit_dataset(train, trials=10)[0]
    model = load_yaml(path)
    assert len(model.trials) == 10 and model.options_dict["trials"] == 10
    assert out.count("-----  Trial ") == 10
    assert "Boosting stopped" not in out
    assert "boost     28      0( 0.0%)   <<" in out


def test_fit_b_says_when_boosting_stops(tmp_path):
    # golf's first trial classifies every training case: boosting ends there
    out = ok("fit", DATA / "golf" / "golf", "-b", "-o", tmp_path / "golf.yaml").stdout
    assert "Boosting stopped after 1 of 10 trials" in out


def test_rules_json_and_text_per_trial():
    out = json.loads(ok("rules", CRX, "--trials", "3", "--json").stdout)
    assert [len(t.pop("rule_list")) for t in out["trials"]] == [14, 15, 11]
    assert out == {"trials": [{"rules": 14, "train_errors": 34}, {"rules": 15, "train_errors": 72},
                              {"rules": 11, "train_errors": 51}],
                   "trials_asked": 3, "rules": 40, "train_errors": 27, "test_errors": None}
    text = ok("rules", CRX, "-u", "--trials", "3").stdout
    assert [line for line in text.splitlines() if line.startswith("-----  Trial")] == \
        ["-----  Trial 1:  -----", "-----  Trial 2:  -----", "-----  Trial 3:  -----"]
    assert "Evaluation on test data (200 items):" in text


def test_evaluate_text_and_json(boosted):
    path, _ = boosted
    test = LABOR.with_suffix(".test")
    out = json.loads(ok("evaluate", path, test, "--json").stdout)
    model = load_yaml(path)
    _, tst = load_stem(str(LABOR), test=True)
    predicted = model.predict(tst)
    truth = np.array(tst.schema.classes, dtype=object)[tst.y]
    assert out["rows"] == 17 and out["errors"] == int((predicted != truth).sum()) == 3
    assert [t["trial"] for t in out["trials"]] == list(range(1, 11))
    assert out["confusion"] == [[11, 0], [3, 3]]
    assert "boost     28      3(17.6%)   <<" in ok("evaluate", path, test).stdout


def test_predict_columns_agree_with_the_library(boosted, tmp_path):
    path, _ = boosted
    test = LABOR.with_suffix(".test")
    out = ok("predict", path, test, "--confidence").stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    model = load_yaml(path)
    _, tst = load_stem(str(LABOR), test=True)
    assert [r["predicted_class"] for r in rows] == list(model.predict(tst))
    assert [float(r["confidence"]) for r in rows] == list(model.predict_confidence(tst))
    ids = model.trial_rules(tst)
    assert rows[0]["rule_id"] == " ".join(f"{t + 1}:{ids[0, t]}" for t in range(10))
    assert "--explain names one deciding rule" in fails("predict", path, test, "--explain")


def test_rescore_and_diff(boosted, tmp_path):
    path, _ = boosted
    test = LABOR.with_suffix(".test")
    new = tmp_path / "rescored.yaml"
    out = json.loads(ok("rescore", path, "--data", test, "-o", new, "--json").stdout)
    assert [t["trial"] for t in out["trials"]] == list(range(1, 11))
    assert out["errors"] == 5 and out["error_rate"] == round(5 / 17, 6)
    assert load_yaml(new).trials[0].class_counts == (11, 6)
    d = json.loads(ok("diff", path, new, "--data", test, "--json").stdout)
    assert d["old_trials"] == d["new_trials"] == 10
    assert all(t["rules"]["added"] == [] and t["rules"]["removed"] == [] for t in d["trials"])
    assert d["decisions"]["rows"] == 17


def test_cv_trials(tmp_path):
    out = json.loads(ok("cv", LABOR, "-k", "3", "--trials", "3", "--json").stdout)
    assert len(out["folds"]) == 3 and sum(f["cases"] for f in out["folds"]) == 40


def test_refusals(tmp_path):
    model = tmp_path / "m.yaml"
    assert "choose one" in fails("fit", LABOR, "-b", "-t", "5", "-o", model)
    assert "--keep-tree and -p keep one pruned tree" in fails("fit", LABOR, "-b", "--keep-tree", "-o", model)
    assert "grower c45, not to grower 'cart'" in fails("fit", LABOR, "-b", "--grower", "cart", "-o", model)
    assert "from 1 to 1000, got 1001" in fails("rules", LABOR, "--trials", "1001")
    assert not model.exists()


@pytest.mark.skipif(not os.access(C50, os.X_OK) and not os.environ.get("CI"), reason="no c5.0 anchor")
def test_cv_compare_runs_boosted_c50_on_the_same_folds(tmp_path):
    out = json.loads(ok("cv", CRX, "-k", "3", "--trials", "3", "--json", "--compare", "c50", C50).stdout)
    theirs = out["c50"]
    data, _ = load_stem(str(CRX))
    fold = stratified_folds(data.y, 3, seed=0)
    stem = _fold_stem(tmp_path, "crx", np.flatnonzero(fold != 2), np.flatnonzero(fold == 2))
    text = subprocess.run([str(C50), "-f", str(stem), "-r", "-t", "3"], capture_output=True, text=True,
                          check=True).stdout
    test_part = text.split("Evaluation on test data")[1]
    errors = int(re.search(r"^boost\s+(\d+)\(", test_part, re.M).group(1))
    rules = sum(int(r) for r in re.findall(r"^\s+\d\s+(\d+)\s+\d+\(", test_part, re.M))
    assert (theirs["folds"][2]["errors"], theirs["folds"][2]["rules"]) == (errors, rules)
    # ours: each fold's boosted model from the library, its vote's test errors
    from c45rules.learn.crossval import fold_error
    assert out["folds"][2]["errors"] == fold_error(data.subset(np.flatnonzero(fold != 2)),
                                                   data.subset(np.flatnonzero(fold == 2)), {"trials": 3})[0]


def test_exports_of_a_boosted_model_file_decide_as_predict(tmp_path):
    """fit -b writes the file; export --to sql / python read it back and decide crx.test's
    cases (unknowns among them) as the loaded model's predict does, row for row."""
    import sqlite3
    import sys

    import pandas as pd

    model_path = tmp_path / "crx.yaml"
    ok("fit", CRX, "--trials", "3", "-o", model_path)
    model = load_yaml(model_path)
    assert len(model.trials) == 3
    test = pd.read_csv(DATA / "crx" / "crx.csv").iloc[:300]
    features = test.drop(columns=[test.columns[-1]])
    expected = model.predict(features)
    assert any(features.isna().any(axis=1))
    # SQL in SQLite
    sql_path = tmp_path / "crx.sql"
    ok("export", model_path, "--to", "sql", "--dialect", "sqlite", "--table", "cases", "-o", sql_path)
    con = sqlite3.connect(":memory:")
    features.to_sql("cases", con, index=False)
    got = [r[0] for r in con.execute(f"SELECT predicted_class FROM ({sql_path.read_text().rstrip().rstrip(';')})")]
    assert got == list(expected)
    # the standalone module in a fresh interpreter
    py_path = tmp_path / "crx_model.py"
    ok("export", model_path, "--to", "python", "-o", py_path)
    rows = json.dumps([{k: (None if pd.isna(v) else v) for k, v in r.items()} for r in features.to_dict("records")])
    code = ("import json, sys\nsys.path.insert(0, sys.argv[1])\nimport crx_model\n"
            "print(json.dumps([crx_model.predict(r) for r in json.loads(sys.stdin.read())]))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], input=rows, capture_output=True,
                         text=True, check=True).stdout
    assert json.loads(out) == list(expected)
