"""RuleSet -> SQL: one first-hit CASE expression, built as a sqlglot tree, rendered per dialect.

`to_sql_case` gives `CASE WHEN <rule 1> THEN 'class' WHEN <rule 2> ... ELSE '<default>' END`;
`to_sql_select` scores every row of a table or subquery: `SELECT t.*, <class case> AS
predicted_class, <rule-id case> AS rule_id FROM ... AS t CROSS JOIN LATERAL (SELECT <as number
t.x> AS c1, ...) AS n` (rule id 0 when the default class decides, as everywhere in c45rules):
each continuous column the rules test is converted once per row, and the conditions compare
`n.c1` (`_Converted`: the lateral form per dialect, SQLite's scalar subquery per output).
No SQL text is concatenated: identifiers are quoted and literals escaped by sqlglot's
generator for the dialect, so hostile column names and category values cannot inject.

How the SQL matches `RuleSet.predict` row for row (spec 7.11):
* rules are tried in order, the first whose conditions all hold wins, else the default;
  rules that never fire (pessimistic error > 0.7) are left out;
* continuous columns may be stored as numbers or as text (a raw load, DuckDB's all_varchar,
  Spark's CSV reader without a schema): each is read (once per row in the SELECT, at every
  reference in the standalone CASE) through one "as number" expression per dialect
  (`sql_as_number`) that keeps a number type's value as it is (no text
  round trip), reads a text by the rule of c45rules/data/numbers.py (ASCII white space around
  an ASCII plain decimal, finite), and gives NULL (unknown) for any other text (a *bad cell*:
  'abc', 'inf', 'NaN', '1_000', '1e999', a decimal comma '1,5'), as `predict --bad-cells
  unknown` reads it. It dispatches on the storage type where the dialect can ask (SQLite's
  typeof per value, DuckDB's, Spark's and Trino's typeof, PostgreSQL's pg_typeof, Snowflake's
  TYPEOF of a VARIANT, Oracle's DUMP), and tests text against the grammar with the dialect's
  regular expressions (`NUMBER_REGEX`, anchored with \\A and \\z where `$` could match before a
  final line break) or, where there are none (SQLite, SQL Server), with GLOB / LIKE patterns
  that spell the same grammar (`_PATTERN_TESTS`). The number is then compared:
  `x <= t` and `x > t` with `t` written exactly (repr of the double), never `NOT (x <= t)`,
  so NULL fails both by SQL's three-valued logic. Where it holds: SQLite's own text reading
  (CAST AS REAL) is used, the one it reads the thresholds with; PostgreSQL reads a text
  through NUMERIC, so a text whose exponent passes NUMERIC's range (about 1e131072) stops the
  query with an error; BigQuery cannot ask a value's type, so a FLOAT64 infinity there reads
  as unknown; MySQL reads an overflowing text ('1e999') as its nearest double;
* NaN: Python's `NaN > t` is false, but PostgreSQL, DuckDB, Snowflake, Spark, Databricks and
  Oracle order NaN above every number, so `NaN > t` is true there. For every dialect whose
  float columns can hold NaN, each `x > t` is followed by `x <> NaN`, which is false for NaN
  under those engines' NaN = NaN rule and true for every number under IEEE rules (BigQuery,
  Trino). `x <= t` is already false for NaN everywhere. SQLite stores NaN as NULL; MySQL and
  SQL Server cannot store NaN; they get no guard;
* a threshold test that also accepts unknown values (`or_unknown`, trees imported from
  scikit-learn) is `(x <= t OR x IS NULL)` where NaN cannot be stored, and elsewhere
  `(x IS NULL OR NOT (<the opposite test>))`, the opposite test being false for NaN, so
  that NaN counts as unknown as in the library;
* discrete columns are compared as text (store them as TEXT / VARCHAR holding the values'
  canonical text, as `c45rules.data.frame.value_str` writes them): `x = 'v'`, `x IN (...)`.
  NULL, '' and '?' never equal a schema value (the loaders forbid those as values), and
  neither does a category the model never saw.
Identifiers are always quoted, so column names must match the table's exactly (case too).
Executed in the tests: SQLite, DuckDB, PostgreSQL, Spark (typed and all-text tables). The other dialects are checked by
parsing the text back. Under their default collations MySQL and SQL Server compare text
case-insensitively, so 'Sunny' would match 'sunny' there (the library calls it unseen);
give discrete columns a binary collation (e.g. utf8mb4_0900_bin, Latin1_General_100_BIN2)
when data may differ from the model's values in case. SQL Server's `=` also ignores
trailing spaces under every collation.
"""
from __future__ import annotations

import functools
import math
import sys
from collections.abc import Mapping, Sequence
from typing import Callable

import sqlglot
from sqlglot import exp

from ..data.costs import vote_cost_terms
from ..data.numbers import NUMBER_CORE, NUMBER_REGEX, NUMBER_SPACE
from ..errors import InputError, ModelError
from ..model.boosted import BoostedRuleSet
from ..model.regression import RegressionModel
from ..model.ruleset import Condition, Rule, RuleSet, checked_condition
from ._comment import note_lines
from .choices import FORMS, REGRESSION_HINT

UNKNOWN_VALUES = ("", "?")   # unknown in data (spec 1), so a test on them is never satisfied


def _double_nan() -> exp.Expression:
    return exp.cast(exp.Literal.string("NaN"), exp.DataType.build("double"))


def _oracle_nan() -> exp.Expression:
    # Oracle's DOUBLE PRECISION is a NUMBER, which cannot hold NaN; BINARY_DOUBLE can
    return exp.Anonymous(this="TO_BINARY_DOUBLE", expressions=[exp.Literal.string("NaN")])


# dialect -> how to spell NaN there (None: its float columns cannot hold NaN)
SQL_DIALECTS: dict[str, Callable[[], exp.Expression] | None] = {
    "sqlite": None,        # NaN is stored as NULL
    "mysql": None,         # DOUBLE cannot hold NaN
    "tsql": None,          # FLOAT cannot hold NaN
    "duckdb": _double_nan,
    "postgres": _double_nan,
    "snowflake": _double_nan,
    "bigquery": _double_nan,
    "spark": _double_nan,
    "databricks": _double_nan,
    "trino": _double_nan,
    "oracle": _oracle_nan,
}


def _check_dialect(dialect: str) -> str:
    if dialect not in SQL_DIALECTS:
        raise InputError(f"SQL dialect {dialect!r} is not supported"
                         f" (choose one of: {', '.join(sorted(SQL_DIALECTS))})")
    return dialect


def _text(text: str) -> str:
    if "\0" in text:   # SQL text cannot carry NUL (C strings end there; PostgreSQL refuses it)
        raise ModelError(f"{text!r} contains a NUL character, which SQL cannot express")
    return text


def _identifier(name: str) -> exp.Identifier:
    return exp.to_identifier(_text(name), quoted=True)


def sql_identifier(name: str, dialect: str) -> str:
    """`name` quoted as one identifier for `dialect` (Spark: in backticks, a backtick doubled)."""
    return _identifier(name).sql(dialect=_check_dialect(dialect), identify=True)


def _column(name: str, table: str | None) -> exp.Column:
    return exp.Column(this=_identifier(name),
                      table=_identifier(table) if table is not None else None)


def _string(value: str, dialect: str) -> exp.Expression:
    _text(value)
    if dialect == "tsql" and not value.isascii():
        return exp.National(this=value)   # a plain '...' literal is converted to the code page
    return exp.Literal.string(value)



# ---- a continuous column as a number, whether stored as a number or as text ------------------
# `X` is the column, `R` the grammar's regular expression, `W` the white space characters, `M`
# the largest double, `G` the GLOB / LIKE test of the grammar on `S` (the text trimmed of `W`).
# Where the dialect can ask a value's type, a number type is cast to double as it is (exact, and
# infinities and NaN kept for the NaN rules below); only text is tested and read.
_AS_NUMBER = {
    "sqlite": "CASE WHEN typeof(X) IN ('integer', 'real') THEN X WHEN typeof(X) = 'text' AND G"
              " AND abs(CAST(S AS REAL)) < 9e999 THEN CAST(S AS REAL) END",   # 9e999 is Inf there
    "tsql": "CASE WHEN G THEN COALESCE(TRY_CAST(X AS FLOAT), TRY_CAST(S AS FLOAT)) END",
    "mysql": "CASE WHEN REGEXP_LIKE(CAST(X AS CHAR), R) THEN CAST(X AS DOUBLE) END",
    "duckdb": "CASE WHEN typeof(X) <> 'VARCHAR' THEN CAST(X AS DOUBLE)"
              " WHEN regexp_full_match(CAST(X AS VARCHAR), R) AND isfinite(TRY_CAST(CAST(X AS VARCHAR) AS DOUBLE))"
              " THEN TRY_CAST(CAST(X AS VARCHAR) AS DOUBLE) END",
    # float8 input fails on overflow and on underflow to zero: the text is measured as NUMERIC first
    # (overflow: at or past 2^1024 - 2^970, which rounds to infinity; zero: at or below 2^-1075)
    "postgres": "CASE WHEN pg_typeof(X) IN (CAST('double precision' AS REGTYPE), CAST('real' AS REGTYPE),"
                " CAST('numeric' AS REGTYPE), CAST('integer' AS REGTYPE), CAST('bigint' AS REGTYPE),"
                " CAST('smallint' AS REGTYPE)) THEN CAST(X AS DOUBLE PRECISION)"
                " WHEN NOT CAST(X AS TEXT) ~ R THEN NULL"
                " WHEN abs(CAST(CAST(X AS TEXT) AS NUMERIC))"
                " >= power(CAST(2 AS NUMERIC), 1024) - power(CAST(2 AS NUMERIC), 970) THEN NULL"
                " WHEN abs(CAST(CAST(X AS TEXT) AS NUMERIC)) * power(CAST(2 AS NUMERIC), 1075) <= 1"
                " THEN CAST(0 AS DOUBLE PRECISION)"
                " ELSE CAST(CAST(X AS TEXT) AS DOUBLE PRECISION) END",
    "spark": "CASE WHEN typeof(X) <> 'string' THEN CAST(X AS DOUBLE)"
             " WHEN CAST(X AS STRING) RLIKE R AND abs(TRY_CAST(CAST(X AS STRING) AS DOUBLE)) <= M"
             " THEN TRY_CAST(CAST(X AS STRING) AS DOUBLE) END",
    "trino": "CASE WHEN NOT (typeof(X) LIKE 'varchar%' OR typeof(X) LIKE 'char%') THEN CAST(X AS DOUBLE)"
             " WHEN regexp_like(CAST(X AS VARCHAR), R) AND is_finite(TRY_CAST(CAST(X AS VARCHAR) AS DOUBLE))"
             " THEN TRY_CAST(CAST(X AS VARCHAR) AS DOUBLE) END",
    "snowflake": "CASE WHEN TYPEOF(TO_VARIANT(X)) <> 'VARCHAR' THEN CAST(X AS DOUBLE)"
                 " WHEN REGEXP_LIKE(CAST(X AS VARCHAR), R) AND ABS(TRY_CAST(TRIM(CAST(X AS VARCHAR), W) AS DOUBLE)) <= M"
                 " THEN TRY_CAST(TRIM(CAST(X AS VARCHAR), W) AS DOUBLE) END",
    # no way to ask a value's type: a FLOAT64's own text ('inf' for infinity) is tested too
    "bigquery": "CASE WHEN REGEXP_CONTAINS(CAST(X AS STRING), R)"
                " AND NOT IS_INF(COALESCE(SAFE_CAST(X AS FLOAT64), SAFE_CAST(TRIM(CAST(X AS STRING), W) AS FLOAT64)))"
                " THEN COALESCE(SAFE_CAST(X AS FLOAT64), SAFE_CAST(TRIM(CAST(X AS STRING), W) AS FLOAT64)) END",
    # DUMP names the storage type: 1 VARCHAR2 / NVARCHAR2, 96 CHAR / NCHAR; the number is the
    # grammar's core (no white space) that REGEXP_SUBSTR finds in the text
    "oracle": "CASE WHEN DUMP(X) NOT LIKE 'Typ=1 %' AND DUMP(X) NOT LIKE 'Typ=96 %' THEN TO_BINARY_DOUBLE(X)"
              " WHEN REGEXP_LIKE(X, R) AND ABS(TO_BINARY_DOUBLE(REGEXP_SUBSTR(X, C))) <= M"
              " THEN TO_BINARY_DOUBLE(REGEXP_SUBSTR(X, C)) END",
}
_AS_NUMBER["databricks"] = _AS_NUMBER["spark"]
# Java (Spark), ICU (MySQL) and Joni (Trino) let `$` match before a final line break, and Joni's
# `^` after any line break: there the grammar is anchored at the very ends of the text
_TEXT_ANCHORS = ("spark", "databricks", "mysql", "trino")

# The grammar as GLOB / LIKE tests on the trimmed text (SQLite has no REGEXP, SQL Server no regular
# expressions before 2025): (must match, pattern with GLOB's `*`). Only [0-9.eE+-] characters, at
# most one exponent mark, at most one point and none after the mark, a sign only first or right
# after the mark, a digit before the mark (or anywhere when there is none), a digit after it.
_PATTERN_TESTS = ((False, "*[^0-9.eE+-]*"), (False, "*[eE]*[eE]*"), (False, "*.*.*"), (False, "*[eE]*.*"),
                  (False, "*[^eE][+-]*"), (False, "*[eE]"), (False, "*[eE][+-]"))


def _number_regex(dialect: str) -> str:
    if dialect in _TEXT_ANCHORS:
        return "\\A" + NUMBER_REGEX[1:-1] + "\\z"
    return NUMBER_REGEX


def _pattern_test(text: exp.Expression, dialect: str) -> exp.Expression:
    """The grammar tested on `text` (trimmed) with SQLite's GLOB or SQL Server's LIKE."""
    def match(pattern: str) -> exp.Expression:
        if dialect == "sqlite":
            return exp.Glob(this=text.copy(), expression=exp.Literal.string(pattern))
        return exp.Like(this=text.copy(), expression=exp.Literal.string(pattern.replace("*", "%")))
    tests = [match(p) if must else exp.Not(this=match(p)) for must, p in _PATTERN_TESTS]
    has_mark = match("*[eE]*")
    tests.append(exp.paren(exp.or_(exp.and_(exp.Not(this=has_mark), match("*[0-9]*")),
                                   match("*[0-9]*[eE]*")), copy=False))
    return exp.and_(*tests)


@functools.lru_cache(maxsize=None)
def _as_number_template(dialect: str) -> exp.Expression:
    return sqlglot.parse_one(_AS_NUMBER[dialect], read=dialect)


def sql_as_number(col: exp.Expression, dialect: str) -> exp.Expression:
    """`col` as a double whether it is stored as a number or as text (see the module docstring):
    a number as it is, a text by the rule of data/numbers.py, anything else NULL. The one SQL
    reading of a number: the exports and the DuckDB and Spark engines all use it."""
    space = exp.Literal.string(NUMBER_SPACE)
    trimmed = (exp.Trim(this=col.copy(), expression=space.copy()) if dialect == "sqlite" else
               exp.Trim(this=exp.cast(col.copy(), exp.DataType.build("nvarchar(max)", dialect="tsql")),
                        expression=space.copy()))
    nodes = {"X": col, "R": exp.Literal.string(_number_regex(dialect)), "W": space,
             "M": sql_double(sys.float_info.max, dialect), "C": exp.Literal.string(NUMBER_CORE),
             "S": trimmed}
    if dialect in ("sqlite", "tsql"):
        nodes["G"] = _pattern_test(trimmed, dialect)

    def fill(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table and node.name in nodes:
            return nodes[node.name].copy()
        return node
    return exp.paren(_as_number_template(dialect).copy().transform(fill), copy=False)

# SQLite (3.40 at least) reads decimal literals below about 1e-291 one unit in the last place
# off; there such a threshold is written as an exact product with 2^-256 (both factors within
# the range it reads exactly; scaling by a power of two is exact)
_SQLITE_TINY = 1e-280
_SQLITE_SCALE = 256


def _number(value: float, where: str, dialect: str) -> exp.Expression:
    value = float(value)
    if not math.isfinite(value):
        raise ModelError(f"{where}: threshold {value!r} cannot be written as an SQL number")
    if dialect == "sqlite" and 0 < abs(value) < _SQLITE_TINY:
        return exp.Paren(this=exp.Mul(this=_number(math.ldexp(value, _SQLITE_SCALE), where, dialect),
                                      expression=_number(math.ldexp(1.0, -_SQLITE_SCALE), where, dialect)))
    text = repr(value)   # shortest text that reads back as this very double
    if text.startswith("-"):
        return exp.Neg(this=exp.Literal.number(text[1:]))
    return exp.Literal.number(text)


def _threshold(op: str, col: exp.Expression, t: exp.Expression, dialect: str) -> list[exp.Expression]:
    """`col <= t` or `col > t` (ANDed tests), both false for NULL and NaN in `dialect`."""
    if op == "<=":
        return [exp.LTE(this=col, expression=t)]
    nan = SQL_DIALECTS[dialect]
    if nan is None:
        return [exp.GT(this=col, expression=t)]
    # NaN sorts above every number there, so NaN > t would hold without the guard
    return [exp.GT(this=col, expression=t), exp.NEQ(this=col.copy(), expression=nan())]


# How the conditions read a continuous column: True (typed) as it is, False through the inline
# as-number expression, or a mapping {attribute: reference to its value converted once per row}
Numbers = bool | Mapping[str, exp.Expression]


def _condition(cond: Condition, ruleset: RuleSet, dialect: str, table: str | None,
               where: str, typed: Numbers = False) -> list[exp.Expression] | None:
    """The SQL tests (ANDed) for one condition; None when no value can ever satisfy it."""
    attr, values = checked_condition(cond, ruleset.schema, where)
    col = _column(cond.attribute, table)
    if cond.op in ("<=", ">"):
        if isinstance(typed, Mapping):
            col = typed[cond.attribute].copy()
        elif not typed:
            col = sql_as_number(col, dialect)
        tests = _threshold(cond.op, col, _number(cond.value, where, dialect), dialect)
        if not cond.or_unknown:
            return tests
        nan = SQL_DIALECTS[dialect]
        if nan is None:   # no NaN there: unknown is NULL
            return [exp.paren(exp.or_(*tests, exp.Is(this=col.copy(), expression=exp.Null())), copy=False)]
        # NaN is unknown too: `NOT (the opposite test on known values)` holds for NaN under either
        # NaN rule (the opposite test is false for it), NULL is asked for apart
        opposite = _threshold(">" if cond.op == "<=" else "<=", col.copy(), _number(cond.value, where, dialect),
                              dialect)
        known_opposite = exp.and_(*opposite) if len(opposite) > 1 else opposite[0]
        return [exp.paren(exp.or_(exp.Is(this=col.copy(), expression=exp.Null()),
                                  exp.Not(this=exp.paren(known_opposite, copy=False))), copy=False)]
    values = tuple(v for v in values if v not in UNKNOWN_VALUES)
    if not values:
        return None
    if len(values) == 1:
        return [exp.EQ(this=col, expression=_string(values[0], dialect))]
    return [exp.In(this=col, expressions=[_string(v, dialect) for v in values])]


def _rule_tests(ruleset: RuleSet, dialect: str, table: str | None, typed: Numbers = False
                ) -> tuple[list[tuple[list[exp.Expression], Rule]], Rule | None]:
    """(the ANDed tests, rule) for each rule that can fire, in order, and the rule (if any) with
    no conditions that catches every case left (it replaces the default)."""
    _check_case_folding(ruleset)
    out: list[tuple[list[exp.Expression], Rule]] = []
    for i, rule in enumerate(ruleset.rules):
        if not rule.fires:
            continue
        tests = [_condition(c, ruleset, dialect, table, f"rules[{i}].conditions[{j}]", typed)
                 for j, c in enumerate(rule.conditions)]
        if any(t is None for t in tests):
            continue
        flat = [t for ts in tests for t in ts]
        if not flat:
            return out, rule
        out.append((flat, rule))
    return out, None


def _decisions(ruleset: RuleSet, dialect: str, table: str | None, typed: Numbers = False
               ) -> tuple[list[tuple[exp.Expression, Rule]], Rule | None]:
    """(predicate, rule) for each rule that can fire, in order, and the catch-all rule (_rule_tests)."""
    tested, catch_all = _rule_tests(ruleset, dialect, table, typed)
    return [(exp.and_(*flat) if len(flat) > 1 else flat[0], rule) for flat, rule in tested], catch_all


def shared_tests(ruleset: RuleSet, dialect: str, typed: Numbers = True
                 ) -> tuple[list[exp.Expression], list[tuple[list[int], Rule]], Rule | None]:
    """The rules' tests with each distinct one once: (the distinct tests, for each rule that can
    fire in order the positions of its ANDed tests in that list, the catch-all rule or None).

    For an engine that evaluates each test once a row (many rules share `x8 <= 0.167`) and
    then each rule as an AND of booleans; the tests are `sql_case_expression`'s own.
    """
    _check_dialect(dialect)
    tested, catch_all = _rule_tests(ruleset, dialect, None, typed)
    distinct: dict[exp.Expression, int] = {}   # sqlglot expressions hash and compare by structure
    tests: list[exp.Expression] = []
    rules: list[tuple[list[int], Rule]] = []
    for flat, rule in tested:
        positions = []
        for test in flat:
            key = test
            if key not in distinct:
                distinct[key] = len(tests)
                tests.append(test)
            positions.append(distinct[key])
        rules.append((positions, rule))
    return tests, rules, catch_all


def _case(decisions: list[tuple[exp.Expression, Rule]], then: list[exp.Expression],
          default: exp.Expression, form: str = "flat") -> exp.Expression:
    """flat: one CASE with a WHEN per rule (`then`: each rule's value); nested: CASE WHEN <rule 1>
    THEN .. ELSE CASE WHEN <rule 2> .. END END, one CASE level per rule (built from the last rule outwards)."""
    if not decisions:
        return default
    if form == "flat":
        return exp.Case(ifs=[exp.If(this=pred.copy(), true=value) for (pred, _), value in zip(decisions, then)],
                        default=default)
    for (pred, _), value in zip(reversed(decisions), reversed(then)):
        default = exp.Case(ifs=[exp.If(this=pred.copy(), true=value)], default=default)
    return default


def decision_values(ruleset: RuleSet, rules: Sequence[Rule], catch_all: Rule | None, dialect: str,
                    output: str) -> list[exp.Expression]:
    """The `output` ('class', 'rule' id or 'confidence') of the default decision (the catch-all
    rule's when there is one), then of each of `rules`, as SQL literals."""
    if output == "class":
        return [_string(catch_all.prediction if catch_all is not None else ruleset.default_class, dialect),
                *(_string(r.prediction, dialect) for r in rules)]
    if output == "rule":
        # 0 = the default class decided (rule ids start at 1), the convention of every output
        return [exp.Literal.number(0 if catch_all is None else int(catch_all.id)),
                *(exp.Literal.number(int(r.id)) for r in rules)]
    # the confidences of every output (RuleSet.decision_confidences), to 6 significant digits
    by_id = dict(zip(ruleset.rule_ids().tolist(), ruleset.decision_confidences().tolist()))
    return [exp.Literal.number(repr(by_id[0 if catch_all is None else int(catch_all.id)])),
            *(exp.Literal.number(repr(by_id[int(r.id)])) for r in rules)]


def _output_case(ruleset: RuleSet, dialect: str, table: str | None, output: str, form: str = "flat",
                 typed: Numbers = False) -> exp.Expression:
    decisions, catch_all = _decisions(ruleset, dialect, table, typed)
    values = decision_values(ruleset, [rule for _, rule in decisions], catch_all, dialect, output)
    return _case(decisions, values[1:], values[0], form)


def sql_of_rule(ruleset: RuleSet, rule: exp.Expression, dialect: str, output: str = "class") -> exp.Expression:
    """The class (`output='class'`) or the confidence ('confidence') of the decision whose rule id
    (0: the default) `rule` holds, as `sql_case_expression`'s gives them: `CASE rule WHEN id THEN ..`.

    An engine that has the rule id of a row already (one pass of the rule conditions) reads the
    other outputs from it, an integer switch, instead of testing the conditions again.
    """
    _check_dialect(dialect)
    if output == "class":
        values = [_string(ruleset.default_class, dialect)] + [_string(r.prediction, dialect) for r in ruleset.rules]
    elif output == "confidence":
        values = [exp.Literal.number(repr(c)) for c in ruleset.decision_confidences().tolist()]
    else:
        raise InputError(f"output must be 'class' or 'confidence', not {output!r}")
    ids = ruleset.rule_ids().tolist()
    return exp.Case(this=rule.copy(), ifs=[exp.If(this=exp.Literal.number(i), true=v) for i, v in zip(ids, values)])


def _check_case_folding(ruleset: RuleSet) -> None:
    """Refuse a tested column whose name another column repeats but for case.

    SQLite, DuckDB, MySQL and others match identifiers without regard to case even when
    quoted, so `"a"` would read column `A` there: the SQL would score other values.
    """
    names = ruleset.schema.names + (ruleset.schema.target,)
    for used in ruleset.used_attributes():
        twins = [n for n in names if n != used and n.casefold() == used.casefold()]
        if twins:
            raise InputError(f"column {used!r} differs from {twins[0]!r} only in case, which many SQL"
                             " engines ignore even in quoted names: rename one before exporting to SQL")


def _check_form(form: str) -> str:
    if form not in FORMS:
        raise InputError(f"form must be 'flat' or 'nested', not {form!r}")
    return form


def sql_case_expression(ruleset: RuleSet, dialect: str = "sqlite", *,
                        table_alias: str | None = None, output: str = "class",
                        form: str = "flat", typed: bool = False) -> exp.Expression:
    """The first-hit CASE as a sqlglot expression: the class (`output='class'`), the id
    of the rule that fired (`output='rule'`, 0 for the default) or the decision's confidence
    (`output='confidence'`); `form` 'flat' (one CASE) or 'nested' (a CASE per rule).

    Continuous columns may hold numbers or text (the module docstring); `typed=True` is for a
    caller whose continuous columns are already DOUBLE (read by the rule of data/numbers.py):
    they are then compared as they are, without the text test.

    Parameters
    ----------
    ruleset : RuleSet
        The model (a BoostedRuleSet needs the SELECT: `to_sql_select`).
    dialect : str, default="sqlite"
        A dialect of SQL_DIALECTS (sqlglot's name: "duckdb", "postgres", "snowflake" ...).
    table_alias : str or None, default=None
        Qualifies every column reference.
    output : {"class", "rule", "confidence"}, default="class"
        What the expression gives.
    form : {"flat", "nested"}, default="flat"
        One CASE with a WHEN per rule, or a CASE in each ELSE.
    typed : bool, default=False
        True when every continuous column is already a number type (DOUBLE): compared as it
        is, without the test that reads a number from text.

    Returns
    -------
    sqlglot.exp.Expression

    Raises
    ------
    InputError
        An unknown dialect, form or output, or a boosted model.
    ModelError
        A condition that does not fit the model's schema.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import sql_case_expression
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> print(sql_case_expression(rs, "duckdb", output="rule", typed=True).sql("duckdb"))
    CASE WHEN "a" <= 2.0 THEN 1 WHEN "a" > 2.0 AND "a" <> CAST('NaN' AS DOUBLE) THEN 2 ELSE 0 END
    """
    _check_dialect(dialect)
    _check_form(form)
    if isinstance(ruleset, BoostedRuleSet):
        raise InputError("a boosted model decides by the vote of its trials, which one CASE expression"
                         " cannot hold: use the SELECT (to_sql_select)")
    if output not in ("class", "rule", "confidence"):
        raise InputError(f"output must be 'class', 'rule' or 'confidence', not {output!r}")
    return _output_case(ruleset, dialect, table_alias, output, form, typed)


def case_nesting(expression: exp.Expression) -> int:
    """How deep CASE expressions nest in `expression` (0: none; the flat form: 1)."""
    deepest = 0
    stack = [(expression, 0)]
    while stack:   # iterative: the nested form is as deep as the rule list is long
        node, depth = stack.pop()
        if isinstance(node, exp.Case):
            depth += 1
            deepest = max(deepest, depth)
        stack.extend((child, depth) for child in node.iter_expressions())
    return deepest


def sql_nesting(model: RuleSet | BoostedRuleSet, dialect: str = "sqlite", form: str = "flat",
                case_only: bool = False) -> int:
    """How deep the CASE expressions of the model's SQL nest: its CASE's depth, or a boosted model's
    deepest trial's (the vote's own CASEs are one level deep). The SELECT (to_sql_select) converts the
    continuous columns apart from the rules' CASE, in a CASE of their own; `case_only`: the standalone
    CASE (to_sql_case), which holds the conversion within each condition."""
    _check_dialect(dialect)
    trials = model.trials if isinstance(model, BoostedRuleSet) else (model,)
    if case_only:
        return max(case_nesting(sql_case_expression(rs, dialect, form=form)) for rs in trials)
    rules = max(case_nesting(sql_case_expression(rs, dialect, form=form, typed=True)) for rs in trials)
    tested = _tested_continuous(trials)
    if not tested:
        return rules
    if dialect == "sqlite":   # the scalar subquery around the CASE (_Converted.wrap) takes one level of
        return rules + 1      # SQLite's parser stack, as a CASE does (measured with SQLite 3.40)
    return max(rules, case_nesting(sql_as_number(_column(tested[0], None), dialect)))


# Limits of a statement's size or depth that a long rule list can pass, by dialect:
# (what is measured, the limit, its source in words). The flat form nests one level deep.
SQL_LIMITS: dict[str, tuple[tuple[str, int, str], ...]] = {
    "bigquery": (("characters", 1024 * 1024,
                  "BigQuery's 'Quotas and limits' page: maximum unresolved GoogleSQL query length 1,024K"
                  " characters"),),
    "snowflake": (("bytes", 1024 * 1024,
                   "Snowflake's 'Limits on Query Text Size' page: keep a statement's text within 1 MB;"
                   " a longer one is truncated where the query history keeps it, so it cannot be rerun"),),
    "tsql": (("nesting", 10,
              "SQL Server's CASE (Transact-SQL) reference: only 10 levels of nesting are allowed in CASE"
              " expressions"),),
    "sqlite": (("nesting", 23,
                "measured with SQLite 3.40: 24 CASE levels nested in ELSE overflow its parser stack"
                " (YYSTACKDEPTH, a build option)"),),
    "duckdb": (("nesting", 992,
                "DuckDB's max_expression_depth setting, 1000 by default: 993 nested CASE levels fail to"
                " bind (measured with DuckDB 2.0)"),),
}


def sql_limit_warnings(text: str, dialect: str, nesting: int) -> list[str]:
    """Warnings for SQL `text` of `dialect` whose CASE nests `nesting` deep, one per limit
    (SQL_LIMITS) it passes."""
    found = []
    for measure, limit, source in SQL_LIMITS.get(dialect, ()):
        size = {"characters": len(text), "bytes": len(text.encode("utf-8")), "nesting": nesting}[measure]
        if size <= limit:
            continue
        what = {"characters": f"{size:,} characters", "bytes": f"{size:,} bytes of text",
                "nesting": f"CASE expressions nested {size} deep"}[measure]
        hint = ("use --form flat (one CASE level)" if measure == "nesting"
                else "a model with fewer rules (fit with a lower -c) gives a shorter statement")
        found.append(f"the {dialect} SQL has {what}, over the limit of {limit:,} ({source}); {hint}")
    return found


def to_sql_case(ruleset: RuleSet, dialect: str = "sqlite", *, table_alias: str | None = None,
                output: str = "class", pretty: bool = True, form: str = "flat", typed: bool = False) -> str:
    """`CASE WHEN <rule 1> THEN 'class' ... ELSE '<default>' END` for `dialect`.

    Columns are referenced by the attribute names (qualified by `table_alias` if given);
    `output='rule'` gives the id of the firing rule instead (0 for the default),
    `output='confidence'` the decision's confidence. `typed=True`: every continuous column is
    known to be a number type, compared as it is (see sql_case_expression).

    Parameters
    ----------
    ruleset : RuleSet
        The model (a BoostedRuleSet needs the SELECT: `to_sql_select`).
    dialect : str, default="sqlite"
        A dialect of SQL_DIALECTS (sqlglot's name: "duckdb", "postgres", "snowflake" ...).
    table_alias : str or None, default=None
        Qualifies every column reference.
    output : {"class", "rule", "confidence"}, default="class"
        What the expression gives.
    pretty : bool, default=True
        One WHEN and one THEN a line, indented; False: one line.
    form : {"flat", "nested"}, default="flat"
        One CASE with a WHEN per rule, or a CASE in each ELSE.
    typed : bool, default=False
        True when every continuous column is already a number type (DOUBLE): compared as it
        is, without the test that reads a number from text.

    Returns
    -------
    str

    Raises
    ------
    InputError
        An unknown dialect, form or output, or a boosted model.
    ModelError
        A condition that does not fit the model's schema.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import to_sql_case
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> print(to_sql_case(rs, "duckdb", typed=True))
    CASE
      WHEN "a" <= 2.0
      THEN 'n'
      WHEN "a" > 2.0 AND "a" <> CAST('NaN' AS DOUBLE)
      THEN 'y'
      ELSE 'n'
    END
    """
    expr = sql_case_expression(ruleset, dialect, table_alias=table_alias, output=output, form=form, typed=typed)
    return _render(expr, dialect, pretty)


def _source(table: str | Sequence[str] | exp.Expression, alias: str) -> exp.Expression:
    talias = exp.TableAlias(this=_identifier(alias))
    if isinstance(table, str):
        return exp.Table(this=_identifier(table), alias=talias)
    if isinstance(table, exp.Table):
        t = table.copy()
        t.set("alias", talias)
        return t
    if isinstance(table, exp.Query):
        return exp.Subquery(this=table.copy(), alias=talias)
    if isinstance(table, Sequence) and table and all(isinstance(p, str) for p in table) \
            and len(table) <= 3:
        parts = [_identifier(p) for p in table]
        kw = dict(zip(("this", "db", "catalog"), reversed(parts)))
        return exp.Table(**kw, alias=talias)
    raise InputError("table must be a table name, a (schema, table) or (catalog, schema, table)"
                     " tuple, or a sqlglot query/table expression")


def _tested_continuous(models: Sequence[RuleSet]) -> list[str]:
    """The continuous columns the firing rules of `models` compare with thresholds, in schema order."""
    used = {c.attribute for rs in models for r in rs.rules if r.fires for c in r.conditions if c.op in ("<=", ">")}
    return [a for a in models[0].schema.names if a in used]


class _Converted:
    """Each continuous column the rules test, converted to a number once per row (`sql_as_number`) in a
    relation of its own, `n`, whose columns are c1, c2, .. in schema order; the conditions compare
    `n.c1` etc. (`refs`). Where the dialect can join a correlated row to each source row, the SELECT's
    FROM clause joins it (`join`): a LATERAL subquery, SQL Server's and Oracle's lateral forms, or
    BigQuery's UNNEST of a one-struct array. SQLite has none of those: there each output column is a
    scalar subquery over the conversions that output reads (`wrap`), so a column is converted once per
    output rather than once per reference. Only `t.*` and the outputs are selected, never `n`'s columns."""

    def __init__(self, models: Sequence[RuleSet], dialect: str, table_alias: str, taken: Sequence[str],
                 names: Sequence[str] | None = None):
        self.dialect, self.table_alias = dialect, table_alias
        # `names`: the columns to convert when not only conditions read them (regression models)
        self.names = list(names) if names is not None else _tested_continuous(models)
        folded = {n.casefold() for n in taken} | {table_alias.casefold()}
        alias = "n"
        while alias.casefold() in folded:   # a name no column nor the source's alias has
            alias += "_"
        self.alias = alias
        self.refs = {a: exp.Column(this=_identifier(f"c{i}"), table=_identifier(alias))
                     for i, a in enumerate(self.names, 1)}

    def _select(self, names: Sequence[str]) -> exp.Select:
        """`SELECT <as number t.a> AS c1, ..` for the columns `names`, fenced where a planner would paste
        the expressions back into each reference (`_fenced`)."""
        select = exp.Select(expressions=[
            exp.alias_(sql_as_number(_column(a, self.table_alias), self.dialect), self.refs[a].name, quoted=True)
            for a in names])
        if self.dialect == "oracle":   # Oracle 21 and before need a FROM; DUAL is named in capitals
            select = select.from_(exp.Table(this=_identifier("DUAL")))
        return _fenced(select, self.dialect)

    def join(self) -> exp.Join | None:
        """The converted columns joined to each source row (None: none, or the dialect is SQLite)."""
        if not self.names or self.dialect == "sqlite":
            return None
        alias = exp.TableAlias(this=_identifier(self.alias))
        if self.dialect == "bigquery":   # no LATERAL subquery: a correlated UNNEST of one struct
            struct = exp.Struct(expressions=[exp.PropertyEQ(this=_identifier(self.refs[a].name),
                                                            expression=sql_as_number(_column(a, self.table_alias),
                                                                                  self.dialect))
                                             for a in self.names])
            return exp.Join(this=exp.Unnest(expressions=[exp.Array(expressions=[struct])],
                                            alias=exp.TableAlias(columns=[_identifier(self.alias)])),
                            kind="CROSS")
        select = self._select(self.names)
        if self.dialect == "oracle":   # the alias on the subquery: Oracle's aliases take no AS
            return exp.Join(this=exp.Lateral(this=exp.Subquery(this=select, alias=alias)), kind="CROSS")
        if self.dialect == "tsql":   # CROSS APPLY
            return exp.Join(this=exp.Lateral(this=exp.Subquery(this=select), alias=alias, cross_apply=True))
        lateral = exp.Lateral(this=exp.Subquery(this=select), alias=alias)
        # Snowflake documents the comma form, `FROM t, LATERAL (..) AS n`
        return exp.Join(this=lateral, kind=None if self.dialect == "snowflake" else "CROSS")

    def wrap(self, output: exp.Expression) -> exp.Expression:
        """`output` as the SELECT lists it: as it is where `join` gives the conversions, else (SQLite)
        `(SELECT <output> FROM (SELECT <conversions it reads>) AS n)`."""
        if self.dialect != "sqlite":
            return output
        read = {c.name for c in output.find_all(exp.Column) if c.table == self.alias}
        names = [a for a in self.names if self.refs[a].name in read]
        if not names:
            return output
        inner = exp.Subquery(this=self._select(names), alias=exp.TableAlias(this=_identifier(self.alias)))
        return exp.Subquery(this=exp.Select(expressions=[output]).from_(inner))


def _check_outputs(model: RuleSet | BoostedRuleSet, outputs: list[str]) -> None:
    """Refuse an output column name that is empty, holds NUL, or collides (ignoring case) with an
    input column or another output."""
    taken = {n.casefold(): n for n in model.schema.names + (model.schema.target,)}
    for name in outputs:
        if not isinstance(name, str) or not name or "\0" in name:
            raise InputError(f"output column name must be a non-empty string without NUL,"
                             f" not {name!r}")
        if name.casefold() in taken:
            raise InputError(f"output column {name!r} collides with the input column"
                             f" {taken[name.casefold()]!r}; pass prediction_column=/rule_column="
                             " to name it differently")
    folded = [o.casefold() for o in outputs]
    if len(set(folded)) < len(folded):
        twin = next(o for o in outputs if folded.count(o.casefold()) > 1)
        raise InputError(f"two output columns are both {twin!r} (prediction_column, rule_column,"
                         " confidence_column, votes_column must differ)")


def to_sql_select(ruleset: RuleSet | BoostedRuleSet, table: str | Sequence[str] | exp.Expression,
                  dialect: str = "sqlite", *, prediction_column: str = "predicted_class",
                  rule_column: str | None = "rule_id", table_alias: str = "t",
                  pretty: bool = True, confidence_column: str | None = None, form: str = "flat",
                  votes_column: str = "votes", typed: bool = False) -> str:
    """`SELECT t.*, <class> AS predicted_class, <rule id> AS rule_id FROM table AS t`.

    `table` is a table name (quoted as one identifier, dots included), a tuple of name
    parts such as ("analytics", "loans"), or a sqlglot query (e.g. `sqlglot.parse_one(sql,
    read=dialect)`) used as a subquery. Every input column is kept; the output columns are
    named by `prediction_column` and `rule_column` (None leaves the rule id out), and with
    `confidence_column` the decision's confidence; none may collide with another or with a
    model column. The model's and the rules' notes come first, as `--` comments. `form`:
    'flat' (the default: one CASE with a WHEN per rule) or 'nested' (a CASE in each ELSE).
    A BoostedRuleSet gets the vote of its trials (see `_boosted_select`): every input column,
    then `rule_id_1` .. `rule_id_T` (each trial's deciding rule, named after `rule_column`),
    `votes_1` .. `votes_K` (each class's total vote, classes in schema order) and `votes_total`
    (named after `votes_column`), the class and, with `confidence_column`, the confidence.

    Parameters
    ----------
    ruleset : RuleSet or BoostedRuleSet
        The model.
    table : str, tuple of str or sqlglot.exp.Expression
        The table (or query) the cases are in.
    dialect : str, default="sqlite"
        A dialect of SQL_DIALECTS (sqlglot's name: "duckdb", "postgres", "snowflake" ...).
    prediction_column : str, default="predicted_class"
        The name of the class column.
    rule_column : str or None, default="rule_id"
        The name of the rule-id column (0: the default class); None leaves it out.
    table_alias : str, default="t"
        The alias of `table`.
    pretty : bool, default=True
        Indented over several lines; False: one line.
    confidence_column : str or None, default=None
        The name of a column of the decision's confidence; None leaves it out.
    form : {"flat", "nested"}, default="flat"
        One CASE with a WHEN per rule, or a CASE in each ELSE.
    votes_column : str, default="votes"
        A boosted model's vote columns' stem.
    typed : bool, default=False
        True when every continuous column is already a number type (DOUBLE): compared as it
        is, without the test that reads a number from text.

    Returns
    -------
    str
        The query, after the notes' ``--`` comments.

    Raises
    ------
    InputError
        An unknown dialect or form, or output columns that collide with each other or with
        a model column.
    ModelError
        A condition that does not fit the model's schema.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import to_sql_select
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> print(to_sql_select(rs, ("analytics", "loans"), "duckdb", rule_column=None, typed=True))
    SELECT
      "t".*,
      CASE
        WHEN "t"."a" <= 2.0
        THEN 'n'
        WHEN "t"."a" > 2.0 AND "t"."a" <> CAST('NaN' AS DOUBLE)
        THEN 'y'
        ELSE 'n'
      END AS "predicted_class"
    FROM "analytics"."loans" AS "t"
    """
    _check_dialect(dialect)
    _check_form(form)
    if isinstance(ruleset, RegressionModel):
        raise InputError(REGRESSION_HINT.format(what="SQL", where="regression_sql.regression_select"))
    if isinstance(ruleset, BoostedRuleSet):
        return _boosted_select(ruleset, table, dialect, prediction_column, rule_column, table_alias, pretty,
                               confidence_column, form, votes_column, typed)
    outputs = [prediction_column] + [c for c in (rule_column, confidence_column) if c is not None]
    _check_outputs(ruleset, outputs)
    converted = _Converted([ruleset], dialect, table_alias, _all_names(ruleset, outputs))
    numbers: Numbers = True if typed else converted.refs
    columns: list[exp.Expression] = [exp.Column(this=exp.Star(), table=_identifier(table_alias))]
    for name, output in ((prediction_column, "class"), (rule_column, "rule"), (confidence_column, "confidence")):
        if name is not None:
            columns.append(exp.alias_(converted.wrap(_output_case(ruleset, dialect, table_alias, output, form,
                                                                  numbers)), name, quoted=True))
    query = _from(exp.Select(expressions=columns), table, table_alias, None if typed else converted)
    notes = "".join(f"-- {line}\n" for line in note_lines(ruleset))
    return notes + _render(query, dialect, pretty)


def _all_names(model: RuleSet | BoostedRuleSet, outputs: Sequence[str]) -> list[str]:
    return list(model.schema.names) + [model.schema.target] + list(outputs)


def _from(select: exp.Select, table: str | Sequence[str] | exp.Expression, table_alias: str,
          converted: _Converted | None) -> exp.Select:
    """`select` FROM the source (as `table_alias`), joined to the converted columns if any."""
    select = select.from_(_source(table, table_alias))
    join = converted.join() if converted is not None else None
    if join is not None:
        select.append("joins", join)
    return select


def sql_double(value: float, dialect: str) -> exp.Expression:
    """`value` as an SQL double that every engine reads back as this very double: repr's text
    cast from a string. A decimal literal would be an exact DECIMAL in PostgreSQL, DuckDB and
    Spark (adding differently, or rounded twice on its way to a double); Oracle's DOUBLE
    PRECISION is a decimal NUMBER, so there it is a BINARY_DOUBLE."""
    text = exp.Literal.string(repr(float(value)))
    if dialect == "oracle":
        return exp.Anonymous(this="TO_BINARY_DOUBLE", expressions=[text])
    return exp.cast(text, exp.DataType.build("double"))


def _left_sum(terms: list[exp.Expression]) -> exp.Expression:
    """((t1 + t2) + t3) ...: added left to right, in the order given."""
    total = terms[0]
    for term in terms[1:]:
        total = exp.Add(this=total, expression=term)
    return total


def _ballot(ruleset: RuleSet, dialect: str) -> list[tuple[int, str, float]]:
    """(rule id, class, vote) of each decision a trial's rule-id CASE can give, the default's last."""
    decisions, catch_all = _decisions(ruleset, dialect, None)
    votes = dict(zip(ruleset.rule_ids().tolist(), ruleset.decision_confidences().tolist()))
    given = [(int(r.id), r.prediction) for _, r in decisions]
    given.append((int(catch_all.id), catch_all.prediction) if catch_all is not None else (0, ruleset.default_class))
    return [(i, c, votes[i]) for i, c in given]


def _votes_case(ballot: list[tuple[int, str, float]], rule: exp.Expression, dialect: str,
                klass: str | None) -> exp.Expression:
    """`CASE <rule> WHEN <id> THEN <vote> ... ELSE 0.0 END`: a trial's vote for `klass` (None: for
    whatever class it decides)."""
    ifs = [exp.If(this=exp.Literal.number(i), true=sql_double(v, dialect))
           for i, c, v in ballot if klass is None or c == klass]
    if not ifs:
        return sql_double(0.0, dialect)
    return exp.Case(this=rule.copy(), ifs=ifs, default=sql_double(0.0, dialect))


def _winner_case(totals: list[exp.Expression], then: list[exp.Expression], least: bool = False) -> exp.Expression:
    """`CASE WHEN v1 >= v2 AND v1 >= v3 .. THEN then1 WHEN v2 >= v3 .. THEN then2 ELSE thenK END`:
    the first class whose total is the highest (np.argmax: a tie goes to the first); `least`: with
    <=, the first whose expected cost is the least (np.argmin)."""
    if len(totals) == 1:
        return then[0]
    compare = exp.LTE if least else exp.GTE
    ifs = [exp.If(this=exp.and_(*[compare(this=totals[k].copy(), expression=totals[j].copy())
                                  for j in range(k + 1, len(totals))]), true=then[k])
           for k in range(len(totals) - 1)]
    return exp.Case(ifs=ifs, default=then[-1])


def _vote_costs(model: BoostedRuleSet, totals: list[exp.Expression], dialect: str) -> list[exp.Expression]:
    """Each class's expected cost by the vote, as data/costs.vote_costs adds it: its terms cost *
    total in class order, left to right (the leading 0.0 dropped: 0.0 + x is x for x >= 0)."""
    costs = model.costs
    terms: list[list[exp.Expression]] = [[] for _ in totals]
    for k, c in vote_cost_terms(costs):
        terms[k].append(exp.Mul(this=sql_double(costs[k, c], dialect), expression=totals[c].copy()))
    return [_left_sum(t) if t else sql_double(0.0, dialect) for t in terms]


def _fenced(query: exp.Select, dialect: str) -> exp.Select:
    """`query` as a subquery the planner evaluates once per row. SQLite and PostgreSQL merge a plain
    subquery into the query around it, pasting its expressions wherever their columns are used: each
    trial's CASE would run once per class and comparison (measured with SQLite: 10,000 income rows,
    3 trials of 58, 430 and 548 rules, 51.7 s; fenced 7.6 s). An OFFSET stops the merge there
    (SQLite's flattening restriction 14; PostgreSQL's pull-up of subqueries)."""
    if dialect == "sqlite":   # SQLite's OFFSET needs a LIMIT: -1 is none
        return query.limit(exp.Neg(this=exp.Literal.number(1))).offset(0)
    if dialect == "postgres":
        return query.offset(0)
    return query


def _boosted_select(model: BoostedRuleSet, table: str | Sequence[str] | exp.Expression, dialect: str,
                    prediction_column: str, rule_column: str | None, table_alias: str, pretty: bool,
                    confidence_column: str | None, form: str, votes_column: str, typed: bool = False) -> str:
    """The vote of a boosted model's trials as three nested SELECTs, each adding columns to all before:
    the innermost gives each trial's deciding rule id (that trial's rule-id CASE), the next each class's
    total vote (for each trial, CASE <its rule id> WHEN <id> THEN <vote> ELSE 0.0 END, added left to
    right in trial order) and the sum of all votes, the outermost the winner (the highest total, a tie
    to the class first in the schema; with costs, the least expected cost, a tie to the first) and the
    confidence (its total over the sum). Votes and costs are doubles
    (`sql_double`), so each engine adds and divides them in IEEE double as BoostedRuleSet does."""
    if rule_column is None:
        raise InputError("a boosted model's SELECT gives each trial's rule id (rule_column names them):"
                         " rule_column cannot be None")
    classes = model.schema.classes
    rules = [f"{rule_column}_{t}" for t in range(1, len(model.trials) + 1)]
    totals = [f"{votes_column}_{k}" for k in range(1, len(classes) + 1)]
    everything = f"{votes_column}_total"
    _check_outputs(model, rules + totals + [everything, prediction_column]
                   + ([confidence_column] if confidence_column is not None else []))
    trials_alias, votes_alias = f"{table_alias}_trials", f"{table_alias}_votes"
    converted = _Converted(model.trials, dialect, table_alias,
                           _all_names(model, rules + totals + [everything, prediction_column, trials_alias,
                                                               votes_alias]))
    numbers: Numbers = True if typed else converted.refs
    first = exp.Select(expressions=[exp.Column(this=exp.Star(), table=_identifier(table_alias))] + [
        exp.alias_(converted.wrap(_output_case(rs, dialect, table_alias, "rule", form, numbers)), name, quoted=True)
        for rs, name in zip(model.trials, rules)])
    first = _fenced(_from(first, table, table_alias, None if typed else converted), dialect)
    ballots = [(_ballot(rs, dialect), _column(name, trials_alias)) for rs, name in zip(model.trials, rules)]
    second = exp.Select(expressions=[exp.Column(this=exp.Star(), table=_identifier(trials_alias))] + [
        exp.alias_(_left_sum([_votes_case(b, ref, dialect, klass) for b, ref in ballots]), name, quoted=True)
        for klass, name in zip(list(classes) + [None], totals + [everything])]).from_(_source(first, trials_alias))
    second = _fenced(second, dialect)
    refs = [_column(name, votes_alias) for name in totals]
    # with costs the least expected cost wins (boosted.py), else the highest total
    least = model.costs is not None
    scores = _vote_costs(model, refs, dialect) if least else refs
    columns = [exp.Column(this=exp.Star(), table=_identifier(votes_alias)),
               exp.alias_(_winner_case(scores, [_string(c, dialect) for c in classes], least), prediction_column,
                          quoted=True)]
    if confidence_column is not None:
        share = [exp.Div(this=ref.copy(), expression=_column(everything, votes_alias)) for ref in refs]
        columns.append(exp.alias_(_winner_case(scores, share, least), confidence_column, quoted=True))
    query = exp.Select(expressions=columns).from_(_source(second, votes_alias))
    notes = "".join(f"-- {line}\n" for line in note_lines(model))
    return notes + _render(query, dialect, pretty)


# sqlglot's generator recurses through each nested CASE (some 20 Python frames a level): the
# nested form of a long rule list needs a deeper stack than Python's default 1000 frames
_FRAMES_PER_LEVEL = 40
MAX_NESTING = 2000   # beyond this the frames would risk the C stack: the flat form is the answer


def _render(expression: exp.Expression, dialect: str, pretty: bool) -> str:
    """sqlglot's text of `expression`, with room on the stack for the nested form's depth."""
    depth = case_nesting(expression)
    if depth > MAX_NESTING:
        raise InputError(f"the nested form would be {depth} CASE levels deep, more than the {MAX_NESTING}"
                         " the SQL generator can write: use the flat form")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 1000 + _FRAMES_PER_LEVEL * depth))
    try:
        return expression.sql(dialect=dialect, identify=True, pretty=pretty)
    finally:
        sys.setrecursionlimit(limit)
