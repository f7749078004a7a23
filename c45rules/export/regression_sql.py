"""RegressionModel -> SQL: the predicted number of each row, as `RegressionModel.predict` gives it.

Per committee, each rule whose conditions hold adds its bounded linear model to a total and 1
to a count; the committee's value is the total over the count, or its default model (bounded
to the model's range) when the count is 0:

    COALESCE((CASE WHEN <rule 1> THEN LEAST(GREATEST(<model 1>, lower), upper) ELSE 0.0 END + ..)
             / NULLIF(CASE WHEN <rule 1> THEN 1 ELSE 0 END + .., 0), <default>)

(the sums added as balanced trees, so hundreds of rules stay within the engines' expression depth)

The committees' values are averaged and the average is bounded to [floor, ceiling]. Conditions
are the class rules' SQL tests (export/sql.py `_condition`: a NULL, a bad text or NaN satisfies
no threshold test); a continuous column is read once per row through `sql_as_number`, and in a
linear model an unknown value (NULL, NaN, a bad text) counts as the attribute's training mean.
Coefficients, bounds and means are doubles (`sql_double`), so every engine computes in IEEE
double as numpy does. SQL Server has GREATEST and LEAST from its 2022 release on.

A model with instances (`neighbors` > 0) is refused: its correction searches the training cases
for each row's nearest neighbours, which a row-wise SQL expression cannot do.
"""
from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from ..errors import InputError
from ..model.regression import LinearModel, RegressionModel, RegressionRule
from .sql import (SQL_DIALECTS, Numbers, _check_dialect, _column, _condition, _Converted, _from, _identifier,
                  _left_sum, _render, sql_as_number, sql_double)

PREDICTION_COLUMN = "predicted_value"


def check_no_instances(model: RegressionModel, what: str) -> None:
    """InputError when `model` corrects its predictions by instances, which `what` cannot express."""
    if model.neighbors:
        raise InputError(f"{what} cannot express a regression model with instances (neighbors = {model.neighbors}):"
                         " the correction searches the training cases for each case's nearest neighbours;"
                         " fit with --neighbors 0 for this export")


def _balanced_sum(terms: list[exp.Expression]) -> exp.Expression:
    """t1 + t2 + ... as a balanced tree of additions: a left-to-right chain of hundreds of rules
    passes SQLite's expression depth limit (1000) and the SQL generator's recursion. The order
    differs from numpy's running sum by rounding only (far below 6 significant digits)."""
    while len(terms) > 1:
        # parenthesised: the engine's parser would read `a + b + c + d` as a chain again
        pairs = [exp.paren(exp.Add(this=terms[i], expression=terms[i + 1]), copy=False)
                 for i in range(0, len(terms) - 1, 2)]
        terms = pairs + ([terms[-1]] if len(terms) % 2 else [])
    return terms[0]


def _clamp(value: exp.Expression, low: float, high: float, dialect: str) -> exp.Expression:
    """`min(max(value, low), high)`, as np.clip. The value is never NULL (unknowns are means), so
    the NULL rule does not matter: the flag is the one sqlglot writes as a plain GREATEST / MAX
    (else it wraps DuckDB's, and SQLite's, in a NULL test repeating the value)."""
    plain = dialect == "duckdb"
    return exp.Least(this=exp.Greatest(this=value, expressions=[sql_double(low, dialect)], ignore_nulls=plain),
                     expressions=[sql_double(high, dialect)], ignore_nulls=plain)


def _known(ref: exp.Expression, mean: float, dialect: str) -> exp.Expression:
    """The value of `ref`, or `mean` when it is unknown: NULL, or NaN where floats can hold it
    (`x = x AND x <> NaN` is false for NaN under both the IEEE rule and the NaN = NaN rule)."""
    nan = SQL_DIALECTS[dialect]
    if nan is None:
        return exp.Coalesce(this=ref.copy(), expressions=[sql_double(mean, dialect)])
    known = exp.and_(exp.EQ(this=ref.copy(), expression=ref.copy()), exp.NEQ(this=ref.copy(), expression=nan()))
    return exp.Case(ifs=[exp.If(this=known, true=ref.copy())], default=sql_double(mean, dialect))


def _linear(lm: LinearModel, numbers: dict[str, exp.Expression], means: dict[str, float],
            dialect: str) -> exp.Expression:
    """intercept + c1 * x1 + c2 * x2 ..., added left to right as LinearModel.evaluate does."""
    terms = [sql_double(lm.intercept, dialect)]
    terms += [exp.Mul(this=sql_double(coef, dialect), expression=_known(numbers[name], means[name], dialect))
              for name, coef in lm.coefficients]
    return _left_sum(terms)


def _rule_test(rule: RegressionRule, model: RegressionModel, dialect: str, table: str | None, numbers: Numbers,
               where: str) -> exp.Expression | None | bool:
    """The rule's conditions ANDed; True when it has none; None when no row can satisfy it."""
    tests = [_condition(c, model, dialect, table, f"{where}.conditions[{j}]", numbers)
             for j, c in enumerate(rule.conditions)]
    if any(t is None for t in tests):
        return None
    flat = [t for ts in tests for t in ts]
    return exp.and_(*flat) if flat else True


def regression_expression(model: RegressionModel, dialect: str = "sqlite", *, table_alias: str | None = None,
                          numbers: Numbers = False) -> exp.Expression:
    """The predicted number as one sqlglot expression (the module docstring).

    `numbers`: how a continuous column is read: False through the inline as-number expression at
    each reference, True as it is (already DOUBLE), or a mapping attribute -> the reference of its
    value converted once per row (the SELECT's)."""
    _check_dialect(dialect)
    if not isinstance(model, RegressionModel):
        raise InputError(f"expected a RegressionModel, got {type(model).__name__}")
    check_no_instances(model, "SQL")
    means = dict(model.means)
    refs = {}
    for a in model.schema.names:
        if isinstance(numbers, dict) and a in numbers:
            refs[a] = numbers[a]
        else:
            col = _column(a, table_alias)
            refs[a] = col if numbers is True else sql_as_number(col, dialect)
    values = []
    for k, committee in enumerate(model.committees):
        default = _clamp(_linear(committee.default, refs, means, dialect), model.floor, model.ceiling, dialect)
        totals, counts = [], []
        for i, rule in enumerate(committee.rules):
            test = _rule_test(rule, model, dialect, table_alias, numbers, f"committees[{k}].rules[{i}]")
            if test is None:
                continue
            value = _clamp(_linear(rule.model, refs, means, dialect), rule.lower, rule.upper, dialect)
            if test is True:
                totals.append(value)
                counts.append(exp.Literal.number(1))
            else:
                totals.append(exp.Case(ifs=[exp.If(this=test, true=value)], default=sql_double(0.0, dialect)))
                counts.append(exp.Case(ifs=[exp.If(this=test.copy(), true=exp.Literal.number(1))],
                                       default=exp.Literal.number(0)))
        if not totals:
            values.append(default)
            continue
        average = exp.Div(this=exp.paren(_balanced_sum(totals), copy=False),
                          expression=exp.Nullif(this=exp.paren(_balanced_sum(counts), copy=False),
                                                expression=exp.Literal.number(0)))
        values.append(exp.Coalesce(this=average, expressions=[default]))
    mean = values[0] if len(values) == 1 else exp.Div(this=exp.paren(_left_sum(values), copy=False),
                                                      expression=sql_double(len(values), dialect))
    return _clamp(mean, model.floor, model.ceiling, dialect)


def _used_continuous(model: RegressionModel) -> list[str]:
    """The continuous columns the conditions test or the linear models read, in schema order."""
    used = {c.attribute for r in model.rules for c in r.conditions if c.op in ("<=", ">")}
    used.update(name for c in model.committees for lm in [c.default, *(r.model for r in c.rules)]
                for name in lm.attributes)
    return [a for a in model.schema.names if a in used]


def regression_select(model: RegressionModel, table: str | Sequence[str] | exp.Expression, dialect: str = "sqlite",
                      *, prediction_column: str = PREDICTION_COLUMN, table_alias: str = "t", pretty: bool = True,
                      typed: bool = False) -> str:
    """`SELECT t.*, <the predicted number> AS predicted_value FROM table AS t` in `dialect`.

    `table` is a name, a tuple of name parts or a sqlglot query, as for the class rules'
    `to_sql_select`; the output column is `prediction_column`. Each continuous column the model
    reads is converted to a number once per row (export/sql.py `_Converted`); `typed=True` reads
    them as they are (already DOUBLE). InputError for an unknown dialect, a model with instances
    or an output name that collides with an input; ModelError naming a condition or model that
    does not fit the schema.
    """
    _check_dialect(dialect)
    check_no_instances(model, "SQL")
    if not isinstance(prediction_column, str) or not prediction_column or "\0" in prediction_column:
        raise InputError(f"output column name must be a non-empty string without NUL, not {prediction_column!r}")
    taken = {n.casefold() for n in (*model.schema.names, model.target)}
    if prediction_column.casefold() in taken:
        raise InputError(f"output column {prediction_column!r} collides with an input column;"
                         " pass prediction_column= to name it differently")
    converted = _Converted([], dialect, table_alias, [*model.schema.names, model.target, prediction_column],
                           names=_used_continuous(model))
    numbers: Numbers = True if typed else converted.refs
    value = regression_expression(model, dialect, table_alias=table_alias, numbers=numbers)
    columns = [exp.Column(this=exp.Star(), table=_identifier(table_alias)),
               exp.alias_(value if typed else converted.wrap(value), prediction_column, quoted=True)]
    query = _from(exp.Select(expressions=columns), table, table_alias, None if typed else converted)
    return _render(query, dialect, pretty)


def to_regression_sql(model: RegressionModel, dialect: str = "sqlite", *, table_alias: str | None = None,
                      pretty: bool = True) -> str:
    """The predicted number as one SQL expression (each reference reads its column as a number)."""
    return _render(regression_expression(model, dialect, table_alias=table_alias), dialect, pretty)


__all__ = ["PREDICTION_COLUMN", "check_no_instances", "regression_expression", "regression_select",
           "to_regression_sql"]
