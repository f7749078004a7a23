"""SQL export: exact text, every dialect parses it back, and SQLite / DuckDB / PostgreSQL
give the library's class and rule id on every row, edges and unknowns included."""
from __future__ import annotations

import math
import sqlite3

import duckdb
import numpy as np
import pandas as pd
import pytest
import sqlglot
from sqlglot import exp

from c45rules import Attribute, Condition, InputError, ModelError, Rule, RuleSet, Schema
from c45rules.export import SQL_DIALECTS, to_sql_case, to_sql_select
from c45rules.export.sql import sql_as_number

from export_cases import FIT_DATASETS, HOSTILE_VALUES, UNSEEN, Scored, golf_ruleset, score

DIALECTS = ("sqlite", "duckdb", "postgres", "mysql", "snowflake", "bigquery", "spark",
            "databricks", "tsql", "oracle", "trino")


# ---- exact text -------------------------------------------------------------------------------
def test_case_is_flat_first_hit_and_leaves_out_rules_that_never_fire():
    assert to_sql_case(golf_ruleset(), "sqlite", pretty=False, typed=True) == (
        "CASE WHEN \"outlook\" = 'sunny' AND \"humidity\" > 75.0 THEN 'Don''t Play'"
        " WHEN \"outlook\" = 'rain' AND \"windy\" = 'true' THEN 'Don''t Play'"
        " WHEN \"outlook\" = 'overcast' THEN 'Play'"
        " WHEN \"humidity\" <= 75.0 THEN 'Play' ELSE 'Play' END")
    assert to_sql_case(golf_ruleset(), "sqlite", output="rule", pretty=False, typed=True) == (
        "CASE WHEN \"outlook\" = 'sunny' AND \"humidity\" > 75.0 THEN 1"
        " WHEN \"outlook\" = 'rain' AND \"windy\" = 'true' THEN 2"
        " WHEN \"outlook\" = 'overcast' THEN 3"
        " WHEN \"humidity\" <= 75.0 THEN 4 ELSE 0 END")


def test_select_keeps_every_column_and_names_the_outputs():
    sql = to_sql_select(golf_ruleset(), "weather", "sqlite", pretty=False)
    # SQLite has no LATERAL: each output reads the converted column in a scalar subquery of its own
    assert sql.startswith('SELECT "t".*, (SELECT CASE WHEN "t"."outlook" = \'sunny\' AND "n"."c1" > 75.0 THEN ')
    assert ' FROM (SELECT (CASE WHEN TYPEOF("t"."humidity") ' in sql
    assert sql.endswith(' AS "c1" LIMIT -1 OFFSET 0) AS "n") AS "rule_id" FROM "weather" AS "t"')
    assert "ELSE 'Play' END FROM (SELECT " in sql and ') AS "n") AS "predicted_class", ' in sql
    assert to_sql_select(golf_ruleset(), "weather", "sqlite", pretty=False, typed=True) == (
        'SELECT "t".*, ' + to_sql_case(golf_ruleset(), "sqlite", pretty=False, typed=True, table_alias="t")
        + ' AS "predicted_class", '
        + to_sql_case(golf_ruleset(), "sqlite", output="rule", pretty=False, typed=True, table_alias="t")
        + ' AS "rule_id" FROM "weather" AS "t"')
    named = to_sql_select(golf_ruleset(), "weather", "duckdb", prediction_column="pred class",
                          rule_column="why", table_alias="w", pretty=False)
    assert 'AS "pred class"' in named and 'AS "why"' in named and 'FROM "weather" AS "w"' in named
    assert '"w"."humidity"' in named
    no_rule = to_sql_select(golf_ruleset(), "weather", "sqlite", rule_column=None, pretty=False)
    assert "rule_id" not in no_rule and "THEN 1" not in no_rule


def test_nan_guard_only_where_floats_hold_nan():
    """`x > t` gets `x <> NaN` where NaN sorts above every number; never NOT (x <= t)."""
    for dialect, guard in (("postgres", "\"humidity\" <> CAST('NaN' AS DOUBLE PRECISION)"),
                           ("duckdb", "\"humidity\" <> CAST('NaN' AS DOUBLE)"),
                           ("snowflake", "\"humidity\" <> CAST('NaN' AS DOUBLE)"),
                           ("spark", "`humidity` <> CAST('NaN' AS DOUBLE)"),
                           ("bigquery", "`humidity` <> CAST('NaN' AS FLOAT64)"),
                           ("oracle", "\"humidity\" <> TO_BINARY_DOUBLE('NaN')")):
        sql = to_sql_case(golf_ruleset(), dialect, pretty=False, typed=True)
        assert sql.count(guard) == 1, dialect          # once: the `>` test, not the `<=`
    for dialect in ("sqlite", "mysql", "tsql"):
        assert "NaN" not in to_sql_case(golf_ruleset(), dialect, pretty=False)
    for dialect in DIALECTS:
        assert "NOT" not in to_sql_case(golf_ruleset(), dialect, pretty=False, typed=True).upper()


def _value(e: exp.Expression) -> float:
    """A threshold's literal, or the product SQLite gets for a tiny one (exact in doubles)."""
    e = e.unnest()
    if isinstance(e, exp.Mul):
        return _value(e.this) * _value(e.expression)
    return float(e.sql())


def test_thresholds_are_written_exactly():
    schema = Schema((Attribute("x", "continuous"),), ("a", "b"))
    values = (0.1 + 0.2, -1e-05, 5e-324, 1.7976931348623157e308, 123456789012345.67, -0.0, 1e16)
    rules = tuple(Rule(i + 1, (Condition("x", "<=", v),), "a", 1, 0, 0.1, 1.0)
                  for i, v in enumerate(values))
    rs = RuleSet(schema, rules, "b", (1, 1), (0, 1))
    for dialect in DIALECTS:
        tree = sqlglot.parse_one(to_sql_case(rs, dialect), read=dialect)
        # the thresholds (compared with the as-number expression), not that expression's own tests
        got = [_value(c.expression) for c in tree.find_all(exp.LTE) if isinstance(c.this, exp.Paren)]
        assert got == list(values), dialect
        assert [math.copysign(1, g) for g in got] == [math.copysign(1, v) for v in values]



def test_sqlite_reads_tiny_thresholds_exactly():
    # SQLite reads a literal like 4.395427095800607e-294 one ulp low: such thresholds go as a
    # product with 2^-256, which it computes exactly
    rng = np.random.default_rng(3)
    values = [4.395427095800607e-294, 5e-324, -2.2250738585072014e-308, 1e-281]
    values += [float(v) for v in 10.0 ** rng.uniform(-323, -280, 300) * rng.choice([-1, 1], 300)]
    schema = Schema((Attribute("x", "continuous"),), ("a", "b"))
    con = sqlite3.connect(":memory:")
    for v in values:
        rs = RuleSet(schema, (Rule(1, (Condition("x", "<=", v),), "a", 1, 0, 0.1, 1.0),), "b", (1, 1), (0, 1))
        case = to_sql_case(rs, "sqlite", pretty=False)
        rows = [(v,), (math.nextafter(v, math.inf),), (math.nextafter(v, -math.inf),)]
        got = [con.execute(f"SELECT {case} FROM (SELECT ? AS x)", r).fetchone()[0] for r in rows]
        assert got == ["a", "b", "a"], (v, case)

def test_no_rule_that_can_fire_gives_the_default_alone_and_a_catch_all_rule_ends_the_case():
    schema = Schema((Attribute("x", "continuous"),), ("a", "b"))
    never = Rule(1, (Condition("x", "<=", 1.0),), "a", 1, 1, 0.9, 0.5)
    rs = RuleSet(schema, (never,), "b", (1, 1), (0, 1))
    assert to_sql_case(rs, "postgres") == "'b'"
    assert to_sql_case(rs, "postgres", output="rule") == "0"
    catch_all = Rule(2, (), "a", 2, 0, 0.3, 1.0)
    after = Rule(3, (Condition("x", ">", 1.0),), "b", 1, 0, 0.3, 1.0)
    rs = RuleSet(schema, (Rule(4, (Condition("x", ">", 5.0),), "b", 1, 0, 0.3, 1.0), catch_all, after),
                 "b", (1, 1), (0, 1))
    assert to_sql_case(rs, "sqlite", pretty=False, typed=True) == "CASE WHEN \"x\" > 5.0 THEN 'b' ELSE 'a' END"
    assert to_sql_case(rs, "sqlite", output="rule", pretty=False, typed=True) == "CASE WHEN \"x\" > 5.0 THEN 4 ELSE 2 END"


# ---- refusals -----------------------------------------------------------------------------------
def test_output_names_must_not_collide():
    with pytest.raises(InputError, match="collides with the input column 'humidity'"):
        to_sql_select(golf_ruleset(), "w", prediction_column="Humidity")
    with pytest.raises(InputError, match="'class'"):
        to_sql_select(golf_ruleset(), "w", rule_column="class")
    with pytest.raises(InputError, match="both 'p'"):
        to_sql_select(golf_ruleset(), "w", prediction_column="p", rule_column="p")
    with pytest.raises(InputError, match="non-empty"):
        to_sql_select(golf_ruleset(), "w", prediction_column="")



def test_tested_columns_that_differ_only_in_case_are_refused():
    # SQLite and DuckDB read "a" as column A even quoted: the SQL would score the wrong column
    schema = Schema((Attribute("A", "continuous"), Attribute("a", "continuous")), ("lo", "hi"))
    rs = RuleSet(schema, (Rule(1, (Condition("a", "<=", 19.0),), "lo", 20, 0, 0.1, 1.0),), "hi", (20, 20), (0, 20))
    for make in (lambda: to_sql_case(rs), lambda: to_sql_select(rs, "t")):
        with pytest.raises(InputError, match="column 'a' differs from 'A' only in case"):
            make()
    untested = RuleSet(Schema((Attribute("A", "continuous"), Attribute("b", "continuous")), ("lo", "hi")),
                       (Rule(1, (Condition("b", "<=", 19.0),), "lo", 20, 0, 0.1, 1.0),), "hi", (20, 20), (0, 20))
    assert '"b" <= 19' in to_sql_case(untested, pretty=False, typed=True)

def test_refuses_what_sql_cannot_say():
    with pytest.raises(InputError, match="not supported .*duckdb"):
        to_sql_case(golf_ruleset(), "excel")
    schema = Schema((Attribute("x\0y", "continuous"), Attribute("z", "continuous")), ("a", "b"))
    rs = RuleSet(schema, (Rule(1, (Condition("x\0y", ">", 1.0),), "a", 1, 0, 0.1, 1.0),), "b", (1, 1), (0, 1))
    with pytest.raises(ModelError, match="NUL"):
        to_sql_case(rs)
    rs = RuleSet(schema, (Rule(1, (Condition("z", ">", math.inf),), "a", 1, 0, 0.1, 1.0),), "b", (1, 1), (0, 1))
    with pytest.raises(ModelError, match=r"rules\[0\].conditions\[0\]: threshold inf"):
        to_sql_case(rs)
    bad = RuleSet(golf_ruleset().schema, (Rule(1, (Condition("outlook", "=", "snow"),), "Play", 1, 0, 0.1, 1.0),),
                  "Play", (1, 1), (0, 1))
    with pytest.raises(ModelError, match="'snow' is not a value of attribute 'outlook'"):
        to_sql_case(bad)


def test_tests_on_values_that_mean_unknown_are_never_true():
    """A value list holding '?' cannot match: '?' in data is unknown (the loaders forbid it)."""
    schema = Schema((Attribute("c", "discrete", ("?", "x", "y")),), ("a", "b"))
    rs = RuleSet(schema, (Rule(1, (Condition("c", "=", "?"),), "a", 1, 0, 0.1, 1.0),
                          Rule(2, (Condition("c", "in", ("?", "y")),), "a", 1, 0, 0.1, 1.0)),
                 "b", (1, 1), (0, 1))
    assert to_sql_case(rs, "sqlite", pretty=False) == "CASE WHEN \"c\" = 'y' THEN 'a' ELSE 'b' END"
    con = sqlite3.connect(":memory:")
    got = [con.execute(f"SELECT {to_sql_case(rs, output='rule')} FROM (SELECT ? AS c)", (v,)).fetchone()[0]
           for v in ("?", "y", "x")]
    assert got == [0, 2, 0]
    assert list(score("q", rs, [{"c": "?"}, {"c": "y"}, {"c": "x"}]).rules) == [0, 2, 0]


# ---- every dialect parses what it is given; hostile names survive -----------------------------------
def _as_number_strings(dialect: str) -> set[str]:
    """The string literals of a dialect's as-number expression (type names, patterns, the grammar)."""
    node = sql_as_number(exp.column("x"), dialect)
    return {lit.name for lit in node.find_all(exp.Literal) if lit.is_string}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_dialect_parses_back_with_the_same_names_and_values(dialect, hostile: Scored):
    rs = hostile.ruleset
    sql = to_sql_select(rs, 'scored "t"; --', dialect, prediction_column="pred'; --",
                        rule_column="rule`]")
    tree = sqlglot.parse_one(sql, read=dialect)
    assert isinstance(tree, exp.Select)
    tested = {c.attribute for r in rs.rules if r.fires for c in r.conditions}
    columns = {c.name for c in tree.find_all(exp.Column) if c.table == "t" and not isinstance(c.this, exp.Star)}
    assert columns == tested
    # the conditions read each continuous column converted once, as n.c1, n.c2, ..
    continuous = {c.attribute for r in rs.rules if r.fires for c in r.conditions if c.op in ("<=", ">")}
    assert {(c.table, c.name) for c in tree.find_all(exp.Column) if c.table != "t"} == {
        ("n", f"c{i}") for i in range(1, len(continuous) + 1)}
    assert tree.find(exp.Table).name == 'scored "t"; --'
    assert [a.alias for a in tree.expressions[1:]] == ["pred'; --", "rule`]"]
    strings = {lit.name for lit in tree.find_all(exp.Literal) if lit.is_string}
    strings |= {n.name for n in tree.find_all(exp.National)}
    expected = {v for r in rs.rules if r.fires for c in r.conditions if c.op in ("=", "in")
                for v in ((c.value,) if c.op == "=" else c.value)}
    expected |= {r.prediction for r in rs.rules if r.fires} | {rs.default_class}
    if SQL_DIALECTS[dialect] is not None:
        expected.add("NaN")
    expected |= _as_number_strings(dialect)
    assert strings == expected
    # regenerating from the parsed tree gives the same text: nothing was reinterpreted (but sqlglot
    # writes `AS` before a LATERAL's alias, which Oracle refuses: the export writes none there)
    again = tree.sql(dialect=dialect, identify=True, pretty=True)
    assert again == (sql.replace('\n) "n"', '\n) AS "n"') if dialect == "oracle" else sql)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_fitted_rules_parse_in_every_dialect(dialect, fitted):
    rs = fitted("crx").ruleset
    tree = sqlglot.parse_one(to_sql_select(rs, ("analytics", "crx cases"), dialect), read=dialect)
    assert tree.find(exp.Table).name == "crx cases" and tree.find(exp.Table).db == "analytics"
    # SQLite: each output a scalar subquery over the converted columns
    outputs = [a.this.this.expressions[0] if dialect == "sqlite" else a.this for a in tree.expressions[1:]]
    assert [type(o) for o in outputs] == [exp.Case, exp.Case]


def test_subquery_source():
    sub = sqlglot.parse_one("SELECT * FROM weather WHERE day > 3", read="sqlite")
    sql = to_sql_select(golf_ruleset(), sub, "sqlite", pretty=False)
    assert sql.endswith('FROM (SELECT * FROM "weather" WHERE "day" > 3) AS "t"')
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE weather (day INTEGER, outlook TEXT, temperature REAL, humidity REAL, windy TEXT)")
    con.executemany("INSERT INTO weather VALUES (?, ?, ?, ?, ?)",
                    [(1, "sunny", 80, 90, "true"), (4, "sunny", 80, 90, "true"), (5, "rain", 70, 96, "true"),
                     (6, "overcast", 60, 70, "false")])
    assert con.execute(sql).fetchall() == [(4, "sunny", 80.0, 90.0, "true", "Don't Play", 1),
                                           (5, "rain", 70.0, 96.0, "true", "Don't Play", 2),
                                           (6, "overcast", 60.0, 70.0, "false", "Play", 3)]


# ---- execution: row for row against RuleSet.predict / predict_rule ---------------------------------
def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


ROW = "__row__"


def _columns(rs: RuleSet) -> list:
    return [a for a in rs.schema.attributes if a.kind != "ignore"]


def _check(scored: Scored, got: list[tuple]) -> None:
    assert [g[0] for g in got] == list(range(len(scored.rows)))
    classes = [g[1] for g in got]
    rules = [g[2] for g in got]   # 0, never NULL, when the default decides
    bad = [i for i in range(len(got)) if classes[i] != scored.classes[i] or rules[i] != scored.rules[i]]
    assert not bad, (f"{len(bad)} rows differ; first: row {bad[0]} {scored.rows[bad[0]]!r}:"
                     f" SQL {classes[bad[0]]!r}/{rules[bad[0]]}, library"
                     f" {scored.classes[bad[0]]!r}/{scored.rules[bad[0]]}")
    assert {g[2] for g in got} - {0} <= {r.id for r in scored.ruleset.rules if r.fires}


def _scoring_query(scored: Scored, table: str, dialect: str) -> str:
    inner = to_sql_select(scored.ruleset, table, dialect)
    return f"SELECT {_q(ROW)}, {_q('predicted_class')}, {_q('rule_id')} FROM ({inner}) AS s ORDER BY {_q(ROW)}"


def run_sqlite(scored: Scored, table: str, query=_scoring_query) -> list[tuple]:
    """The rows in an SQLite table `table`, scored by query(scored, table, "sqlite")."""
    cols = _columns(scored.ruleset)
    con = sqlite3.connect(":memory:")
    ddl = ", ".join([f"{_q(ROW)} INTEGER"] + [f"{_q(a.name)} {'REAL' if a.is_continuous else 'TEXT'}"
                                              for a in cols])
    con.execute(f"CREATE TABLE {_q(table)} ({ddl})")
    con.executemany(f"INSERT INTO {_q(table)} VALUES ({', '.join('?' * (len(cols) + 1))})",
                    [(i,) + tuple(r.get(a.name) for a in cols) for i, r in enumerate(scored.rows)])
    out = con.execute(query(scored, table, "sqlite")).fetchall()
    if query is _scoring_query:
        names = [d[0] for d in con.execute(to_sql_select(scored.ruleset, table, "sqlite") + " LIMIT 0").description]
        assert names == [ROW] + [a.name for a in cols] + ["predicted_class", "rule_id"]
    return out


def run_duckdb(scored: Scored, table: str, query=_scoring_query) -> list[tuple]:
    """The rows in a DuckDB table `table` (NaN kept), scored by query(scored, table, "duckdb")."""
    cols = _columns(scored.ruleset)
    con = duckdb.connect()
    ddl = ", ".join([f"{_q(ROW)} INTEGER"] + [f"{_q(a.name)} {'DOUBLE' if a.is_continuous else 'VARCHAR'}"
                                              for a in cols])
    con.execute(f"CREATE TABLE {_q(table)} ({ddl})")
    frame = pd.DataFrame({f"c{j}": pd.Series([r.get(a.name) for r in scored.rows],
                                             dtype="float64" if a.is_continuous else object)
                          for j, a in enumerate(cols)})
    frame.insert(0, "row", np.arange(len(scored.rows), dtype=np.int32))
    con.register("frame", frame)
    con.execute(f"INSERT INTO {_q(table)} SELECT * FROM frame")   # pandas NaN arrives as NULL
    for a in cols:   # put the real NaNs back: a NaN in a DOUBLE column is the trap to test
        nan_rows = [i for i, r in enumerate(scored.rows)
                    if isinstance(r.get(a.name), float) and math.isnan(r[a.name])]
        if a.is_continuous and nan_rows:
            con.register("nan_rows", pd.DataFrame({"i": nan_rows}))
            con.execute(f"UPDATE {_q(table)} SET {_q(a.name)} = CAST('NaN' AS DOUBLE)"
                        f" WHERE {_q(ROW)} IN (SELECT i FROM nan_rows)")
    return con.execute(query(scored, table, "duckdb")).fetchall()


def run_postgres(conn, scored: Scored, table: str, query=_scoring_query) -> list[tuple]:
    """The rows in a PostgreSQL table `table`, scored by query(scored, table, "postgres")."""
    cols = _columns(scored.ruleset)
    ddl = ", ".join([f"{_q(ROW)} INTEGER"] + [f"{_q(a.name)} {'DOUBLE PRECISION' if a.is_continuous else 'TEXT'}"
                                              for a in cols])
    conn.execute(f"CREATE TABLE {_q(table)} ({ddl})")
    with conn.cursor() as cur:
        with cur.copy(f"COPY {_q(table)} FROM STDIN") as copy:
            for i, r in enumerate(scored.rows):
                copy.write_row((i,) + tuple(r.get(a.name) for a in cols))
    return conn.execute(query(scored, table, "postgres")).fetchall()


def _has_nan_trap(scored: Scored) -> bool:
    """Some row holds NaN in a column a `>` rule tests: the case the NaN guard is for."""
    tested = {c.attribute for r in scored.ruleset.rules if r.fires for c in r.conditions if c.op == ">"}
    return any(isinstance(r.get(a), float) and math.isnan(r[a]) for r in scored.rows for a in tested)


@pytest.mark.parametrize("name", FIT_DATASETS)
def test_sqlite_matches_the_library(name, fitted):
    scored = fitted(name)
    _check(scored, run_sqlite(scored, f"cases {name}"))


@pytest.mark.parametrize("name", FIT_DATASETS)
def test_duckdb_matches_the_library(name, fitted):
    scored = fitted(name)
    _check(scored, run_duckdb(scored, f"cases {name}"))


@pytest.mark.postgres
@pytest.mark.parametrize("name", FIT_DATASETS)
def test_postgres_matches_the_library(name, fitted, pg):
    scored = fitted(name)
    _check(scored, run_postgres(pg, scored, f"cases {name}"))


def test_hostile_names_and_values_run_on_sqlite_and_duckdb(hostile: Scored):
    assert _has_nan_trap(hostile)
    assert UNSEEN in {r.get('"x"') for r in hostile.rows}
    assert set(hostile.rules) == {0, 1, 2, 3, 4, 5, 6}     # every firing rule decides some row
    _check(hostile, run_sqlite(hostile, 'scored "t"; --'))
    _check(hostile, run_duckdb(hostile, 'scored "t"; --'))


@pytest.mark.postgres
def test_hostile_names_and_values_run_on_postgres(hostile: Scored, pg):
    _check(hostile, run_postgres(pg, hostile, 'scored "t"; --'))
    # the table and nothing else is there: no statement was injected
    tables = pg.execute("SELECT table_name FROM information_schema.tables"
                        " WHERE table_schema = current_schema()").fetchall()
    assert tables == [('scored "t"; --',)]


def test_without_the_nan_guard_duckdb_would_disagree():
    """The guard is needed: DuckDB orders NaN above every number, so NaN > t holds there."""
    schema = Schema((Attribute("x", "continuous"),), ("a", "b"))
    rs = RuleSet(schema, (Rule(1, (Condition("x", ">", 1.0),), "a", 1, 0, 0.1, 1.0),), "b", (1, 1), (0, 1))
    assert list(score("nan", rs, [{"x": math.nan}, {"x": math.inf}]).rules) == [0, 1]
    con = duckdb.connect()
    assert con.execute("SELECT CAST('NaN' AS DOUBLE) > 5, CAST('NaN' AS DOUBLE) <= 5").fetchone() == (True, False)
    case = to_sql_case(rs, "duckdb", output="rule", pretty=False)
    query = f"SELECT {case} FROM (VALUES (CAST('NaN' AS DOUBLE)), (CAST('inf' AS DOUBLE))) AS v(x)"
    assert con.execute(query).fetchall() == [(0,), (1,)]
    typed = to_sql_case(rs, "duckdb", output="rule", pretty=False, typed=True)
    query = f"SELECT {typed} FROM (VALUES (CAST('NaN' AS DOUBLE)), (CAST('inf' AS DOUBLE))) AS v(x)"
    assert con.execute(query).fetchall() == [(0,), (1,)]
    unguarded = query.replace(" AND \"x\" <> CAST('NaN' AS DOUBLE)", "")
    assert unguarded != query and con.execute(unguarded).fetchall() == [(1,), (1,)]


@pytest.mark.postgres
def test_postgres_nan_guard_and_exact_threshold(pg):
    schema = Schema((Attribute("x", "continuous"),), ("a", "b"))
    rs = RuleSet(schema, (Rule(1, (Condition("x", ">", 0.1 + 0.2),), "a", 1, 0, 0.1, 1.0),), "b", (1, 1), (0, 1))
    assert pg.execute("SELECT 'NaN'::float8 > 5").fetchone() == (True,)
    values = (math.nan, math.inf, 0.1 + 0.2, 0.3000000000000001, 0.3, None)
    pg.execute("CREATE TABLE n (x DOUBLE PRECISION)")
    with pg.cursor() as cur:
        cur.executemany("INSERT INTO n VALUES (%s)", [(v,) for v in values])
    got = pg.execute(f"SELECT {to_sql_case(rs, 'postgres', output='rule')} FROM n").fetchall()
    assert list(score("n", rs, [{"x": v} for v in values]).rules) == [0, 1, 0, 1, 0, 0]
    assert [g[0] or 0 for g in got] == [0, 1, 0, 1, 0, 0]


def test_hostile_values_are_all_used(hostile: Scored):
    """The hostile set exercises the values it claims to (guards the test data itself)."""
    sql = to_sql_case(hostile.ruleset, "postgres")
    for v in ("it's", "-- comment", "new\nline", '"""', "\r\n", "1.0"):
        assert v in HOSTILE_VALUES
        assert v.replace("'", "''") in sql


def test_subset_rules_compare_with_in(fitted):
    rs = fitted("crx+subset").ruleset
    tests = [c for r in rs.rules if r.fires for c in r.conditions if c.op == "in"]
    assert tests, "crx with subset=True should learn `in` tests"
    sql = to_sql_case(rs, "postgres", pretty=False, typed=True)
    assert sql.count(" IN (") == sum(len(c.value) > 1 for c in tests) > 0   # one value: `=`


def test_converted_columns_take_names_no_column_has():
    """The relation of converted columns is `n` unless a column or the source's alias is named so; its
    columns (c1, ..) are never selected: the output is every input column and the outputs."""
    schema = Schema((Attribute("n", "continuous"), Attribute("c1", "discrete", ("a", "b")),
                     Attribute("N_", "continuous")), ("yes", "no"))
    rs = RuleSet(schema, (Rule(1, (Condition("n", ">", 1.5), Condition("c1", "=", "a")), "yes", 1, 0, 0.1, 1.0),
                          Rule(2, (Condition("N_", "<=", 2.0),), "yes", 1, 0, 0.1, 1.0)), "no", (1, 1), (0, 1))
    rows = [("2", "a", "9"), ("2", "b", "9"), ("1", "a", "1"), ("x", "a", " 2 ")]
    for dialect in ("sqlite", "duckdb"):
        sql = to_sql_select(rs, "cases", dialect, table_alias="n__", pretty=False)
        tree = sqlglot.parse_one(sql, read=dialect)
        assert {c.table for c in tree.find_all(exp.Column)} == {"n__", "n___"}   # n, N_ and n__ taken
        if dialect == "sqlite":
            con = sqlite3.connect(":memory:")
            con.execute('CREATE TABLE cases ("n" TEXT, "c1" TEXT, "N_" TEXT)')
            con.executemany("INSERT INTO cases VALUES (?, ?, ?)", rows)
            cur = con.execute(sql)
        else:
            con = duckdb.connect()
            con.execute('CREATE TABLE cases ("n" VARCHAR, "c1" VARCHAR, "N_" VARCHAR)')
            con.executemany("INSERT INTO cases VALUES (?, ?, ?)", rows)
            cur = con.execute(sql)
        assert [d[0] for d in cur.description] == ["n", "c1", "N_", "predicted_class", "rule_id"]
        assert cur.fetchall() == [r + d for r, d in zip(rows, [("yes", 1), ("no", 0), ("yes", 2), ("yes", 2)])]
