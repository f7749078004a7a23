"""SQL forms (flat, nested) and the engine limits a long rule list can pass."""
from __future__ import annotations

import dataclasses
import json
import sqlite3

import pandas as pd
import pytest
from sqlglot import exp

from c45rules.data.reading import DEFAULT_READ
from c45rules.export.sql import (sql_as_number, _render, case_nesting, sql_nesting, sql_case_expression,
                                 sql_limit_warnings, to_sql_case, to_sql_select)
from c45rules.learn.pipeline import fit

from reference import DATA

duckdb = pytest.importorskip("duckdb")


def _cases(stem: str, ruleset) -> pd.DataFrame:
    """The stem's test CSV as a table stores it: continuous columns numbers (unknown NULL), the rest text."""
    frame = pd.read_csv(DATA / stem / f"{stem}_test.csv", dtype=str, keep_default_na=False)
    for a in ruleset.schema.attributes:
        if a.is_continuous:
            cell = frame[a.name]
            frame[a.name] = pd.to_numeric(cell.where(~cell.isin(DEFAULT_READ.tokens)), errors="raise")
    return frame


@pytest.fixture(scope="module")
def models():
    return {stem: fit(DATA / stem / stem) for stem in ("crx", "hypo")}


@pytest.mark.parametrize("stem", ["crx", "hypo"])
def test_flat_and_nested_decide_alike_in_duckdb_and_sqlite(models, stem):
    ruleset = models[stem]
    cases = _cases(stem, ruleset)
    expected_class = ruleset.predict(cases).tolist()
    expected_rule = ruleset.predict_rule(cases).tolist()
    decisions = len(set(expected_rule))
    for form, depth in (("flat", 1), ("nested", len([r for r in ruleset.rules if r.fires]))):
        assert case_nesting(sql_case_expression(ruleset, "sqlite", form=form, typed=True)) == depth
        # each continuous column is read through a CASE of its own (the as-number expression): one level more
        assert case_nesting(sql_case_expression(ruleset, "sqlite", form=form)) in (depth, depth + 1)
        with sqlite3.connect(":memory:") as con:
            cases.to_sql("cases", con, index=False)
            got = pd.read_sql(to_sql_select(ruleset, "cases", "sqlite", form=form), con)
        assert got["predicted_class"].tolist() == expected_class, (form, "sqlite")
        assert got["rule_id"].tolist() == expected_rule, (form, "sqlite")
        con = duckdb.connect()
        con.register("cases", cases)
        got = con.execute(to_sql_select(ruleset, "cases", "duckdb", form=form, confidence_column="c")).df()
        assert got["predicted_class"].tolist() == expected_class, (form, "duckdb")
        assert got["rule_id"].tolist() == expected_rule, (form, "duckdb")
        assert got["c"].tolist() == ruleset.decision_confidences()[ruleset.rule_index(cases)].tolist()
    assert decisions >= 5


def test_nested_form_nests_in_else():
    ruleset = fit(DATA / "golf" / "golf")
    flat = to_sql_case(ruleset, "sqlite", pretty=False, typed=True)
    nested = to_sql_case(ruleset, "sqlite", pretty=False, form="nested", typed=True)
    whens = flat.count(" WHEN ")
    assert flat.count("CASE") == 1 and whens >= 2
    assert nested.count("CASE WHEN") == whens and nested.count(" ELSE CASE WHEN ") == whens - 1
    assert nested.endswith(" END" * whens)


def _long_names(ruleset, width: int, fill: str = "x"):
    """`ruleset` with every attribute renamed to a `width`-character name (the SQL grows, the rules stay)."""
    names = {a.name: f"{a.name}_{fill * width}"[:width] for a in ruleset.schema.attributes}
    schema = dataclasses.replace(ruleset.schema, attributes=tuple(
        dataclasses.replace(a, name=names[a.name]) for a in ruleset.schema.attributes))
    rules = tuple(dataclasses.replace(r, conditions=tuple(dataclasses.replace(c, attribute=names[c.attribute])
                                                          for c in r.conditions)) for r in ruleset.rules)
    return dataclasses.replace(ruleset, schema=schema, rules=rules)


@pytest.mark.parametrize("dialect", ["bigquery", "duckdb", "postgres", "snowflake", "tsql", "oracle", "sqlite"])
def test_the_sql_grows_by_one_conversion_per_continuous_column(dialect):
    """Issue 47.1: each continuous column the rules test is read as a number once per row (SQLite: once per
    output column), not at each of its references: the SQL is the typed SQL plus one as-number
    expression per column and a constant."""
    synth = fit(DATA / "synth_10k" / "synth_10k")   # some 60 rules, hundreds of references to continuous columns
    tested = sorted({c.attribute for r in synth.rules if r.fires for c in r.conditions if c.op in ("<=", ">")})
    references = sum(1 for r in synth.rules if r.fires for c in r.conditions if c.op in ("<=", ">"))
    assert len(tested) >= 10 and references >= 10 * len(tested)
    outputs = 3 if dialect == "sqlite" else 1   # class, rule id, confidence: a scalar subquery each in SQLite
    conversion = sum(len(_render(sql_as_number(exp.column(a, table="t", quoted=True), dialect), dialect, False))
                     for a in tested)
    kw = dict(pretty=False, confidence_column="confidence")
    typed = len(to_sql_select(synth, "cases", dialect, typed=True, **kw))
    assert typed < len(to_sql_select(synth, "cases", dialect, **kw)) <= typed + outputs * (conversion + 40 * len(tested)) + 100


@pytest.mark.slow
def test_a_long_rule_list_passes_the_bigquery_and_snowflake_limits():
    synth = fit(DATA / "synth_10k" / "synth_10k")   # some 60 rules testing 30 columns
    short = to_sql_select(synth, "t", "bigquery")
    assert len(short) < 1024 * 1024 and sql_limit_warnings(short, "bigquery", 1) == []
    # names long enough that the tests on discrete columns and the conversions pass 1 MB
    text = to_sql_select(_long_names(synth, 4000), "t", "bigquery")
    assert len(text) > 1024 * 1024
    assert sql_limit_warnings(text, "bigquery", 1) == [
        f"the bigquery SQL has {len(text):,} characters, over the limit of 1,048,576 (BigQuery's 'Quotas and"
        " limits' page: maximum unresolved GoogleSQL query length 1,024K characters); a model with fewer"
        " rules (fit with a lower -c) gives a shorter statement"]
    # Snowflake's limit is in bytes: names of 'é' (two bytes of UTF-8) pass it in fewer characters
    text = to_sql_select(_long_names(synth, 2000, "é"), "t", "snowflake")
    size = len(text.encode("utf-8"))
    assert len(text) < 1024 * 1024 < size
    assert sql_limit_warnings(text, "snowflake", 1) == [
        f"the snowflake SQL has {size:,} bytes of text, over the limit of 1,048,576 (Snowflake's 'Limits on"
        " Query Text Size' page: keep a statement's text within 1 MB; a longer one is truncated where the"
        " query history keeps it, so it cannot be rerun); a model with fewer rules (fit with a lower -c)"
        " gives a shorter statement"]
    assert sql_limit_warnings(text, "bigquery", 1) == []   # the same text is within BigQuery's characters
    assert sql_limit_warnings(text, "postgres", 1) == []   # no limit known there


def test_nesting_limits():
    assert sql_limit_warnings("x", "tsql", 10) == []
    assert sql_limit_warnings("x", "tsql", 11) == [
        "the tsql SQL has CASE expressions nested 11 deep, over the limit of 10 (SQL Server's CASE"
        " (Transact-SQL) reference: only 10 levels of nesting are allowed in CASE expressions); use --form"
        " flat (one CASE level)"]
    assert sql_limit_warnings("x", "sqlite", 23) == []
    assert len(sql_limit_warnings("x", "sqlite", 24)) == 1


def test_sqlite_and_duckdb_nesting_limits_hold():
    """The measured limits of SQL_LIMITS: the deepest nesting that runs, and one more that fails."""
    def query(levels: int) -> str:
        text = "0"
        for i in range(levels):
            text = f"CASE WHEN x = {i} THEN {i} ELSE {text} END"
        return f"SELECT {text} FROM (SELECT -1 AS x)"
    for connect, deepest in ((lambda: sqlite3.connect(":memory:"), 23), (duckdb.connect, 992)):
        assert connect().execute(query(deepest)).fetchall() == [(0,)]
        with pytest.raises(Exception, match="(?i)stack overflow|expression depth"):
            connect().execute(query(deepest + 1)).fetchall()
    # SQLite's SELECT reads converted columns in a scalar subquery, which takes a level of its own:
    # sql_nesting counts it
    wrapped = query(22).replace("SELECT CASE", "SELECT (SELECT CASE", 1).replace(
        " FROM (SELECT -1 AS x)", " FROM (SELECT 1 AS c1 LIMIT -1 OFFSET 0) AS n) FROM (SELECT -1 AS x)")
    assert sqlite3.connect(":memory:").execute(wrapped).fetchall() == [(0,)]
    with pytest.raises(Exception, match="(?i)stack overflow"):
        sqlite3.connect(":memory:").execute(wrapped.replace("ELSE 0 END", "ELSE CASE WHEN x = 22 THEN 22"
                                                            " ELSE 0 END END", 1)).fetchall()
    crx = fit(DATA / "crx" / "crx")
    assert sql_nesting(crx, "sqlite", "nested") == sql_nesting(crx, "duckdb", "nested") + 1


def cli_err(argv: list[str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `c45rules ARGV` run in this process."""
    import contextlib
    import io

    from c45rules.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_cli_form_and_json(tmp_path):
    from c45rules.export import write_yaml
    ruleset = fit(DATA / "crx" / "crx")
    model = tmp_path / "crx.yaml"
    write_yaml(ruleset, model)
    fired = sql_nesting(ruleset, "tsql", "nested")   # a CASE per rule (the conversions are apart)
    assert fired == len([r for r in ruleset.rules if r.fires]) > 10
    # the standalone CASE holds the as-number CASE within each condition: one level more
    assert sql_nesting(ruleset, "tsql", "nested", case_only=True) == fired + 1
    assert sql_nesting(ruleset, "tsql", "flat") == 1 and sql_nesting(ruleset, "tsql", "flat", case_only=True) == 2
    code, out, err = cli_err(["export", str(model), "--to", "sql", "--dialect", "tsql", "--form", "nested",
                              "-o", str(tmp_path / "n.sql"), "--json"])
    assert code == 0
    text = (tmp_path / "n.sql").read_text()
    warning = (f"the tsql SQL has CASE expressions nested {fired} deep, over the limit of 10 (SQL Server's"
               " CASE (Transact-SQL) reference: only 10 levels of nesting are allowed in CASE expressions);"
               " use --form flat (one CASE level)")
    assert json.loads(out) == {"dialect": "tsql", "characters": len(text), "nesting": fired,
                               "warnings": [warning]}
    assert err == f"c45rules: warning: {warning}\n"
    code, out, err = cli_err(["export", str(model), "--to", "sql", "--dialect", "tsql",
                              "-o", str(tmp_path / "f.sql"), "--json"])
    assert (code, err) == (0, "")
    assert json.loads(out) == {"dialect": "tsql", "characters": len((tmp_path / "f.sql").read_text()),
                               "nesting": sql_nesting(ruleset, "tsql", "flat"), "warnings": []}
    code, out, err = cli_err(["export", str(model), "--to", "sql", "--dialect", "tsql", "--case-only",
                              "-o", str(tmp_path / "c.sql"), "--json"])   # the conversion within: 2 levels
    assert (code, err, json.loads(out)["nesting"]) == (0, "", 2)
    code, _, err = cli_err(["export", str(model), "--to", "sql", "--json"])
    assert (code, err) == (2, "c45rules: error: --json prints a summary of the SQL on stdout: give the SQL"
                              " file with -o\n")
    code, _, err = cli_err(["export", str(model), "--to", "python", "--form", "nested"])
    assert (code, err) == (2, "c45rules: error: --json and --form are for --to sql, not --to python\n")
