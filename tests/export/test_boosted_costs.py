"""Exports of a boosted model learnt with misclassification costs (fit --trials N --costs): SQL
(SQLite, DuckDB, PostgreSQL; every dialect parses), the standalone module and PMML decide by the
least expected cost as BoostedRuleSet.predict does, row for row, on shared sets with unknowns."""
from __future__ import annotations

import json

import numpy as np
import pytest
import sqlglot

from c45rules.export import to_python, to_sql_select
from c45rules.export.pmml import to_pmml

from export_cases import COSTED_BOOSTED
from pmml_evaluators import require_evaluators
from test_boosted_pmml import check_evaluators
from test_boosted_python import check_module
from test_boosted_sql import boosted_query, check_boosted
from test_python import records, run_bare
from test_sql import DIALECTS, run_duckdb, run_postgres, run_sqlite

SETS = ("tie+costs", *COSTED_BOOSTED)


def test_costs_change_the_vote_on_the_shared_sets(boosted):
    """Not the highest total on every row: the exports below are checked where costs decide."""
    for name in COSTED_BOOSTED:
        scored = boosted(name)
        model = scored.ruleset
        highest = np.array(model.schema.classes, dtype=object)[np.argmax(model.votes(scored.rows), axis=1)]
        assert (highest != scored.classes).sum() >= 20, name
        assert any(v is None or v != v for r in scored.rows for v in r.values())


def test_costed_tie_keeps_the_ties_and_the_miss(boosted):
    scored, plain = boosted("tie+costs"), boosted("tie")
    assert list(scored.classes) == list(plain.classes)
    costs = scored.ruleset.expected_costs(scored.rows)
    tied = costs[:, 0] == costs[:, 1]
    assert tied.sum() == 20 and set(scored.classes[tied]) == {"no"}
    assert costs[~tied][0].tolist() == [2 * 1.572, 2 * 1.5719999999999998]


@pytest.mark.parametrize("engine", ["sqlite", "duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
@pytest.mark.parametrize("name", SETS)
def test_sql_decides_by_cost_as_the_library(name, engine, boosted, request):
    scored = boosted(name)
    if engine == "postgres":
        query = run_postgres(request.getfixturevalue("pg"), scored, f"cases {name}", boosted_query)
    else:
        query = {"sqlite": run_sqlite, "duckdb": run_duckdb}[engine](scored, f"cases {name}", boosted_query)
    check_boosted(scored, query)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_dialect_parses_the_costed_vote(dialect, boosted):
    model = boosted("hypo+costs").ruleset
    text = to_sql_select(model, "cases", dialect, confidence_column="confidence")
    tree = sqlglot.parse_one(text, read=dialect)
    assert [e.alias for e in tree.expressions][1:] == ["predicted_class", "confidence"]
    # the costs are doubles cast from their exact text, compared with <=
    assert "'0.5'" in text and "'4.0'" in text and "<=" in text


@pytest.mark.parametrize("name", SETS)
def test_module_decides_by_cost_as_the_library(name, boosted, tmp_path):
    check_module(tmp_path, boosted(name))


def test_module_names_its_cost_terms(boosted, tmp_path):
    scored = boosted("crx+costs")
    text = to_python(scored.ruleset)
    assert "COST_TERMS = (\n    ('+', (('-', 5.0),)),\n    ('-', (('+', 1.0),)),\n)" in text
    assert "the class of least expected cost wins" in text
    # the module's expected costs are the library's, bit for bit
    (tmp_path / "model.py").write_text(text, encoding="utf-8")
    recs = records(scored)[:400]
    (tmp_path / "records.json").write_text(json.dumps(recs), encoding="utf-8")
    script = ("import json, sys\n"
              f"sys.path.insert(0, {str(tmp_path)!r})\n"
              "import model\n"
              f"recs = json.load(open({str(tmp_path / 'records.json')!r}, encoding='utf-8'))\n"
              "json.dump([list(model._expected_costs(model.votes(r)).values()) for r in recs], sys.stdout)\n")
    done = run_bare(["-c", script])
    assert done.returncode == 0, done.stderr
    assert np.array_equal(np.array(json.loads(done.stdout)), scored.ruleset.expected_costs(recs))


@pytest.mark.parametrize("name", SETS)
def test_pmml_evaluators_decide_by_cost_as_the_library(name, boosted):
    require_evaluators()
    check_evaluators(boosted(name))


def test_pmml_holds_a_cost_field_per_class(boosted):
    text = to_pmml(boosted("crx+costs").ruleset)
    assert '<DerivedField name="cost_1"' in text and '<DerivedField name="cost_2"' in text
    assert '<Constant dataType="double">5.0</Constant>' in text and 'function="lessOrEqual"' in text
