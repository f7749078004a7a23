"""RegressionModel -> one standalone Python module (standard library only) that predicts a number.

The module has `predict(record) -> float`, `predict_rules(record)` (per committee, the ids of the
rules that hold, () where its default model applies), the rules as readable `if` blocks, and the
CSV scorer of export/python.py (columns `predicted_value` and `rules`: per committee the fired
ids joined by '+', 0 for the default, committees separated by spaces). It computes exactly as
`RegressionModel.predict` (its module docstring): records are read as the class rules' module
reads them (export/python.py's runtime: unknown values, numbers given as text, discrete values
as canonical text); a condition on an unknown value does not hold, and in a linear model an
unknown value is the attribute's training mean. The arithmetic is numpy's order: each model
left to right from its intercept, each committee the sum of its rules' bounded values over
their count, the committees' values summed in order over their number.

A model with instances (neighbors > 0) is refused (check_no_instances).
"""
from __future__ import annotations

import os
from pathlib import Path

from ..data.reading import PANDAS_NA_TOKENS
from ..model.regression import LinearModel, RegressionModel
from ._atomic import atomic_write_text
from .python import IMPORTS, _MAIN, _RUNTIME, _docstring, _float, _literal, _spelled_values, _test
from .regression_sql import check_no_instances

_API = '''

def _model(record, intercept, terms):
    """intercept + coefficient * value ..., left to right; an unknown value is its training mean."""
    value = intercept
    for name, coefficient in terms:
        x = record[name]
        value += coefficient * (MEANS[name] if x != x else x)
    return value


def _clip(value, low, high):
    return min(max(value, low), high)


def _decide(record):
    """(the predicted number, per committee the ids of the rules that hold)."""
    fields = _fields(record)
    values, fired = [], []
    for committee in COMMITTEES:
        value, ids = committee(fields)
        values.append(value)
        fired.append(ids)
    total = 0
    for value in values:
        total += value
    return _clip(total / len(values), FLOOR, CEILING), tuple(fired)


def predict(record: Mapping[str, object]) -> float:
    """The predicted number for one record (a mapping from field name to value)."""
    return _decide(record)[0]


def predict_rules(record: Mapping[str, object]) -> tuple:
    """Per committee, the ids of the rules whose conditions hold (() : its default model applies)."""
    return _decide(record)[1]


def _outputs(record, confidence):
    """The CSV columns added for a record: the number and the rules that hold."""
    value, fired = _decide(record)
    return [repr(value), " ".join("+".join(map(str, ids)) or "0" for ids in fired)]
'''

# the class rules' CSV scorer, its columns named for a number and the rules that hold
_SCORER = (_MAIN.replace('default="predicted_class"', 'default="predicted_value"')
           .replace('default="rule_id"', 'default="rules"')
           .replace("name of the class column added", "name of the predicted number's column")
           .replace("name of the rule id column added", "name of the column of the rules that hold")
           .replace('help="also add the decision\'s confidence, in a column of this name"',
                    'help=argparse.SUPPRESS'))


def _call(lm: LinearModel) -> str:
    terms = ", ".join(f"({_literal(name)}, {_float(coef)})" for name, coef in lm.coefficients)
    return f"_model(record, {_float(lm.intercept)}, ({terms}{',' if len(lm.coefficients) == 1 else ''}))"


def _describe(model: RegressionModel) -> str:
    from .. import __version__
    return "\n".join([
        f"Regression rules exported by c45rules {__version__}: a standalone predictor of"
        f" {_literal(model.target)} (standard library only).", "",
        "Per committee, the rules whose conditions all hold each give their linear model's value,",
        "bounded to the rule's range; the committee's value is their average, or its default model",
        "(bounded to the model's range) when none holds. The committees' values are averaged and the",
        f"result bounded to [{model.floor!r}, {model.ceiling!r}]. Unknown values (a field left out,",
        "None, NaN, '' and '?') satisfy no condition; in a linear model they count as the",
        "attribute's training mean (MEANS).", "",
        str(model), "",
        "Use:",
        "    import model; model.predict(record); model.predict_rules(record)",
        "    python model.py in.csv -o out.csv   (every input column, plus the predicted number",
        "                                         and the rules that hold)",
    ])


def to_regression_python(model: RegressionModel) -> str:
    """The source of a standalone module (standard library only) that predicts exactly as
    `model`, a RegressionModel without instances, does: InputError for one with instances,
    ModelError naming a condition that does not fit the schema."""
    check_no_instances(model, "the standalone Python module")
    s = model.schema
    used = set(model.used_attributes())
    out = [
        _docstring(_describe(model)),
        "from __future__ import annotations",
        "",
        *IMPORTS,
        f"TARGET = {_literal(s.target)}",
        f"FINGERPRINT = {_literal(model.fingerprint)}",
        f"FLOOR, CEILING = {_float(model.floor)}, {_float(model.ceiling)}",
        "# each continuous attribute's training mean: an unknown value's value in a linear model",
        f"MEANS = {{{', '.join(f'{_literal(n)}: {_float(m)}' for n, m in model.means)}}}",
        f"CONTINUOUS = {_literal(a.name for a in s.attributes if a.is_continuous)}",
        f"DISCRETE = {_literal(a.name for a in s.attributes if a.is_discrete)}",
        f"REQUIRED = {_literal(n for n in s.names if n in used)}",
        f"SPELLED = {_spelled_values(model)}",
        f"NA_TOKENS = frozenset({_literal(sorted(PANDAS_NA_TOKENS))})",
        "CSV_SAFE = {}   # a number never reads as a spreadsheet formula",
        _RUNTIME,
    ]
    for k, committee in enumerate(model.committees, 1):
        out += ["", f"def _committee_{k}(record):",
                f'    """(committee {k}\'s value, the ids of its rules that hold) for a cleaned record."""',
                "    total, fired = 0.0, []"]
        for i, rule in enumerate(committee.rules):
            where = f"committees[{k - 1}].rules[{i}].conditions"
            tests = [_test(c, model, f"{where}[{j}]") for j, c in enumerate(rule.conditions)]
            out.append(f"    # rule {rule.id}: {rule.cases} cases, mean {rule.mean:.6g}, range {rule.low:.6g}"
                       f" to {rule.high:.6g}, est err {rule.error:.6g}")
            body = [f"total += _clip({_call(rule.model)}, {_float(rule.lower)}, {_float(rule.upper)})",
                    f"fired.append({int(rule.id)})"]
            if tests:
                out.append(f"    if {' and '.join(tests)}:")
                out += [f"        {line}" for line in body]
            else:
                out += [f"    {line}" for line in body]
        out += ["    if fired:", "        return total / len(fired), tuple(fired)",
                f"    return _clip({_call(committee.default)}, FLOOR, CEILING), ()"]
    out += ["", f"COMMITTEES = ({''.join(f'_committee_{k}, ' for k in range(1, len(model.committees) + 1))})",
            _API + _SCORER]
    return "\n".join(out)


def write_regression_python(model: RegressionModel, path: str | os.PathLike) -> Path:
    """Write the standalone module to `path` atomically (nothing is written on an error)."""
    return atomic_write_text(path, to_regression_python(model))
