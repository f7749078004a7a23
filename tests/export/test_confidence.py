"""Confidence where decisions run, and reviewer notes in the generated code.

predict --confidence, the SQL's confidence column and the Python module's
predict_confidence give RuleSet.predict_confidence row for row (6 significant digits);
notes become comments that no text can break out of.
"""
from __future__ import annotations

import math
import sqlite3
from dataclasses import replace

import duckdb
import numpy as np
import pandas as pd
import pytest

from c45rules.export import to_python, to_sql_select
from export_cases import FIT_DATASETS, HOSTILE_VALUES, encode, fit_scored, golf_ruleset

TABLE = "cases"


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _load(con, rs, rows, real: str, text: str) -> None:
    cols = [a for a in rs.schema.attributes if a.kind != "ignore"]
    ddl = ", ".join(['"__row__" INTEGER'] + [f"{_q(a.name)} {real if a.is_continuous else text}" for a in cols])
    con.execute(f"CREATE TABLE {_q(TABLE)} ({ddl})")
    con.executemany(f"INSERT INTO {_q(TABLE)} VALUES ({', '.join('?' * (len(cols) + 1))})",
                    [(i,) + tuple(None if isinstance(v := r.get(a.name), float) and math.isnan(v) else v
                                  for a in cols) for i, r in enumerate(rows)])


def _sql_confidences(con, rs) -> list[float]:
    inner = to_sql_select(rs, TABLE, "sqlite" if isinstance(con, sqlite3.Connection) else "duckdb",
                          confidence_column="confidence")
    # a literal such as 0.998702 is a DECIMAL in DuckDB and a REAL in SQLite: the same 6 digits
    return [float(r[0]) for r in con.execute(f'SELECT "confidence" FROM ({inner}) AS s ORDER BY "__row__"').fetchall()]


@pytest.mark.parametrize("name", FIT_DATASETS)
def test_sql_and_python_confidences_are_the_librarys(name):
    s = fit_scored(name)
    rs, rows = s.ruleset, s.rows
    want = rs.predict_confidence(encode(rs.schema, rows))
    # the same numbers the library gives: 1 - error for a rule, the Laplace share for the default
    table = rs.decision_confidences()
    assert table[0] == float(f"{(np.asarray(rs.default_counts)[rs.schema.classes.index(rs.default_class)] + 1) / (sum(rs.default_counts) + len(rs.schema.classes)):.6g}")
    assert all(table[k + 1] == float(f"{r.confidence:.6g}") for k, r in enumerate(rs.rules))
    assert list(want) == [table[list(rs.rule_ids()).index(i)] for i in s.rules]
    with sqlite3.connect(":memory:") as con:
        _load(con, rs, rows, "REAL", "TEXT")
        assert _sql_confidences(con, rs) == list(want)
    namespace: dict = {"__name__": "exported"}
    exec(compile(to_python(rs), "<exported>", "exec"), namespace)
    assert [namespace["predict_confidence"](r) for r in rows] == list(want)


def test_duckdb_confidence_with_nan_in_continuous_columns():
    s = fit_scored("hypo")
    rs, rows = s.ruleset, s.rows
    want = rs.predict_confidence(encode(rs.schema, rows))
    con = duckdb.connect()
    _load(con, rs, rows, "DOUBLE", "VARCHAR")
    assert _sql_confidences(con, rs) == list(want)


def _noted(rs, text: str):
    rules = list(rs.rules)
    rules[0] = replace(rules[0], note=text)
    return replace(rs, rules=tuple(rules), notes=text)


@pytest.mark.parametrize("text", [*HOSTILE_VALUES, "x\n DROP TABLE cases; --", "x\nimport os; os.system('echo pwned')",
                                  "x\u2028y", "x\x00y", "x\x85y", "x\x0cy", "\r"])
def test_notes_become_comments_nothing_can_escape(text):
    rs = _noted(golf_ruleset(), text)
    sql = to_sql_select(rs, TABLE, "sqlite")
    head = sql[:sql.index("SELECT")]
    assert head.count("\n") == 2 and all(line.startswith("-- ") for line in head.splitlines())
    rows = [{"outlook": "sunny", "temperature": 80.0, "humidity": 90.0, "windy": "true"},
            {"outlook": "rain", "temperature": 70.0, "humidity": 70.0, "windy": "false"}]
    with sqlite3.connect(":memory:") as con:
        _load(con, rs, rows, "REAL", "TEXT")
        got = con.execute(f'SELECT "predicted_class", "rule_id" FROM ({sql}) AS s ORDER BY "__row__"').fetchall()
        assert con.execute(f"SELECT count(*) FROM {_q(TABLE)}").fetchone()[0] == 2   # still there
    assert got == list(zip(rs.predict(pd.DataFrame(rows)), rs.predict_rule(pd.DataFrame(rows)).tolist()))
    source = to_python(rs)
    notes = [line for line in source.splitlines() if line.startswith(("# notes:", "# rule 1:", "    # note:"))]
    assert len(notes) == 3 and all("\n" not in n and "\r" not in n for n in notes)
    namespace: dict = {"__name__": "exported"}
    exec(compile(source, "<exported>", "exec"), namespace)
    assert [namespace["predict"](r) for r in rows] == list(rs.predict(pd.DataFrame(rows)))


def test_note_text_is_shown_readably():
    rs = _noted(golf_ruleset(), "asked for by the regulator; see ticket #12\nsecond line")
    sql = to_sql_select(rs, TABLE, "sqlite")
    assert sql.startswith("-- notes: asked for by the regulator; see ticket #12\\nsecond line\n"
                          "-- rule 1: asked for by the regulator; see ticket #12\\nsecond line\nSELECT")
    assert "    # note: asked for by the regulator; see ticket #12\\nsecond line" in to_python(rs)
    assert to_sql_select(golf_ruleset(), TABLE, "sqlite").startswith("SELECT")   # no notes: no comment
