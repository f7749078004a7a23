"""SQL export of a boosted model: SQLite, DuckDB, PostgreSQL (and Spark) give BoostedRuleSet's class,
confidence and every trial's deciding rule on every row, unknowns, edges and tied votes included."""
from __future__ import annotations

import numpy as np
import pytest
import sqlglot

from c45rules import InputError
from c45rules.export import to_sql_case, to_sql_select
from c45rules.export.sql import case_nesting, sql_limit_warnings

from export_cases import BOOSTED_DATASETS, Scored
from test_sql import DIALECTS, ROW, _q, run_duckdb, run_postgres, run_sqlite

SETS = ("tie", *BOOSTED_DATASETS)


def boosted_query(scored: Scored, table: str, dialect: str) -> str:
    """(row, class, confidence, trial 1's rule id, ...) of every row, in row order."""
    inner = to_sql_select(scored.ruleset, table, dialect, confidence_column="confidence")
    trials = [_q(f"rule_id_{t}") for t in range(1, len(scored.ruleset.trials) + 1)]
    return (f"SELECT {_q(ROW)}, {_q('predicted_class')}, {_q('confidence')}, {', '.join(trials)}"
            f" FROM ({inner}) AS s ORDER BY {_q(ROW)}")


def check_boosted(scored: Scored, got: list[tuple], exact: bool = True) -> None:
    """Row for row: the class, each trial's rule id, and the confidence (bit for bit when `exact`)."""
    assert [g[0] for g in got] == list(range(len(scored.rows)))
    classes = np.array([g[1] for g in got], dtype=object)
    confidence = np.array([float(g[2]) for g in got])
    rules = np.array([[int(v) for v in g[3:]] for g in got])
    bad = np.flatnonzero(classes != scored.classes)
    assert not len(bad), (f"{len(bad)} classes differ; first: row {bad[0]} {scored.rows[bad[0]]!r}: SQL"
                          f" {classes[bad[0]]!r}, library {scored.classes[bad[0]]!r}")
    assert np.array_equal(rules, scored.rules)
    if exact:
        assert np.array_equal(confidence, scored.confidence)
    else:
        assert np.allclose(confidence, scored.confidence, rtol=1e-12, atol=0)


def test_tie_material_holds_ties_and_a_last_place_miss(boosted):
    scored = boosted("tie")
    votes = scored.ruleset.votes(scored.rows)
    tied = votes[:, 0] == votes[:, 1]
    # ties go to "no", the first class; a miss by one unit in the last place goes to "yes"
    assert tied.sum() == 20 and set(scored.classes[tied]) == {"no"}
    assert list(scored.classes[~tied]) == ["yes"] * 5
    assert votes[~tied][0, 0] == 1.5719999999999998 and votes[~tied][0, 1] == 1.572


# income (a trial of 430 rules) takes SQLite 7 s: it runs on DuckDB (and PostgreSQL)
@pytest.mark.parametrize("name", [n for n in SETS if n != "income"])
def test_sqlite_votes_as_the_library(name, boosted):
    scored = boosted(name)
    check_boosted(scored, run_sqlite(scored, f"cases {name}", boosted_query))


@pytest.mark.parametrize("name", SETS)
def test_duckdb_votes_as_the_library(name, boosted):
    scored = boosted(name)
    check_boosted(scored, run_duckdb(scored, f"cases {name}", boosted_query))


@pytest.mark.postgres
@pytest.mark.parametrize("name", SETS)
def test_postgres_votes_as_the_library(name, boosted, pg):
    scored = boosted(name)
    check_boosted(scored, run_postgres(pg, scored, f"cases {name}", boosted_query))


def test_shared_sets_reach_every_kind_of_decision(boosted):
    for name in BOOSTED_DATASETS:
        scored = boosted(name)
        # several trials, each deciding by rules and by its default, on rows with unknowns
        assert scored.rules.shape[1] >= 2
        for t in range(scored.rules.shape[1]):
            assert (scored.rules[:, t] == 0).any() and len(set(scored.rules[:, t])) > 2
        assert any(v is None or v != v for r in scored.rows for v in r.values())
        # the trials do not all agree: the vote matters
        assert (scored.confidence < 1.0).any()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_dialect_parses_back(dialect, boosted):
    model = boosted("tie").ruleset
    text = to_sql_select(model, "cases", dialect, confidence_column="confidence")
    tree = sqlglot.parse_one(text, read=dialect)
    aliases = [e.alias for e in tree.expressions]
    assert aliases[1:] == ["predicted_class", "confidence"]
    # the votes are doubles cast from their exact text, never decimal literals
    assert "'0.596'" in text and "'0.956'" in text


def test_output_columns_and_collisions(boosted):
    import sqlite3
    model = boosted("tie").ruleset
    con = sqlite3.connect(":memory:")
    con.execute('CREATE TABLE cases ("x" REAL, "y" TEXT, "id" INTEGER)')
    con.execute("INSERT INTO cases VALUES (7.0, 'a', 1), (1.0, 'a', 2)")
    cur = con.execute(to_sql_select(model, "cases", "sqlite", confidence_column="conf"))
    names = [d[0] for d in cur.description]
    assert names == ["x", "y", "id", "rule_id_1", "rule_id_2", "rule_id_3", "rule_id_4", "rule_id_5",
                     "votes_1", "votes_2", "votes_total", "predicted_class", "conf"]
    rows = cur.fetchall()
    assert [r[-2] for r in rows] == ["yes", "no"]
    assert rows[1][8:11] == (1.5, 1.5, 3.0)
    with pytest.raises(InputError, match="rule_column cannot be None"):
        to_sql_select(model, "cases", rule_column=None)
    with pytest.raises(InputError, match="both 'votes_1'"):
        to_sql_select(model, "cases", prediction_column="votes_1")
    with pytest.raises(InputError, match=r"one CASE expression cannot hold: use the SELECT \(to_sql_select\)$"):
        to_sql_case(model)   # in Python's words: no command-line option


def test_limits_see_the_deepest_trial(boosted):
    model = boosted("crx").ruleset
    text = to_sql_select(model, "cases", "tsql", form="nested")
    deepest = case_nesting(sqlglot.parse_one(text, read="tsql"))
    assert deepest == max(sum(r.fires for r in rs.rules) for rs in model.trials) + 0  # one level per rule
    assert any("nested" in w for w in sql_limit_warnings(text, "tsql", deepest))
