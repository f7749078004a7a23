"""RegressionModel -> PMML 4.4 that jpmml-evaluator and pypmml (PMML4S) score as `RegressionModel.predict`.

Layout (every MiningModel and RegressionModel has functionName="regression"):

    MiningModel                                  the committees' average, bounded by its Target
      Segmentation average: a Segment <True/> per committee, holding
        MiningModel
          Segmentation selectFirst:
            Segment (some rule holds: an "or" of the rules' predicates)
              MiningModel, Segmentation average: a Segment per rule, its predicate the rule's
                conditions, holding a RegressionModel (the rule's linear model) whose Target
                min/max is the rule's bounds
            Segment <True/>: the default model, bounded by a Target to [floor, ceiling]

An "average" segmentation averages the segments whose predicate is TRUE, as the committee averages
the rules that hold. Conditions are those of the class rules' export (export/pmml.py `_condition`):
each preceded by isNotMissing, so a condition on an unknown value never holds; an unseen category
is invalid, read as missing (invalidValueTreatment="asMissing"). In a linear model an unknown
value counts as the attribute's training mean: each continuous field a model reads goes through a
DerivedField `if isMissing(x) then mean else x`.

A model with instances (neighbors > 0) is refused (check_no_instances).
"""
from __future__ import annotations

import os
from pathlib import Path

from ..model.regression import LinearModel, RegressionModel, RegressionRule
from ._atomic import atomic_write_text
from .pmml import _apply, _condition, _derived, _extension, _fresh, _head, _mining_schema, _ref, pmml_double, \
    xml_attribute
from .regression_sql import PREDICTION_COLUMN, check_no_instances


def _indent(lines: list[str], by: str = "  ") -> list[str]:
    return [by + line for line in lines]


def _regression(lm: LinearModel, model: RegressionModel, low: float, high: float, known: dict[str, str],
                where: str) -> list[str]:
    """A RegressionModel: `lm` over the derived (unknown -> mean) fields, its output bounded to [low, high]."""
    target = xml_attribute(model.target, "schema.target")
    lines = ['<RegressionModel functionName="regression">',
             *_mining_schema(model.schema, "  "),
             "  <Targets>",
             f'    <Target field={target} min="{pmml_double(low)}" max="{pmml_double(high)}"/>',
             "  </Targets>",
             f'  <RegressionTable intercept="{pmml_double(lm.intercept)}">']
    lines += [f'    <NumericPredictor name={xml_attribute(known[name], f"{where}: {name}")}'
              f' coefficient="{pmml_double(coef)}"/>' for name, coef in lm.coefficients]
    return lines + ["  </RegressionTable>", "</RegressionModel>"]


def _predicate(rule: RegressionRule, model: RegressionModel, where: str) -> list[str]:
    """The rule's conditions as one predicate (<True/> when it has none)."""
    if not rule.conditions:
        return ["<True/>"]
    tests = [line for j, c in enumerate(rule.conditions) for line in _condition(c, model, f"{where}.conditions[{j}]", "  ")]
    return ['<CompoundPredicate booleanOperator="and">', *tests, "</CompoundPredicate>"]


def _mining(model: RegressionModel, method: str, segments: list[tuple[list[str], list[str]]]) -> list[str]:
    """A MiningModel of `segments` (predicate lines, model lines) combined by `method`."""
    lines = ['<MiningModel functionName="regression">', *_mining_schema(model.schema, "  "),
             f'  <Segmentation multipleModelMethod="{method}">']
    for i, (predicate, inner) in enumerate(segments, 1):
        lines += [f'    <Segment id="{i}">', *_indent(predicate, "      "), *_indent(inner, "      "), "    </Segment>"]
    return lines + ["  </Segmentation>", "</MiningModel>"]


def _committee(model: RegressionModel, k: int, known: dict[str, str]) -> list[str]:
    committee = model.committees[k]
    default = _regression(committee.default, model, model.floor, model.ceiling, known,
                          f"committees[{k}].default")
    rules = []
    for i, rule in enumerate(committee.rules):
        where = f"committees[{k}].rules[{i}]"
        rules.append((_predicate(rule, model, where),
                      _regression(rule.model, model, rule.lower, rule.upper, known, f"{where}.model")))
    if not rules:
        return default
    predicates = [p for p, _ in rules]
    if any(p == ["<True/>"] for p in predicates):
        some = ["<True/>"]
    elif len(predicates) == 1:
        some = predicates[0]
    else:
        some = ['<CompoundPredicate booleanOperator="or">', *(line for p in predicates for line in _indent(p)),
                "</CompoundPredicate>"]
    return _mining(model, "selectFirst", [(some, _mining(model, "average", rules)), (["<True/>"], default)])


def to_regression_pmml(model: RegressionModel) -> str:
    """`model` (without instances) as a PMML 4.4 document laid out as the module docstring says;
    its output field `predicted_value` ('_' appended while that names a field) is the number.
    InputError for a model with instances; ModelError naming a text XML cannot hold or a
    condition that does not fit the schema."""
    check_no_instances(model, "PMML")
    taken = {*model.schema.names, model.target}
    used = sorted({n for c in model.committees for lm in [c.default, *(r.model for r in c.rules)]
                   for n in lm.attributes}, key=model.schema.names.index)
    known = dict(zip(used, _fresh([f"{n}_or_mean" for n in used], taken)))
    output, = _fresh([PREDICTION_COLUMN], taken)
    means = dict(model.means)
    lines = _head(model.schema, number=True)
    lines.append("  <TransformationDictionary>")
    for name in used:
        unknown_as_mean = _apply("if", _apply("isMissing", _ref(name)),
                                 [f'<Constant dataType="double">{pmml_double(means[name])}</Constant>'], _ref(name))
        lines += _derived(known[name], "double", "continuous", unknown_as_mean, "    ")
    lines.append("  </TransformationDictionary>")
    committees = [(["<True/>"], _committee(model, k, known)) for k in range(len(model.committees))]
    outer = _mining(model, "average", committees)
    head = [outer[0],
            "  " + _extension({"format": "c45rules-regression", "options": dict(model.options),
                               "fingerprint": model.fingerprint}, "model extension"),
            *outer[1:outer.index("  </MiningSchema>") + 1],
            "  <Output>",
            f'    <OutputField name={xml_attribute(output, "output field")} optype="continuous" dataType="double"'
            ' feature="predictedValue"/>',
            "  </Output>",
            "  <Targets>",
            f'    <Target field={xml_attribute(model.target, "schema.target")} min="{pmml_double(model.floor)}"'
            f' max="{pmml_double(model.ceiling)}"/>',
            "  </Targets>"]
    lines += _indent(head + outer[outer.index("  </MiningSchema>") + 1:])
    return "\n".join(lines + ["</PMML>"]) + "\n"


def write_regression_pmml(model: RegressionModel, path: str | os.PathLike) -> Path:
    """Write the PMML document to `path` atomically (nothing is written on an error)."""
    return atomic_write_text(path, to_regression_pmml(model))
