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

from ..data.costs import vote_cost_terms
from ..data.schema import Schema
from ..errors import InputError, ModelError
from ..model.boosted import BoostedRuleSet
from ..model.regression import RegressionModel
from ..model.ruleset import Condition, RuleSet, checked_condition
from ._atomic import atomic_write_text
from .choices import REGRESSION_HINT
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


def output_names(ruleset: RuleSet | BoostedRuleSet) -> tuple[str, str, str]:
    """Names of the class, rule id and confidence output fields: predicted_class, rule_id,
    confidence, each with '_' appended until it differs from every field of the schema."""
    klass, rule_id, confidence = _fresh(list(_OUTPUTS), {*ruleset.schema.names, ruleset.schema.target})
    return klass, rule_id, confidence


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


def _head(schema: Schema, number: bool = False) -> list[str]:
    """The document's start: the PMML element, the Header and the DataDictionary (`number`: the
    target is a continuous double, a regression model's)."""
    from .. import __version__

    target = xml_attribute(schema.target, "schema.target")
    if schema.target in schema.names:
        raise ModelError(f"schema.target: {schema.target!r} is also an attribute's name; PMML fields need"
                         " distinct names")
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
    if number:
        lines += [f'    <DataField name={target} optype="continuous" dataType="double"/>', "  </DataDictionary>"]
        return lines
    lines.append(f'    <DataField name={target} optype="categorical" dataType="string">')
    lines += [f'      <Value value={xml_attribute(c, f"schema.classes[{j}]")}/>' for j, c in enumerate(schema.classes)]
    lines += ["    </DataField>", "  </DataDictionary>"]
    return lines


def _mining_schema(schema: Schema, indent: str) -> list[str]:
    """Every attribute (an unseen category read as missing) and the target."""
    lines = [f"{indent}<MiningSchema>"]
    for i, a in enumerate(schema.attributes):
        name = xml_attribute(a.name, f"schema.attributes[{i}].name")
        usage = ' usageType="supplementary"' if a.kind == "ignore" else ""
        lines.append(f'{indent}  <MiningField name={name}{usage} invalidValueTreatment="asMissing"/>')
    lines += [f'{indent}  <MiningField name={xml_attribute(schema.target, "schema.target")} usageType="target"/>',
              f"{indent}</MiningSchema>"]
    return lines


def _ruleset_model(ruleset: RuleSet, names: tuple[str, str, str], confidences: list[float], indent: str,
                   where: str = "") -> list[str]:
    """The RuleSetModel element: output fields `names` (class, rule id, confidence), the rules in
    order, each with its confidence from `confidences` (rule_index positions: 0 the default's)."""
    klass, rule_id, confidence = (xml_attribute(n, "output field") for n in names)
    default = xml_attribute(ruleset.default_class, f"{where}default_class")
    lines = [f'{indent}<RuleSetModel functionName="classification" algorithmName="C4.5-rules">',
             f"{indent}  " + _extension({"class_counts": list(ruleset.class_counts),
                                         "default_counts": list(ruleset.default_counts),
                                         "options": dict(ruleset.options), "fingerprint": ruleset.fingerprint,
                                         "notes": ruleset.notes}, f"{where}model extension"),
             *_mining_schema(ruleset.schema, indent + "  "),
             f"{indent}  <Output>",
             f'{indent}    <OutputField name={klass} optype="categorical" dataType="string" feature="predictedValue"/>',
             f'{indent}    <OutputField name={rule_id} optype="categorical" dataType="string" feature="entityId"/>',
             f'{indent}    <OutputField name={confidence} optype="continuous" dataType="double" feature="confidence"/>',
             f"{indent}  </Output>",
             f'{indent}  <RuleSet defaultScore={default} defaultConfidence="{pmml_double(confidences[0])}">',
             f'{indent}    <RuleSelectionMethod criterion="firstHit"/>']
    for i, r in enumerate(ruleset.rules):
        at = f"{where}rules[{i}] (id {r.id})"
        if not r.conditions:
            raise ModelError(f"{at}: a rule needs at least one condition")
        lines.append(f'{indent}    <SimpleRule id="{int(r.id)}" score={xml_attribute(r.prediction, f"{at}.prediction")}'
                     f' recordCount="{int(r.covered)}" nbCorrect="{int(r.covered) - int(r.errors)}"'
                     f' confidence="{pmml_double(confidences[i + 1])}" weight="1">')
        lines.append(f"{indent}      " + _extension({"error_rate": r.error_rate, "lift": r.lift, "used": r.used,
                                                     "wrong": r.wrong, "note": r.note}, at))
        lines.append(f'{indent}      <CompoundPredicate booleanOperator="and">')
        if not r.fires:
            lines.append(f"{indent}        <False/>")
        for j, c in enumerate(r.conditions):
            lines += _condition(c, ruleset, f"{at}.conditions[{j}]", indent + "        ")
        lines += [f"{indent}      </CompoundPredicate>", f"{indent}    </SimpleRule>"]
    lines += [f'{indent}    <SimpleRule id="{DEFAULT_RULE_ID}" score={default}'
              f' confidence="{pmml_double(confidences[0])}" weight="1">',
              f"{indent}      <True/>", f"{indent}    </SimpleRule>",
              f"{indent}  </RuleSet>", f"{indent}</RuleSetModel>"]
    return lines


def to_pmml(ruleset: RuleSet | BoostedRuleSet) -> str:
    """The RuleSet as a PMML 4.4 document (text) holding one RuleSetModel; a BoostedRuleSet as a
    MiningModel (see `_boosted_model`).

    Parameters
    ----------
    ruleset : RuleSet or BoostedRuleSet
        The model.

    Returns
    -------
    str
        The PMML document (XML, UTF-8 declared).

    Raises
    ------
    ModelError
        A text XML 1.0 cannot hold, an ``or unknown`` threshold test (from a scikit-learn
        tree), or a condition that does not fit the schema, naming where.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import to_pmml
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> doc = to_pmml(rs)
    >>> print(doc.splitlines()[1])
    <PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4">
    >>> 'criterion="firstHit"' in doc
    True
    """
    if isinstance(ruleset, RegressionModel):
        raise InputError(REGRESSION_HINT.format(what="PMML", where="regression_pmml.to_regression_pmml"))
    if isinstance(ruleset, BoostedRuleSet):
        return "\n".join(_head(ruleset.schema) + _boosted_model(ruleset) + ["</PMML>"]) + "\n"
    confidences = [default_confidence(ruleset)] + [r.confidence for r in ruleset.rules]
    lines = _head(ruleset.schema) + _ruleset_model(ruleset, output_names(ruleset), confidences, "  ")
    return "\n".join(lines + ["</PMML>"]) + "\n"


def _fresh(wanted: list[str], taken: set[str]) -> list[str]:
    """`wanted` names, each with '_' appended until it differs from every name `taken` and from the
    others (all of which it adds to `taken`)."""
    out = []
    for name in wanted:
        while name in taken:
            name += "_"
        taken.add(name)
        out.append(name)
    return out


def _apply(function: str, *args: list[str]) -> list[str]:
    """<Apply function=...> around its arguments (each a list of lines), the lines indented by 2 a level."""
    return [f'<Apply function="{function}">', *("  " + line for arg in args for line in arg), "</Apply>"]


def _ref(name: str) -> list[str]:
    return [f"<FieldRef field={xml_attribute(name, 'derived field')}/>"]


def _left_sum(terms: list[list[str]]) -> list[str]:
    """((t1 + t2) + t3) ...: PMML's "+" takes two arguments, added left to right in trial order."""
    total = terms[0]
    for term in terms[1:]:
        total = _apply("+", total, term)
    return total


def _first_highest(totals: list[str], k: int, least: bool = False) -> list[str]:
    """Whether class k's total is the highest so far undecided: >= every later class's (the earlier
    ones were tested before it, so a tie goes to the first class, as np.argmax); `least`: whether
    its expected cost is the least, <= every later class's (np.argmin)."""
    compare = "lessOrEqual" if least else "greaterOrEqual"
    tests = [_apply(compare, _ref(totals[k]), _ref(totals[j])) for j in range(k + 1, len(totals))]
    return tests[0] if len(tests) == 1 else _apply("and", *tests)


def _derived(name: str, dtype: str, optype: str, expression: list[str], indent: str) -> list[str]:
    return ([f"{indent}<DerivedField name={xml_attribute(name, 'derived field')} optype=\"{optype}\""
             f' dataType="{dtype}">']
            + [f"{indent}  {line}" for line in expression] + [f"{indent}</DerivedField>"])


def _cost_terms(model: BoostedRuleSet, totals: list[str]) -> list[list[str]]:
    """Each class's expected cost by the vote, as data/costs.vote_costs adds it: cost * total terms
    in class order, left to right (0.0 + x is x for x >= 0, so the leading 0.0 is dropped)."""
    costs = model.costs
    terms: list[list[list[str]]] = [[] for _ in totals]
    for k, c in vote_cost_terms(costs):
        terms[k].append(_apply("*", [f'<Constant dataType="double">{float(costs[k, c])!r}</Constant>'],
                               _ref(totals[c])))
    return [_left_sum(t) if t else ['<Constant dataType="double">0.0</Constant>'] for t in terms]


def _boosted_model(model: BoostedRuleSet) -> list[str]:
    """A MiningModel chaining (modelChain) one RuleSetModel per trial, each giving its class and the
    vote (its SimpleRules' confidence: RuleSet.decision_confidences), then a TreeModel that counts the
    vote. Its derived fields: each class's total, the sum over trials of NormDiscrete(trial's class
    = this class) * trial's vote (1.0 * v is v and 0.0 * v is 0.0, so the sums are BoostedRuleSet's,
    added left to right in trial order); the sum of all votes; the winner's position (an "if" chain
    over >= tests: a tie to the first class; with costs, each class's expected cost, cost_k, and an
    "if" chain over <= tests on them); its total over the sum, the confidence. The tree's
    leaves give the winner's class. Class names enter only attribute values (escaped), never
    Constant text, which evaluators may trim."""
    schema = model.schema
    T, K = len(model.trials), len(schema.classes)
    klass, rule_id, confidence = output_names(model)
    taken = {*schema.names, schema.target, klass, rule_id, confidence}
    trial_fields = _fresh([f"trial_{t}_{part}" for t in range(1, T + 1) for part in ("class", "rule_id", "vote")],
                          taken)
    derived = _fresh([f"votes_{k}" for k in range(1, K + 1)] + ["votes_total", "winner", "winner_votes",
                                                                 "vote_share"], taken)
    totals, everything, winner, winner_votes, share = derived[:K], derived[K], derived[K + 1], derived[K + 2], \
        derived[K + 3]
    lines = ['  <MiningModel functionName="classification" algorithmName="C5.0-boosted-rules">',
             "    " + _extension({"trials": T, "options": dict(model.options), "fingerprint": model.fingerprint,
                                  "notes": model.notes}, "model extension"),
             *_mining_schema(schema, "    "),
             '    <Segmentation multipleModelMethod="modelChain">']
    for t, rs in enumerate(model.trials):
        names = tuple(trial_fields[3 * t:3 * t + 3])
        lines += [f'      <Segment id="{t + 1}">', "        <True/>",
                  *_ruleset_model(rs, names, rs.decision_confidences().tolist(), "        ", f"trials[{t}]."),
                  "      </Segment>"]
    classes = [trial_fields[3 * t] for t in range(T)]
    votes = [trial_fields[3 * t + 2] for t in range(T)]
    indent = "            "
    transformations = []
    for k, c in enumerate(schema.classes):
        value = xml_attribute(c, f"schema.classes[{k}]")
        terms = [_apply("*", [f"<NormDiscrete field={xml_attribute(cls, 'output field')} value={value}/>"], _ref(v))
                 for cls, v in zip(classes, votes)]
        transformations += _derived(totals[k], "double", "continuous", _left_sum(terms), indent)
    transformations += _derived(everything, "double", "continuous", _left_sum([_ref(v) for v in votes]), indent)
    scores, least = totals, model.costs is not None
    if least:   # the class of least expected cost wins (boosted.py): a field per class's cost
        scores = _fresh([f"cost_{k}" for k in range(1, K + 1)], taken)
        for k, terms in enumerate(_cost_terms(model, totals)):
            transformations += _derived(scores[k], "double", "continuous", terms, indent)
    position: list[str] = ['<Constant dataType="integer">' + str(K) + "</Constant>"]
    for k in range(K - 2, -1, -1):
        position = _apply("if", _first_highest(scores, k, least), [f'<Constant dataType="integer">{k + 1}</Constant>'],
                          position)
    transformations += _derived(winner, "integer", "categorical", position, indent)
    highest = _ref(totals[K - 1])
    for k in range(K - 2, -1, -1):
        highest = _apply("if", _apply("equal", _ref(winner), [f'<Constant dataType="integer">{k + 1}</Constant>']),
                         _ref(totals[k]), highest)
    transformations += _derived(winner_votes, "double", "continuous", highest, indent)
    transformations += _derived(share, "double", "continuous", _apply("/", _ref(winner_votes), _ref(everything)),
                                indent)
    target = xml_attribute(schema.target, "schema.target")
    first = xml_attribute(schema.classes[0], "schema.classes[0]")
    lines += [f'      <Segment id="{T + 1}">', "        <True/>",
              '        <TreeModel functionName="classification" algorithmName="vote" splitCharacteristic="multiSplit">',
              "          <MiningSchema>",
              *(f"            <MiningField name={xml_attribute(n, 'output field')}/>" for n in classes + votes),
              f'            <MiningField name={target} usageType="target"/>',
              "          </MiningSchema>",
              "          <Output>",
              f'            <OutputField name={xml_attribute(klass, "output field")} optype="categorical"'
              ' dataType="string" feature="predictedValue"/>',
              f'            <OutputField name={xml_attribute(confidence, "output field")} optype="continuous"'
              ' dataType="double" feature="transformedValue">',
              "              " + _ref(share)[0],
              "            </OutputField>",
              "          </Output>",
              "          <LocalTransformations>", *transformations, "          </LocalTransformations>",
              f'          <Node id="0" score={first}>', "            <True/>"]
    for k, c in enumerate(schema.classes):
        lines += [f'            <Node id="{k + 1}" score={xml_attribute(c, f"schema.classes[{k}]")}>',
                  f'              <SimplePredicate field={xml_attribute(winner, "derived field")} operator="equal"'
                  f' value="{k + 1}"/>',
                  "            </Node>"]
    lines += ["          </Node>", "        </TreeModel>", "      </Segment>", "    </Segmentation>",
              "  </MiningModel>"]
    return lines


def write_pmml(ruleset: RuleSet, path: str | os.PathLike) -> Path:
    """Write to_pmml(ruleset) to `path` atomically.

    Parameters
    ----------
    ruleset : RuleSet or BoostedRuleSet
        The model.
    path : str or path
        The file to write (replaced whole, or left as it was on an error).

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    ModelError
        As `to_pmml`; nothing is written then.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import write_pmml
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = write_pmml(rs, os.path.join(d, "model.pmml"))
    ...     path.read_text().count("<SimpleRule ")
    3
    """
    return atomic_write_text(path, to_pmml(ruleset))
