"""predict --confidence/--explain and export --to sql --confidence, through the command line."""
from __future__ import annotations

import io
import sqlite3

import pandas as pd

from c45rules.export import load_yaml

from .conftest import DATA, cli, cli_err

CRX = DATA / "crx" / "crx"


def test_predict_adds_confidence_and_explanation(tmp_path):
    model = tmp_path / "m.yaml"
    assert cli(["fit", str(CRX), "-o", str(model), "-q"])[0] == 0
    rs = load_yaml(model)
    code, out = cli(["predict", str(model), f"{CRX}.test", "--confidence", "--explain"])
    assert code == 0
    got = pd.read_csv(io.StringIO(out), dtype={"explanation": str})
    assert list(got.columns[-4:]) == ["predicted_class", "rule_id", "confidence", "explanation"]
    test = pd.read_csv(DATA / "crx" / "crx_test.csv", dtype=str, keep_default_na=False)
    want = rs.predict_confidence(test)
    assert (got["confidence"].to_numpy() == want).all()
    assert got["confidence"].iloc[0] == 0.963862            # rule 28: 1 - 0.0361382
    assert got["explanation"].iloc[0] == "rule 28: A9 = t and A15 > 228"
    default = got[got["rule_id"] == 0]
    assert len(default) > 0 and set(default["explanation"]) == {"default class: no rule fired"}
    code, _, err = cli_err(["predict", str(model), f"{CRX}.test", "--confidence", "--confidence-column", "rule_id"])
    assert code == 2 and "--rule-column and --confidence-column are both 'rule_id'" in err


def test_export_sql_confidence_agrees_with_predict(tmp_path):
    model = tmp_path / "m.yaml"
    assert cli(["fit", str(CRX), "-o", str(model), "-q"])[0] == 0
    code, sql = cli(["export", str(model), "--to", "sql", "--confidence", "--table", "cases"])
    assert code == 0 and sql.rstrip().endswith('FROM "cases" AS "t";')
    test = pd.read_csv(DATA / "crx" / "crx_test.csv", dtype=str, keep_default_na=False)
    rs = load_yaml(model)
    with sqlite3.connect(":memory:") as con:
        frame = test.copy()
        for a in rs.schema.attributes:    # numbers as REAL, '?' as NULL, as a warehouse holds them
            col = frame[a.name].replace({"?": None})
            frame[a.name] = pd.to_numeric(col) if a.is_continuous else col
        frame.to_sql("cases", con, index=False)
        rows = con.execute(sql.rstrip().rstrip(";")).fetchall()
    assert [r[-1] for r in rows] == list(rs.predict_confidence(test))
    code, _, err = cli_err(["export", str(model), "--to", "python", "--confidence"])
    assert code == 2 and "--confidence adds a column to the SQL SELECT" in err
