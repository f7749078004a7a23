"""RuleSet -> PMML 4.4 RuleSetModel that a PMML evaluator scores exactly as `RuleSet.predict`.

Layout: a DataDictionary with every attribute (continuous: double; discrete: string with
every value listed; ignored: a supplementary string field) and the target with its classes;
a RuleSetModel whose MiningSchema declares the target and, for each input field,
invalidValueTreatment="asMissing"; output fields for the class, the rule id and the
confidence; then the rules in order under RuleSelectionMethod criterion="firstHit".

Why the evaluators decide as the library does:
* unknown values: a SimplePredicate on a missing value is UNKNOWN, an "and" holding an
  UNKNOWN is UNKNOWN or FALSE, and firstHit fires a rule only on TRUE, so a condition on an
  unknown value is not satisfied, as in the library. Each condition is also preceded by an
  explicit `isNotMissing` test, so an evaluator that reads UNKNOWN as anything but "no" still
  sees FALSE;
* a category outside the DataDictionary is invalid, and asMissing makes it missing: it
  satisfies no test, as an unseen value in the library;
* a rule that never fires (error above 0.7, spec 7.6.1) is kept, its conditions behind a
  leading <False/>, so the rule list reads back whole and the evaluators never fire it;
* after the rules comes a rule with id 0 and a <True/> predicate giving the default class,
  so the evaluators report rule id "0" when the default decided, as `predict_rule` does
  (RuleSet defaultScore says the same, for readers that stop at it).

A threshold test that also accepts unknown values (`x <= t or unknown`, from a scikit-learn
tree) is refused with a ModelError naming the rule: this export does not write it.

Discrete fields are strings: give them as text as written (the value `1` of an attribute
is the string "1"; the number 1.0 is the text "1.0", an unseen value).

Evidence: SimpleRule recordCount (covered), nbCorrect (covered - errors), confidence
(1 - pessimistic error); what PMML has no attribute for (the exact error rate, lift,
used, wrong, notes, class counts, options, fingerprint) rides in Extension elements
(extender "c45rules", JSON in `value`) that evaluators ignore and the importer reads back.

Names and values are XML-escaped (quotes, <, &, and tab/newline/CR as character references
so that attribute-value normalisation keeps them); a character XML 1.0 cannot hold at all
(most C0 controls, lone surrogates) is refused with a ModelError naming where it is.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

from ..errors import ModelError
from ..ruleset import Condition, RuleSet, checked_condition
from ._atomic import atomic_write_text
from .graph import _NOT_XML

PMML_NAMESPACE = "http://www.dmg.org/PMML-4_4"
EXTENDER = "c45rules"
DEFAULT_RULE_ID = "0"
_OUTPUTS = ("predicted_class", "rule_id", "confidence")
_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\t": "&#9;", "\n": "&#10;", "\r": "&#13;"}


def xml_attribute(value: str, where: str) -> str:
    """`value` as a double-quoted XML attribute value, or ModelError naming `where` when
    XML 1.0 cannot hold one of its characters."""
    bad = _NOT_XML.search(value)
    if bad:
        raise ModelError(f"{where}: {value[:40]!r} holds the character U+{ord(bad.group()):04X},"
                         " which XML 1.0 (and so PMML) cannot hold")
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in value) + '"'


def pmml_double(value: float) -> str:
    """A double as XML Schema spells it, read back to the same double (repr's digits)."""
    v = float(value)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "INF" if v > 0 else "-INF"
    return repr(v)


def output_names(ruleset: RuleSet) -> tuple[str, str, str]:
    """Names of the class, rule id and confidence output fields: predicted_class, rule_id,
    confidence, each with '_' appended until it differs from every field of the schema."""
    taken = {*ruleset.schema.names, ruleset.schema.target}
    out = []
    for name in _OUTPUTS:
        while name in taken:
            name += "_"
        taken.add(name)
        out.append(name)
    return out[0], out[1], out[2]


def default_confidence(ruleset: RuleSet) -> float:
    """The default class's probability for a case no rule decides (predict_proba's
    Laplace-smoothed distribution of the training cases that reached the default)."""
    counts = ruleset.default_counts
    k = ruleset.schema.classes.index(ruleset.default_class)
    return (counts[k] + 1) / (sum(counts) + len(ruleset.schema.classes))


def _extension(payload: dict, where: str) -> str:
    text = json.dumps(payload, ensure_ascii=False, allow_nan=True)
    return f'<Extension extender="{EXTENDER}" name="c45rules" value={xml_attribute(text, where)}/>'


def _condition(cond: Condition, ruleset: RuleSet, where: str, indent: str) -> list[str]:
    _, values = checked_condition(cond, ruleset.schema, where)
    if cond.or_unknown:
        # PMML's firstHit rules say "or missing" only through isMissing, which the PMML import
        # (and some evaluators' NaN handling) does not read back alike: refused, not approximated
        raise ModelError(f"{where}: {cond} accepts unknown values, which the PMML export does not"
                         " write; export this model to SQL, Python or YAML instead")
    field = xml_attribute(cond.attribute, f"{where}: attribute")
    lines = [f'{indent}<SimplePredicate field={field} operator="isNotMissing"/>']
    if cond.op in ("<=", ">"):
        op = "lessOrEqual" if cond.op == "<=" else "greaterThan"
        lines.append(f'{indent}<SimplePredicate field={field} operator="{op}" value="{pmml_double(cond.value)}"/>')
    elif cond.op == "=":
        lines.append(f'{indent}<SimplePredicate field={field} operator="equal"'
                     f' value={xml_attribute(values[0], f"{where}: value")}/>')
    else:
        # an "or" of equalities rather than a SimpleSetPredicate: an Array's entries are split
        # at spaces and quoted by conventions that evaluators read differently for values
        # holding quotes and backslashes; an equality's value is a plain attribute
        lines.append(f'{indent}<CompoundPredicate booleanOperator="or">')
        lines += [f'{indent}  <SimplePredicate field={field} operator="equal"'
                  f' value={xml_attribute(v, f"{where}: value")}/>' for v in values]
        if len(values) == 1:   # an "or" holds two predicates at least; `in {v}` stays a set test
            lines.append(f"{indent}  <False/>")
        lines.append(f"{indent}</CompoundPredicate>")
    return lines


def to_pmml(ruleset: RuleSet) -> str:
    """The RuleSet as a PMML 4.4 document (text) holding one RuleSetModel."""
    from .. import __version__

    schema = ruleset.schema
    target = xml_attribute(schema.target, "schema.target")
    if schema.target in schema.names:
        raise ModelError(f"schema.target: {schema.target!r} is also an attribute's name; PMML fields need"
                         " distinct names")
    klass, rule_id, confidence = (xml_attribute(n, "output field") for n in output_names(ruleset))
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<PMML xmlns="{PMML_NAMESPACE}" version="4.4">',
             '  <Header description="C4.5 rules">',
             f'    <Application name="c45rules" version={xml_attribute(__version__, "version")}/>',
             "  </Header>",
             f'  <DataDictionary numberOfFields="{len(schema.attributes) + 1}">']
    for i, a in enumerate(schema.attributes):
        where = f"schema.attributes[{i}]"
        name = xml_attribute(a.name, f"{where}.name")
        if a.is_continuous:
            lines.append(f'    <DataField name={name} optype="continuous" dataType="double"/>')
            continue
        if not a.values:
            lines.append(f'    <DataField name={name} optype="categorical" dataType="string"/>')
            continue
        lines.append(f'    <DataField name={name} optype="categorical" dataType="string">')
        lines += [f'      <Value value={xml_attribute(v, f"{where}.values[{j}]")}/>' for j, v in enumerate(a.values)]
        lines.append("    </DataField>")
    lines.append(f'    <DataField name={target} optype="categorical" dataType="string">')
    lines += [f'      <Value value={xml_attribute(c, f"schema.classes[{j}]")}/>' for j, c in enumerate(schema.classes)]
    lines += ["    </DataField>", "  </DataDictionary>",
              '  <RuleSetModel functionName="classification" algorithmName="C4.5-rules">',
              "    " + _extension({"class_counts": list(ruleset.class_counts),
                                   "default_counts": list(ruleset.default_counts),
                                   "options": dict(ruleset.options), "fingerprint": ruleset.fingerprint,
                                   "notes": ruleset.notes}, "model extension"),
              "    <MiningSchema>"]
    for i, a in enumerate(schema.attributes):
        name = xml_attribute(a.name, f"schema.attributes[{i}].name")
        usage = ' usageType="supplementary"' if a.kind == "ignore" else ""
        lines.append(f'      <MiningField name={name}{usage} invalidValueTreatment="asMissing"/>')
    lines += [f'      <MiningField name={target} usageType="target"/>', "    </MiningSchema>",
              "    <Output>",
              f'      <OutputField name={klass} optype="categorical" dataType="string" feature="predictedValue"/>',
              f'      <OutputField name={rule_id} optype="categorical" dataType="string" feature="entityId"/>',
              f'      <OutputField name={confidence} optype="continuous" dataType="double" feature="confidence"/>',
              "    </Output>",
              f'    <RuleSet defaultScore={xml_attribute(ruleset.default_class, "default_class")}'
              f' defaultConfidence="{pmml_double(default_confidence(ruleset))}">',
              '      <RuleSelectionMethod criterion="firstHit"/>']
    for i, r in enumerate(ruleset.rules):
        where = f"rules[{i}] (id {r.id})"
        if not r.conditions:
            raise ModelError(f"{where}: a rule needs at least one condition")
        lines.append(f'      <SimpleRule id="{int(r.id)}" score={xml_attribute(r.prediction, f"{where}.prediction")}'
                     f' recordCount="{int(r.covered)}" nbCorrect="{int(r.covered) - int(r.errors)}"'
                     f' confidence="{pmml_double(r.confidence)}" weight="1">')
        lines.append("        " + _extension({"error_rate": r.error_rate, "lift": r.lift, "used": r.used,
                                              "wrong": r.wrong, "note": r.note}, where))
        lines.append('        <CompoundPredicate booleanOperator="and">')
        if not r.fires:
            lines.append("          <False/>")
        for j, c in enumerate(r.conditions):
            lines += _condition(c, ruleset, f"{where}.conditions[{j}]", "          ")
        lines += ["        </CompoundPredicate>", "      </SimpleRule>"]
    lines += [f'      <SimpleRule id="{DEFAULT_RULE_ID}" score={xml_attribute(ruleset.default_class, "default_class")}'
              f' confidence="{pmml_double(default_confidence(ruleset))}" weight="1">',
              "        <True/>", "      </SimpleRule>",
              "    </RuleSet>", "  </RuleSetModel>", "</PMML>"]
    return "\n".join(lines) + "\n"


def write_pmml(ruleset: RuleSet, path: str | os.PathLike) -> Path:
    """Write to_pmml(ruleset) to `path` atomically."""
    return atomic_write_text(path, to_pmml(ruleset))
