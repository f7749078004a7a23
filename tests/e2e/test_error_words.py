"""Issue 49: a Python error names the parameter, the same error from the CLI names the option
(InputError.params, cli/vocabulary.cli_message) -- for the library's checks the CLI reaches:
class weights, the tuning grid, dbt's source and name, the DuckDB engine's outputs and format,
a CSV's decimal mark against its separator, an undecodable file's encoding."""
from __future__ import annotations

import pytest

import c45rules
from c45rules.errors import InputError

from .conftest import DATA, cli_err

GOLF = str(DATA / "golf" / "golf")
GOLF_CSV = str(DATA / "golf" / "golf.csv")


def _cli(argv: list[str]) -> str:
    code, _, err = cli_err(argv)
    assert code == 2, err
    return err.strip()


def test_class_weights_errors():
    with pytest.raises(InputError, match=r"^class_weight: unknown class\(es\) 'nope'") as e:
        c45rules.fit(GOLF, class_weight={"nope": 2})
    assert "--" not in str(e.value)
    assert _cli(["rules", GOLF, "--class-weights", "nope=2"]).startswith(
        "c45rules: error: --class-weights: unknown class(es) 'nope'")
    from c45rules.data.weights import parse_class_weights
    with pytest.raises(InputError, match=r"^class_weight: class 'Play': weight 'x' is not a number$"):
        parse_class_weights("Play=x")
    assert _cli(["rules", GOLF, "--class-weights", "Play=x"]) == \
        "c45rules: error: --class-weights: class 'Play': weight 'x' is not a number"


def test_grid_errors():
    from c45rules.learn.crossval import parse_grid
    with pytest.raises(InputError, match=r"^grid 'cf=a': the values must be numbers$"):
        parse_grid(["cf=a"])
    assert _cli(["tune", GOLF, "--grid", "cf=a"]) == "c45rules: error: --grid 'cf=a': the values must be numbers"


def test_dbt_errors(tmp_path):
    from c45rules.export.dbt import parse_source, write_dbt
    with pytest.raises(InputError, match=r"^source: expected SCHEMA\.TABLE, got 'loans'$"):
        parse_source("loans")
    model = tmp_path / "m.yaml"
    assert cli_err(["fit", GOLF, "-q", "-o", str(model)])[0] == 0
    assert _cli(["export", str(model), "--to", "dbt", str(tmp_path / "p"), "--source", "loans"]) == \
        "c45rules: error: --source: expected SCHEMA.TABLE, got 'loans'"
    with pytest.raises(InputError, match=r"^name: a dbt model name is letters"):
        write_dbt(c45rules.fit(GOLF), tmp_path / "q", ("raw", "golf"), "my-model")
    assert _cli(["export", str(model), "--to", "dbt", str(tmp_path / "p"), "--source", "raw.golf",
                 "--name", "my-model"]).startswith("c45rules: error: --name: a dbt model name is letters")


def test_duckdb_engine_errors(tmp_path):
    pytest.importorskip("duckdb")
    from c45rules.engines.duckdb import score_file
    ruleset = c45rules.fit(GOLF)
    out = tmp_path / "o.csv"
    with pytest.raises(InputError, match=r"^prediction_column and rule_column are both 'x'$"):
        score_file(ruleset, GOLF_CSV, out, prediction_column="x", rule_column="x")
    with pytest.raises(InputError, match=r"^fmt must be 'csv' or 'parquet', not 'xml'$"):
        score_file(ruleset, GOLF_CSV, out, fmt="xml")
    model = tmp_path / "m.yaml"
    assert cli_err(["fit", GOLF, "-q", "-o", str(model)])[0] == 0
    assert _cli(["predict", str(model), GOLF_CSV, "-o", str(out), "--engine", "duckdb",
                 "--prediction-column", "x", "--rule-column", "x"]) == \
        "c45rules: error: --prediction-column and --rule-column are both 'x'"
    assert _cli(["predict", str(model), GOLF_CSV, "-o", str(out), "--engine", "duckdb",
                 "--prediction-column", "outlook"]) == \
        (f"c45rules: error: {GOLF_CSV}: the input already has a column 'outlook'; name the output column"
         " differently with --prediction-column NAME")
    assert not out.exists()


def test_decimal_and_encoding_errors(tmp_path):
    with pytest.raises(InputError, match=r"golf\.csv: its fields are separated by ',', which decimal=','"
                                         r" cannot share; give the separator with sep$"):
        c45rules.fit(GOLF_CSV, "class", decimal=",")
    assert _cli(["rules", GOLF_CSV, "--target", "class", "--decimal", ","]) == \
        (f"c45rules: error: {GOLF_CSV}: its fields are separated by ',', which --decimal ',' cannot share;"
         " give the separator with --sep")
    path = tmp_path / "towns.csv"
    path.write_bytes("town,class\nZürich,a\nGenève,b\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"; give the file's codec as encoding='latin-1' or another$"):
        c45rules.fit(str(path), "class")
    assert _cli(["rules", str(path), "--target", "class"]).endswith(
        "; give the file's codec as --encoding 'latin-1' or another")
