"""Regression models as SQL (issue 54): every engine gives predict's number to 6 significant digits."""
from __future__ import annotations

import sqlite3

import duckdb
import numpy as np
import pandas as pd
import pytest
import sqlglot
from regression_cases import NINE, ROW, close, fold_scored, hand_model, hand_rows

from c45rules.errors import InputError
from c45rules.export import to_sql_select
from c45rules.export.regression_sql import regression_select, to_regression_sql
from c45rules.export.sql import SQL_DIALECTS


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _query(model, table: str, dialect: str) -> str:
    inner = regression_select(model, table, dialect)
    return f"SELECT {_q('predicted_value')} FROM ({inner}) AS s ORDER BY {_q(ROW)}"


def _ddl(model, number: str, text: str) -> str:
    return ", ".join([f"{_q(ROW)} INTEGER"] + [f"{_q(a.name)} {number if a.is_continuous else text}"
                                               for a in model.schema.attributes])


def _records(model, frame: pd.DataFrame) -> list[tuple]:
    names = [a.name for a in model.schema.attributes]
    return [(i, *(None if isinstance(v, float) and np.isnan(v) else v for v in row))
            for i, row in enumerate(frame[names].itertuples(index=False, name=None))]


def run_sqlite(model, frame: pd.DataFrame, number: str = "REAL", rows=None) -> list:
    con = sqlite3.connect(":memory:")
    con.execute(f"CREATE TABLE cases ({_ddl(model, number, 'TEXT')})")
    rows = _records(model, frame) if rows is None else rows
    con.executemany(f"INSERT INTO cases VALUES ({', '.join('?' * len(rows[0]))})", rows)
    return [r[0] for r in con.execute(_query(model, "cases", "sqlite"))]


# half the unknown cells of the continuous columns become NaN, which DOUBLE columns hold (pandas'
# NaN arrives as NULL): predict reads NaN as unknown, as the SQL must, in conditions and models
NAN_TRAP = ("UPDATE cases SET {c} = CAST('NaN' AS DOUBLE PRECISION) WHERE {c} IS NULL AND {r} % 2 = 0")


def _nan_trap(con, model) -> None:
    for a in model.schema.attributes:
        if a.is_continuous:
            con.execute(NAN_TRAP.format(c=_q(a.name), r=_q(ROW)))


def run_duckdb(model, frame: pd.DataFrame) -> list:
    """The unknowns of continuous columns half NULL, half NaN."""
    con = duckdb.connect()
    con.execute(f"CREATE TABLE cases ({_ddl(model, 'DOUBLE', 'VARCHAR')})")
    data = frame[[a.name for a in model.schema.attributes]].copy()
    data.insert(0, ROW, np.arange(len(data), dtype=np.int32))
    con.register("frame", data)
    con.execute("INSERT INTO cases SELECT * FROM frame")
    _nan_trap(con, model)
    return [r[0] for r in con.execute(_query(model, "cases", "duckdb")).fetchall()]


def run_postgres(conn, model, frame: pd.DataFrame) -> list:
    conn.execute(f"CREATE TABLE cases ({_ddl(model, 'DOUBLE PRECISION', 'TEXT')})")
    with conn.cursor() as cur:
        with cur.copy("COPY cases FROM STDIN") as copy:
            for r in _records(model, frame):
                copy.write_row(r)
    _nan_trap(conn, model)
    return [r[0] for r in conn.execute(_query(model, "cases", "postgres")).fetchall()]


@pytest.mark.parametrize("name", NINE)
def test_sqlite_and_duckdb_give_predict_on_the_nine_sets(name):
    s = fold_scored(name)
    assert close(run_sqlite(s.model, s.frame), s.want)
    assert close(run_duckdb(s.model, s.frame), s.want)


@pytest.mark.postgres
@pytest.mark.parametrize("name", NINE)
def test_postgres_gives_predict_on_the_nine_sets(name, pg):
    s = fold_scored(name)
    assert close(run_postgres(pg, s.model, s.frame), s.want)


def _hand():
    model = hand_model()
    frame = pd.DataFrame(hand_rows())
    frame["colour"] = frame["colour"].astype(object)
    return model, frame, model.predict(frame)


def test_unknowns_and_bounds_as_predict():
    """None / NaN: no condition holds, the mean in a linear model; an unseen category; clamps."""
    model, frame, want = _hand()
    assert len(set(np.round(want, 6))) > 20   # the rows reach many distinct values
    assert close(run_sqlite(model, frame), want)
    assert close(run_duckdb(model, frame), want)


@pytest.mark.postgres
def test_unknowns_and_bounds_as_predict_on_postgres(pg):
    model, frame, want = _hand()
    assert close(run_postgres(pg, model, frame), want)


def test_numbers_stored_as_text_and_bad_cells_read_as_unknown():
    model = hand_model()
    rows = [(0, " 4.5 ", "2.5", "red"), (1, "abc", "1e999", "green"), (2, "", "?", "blue"), (3, 7, "-1", "red")]
    got = run_sqlite(model, None, number="TEXT", rows=rows)
    frame = pd.DataFrame([{"x": 4.5, "z": 2.5, "colour": "red"}, {"x": None, "z": None, "colour": "green"},
                          {"x": None, "z": None, "colour": "blue"}, {"x": 7.0, "z": -1.0, "colour": "red"}])
    assert close(got, model.predict(frame))


@pytest.mark.parametrize("dialect", sorted(SQL_DIALECTS))
def test_every_dialect_parses_back(dialect):
    sql = regression_select(hand_model(), ("analytics", "cases"), dialect)
    tree = sqlglot.parse_one(sql, read=dialect)
    assert tree.find(sqlglot.exp.Nullif) is not None
    assert sqlglot.parse_one(to_regression_sql(hand_model(), dialect), read=dialect) is not None


def test_the_class_rules_select_points_to_the_regression_one():
    with pytest.raises(InputError, match="regression_sql.regression_select"):
        to_sql_select(hand_model(), "cases", "duckdb")


def test_instances_are_refused_by_name():
    model = hand_model()
    from c45rules.model.regression import Instances, RegressionModel
    knn = RegressionModel(model.schema, model.committees, 0.0, 100.0, 0.05, model.means, 2,
                          Instances(((1.0, 0.0, "red"), (5.0, 1.0, "blue")), (3.0, 40.0)))
    with pytest.raises(InputError, match=r"instances \(neighbors = 2\)"):
        regression_select(knn, "cases")
    with pytest.raises(InputError, match="collides"):
        regression_select(model, "cases", prediction_column="X")


def test_five_hundred_rules_stay_within_sqlites_expression_depth():
    """The learner's default max_rules is 500: a left-to-right sum of 500 rules' values passes
    SQLite's depth limit of 1000 ("Expression tree is too large"); the balanced sums do not."""
    from c45rules.data.schema import Attribute
    from c45rules.model.regression import Committee, LinearModel, RegressionModel, RegressionRule, regression_schema
    from c45rules.model.ruleset import Condition
    n = 500
    schema = regression_schema((Attribute("x", "continuous"), Attribute("z", "continuous")), "y")
    rules = tuple(RegressionRule(i + 1, (Condition("x", ">", float(i)), Condition("z", "<=", float(n - i))),
                                 LinearModel(float(i), (("x", 0.5), ("z", 0.25))), 5, 1.0, 0.0, 100.0, 1.0, 0.0, 100.0)
                  for i in range(n))
    model = RegressionModel(schema, (Committee(rules, LinearModel(3.0)),), 0.0, 100.0, 0.05, (("x", 1.0), ("z", 2.0)))
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.uniform(0, n, 100), "z": rng.uniform(0, n, 100)})
    frame.loc[::7, "x"] = np.nan
    assert close(run_sqlite(model, frame), model.predict(frame))
