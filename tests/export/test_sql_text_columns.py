"""Issue 47.1: the exported SQL decides as `predict` whatever a continuous column's storage type.

Each shared set with a continuous attribute: a model is fitted, its test CSV is loaded with every
column as text (SQLite TEXT as `.import --csv` makes them, DuckDB's read_csv all_varchar,
PostgreSQL text, Spark string), a few cells of a tested continuous column are replaced by hostile
texts, and the exported SQL must give, row for row, the class and rule id RuleSet.predict gives
on the typed load, each text read by c45rules.data.numbers (a bad cell is unknown).
"""
from __future__ import annotations

import csv
import functools
import math
import re
import sqlite3

import duckdb
import numpy as np
import pytest
from sqlglot import exp

from c45rules import InputError
from c45rules.model.boosted import BoostedRuleSet
from c45rules.data import load_stem
from c45rules.data.numbers import number_or_none
from c45rules.data.schema import Dataset
from c45rules.export import to_sql_select
from c45rules.export.sql import sql_as_number, _render

from export_cases import DATA, boosted_model
from test_sql import _q

ROW = "__row__"
UNKNOWN = ("", "?")   # unknown tokens of a continuous cell; every other text is read by the grammar
HOSTILE = (" 12 ", "+5", ".5", "5.", "1e3", "abc", "1_000", "inf", "NaN", "1e999", "١٢", "", "?",
           "\t-1.5e-3\n", "1,5", "0x10", "1e-400", "5e-324", "12abc", "--1", "1e", "e5", ".", "+",
           "1.2.3", "1e5.5", "Infinity", "１２", "1.7976931348623157e308", "1.7976931348623159e308",
           "0.1", "123456789.123456789", "-0", "\v7\f", "7\u2028", "7\n\n", "NA", "nan", "NULL", "1e+5",
           "-.5E-2", "00012", "1 2", "1e5 ", " ", "+.e1")
MAX_ROWS = 600        # test rows per set (spread evenly), so each engine runs the lot in seconds
MAX_LEARN = 1500      # training cases per set (spread evenly)


def _sets_with_continuous() -> list[str]:
    """Every shared set whose INDEX.md row counts a continuous attribute."""
    names = []
    for line in (DATA / "INDEX.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 3 and re.fullmatch(r"\d+", cells[2]) and int(cells[2]) > 0:
            names.append(cells[0])
    return names


SETS = _sets_with_continuous()


def _spread(n: int, k: int) -> np.ndarray:
    return np.unique(np.linspace(0, n - 1, min(n, k)).astype(int))


def read_number(text: str | None) -> float:
    """What a continuous text cell is to the library with bad cells read as unknown: NaN when unknown."""
    if text is None or text in UNKNOWN:
        return math.nan
    value = number_or_none(text)
    return math.nan if value is None else value


class TextCase:
    """A model, the header and text rows of a CSV (with a row number first), and the library's answer."""

    def __init__(self, name: str, model, header: list[str], rows: list[list[str | None]]):
        self.name, self.model, self.rows = name, model, rows
        # SQL engines match names regardless of case: a column that repeats another's name but for
        # case is renamed when the model does not test it (the export refuses tested twins)
        used = {a for rs in (model.trials if isinstance(model, BoostedRuleSet) else (model,))
                for a in rs.used_attributes()}
        index, seen, self.header = {}, set(), []
        for j, c in enumerate(header):
            index.setdefault(c, j)
            while c.casefold() in seen and c not in used:
                c += "_"
            seen.add(c.casefold())
            self.header.append(c)
        schema = model.schema
        columns = []
        for a in schema.attributes:
            if a.kind == "ignore":
                columns.append(np.zeros(len(rows), dtype=np.int8))
                continue
            j = index[a.name]
            cells = [r[j] for r in rows]
            if a.is_continuous:
                columns.append(np.array([read_number(c) for c in cells]))
            else:
                codes = [-1 if c is None or c in UNKNOWN else (a.values.index(c) if c in a.values else -2)
                         for c in cells]
                columns.append(np.array(codes, dtype=np.int32))
        ds = Dataset(schema, columns, None)
        self.classes = model.predict(ds)
        self.rules = model.trial_rules(ds) if isinstance(model, BoostedRuleSet) else model.predict_rule(ds)


@functools.lru_cache(maxsize=None)
def text_case(name: str, boosted: bool = False) -> TextCase:
    """The set's model (fitted on at most MAX_LEARN cases) and its test CSV as text, hostile cells in."""
    from c45rules.learn.pipeline import fit

    train, test = load_stem(DATA / name / name, test=True)
    if boosted:
        model = boosted_model(name, 3)
    else:
        model = fit(train.subset(_spread(train.n, MAX_LEARN)))
    typed = test if test is not None else train
    path = DATA / name / (f"{name}_test.csv" if test is not None else f"{name}.csv")
    with open(path, newline="", encoding="utf-8") as f:
        header, *rows = list(csv.reader(f))
    assert len(rows) == typed.n, f"{path} and the C4.5 files differ in length"
    pick = _spread(typed.n, MAX_ROWS)
    rows = [rows[i] for i in pick]
    # the typed load is the library's: each plain text cell reads to the loader's very value
    for a, col in zip(typed.schema.attributes, typed.columns):
        if a.is_continuous:
            j = header.index(a.name)
            got = np.array([read_number(r[j]) for r in rows])
            np.testing.assert_array_equal(got, col[pick])
    trials = model.trials if boosted else (model,)
    tested = sorted({c.attribute for rs in trials for r in rs.rules if r.fires for c in r.conditions
                     if c.op in ("<=", ">")})
    if tested:   # hostile texts in the first tested continuous column, on rows spread over the set
        j = header.index(tested[0])
        for k, text in enumerate(HOSTILE):
            rows[(k * 7) % len(rows)][j] = text
    return TextCase(name, model, [ROW] + header, [[str(i)] + r for i, r in enumerate(rows)])


def _outputs(case: TextCase) -> list[str]:
    if isinstance(case.model, BoostedRuleSet):
        return ["predicted_class"] + [f"rule_id_{t}" for t in range(1, len(case.model.trials) + 1)]
    return ["predicted_class", "rule_id"]


def _query(case: TextCase, table: str, dialect: str) -> str:
    try:
        inner = to_sql_select(case.model, table, dialect)
    except InputError as e:   # vehicle's model tests two columns whose names differ only in case
        assert "only in case" in str(e)
        pytest.skip(str(e))
    q = (lambda n: "`" + n.replace("`", "``") + "`") if dialect == "spark" else _q
    # the row number is text too: ordered as a number
    return (f"SELECT {', '.join(q(c) for c in [ROW] + _outputs(case))} FROM ({inner}) AS s"
            f" ORDER BY CAST({q(ROW)} AS INTEGER)")


def _check(case: TextCase, got: list[tuple]) -> None:
    assert [int(g[0]) for g in got] == list(range(len(case.rows)))
    rules = np.asarray(case.rules)
    bad = []
    for i, g in enumerate(got):
        want = (case.classes[i],) + tuple(int(v) for v in np.atleast_1d(rules[i]))
        if tuple(g[1:]) != want:
            bad.append((i, tuple(g[1:]), want))
    assert not bad, (f"{case.name}: {len(bad)} of {len(got)} rows differ; first: row {bad[0][0]}"
                     f" {dict(zip(case.header, case.rows[bad[0][0]]))!r}: SQL {bad[0][1]!r}, library {bad[0][2]!r}")


def run_sqlite(case: TextCase) -> list[tuple]:
    query = _query(case, "t", "sqlite")   # first: a model testing two case twins is skipped, before
    con = sqlite3.connect(":memory:")    # SQLite refuses their table for the same reason
    # as `sqlite3 db ".import --csv file t"` makes it: every column TEXT
    con.execute(f"CREATE TABLE t ({', '.join(_q(c) + ' TEXT' for c in case.header)})")
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(case.header))})", case.rows)
    assert {r[0] for r in con.execute(f"SELECT DISTINCT typeof({_q(case.header[1])}) FROM t")} <= {"text", "null"}
    return con.execute(query).fetchall()


def run_duckdb(case: TextCase, tmp_path) -> list[tuple]:
    path = tmp_path / f"{case.name}.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([case.header] + case.rows)
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT * FROM read_csv(?, all_varchar = true, header = true)", [str(path)])
    types = {r[2] for r in con.execute("PRAGMA table_info('t')").fetchall()}
    assert types == {"VARCHAR"}
    return con.execute(_query(case, "t", "duckdb")).fetchall()


def run_postgres(conn, case: TextCase) -> list[tuple]:
    conn.execute(f"CREATE TABLE t ({', '.join(_q(c) + ' TEXT' for c in case.header)})")
    with conn.cursor() as cur:
        with cur.copy("COPY t FROM STDIN") as copy:
            for r in case.rows:
                copy.write_row(r)
    got = conn.execute(_query(case, "t", "postgres")).fetchall()
    conn.execute("DROP TABLE t")
    return got


# ---- the grammar, cell by cell ------------------------------------------------------------------------
def _as_number_select(dialect: str) -> str:
    return "SELECT " + _render(sql_as_number(exp.column("x", quoted=True), dialect), dialect, False) + " FROM v"


def _expected_numbers() -> list[float | None]:
    return [None if math.isnan(v := read_number(t)) else v for t in HOSTILE]


def _same(got: list, want: list) -> None:
    assert len(got) == len(want)
    bad = [(HOSTILE[i], g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, bad


def test_the_material_reaches_every_kind_of_cell():
    kinds = {number_or_none(t) is None for t in HOSTILE if t not in UNKNOWN}
    assert kinds == {True, False}
    assert math.isnan(read_number("1e999")) and read_number("1e-400") == 0.0 and read_number(" 12 ") == 12.0
    assert len(SETS) >= 15 and "crx" in SETS and "income" not in SETS


def test_sqlite_reads_text_as_the_grammar_says():
    con = sqlite3.connect(":memory:")
    con.execute('CREATE TABLE v ("x" TEXT)')
    con.executemany("INSERT INTO v VALUES (?)", [(t,) for t in HOSTILE])
    _same([r[0] for r in con.execute(_as_number_select("sqlite") + " ORDER BY rowid")], _expected_numbers())
    # numbers stored as numbers come through as they are (REAL, INTEGER), NULL stays NULL
    got = con.execute("SELECT " + _render(sql_as_number(exp.column("x", quoted=True), "sqlite"), "sqlite", False)
                      + " FROM (SELECT 0.1 + 0.2 AS x UNION ALL SELECT 7 UNION ALL SELECT NULL"
                      " UNION ALL SELECT 1e308 * 10)").fetchall()
    assert [g[0] for g in got] == [0.1 + 0.2, 7, None, math.inf]


def test_duckdb_reads_text_as_the_grammar_says():
    con = duckdb.connect()
    con.execute('CREATE TABLE v (i INTEGER, "x" VARCHAR)')
    con.executemany("INSERT INTO v VALUES (?, ?)", list(enumerate(HOSTILE)))
    _same([r[0] for r in con.execute(_as_number_select("duckdb") + " ORDER BY i").fetchall()], _expected_numbers())
    con.execute('CREATE TABLE w ("x" DOUBLE)')
    con.executemany("INSERT INTO w VALUES (?)", [(0.1 + 0.2,), (math.inf,), (None,)])
    got = con.execute(_as_number_select("duckdb").replace("FROM v", "FROM w")).fetchall()
    assert [g[0] for g in got] == [0.1 + 0.2, math.inf, None]


@pytest.mark.postgres
def test_postgres_reads_text_as_the_grammar_says(pg):
    pg.execute('CREATE TABLE v (i INTEGER, "x" TEXT)')
    with pg.cursor() as cur:
        cur.executemany("INSERT INTO v VALUES (%s, %s)", list(enumerate(HOSTILE)))
    _same([r[0] for r in pg.execute(_as_number_select("postgres") + " ORDER BY i").fetchall()],
          _expected_numbers())
    pg.execute('CREATE TABLE w ("x" DOUBLE PRECISION)')
    with pg.cursor() as cur:
        cur.executemany("INSERT INTO w VALUES (%s)", [(0.1 + 0.2,), (math.inf,), (None,)])
    got = pg.execute(_as_number_select("postgres").replace("FROM v", "FROM w")).fetchall()
    assert [g[0] for g in got] == [0.1 + 0.2, math.inf, None]


# ---- every shared set with a continuous attribute, loaded as text -----------------------------------------
@pytest.mark.parametrize("name", SETS)
def test_sqlite_text_table_decides_as_predict(name):
    case = text_case(name)
    _check(case, run_sqlite(case))


@pytest.mark.parametrize("name", SETS)
def test_duckdb_all_varchar_decides_as_predict(name, tmp_path):
    case = text_case(name)
    _check(case, run_duckdb(case, tmp_path))


@pytest.mark.postgres
@pytest.mark.parametrize("name", SETS)
def test_postgres_text_table_decides_as_predict(name, pg):
    case = text_case(name)
    _check(case, run_postgres(pg, case))


BOOSTED = ("crx", "hypo")


@pytest.mark.parametrize("name", BOOSTED)
def test_boosted_sql_on_text_tables_decides_as_predict(name, tmp_path):
    case = text_case(name, boosted=True)
    _check(case, run_sqlite(case))
    _check(case, run_duckdb(case, tmp_path))


@pytest.mark.postgres
@pytest.mark.parametrize("name", BOOSTED)
def test_boosted_sql_on_postgres_text_decides_as_predict(name, pg):
    case = text_case(name, boosted=True)
    _check(case, run_postgres(pg, case))


def _run_spark(spark, case: TextCase) -> list[tuple]:
    from pyspark.sql import types as T

    schema = T.StructType([T.StructField(c, T.StringType(), True) for c in case.header])
    spark.createDataFrame(case.rows, schema).createOrReplaceTempView("t")
    return [tuple(r) for r in spark.sql(_query(case, "t", "spark")).collect()]


def test_spark_reads_text_as_the_grammar_says(spark):
    """String columns under ANSI mode, as Spark 4 sets it (a plain CAST of bad text would raise)."""
    from pyspark.sql import types as T

    assert spark.conf.get("spark.sql.ansi.enabled").lower() == "true"
    values = spark.createDataFrame([(t,) for t in HOSTILE], T.StructType([T.StructField("x", T.StringType())]))
    values.createOrReplaceTempView("v")
    _same([r[0] for r in spark.sql(_as_number_select("spark")).collect()], _expected_numbers())


@pytest.mark.parametrize("name", SETS)
def test_spark_string_columns_decide_as_predict(name, spark):
    case = text_case(name)
    _check(case, _run_spark(spark, case))


@pytest.mark.parametrize("name", BOOSTED)
def test_boosted_sql_on_spark_strings_decides_as_predict(name, spark):
    case = text_case(name, boosted=True)
    _check(case, _run_spark(spark, case))
