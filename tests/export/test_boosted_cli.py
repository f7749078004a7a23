"""The commands on a boosted model (read from YAML by load_model, patched in here until the boosted
YAML lands): export dispatches on the model type, explain shows every trial's vote, report a section
per trial and the vote on a row."""
from __future__ import annotations

import json
import re
from html import escape as html_escape
import sqlite3

import numpy as np
import pytest
import yaml

from c45rules.cli import main
from c45rules.export import to_pmml, to_python

from export_cases import DATA, encode

CRX = DATA / "crx" / "crx"


@pytest.fixture
def crx_model(boosted, monkeypatch):
    """The boosted crx model, as every command's load_model returns it."""
    model = boosted("crx").ruleset
    for command in ("export", "explain", "report"):
        monkeypatch.setattr(f"c45rules.cli.{command}.load_model", lambda path, *a, **k: model)
    return model


def test_export_sql_scores_as_predict(crx_model, tmp_path, capsys):
    import pandas as pd
    out = tmp_path / "crx.sql"
    assert main(["export", "boosted.yaml", "--to", "sql", "--table", "cases", "--confidence", "-o", str(out),
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    # flat CASEs, each in SQLite's scalar subquery over the converted columns, which counts a level
    assert summary["nesting"] == 2 and summary["warnings"] == []
    frame = pd.read_csv(str(CRX) + ".test", header=None, names=list(crx_model.schema.names) + ["class"],
                        na_values=["?"], keep_default_na=False, dtype=str)
    con = sqlite3.connect(":memory:")
    cols = crx_model.schema.attributes
    con.execute("CREATE TABLE cases (" + ", ".join(f'"{a.name}" {"REAL" if a.is_continuous else "TEXT"}'
                                                   for a in cols) + ")")
    rows = [{a.name: (None if pd.isna(v) else float(v) if a.is_continuous else v)
             for a, v in zip(cols, r)} for r in frame[list(crx_model.schema.names)].itertuples(index=False)]
    con.executemany(f"INSERT INTO cases VALUES ({', '.join('?' * len(cols))})",
                    [tuple(r[a.name] for a in cols) for r in rows])
    got = con.execute(out.read_text()).fetchall()
    ds = encode(crx_model.schema, rows)
    assert [g[-2] for g in got] == list(crx_model.predict(ds))
    assert np.array_equal(np.array([g[-1] for g in got]), crx_model.predict_confidence(ds))


def test_export_python_and_pmml_write_the_boosted_forms(crx_model, tmp_path):
    assert main(["export", "boosted.yaml", "--to", "python", "-o", str(tmp_path / "m.py")]) == 0
    assert (tmp_path / "m.py").read_text() == to_python(crx_model)
    assert main(["export", "boosted.yaml", "--to", "pmml", "-o", str(tmp_path / "m.pmml")]) == 0
    assert (tmp_path / "m.pmml").read_text() == to_pmml(crx_model)


@pytest.mark.parametrize("argv, message", [
    (["--to", "dmn"], "FEEL adds numbers as decimals"),
    (["--to", "dot"], "one per trial"),
    (["--to", "sql", "--case-only"], "one CASE"),
])
def test_export_refuses_what_has_no_faithful_form(crx_model, tmp_path, capsys, argv, message):
    out = tmp_path / "out"
    assert main(["export", "boosted.yaml", *argv, "-o", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_export_dbt_names_each_trials_rule_column(crx_model, tmp_path):
    assert main(["export", "boosted.yaml", "--to", "dbt", str(tmp_path), "--source", "raw.crx",
                 "--name", "crx_scored"]) == 0
    schema = yaml.safe_load((tmp_path / "models" / "schema.yml").read_text())
    names = [c["name"] for c in schema["models"][0]["columns"]]
    assert names[-5:] == ["predicted_class", "rule_id_1", "rule_id_2", "rule_id_3", "rule_id_4"]
    sql = (tmp_path / "models" / "crx_scored.sql").read_text()
    assert "{{ source('raw', 'crx') }}" in sql and '"votes_total"' in sql


def test_explain_shows_every_trials_rule_and_the_totals(crx_model, capsys):
    row = {"A9": "t", "A15": 300, "A11": 2, "A8": 1.5}
    assert main(["explain", "boosted.yaml", "--row", json.dumps(row)]) == 0
    text = capsys.readouterr().out
    expected = crx_model.explain(row)
    assert text.startswith(f"class {expected.prediction} by the vote of 4 trials")
    for v in expected.votes:
        how = f"rule {v.explanation.rule.id}" if v.explanation.rule else "its default class (no rule fired)"
        assert f"trial {v.trial}: {v.explanation.prediction} by {how}, vote {v.weight:.6g}" in text
    # the row reaches a rule in some trial and the default in another
    assert {v.explanation.rule is None for v in expected.votes} == {True, False}
    assert "  totals: + " in text
    assert main(["explain", "boosted.yaml", "--row", json.dumps(row), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["class"] == expected.prediction and len(doc["votes"]) == 4
    assert doc["totals"] == dict(expected.totals)
    assert doc["confidence"] == crx_model.predict_confidence([row])[0]
    assert [v["rule_id"] for v in doc["votes"]] == crx_model.trial_rules([row])[0].tolist()


def test_explain_row_number_of_a_file(crx_model, capsys):
    assert main(["explain", "boosted.yaml", "--row-number", "3", "--data", str(CRX) + ".test", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    from c45rules.data import load_stem
    _, test = load_stem(CRX, test=True)
    assert doc["class"] == crx_model.predict(test.subset(np.arange(2, 3)))[0]


def test_report_has_a_section_per_trial_and_the_vote_of_a_row(crx_model, tmp_path):
    out = tmp_path / "r.html"
    assert main(["report", "boosted.yaml", "--data", str(CRX) + ".test", "--explain-row", "3", "-o", str(out)]) == 0
    html = out.read_text()
    assert re.findall(r'<section id="(trial-\d+)"', html) == ["trial-1", "trial-2", "trial-3", "trial-4"]
    for t, rs in enumerate(crx_model.trials, 1):
        assert len(re.findall(rf'<tr(?: class=nofire)? id="trial-{t}-rule-\d+"', html)) == len(rs.rules)
    from c45rules.data import load_stem
    _, test = load_stem(CRX, test=True)
    third = test.subset(np.arange(2, 3))
    votes = crx_model.trial_rules(third)[0]
    rows = re.findall(r'<tr id="vote-trial-(\d+)"><td class="num">\d+</td><td>(rule (\d+)|default class)', html)
    assert [int(r[2] or 0) for r in rows] == votes.tolist()
    assert f'<strong id="vote-class">{crx_model.predict(third)[0]}</strong>' in html
    # the evaluation: a confusion matrix of the vote on the test data
    errors = int((crx_model.predict(test) != np.array(test.schema.classes, dtype=object)[test.y]).sum())
    assert f'<span class="big" id="eval-errors">{errors}</span>' in html
    assert main(["report", "boosted.yaml", "--train", str(CRX), "-o", str(out)]) == 2


def test_report_explains_a_row_of_a_single_ruleset(tmp_path, monkeypatch):
    from c45rules.data import load_stem
    from c45rules.learn.pipeline import fit_dataset
    golf = DATA / "golf" / "golf"
    train, _ = load_stem(golf, test=True)
    model = fit_dataset(train)[0]
    monkeypatch.setattr("c45rules.cli.report.load_model", lambda path, *a, **k: model)
    out = tmp_path / "r.html"
    assert main(["report", "golf.yaml", "--data", str(golf) + ".data", "--explain-row", "1", "-o", str(out)]) == 0
    html = out.read_text()
    first = train.subset(np.arange(1))
    expected = model.explain({a: v for a, v in zip(model.schema.names, [
        (a.values[c] if c >= 0 else None) if a.is_discrete else c
        for a, c in zip(model.schema.attributes, [col[0] for col in first.columns])])})
    assert '<pre class="mono" id="explanation">' in html
    assert html_escape(str(expected).split("\n")[0]) in html
    assert main(["report", "golf.yaml", "--explain-row", "1", "-o", str(out)]) == 2
