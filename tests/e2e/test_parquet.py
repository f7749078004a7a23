"""Parquet input (issue 5: DATA is a C4.5 stem or a CSV/Parquet file) through the installed command."""
from __future__ import annotations

import csv
import json

import pandas as pd
import pytest

from c45rules.export.yaml import load_yaml

from .conftest import DATA, ok

pytest.importorskip("pyarrow")   # in the test extra; Parquet needs it


@pytest.fixture(scope="module")
def crx_parquet(tmp_path_factory):
    root = tmp_path_factory.mktemp("parquet")
    paths = {}
    for name in ("crx", "crx_test"):
        frame = pd.read_csv(DATA / "crx" / f"{name}.csv", dtype=str, keep_default_na=False)
        paths[name] = root / f"{name}.parquet"
        frame.to_parquet(paths[name])
    return paths


def test_rules_on_parquet_match_the_csv_numbers(crx_parquet):
    out = json.loads(ok("rules", crx_parquet["crx"], "--target", "class", "--test", crx_parquet["crx_test"],
                        "--json").stdout)
    assert len(out.pop("rule_list")) == 14   # the rules themselves (issue 49.1), then the figures
    assert out == {"rules": 14, "conditions": 41, "default_class": "-", "train_errors": 34, "test_errors": 31}


def test_predict_on_parquet_keeps_every_row_and_agrees_with_the_library(crx_parquet, tmp_path):
    model = tmp_path / "m.yaml"
    ok("fit", crx_parquet["crx"], "--target", "class", "-o", model, "-q")
    out = tmp_path / "p.csv"
    ok("predict", model, crx_parquet["crx_test"], "-o", out)
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    test = pd.read_parquet(crx_parquet["crx_test"])
    assert len(rows) == len(test) == 200
    assert [r["A2"] for r in rows] == list(test["A2"])
    expected = load_yaml(model).predict(test)
    assert [r["predicted_class"] for r in rows] == list(expected)
