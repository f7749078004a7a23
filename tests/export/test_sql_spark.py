"""Spark SQL export run on a real local Spark session: class, rule id and confidence agree with
RuleSet.predict / predict_rule / predict_confidence on every row, NaN, NULL, unseen categories,
thresholds and hostile names included (skipped without Java or pyspark, failed under CI)."""
from __future__ import annotations

import math

import pytest

from c45rules import Attribute, Condition, Rule, RuleSet, Schema
from c45rules.export import to_sql_case, to_sql_select
from c45rules.export.sql import sql_identifier

from export_cases import FIT_DATASETS, UNSEEN, Scored, encode, probe_rows, random_rows, score

ROW = "__row__"
QUICK = ("golf", "hypo", "crx", "crx+subset")   # the default run; the rest of FIT_DATASETS is slow


def _frame(spark, scored: Scored):
    """The rows as a Spark DataFrame: DOUBLE for continuous columns (NaN kept), STRING else."""
    from pyspark.sql import types as T

    cols = [a for a in scored.ruleset.schema.attributes if a.kind != "ignore"]
    fields = [T.StructField(ROW, T.IntegerType(), False)]
    fields += [T.StructField(a.name, T.DoubleType() if a.is_continuous else T.StringType(), True)
               for a in cols]
    data = [(i,) + tuple(None if (v := r.get(a.name)) is None else (float(v) if a.is_continuous else v)
                         for a in cols)
            for i, r in enumerate(scored.rows)]
    return spark.createDataFrame(data, T.StructType(fields))


def spark_view(spark, scored: Scored, table: str) -> None:
    """The rows as the temporary view `table`."""
    _frame(spark, scored).createOrReplaceTempView(sql_identifier(table, "spark"))


def run_spark(spark, scored: Scored, table: str) -> list[tuple]:
    """(row, class, rule id, confidence) for every row, scored by the exported Spark SQL."""
    spark_view(spark, scored, table)
    inner = to_sql_select(scored.ruleset, table, "spark", confidence_column="confidence")
    got = spark.sql(inner).collect()
    names = list(got[0].asDict().keys()) if got else []
    cols = [a.name for a in scored.ruleset.schema.attributes if a.kind != "ignore"]
    assert names == [ROW, *cols, "predicted_class", "rule_id", "confidence"]
    return sorted((r[ROW], r["predicted_class"], r["rule_id"], float(r["confidence"])) for r in got)


def _check(scored: Scored, got: list[tuple]) -> None:
    assert [g[0] for g in got] == list(range(len(scored.rows)))
    confidences = scored.ruleset.predict_confidence(encode(scored.ruleset.schema, scored.rows))
    bad = [i for i, (_, c, r, p) in enumerate(got)
           if c != scored.classes[i] or r != scored.rules[i] or p != confidences[i]]
    assert not bad, (f"{len(bad)} rows differ; first: row {bad[0]} {scored.rows[bad[0]]!r}:"
                     f" Spark {got[bad[0]][1:]!r}, library"
                     f" {(scored.classes[bad[0]], scored.rules[bad[0]], confidences[bad[0]])!r}")


def _has_nan_trap(scored: Scored) -> bool:
    tested = {c.attribute for r in scored.ruleset.rules if r.fires for c in r.conditions if c.op == ">"}
    return any(isinstance(r.get(a), float) and math.isnan(r[a]) for r in scored.rows for a in tested)


@pytest.mark.parametrize("name", [n if n in QUICK else pytest.param(n, marks=pytest.mark.slow)
                                  for n in FIT_DATASETS])
def test_spark_matches_the_library(name, fitted, spark):
    scored = fitted(name)
    assert _has_nan_trap(scored) or not any(c.op == ">" for r in scored.ruleset.rules for c in r.conditions)
    _check(scored, run_spark(spark, scored, f"cases {name}"))


def test_hostile_names_and_values_run_on_spark(hostile: Scored, spark):
    assert _has_nan_trap(hostile) and UNSEEN in {r.get('"x"') for r in hostile.rows}
    before = {t.name for t in spark.catalog.listTables()}   # the session's, other tests' views too
    _check(hostile, run_spark(spark, hostile, 'scored "t"; --'))
    # the view this test made and nothing else: no statement was injected
    assert {t.name for t in spark.catalog.listTables()} - before == {'scored "t"; --'}


def test_names_with_dots_backticks_quotes_and_spaces(spark):
    """Databricks/Spark quote names in backticks (a backtick doubled): a dot is not a path."""
    names = ("a.b", "x`y`", "it's", 'q"r', "sp ace", "``")
    schema = Schema(tuple(Attribute(n, "continuous") for n in names[:3])
                    + tuple(Attribute(n, "discrete", ("a.b", "`", "'")) for n in names[3:]), ("lo", "hi"))
    rules = (Rule(1, (Condition("a.b", ">", 1.5), Condition('q"r', "=", "`")), "hi", 5, 0, 0.1, 1.0),
             Rule(2, (Condition("x`y`", "<=", -2.0), Condition("sp ace", "in", ("a.b", "'"))), "hi", 5, 0, 0.1, 1.0),
             Rule(3, (Condition("it's", ">", 0.0), Condition("``", "=", "'")), "hi", 5, 0, 0.1, 1.0))
    rs = RuleSet(schema, rules, "lo", (5, 15), (5, 0))
    base = random_rows(rs, 300, seed=5)
    rows = base + probe_rows(rs, base, n_random=50)
    scored = score("names", rs, rows)
    assert set(scored.rules) == {0, 1, 2, 3}
    sql = to_sql_case(rs, "spark", pretty=False, typed=True)
    assert "`a.b` > 1.5" in sql and "`x``y``` <= -2.0" in sql and "````` = '\\''" in sql
    _check(scored, run_spark(spark, scored, "a.b`c"))


def test_spark_orders_nan_above_numbers_so_the_guard_is_needed(spark):
    schema = Schema((Attribute("x", "continuous"),), ("a", "b"))
    rs = RuleSet(schema, (Rule(1, (Condition("x", ">", 0.1 + 0.2),), "a", 1, 0, 0.1, 1.0),), "b", (1, 1), (0, 1))
    values = (math.nan, math.inf, 0.1 + 0.2, math.nextafter(0.1 + 0.2, 1), math.nextafter(0.1 + 0.2, 0), None)
    assert list(score("n", rs, [{"x": v} for v in values]).rules) == [0, 1, 0, 1, 0, 0]
    assert spark.sql("SELECT CAST('NaN' AS DOUBLE) > 5, CAST('NaN' AS DOUBLE) <= 5").first() == (True, False)
    scored = score("n", rs, [{"x": v} for v in values])
    _frame(spark, scored).createOrReplaceTempView("n")
    case = to_sql_case(rs, "spark", output="rule", pretty=False, typed=True)
    assert [r[0] for r in spark.sql(f"SELECT {case} FROM n ORDER BY {ROW}").collect()] == [0, 1, 0, 1, 0, 0]
    unguarded = case.replace(" AND `x` <> CAST('NaN' AS DOUBLE)", "")
    assert unguarded != case
    assert [r[0] for r in spark.sql(f"SELECT {unguarded} FROM n ORDER BY {ROW}").collect()] == [1, 1, 0, 1, 0, 0]


# "+costs": learnt with misclassification costs, the vote decides by least expected cost
@pytest.mark.parametrize("name", ("tie", "hypo", "tie+costs", "hypo+costs"))
def test_spark_votes_as_the_library(name, boosted, spark):
    from test_boosted_sql import check_boosted
    scored = boosted(name)
    spark_view(spark, scored, f"cases {name}")
    got = spark.sql(to_sql_select(scored.ruleset, f"cases {name}", "spark", confidence_column="confidence")).collect()
    trials = [f"rule_id_{t}" for t in range(1, len(scored.ruleset.trials) + 1)]
    check_boosted(scored, sorted((r[ROW], r["predicted_class"], r["confidence"], *(r[c] for c in trials)) for r in got))
