"""export/sql_decision.py: the split CASEs decide as the flat first-hit CASE, row for row."""
from __future__ import annotations

import random

import pytest
from sqlglot import exp

from c45rules.export import sql_decision

duckdb = pytest.importorskip("duckdb")

NUMBERS = ("x", "y", "z")
TEXTS = ("a", "b")
CUTS = (-1.5, 0.0, 0.25, 0.5, 2.0)
VALUES = ("p", "q", "r", "s")


def _col(name: str) -> exp.Column:
    return exp.column(exp.to_identifier(name, quoted=True))


def _number(value: float) -> exp.Expression:
    text = repr(value)
    return exp.Neg(this=exp.Literal.number(text[1:])) if text.startswith("-") else exp.Literal.number(text)


def _tests(rng: random.Random) -> list[exp.Expression]:
    """Every form export/sql.py writes for the DuckDB engine, and two it does not (opaque)."""
    nan = exp.cast(exp.Literal.string("NaN"), "DOUBLE")
    tests: list[exp.Expression] = []
    for name in NUMBERS:
        for cut in CUTS:
            tests += [exp.LTE(this=_col(name), expression=_number(cut)),
                      exp.GT(this=_col(name), expression=_number(cut))]
        tests.append(exp.NEQ(this=_col(name), expression=nan))
        # or_unknown: taken as opaque
        tests.append(exp.paren(exp.or_(exp.Is(this=_col(name), expression=exp.null()),
                                       exp.LTE(this=_col(name), expression=_number(0.5)))))
    for name in TEXTS:
        for value in VALUES:
            tests.append(exp.EQ(this=_col(name), expression=exp.Literal.string(value)))
        for _ in range(3):
            tests.append(exp.In(this=_col(name), expressions=[exp.Literal.string(v)
                                                              for v in rng.sample(VALUES, 2)]))
    tests.append(exp.GT(this=exp.Add(this=_col("x"), expression=_col("y")), expression=_number(0.5)))
    return tests


def _rows(rng: random.Random, n: int) -> list[tuple]:
    numbers = [None, *CUTS, -3.0, 0.1, 0.3, 1.0, 5.0]
    texts = [None, *VALUES, "unseen", ""]
    return [tuple(rng.choice(numbers) for _ in NUMBERS) + tuple(rng.choice(texts) for _ in TEXTS)
            for _ in range(n)]


def _positions(con, expression: exp.Expression) -> list[int]:
    sql = expression.sql(dialect="duckdb", identify=True)
    return [r[0] for r in con.execute(f"SELECT {sql} FROM cases ORDER BY i").fetchall()]


@pytest.mark.parametrize("seed", range(6))
def test_the_split_cases_decide_as_the_flat_case_row_for_row(seed, monkeypatch):
    rng = random.Random(seed)
    tests = _tests(rng)
    rules = [rng.sample(range(len(tests)), rng.randint(1, 4)) for _ in range(rng.randint(20, 80))]
    if seed % 2:
        rules.insert(rng.randrange(len(rules) // 2, len(rules)), [])   # no tests: it catches the rest
    con = duckdb.connect()
    con.execute("CREATE TABLE cases (i INTEGER, x DOUBLE, y DOUBLE, z DOUBLE, a VARCHAR, b VARCHAR)")
    con.executemany("INSERT INTO cases VALUES (?, ?, ?, ?, ?, ?)",
                    [(i, *row) for i, row in enumerate(_rows(rng, 3000))])
    flat = exp.Case(ifs=[exp.If(this=exp.and_(*(tests[t].copy() for t in ts)) if ts else exp.true(),
                                true=exp.Literal.number(k + 1)) for k, ts in enumerate(rules)],
                    default=exp.Literal.number(0))
    expected = _positions(con, flat)
    assert len(set(expected)) > 5
    for flat_rules in (1, 32):
        monkeypatch.setattr(sql_decision, "FLAT_RULES", flat_rules)
        for depth in (0, 3, 8, 30):
            split = sql_decision.decision_case(tests, rules, max_depth=depth)
            assert _positions(con, split) == expected, (flat_rules, depth)
    # each test written as a column computed below: the same positions
    names = [f"t{i}" for i in range(len(tests))]
    con.execute("CREATE TABLE tested AS SELECT i, " + ", ".join(
        f"{t.sql(dialect='duckdb', identify=True)} AS {n}" for t, n in zip(tests, names)) + " FROM cases")
    split = sql_decision.decision_case(tests, rules, written=[_col(n) for n in names], max_depth=8)
    sql = split.sql(dialect="duckdb", identify=True)
    assert [r[0] for r in con.execute(f"SELECT {sql} FROM tested ORDER BY i").fetchall()] == expected


def test_a_test_decides_the_other_tests_on_its_column(monkeypatch):
    """Under `x <= 0.5` holding, a rule that needs `x > 0.5` is gone and `x <= 2.0` is known;
    under `a = 'p'` holding, `a = 'q'` is gone and `a IN ('p', 'r')` known."""
    monkeypatch.setattr(sql_decision, "FLAT_RULES", 1)
    x_le = exp.LTE(this=_col("x"), expression=_number(0.5))
    x_gt = exp.GT(this=_col("x"), expression=_number(0.5))
    x_le2 = exp.LTE(this=_col("x"), expression=_number(2.0))
    a_p = exp.EQ(this=_col("a"), expression=exp.Literal.string("p"))
    a_q = exp.EQ(this=_col("a"), expression=exp.Literal.string("q"))
    a_pr = exp.In(this=_col("a"), expressions=[exp.Literal.string("p"), exp.Literal.string("r")])
    tests = [x_le, x_gt, x_le2, a_p, a_q, a_pr]
    split = sql_decision.decision_case(tests, [[0, 3], [1, 4], [2, 5]])
    root = split.args["ifs"][0]
    assert root.this == x_le
    under = root.args["true"]
    assert x_gt not in list(under.find_all(exp.GT)) and x_le2 not in list(under.find_all(exp.LTE))
    inner = under.args["ifs"][0]
    assert inner.this == a_p and inner.args["true"] == exp.Literal.number(1)
    # a not 'p' (and x <= 0.5): rule 2 cannot fire, rule 3 needs a IN ('p', 'r'), which is a = 'r' here
    assert under.args["default"].sql() == "CASE WHEN \"a\" IN ('p', 'r') THEN 3 ELSE 0 END"
