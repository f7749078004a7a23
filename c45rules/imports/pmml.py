"""PMML RuleSetModel or TreeModel -> a RuleSet that decides as a PMML evaluator does.

The RuleSet's semantics (a condition on an unknown value is not satisfied; the first rule
whose conditions all hold decides, else the default class) cover what PMML says when:

* RuleSetModel: the first RuleSelectionMethod is firstHit (a rule fires only when its
  predicate is TRUE; UNKNOWN does not fire it). SimpleRules are read in order, a
  CompoundRule's predicate joining each of its rules' conditions. A rule whose predicate
  is <True/> decides every case that reaches it: its class becomes the default and the
  rules after it, which never decide, are dropped (c45rules' own export ends with one, id
  0). A rule whose predicate holds <False/> never fires: dropped, unless its confidence says
  error above 0.7, the mark c45rules' export gives a rule that never fires (spec 7.6.1).
* TreeModel: one rule per leaf (the path's predicates as conditions, in depth-first order)
  and, after each inner node's subtree, a rule with the node's path for the cases that stop
  there (a missing value under missingValueStrategy lastPrediction/nullPrediction, or no
  true child): the node's score for lastPrediction/returnLastPrediction, the default class
  where the PMML gives no prediction (null). Such a rule is left out where no later rule can
  fire for those cases and it would give the default anyway. Strategies that route a
  missing value into a child (defaultChild, weightedConfidence, aggregateNodes) cannot be
  said with conditions that an unknown value never satisfies: refused, naming the strategy.

Predicates: SimplePredicate (lessOrEqual, greaterThan, lessThan, greaterOrEqual on
continuous fields, exactly, through the neighbouring double; equal, notEqual on categorical
ones; isNotMissing beside another test of the same field), SimpleSetPredicate (isIn,
isNotIn), CompoundPredicate "and", "or" of value tests of one field, True, False. Anything
else (isMissing, xor, not, surrogate, a test on a field outside the DataDictionary) is
refused with a ModelError naming it. notEqual/isNotIn become `in` the other values, so they
are refused where an unseen value is kept as is (invalidValueTreatment asIs: PMML would
call it not equal). A field of dataType float is compared in single precision by PMML: its
thresholds become the double bounds that decide the same for every double input.

Evidence: recordCount -> covered, recordCount - nbCorrect (rules) or the leaf's
ScoreDistribution (trees) -> errors, confidence -> 1 - error rate; c45rules' own Extension
elements give everything exactly (see c45rules.export.pmml). What a PMML file does not hold
is zero (lift, used, wrong, default counts; class counts unless the tree's root has a
ScoreDistribution): `c45rules rescore MODEL --data DATA` measures it. An imported error
rate above 0.7 would stop a rule that PMML fires: it is held at 0.7 and the rule's note
says so.
"""
from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from xml.parsers import expat
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..data.nesting import MAX_NESTING, load_json
from ..data.schema import Attribute, Schema
from ..errors import C45RulesError, ModelError
from ..export.yaml import read_model_bytes
from ..model.ruleset import NEVER_FIRES_ABOVE, Condition, Rule, RuleSet, evidence_rate

EXTENDER = "c45rules"
_TREE_STRATEGIES = ("none", "lastPrediction", "nullPrediction")
_CONTINUOUS_OPS = {"lessOrEqual": "<=", "greaterThan": ">", "lessThan": "<", "greaterOrEqual": ">="}


def _tag(elem: ET.Element) -> str:
    return elem.tag.rsplit("}", 1)[-1]


def _children(elem: ET.Element, *names: str) -> list[ET.Element]:
    return [c for c in elem if _tag(c) in names]


def _child(elem: ET.Element, name: str) -> ET.Element | None:
    found = _children(elem, name)
    return found[0] if found else None


def _number(text: str | None, where: str) -> float:
    try:
        return float({"INF": "inf", "-INF": "-inf"}.get(text.strip(), text))
    except (AttributeError, ValueError):
        raise ModelError(f"{where}: {text!r} is not a number") from None


@dataclass
class _Field:
    """A DataField with its MiningField settings."""

    name: str
    kind: str                      # continuous, discrete, ignore
    data_type: str
    values: list[str]              # valid values (discrete); grows with predicate values if none listed
    listed: bool                   # whether the DataDictionary lists the valid values
    invalid: str = "returnInvalid"


@dataclass
class _Context:
    """What predicates are read against: the input fields by name."""

    fields: dict[str, _Field]


# ---- predicates -----------------------------------------------------------------------------
def float32_bound(t: float, op: str) -> tuple[str, float]:
    """(op, double bound) with `x op bound` true for a double x exactly when PMML's `float(x) op float(t)`
    is, op being <=, >, < or >=."""
    op, bound = float32_bounds(np.array([t], dtype=np.float64), op)
    return op, float(bound[0])


def float32_bounds(t: np.ndarray, op: str) -> tuple[str, np.ndarray]:
    """float32_bound of each of the doubles `t` (one op), as an array."""
    with np.errstate(invalid="ignore", over="ignore"):
        t32 = np.asarray(t, dtype=np.float64).astype(np.float32)
        if op in ("<", ">="):   # float(x) < T  <=>  float(x) <= the float below T
            t32 = np.nextafter(t32, np.float32(-np.inf))
            op = "<=" if op == "<" else ">"
        up = np.nextafter(t32, np.float32(np.inf))
        # exact: a float's neighbours' midpoint fits a double
        mid = (t32.astype(np.float64) + up.astype(np.float64)) / 2
        # the largest double whose float rounding is <= T: the midpoint itself when it rounds down to T
        bound = np.where(mid.astype(np.float32) == t32, mid, np.nextafter(mid, -np.inf))
    return op, np.where(np.isinf(t32), t32.astype(np.float64), bound)


def _threshold(f: _Field, op: str, value: str, where: str) -> Condition:
    t = _number(value, f"{where}: value")
    if math.isnan(t):
        raise ModelError(f"{where}: a NaN threshold")
    if f.data_type == "float":
        op, t = float32_bound(t, op)
    elif op in ("<", ">="):   # x < t  <=>  x <= the double below t
        t = math.nextafter(t, -math.inf)
        op = "<=" if op == "<" else ">"
    return Condition(f.name, op, t)


def _discrete_values(f: _Field, values: list[str], where: str) -> list[str]:
    """`values` that are valid values of `f` (learning them where the DataDictionary lists none)."""
    if not f.listed:
        for v in values:
            if v not in f.values:
                f.values.append(v)
    return [v for v in dict.fromkeys(values) if v in f.values]


def _complement(f: _Field, values: list[str], where: str, op: str) -> list[str]:
    if not f.listed:
        raise ModelError(f"{where}: {op} on field {f.name!r}, whose DataDictionary entry lists no values")
    if f.invalid == "asIs":
        raise ModelError(f"{where}: {op} on field {f.name!r} with invalidValueTreatment asIs: PMML would"
                         " call an unseen value not equal, and c45rules satisfies no test with it")
    return [v for v in f.values if v not in values]


def _value_test(f: _Field, values: list[str]) -> tuple[list[Condition], bool]:
    """(conditions, never): an `=`/`in` test, or never true for no value."""
    if not values:
        return [], True
    if len(values) == 1:
        return [Condition(f.name, "=", values[0])], False
    return [Condition(f.name, "in", tuple(values))], False


def _field(ctx: _Context, elem: ET.Element, where: str) -> _Field:
    name = elem.get("field")
    if name is None:
        raise ModelError(f"{where}: {_tag(elem)} without a field")
    f = ctx.fields.get(name)
    if f is None or f.kind == "ignore":
        raise ModelError(f"{where}: field {name!r} is not an input field of the DataDictionary and MiningSchema")
    return f


def _array(elem: ET.Element, where: str) -> list[str]:
    """The entries of an Array: separated by white space, a quoted entry may hold spaces and \\\"."""
    arr = _child(elem, "Array")
    if arr is None:
        raise ModelError(f"{where}: SimpleSetPredicate without an Array")
    text, out, i = arr.text or "", [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        if text[i] == '"':
            j, buf = i + 1, []
            while j < len(text) and text[j] != '"':
                if text[j] == "\\" and j + 1 < len(text) and text[j + 1] == '"':
                    j += 1
                buf.append(text[j])
                j += 1
            if j >= len(text):
                raise ModelError(f"{where}: Array entry without its closing quote")
            out.append("".join(buf))
            i = j + 1
        else:
            j = i
            while j < len(text) and not text[j].isspace():
                j += 1
            out.append(text[i:j])
            i = j
    n = arr.get("n")
    if n is not None and n.strip() != str(len(out)):
        raise ModelError(f"{where}: Array n={n} but {len(out)} entries")
    return out


def predicate_conditions(elem: ET.Element, ctx: _Context, where: str) -> tuple[list[Condition], bool]:
    """(conditions, never) of a predicate: it is TRUE exactly when every condition is
    satisfied (an unknown value satisfying none), and never TRUE when `never`."""
    tag = _tag(elem)
    if tag == "True":
        return [], False
    if tag == "False":
        return [], True
    if tag == "SimplePredicate":
        f = _field(ctx, elem, where)
        op, value = elem.get("operator"), elem.get("value")
        if op == "isNotMissing":
            return [Condition(f.name, "known", "")], False   # resolved by _conjunction
        if op in _CONTINUOUS_OPS and f.kind == "continuous":
            if value is None:
                raise ModelError(f"{where}: SimplePredicate {op} on {f.name!r} without a value")
            return [_threshold(f, _CONTINUOUS_OPS[op], value, where)], False
        if op in ("equal", "notEqual") and f.kind == "discrete":
            if value is None:
                raise ModelError(f"{where}: SimplePredicate {op} on {f.name!r} without a value")
            if op == "equal":
                return _value_test(f, _discrete_values(f, [value], where))
            _discrete_values(f, [value], where)
            return _value_test(f, _complement(f, [value], where, op))
        raise ModelError(f"{where}: SimplePredicate operator {op!r} on {f.kind} field {f.name!r} cannot be"
                         " expressed as a c45rules condition")
    if tag == "SimpleSetPredicate":
        f = _field(ctx, elem, where)
        if f.kind != "discrete":
            raise ModelError(f"{where}: SimpleSetPredicate on {f.kind} field {f.name!r}")
        op = elem.get("booleanOperator")
        values = _array(elem, where)
        if op == "isIn":
            return _value_test(f, _discrete_values(f, values, where))
        if op == "isNotIn":
            _discrete_values(f, values, where)
            return _value_test(f, _complement(f, values, where, op))
        raise ModelError(f"{where}: SimpleSetPredicate booleanOperator {op!r}")
    if tag == "CompoundPredicate":
        op = elem.get("booleanOperator")
        parts = []   # a loop, not a comprehension: one stack frame per nesting level
        for i, c in enumerate(c for c in elem if _tag(c) != "Extension"):
            parts.append(predicate_conditions(c, ctx, f"{where}/{_tag(c)}[{i}]"))
        if op == "and":
            return [c for conds, _ in parts for c in conds], any(never for _, never in parts)
        if op == "or":
            return _disjunction(parts, where)
        raise ModelError(f"{where}: CompoundPredicate {op!r} cannot be expressed as c45rules conditions"
                         " (an unknown value would not satisfy it as PMML says)")
    raise ModelError(f"{where}: predicate {tag!r} cannot be expressed as a c45rules condition")


def _disjunction(parts: list[tuple[list[Condition], bool]], where: str) -> tuple[list[Condition], bool]:
    """An "or" of value tests of one discrete field as one `in` test (`in {v}` for one value, as
    c45rules' export writes a one-value set test)."""
    live = [conds for conds, never in parts if not never]
    if not live:
        return [], True
    if any(len(c) != 1 or c[0].op not in ("=", "in") for c in live) or len({c[0].attribute for c in live}) > 1:
        raise ModelError(f"{where}: CompoundPredicate 'or' is read only over value tests of one categorical field")
    values: list[str] = []
    for (c,) in live:
        values += [c.value] if c.op == "=" else list(c.value)
    values = list(dict.fromkeys(values))
    return [Condition(live[0][0].attribute, "in", tuple(values))], False


def _conjunction(conds: list[Condition], where: str) -> tuple[Condition, ...]:
    """The conditions without isNotMissing marks, each mark checked to be implied by a test."""
    tests = tuple(c for c in conds if c.op != "known")
    tested = {c.attribute for c in tests}
    for c in conds:
        if c.op == "known" and c.attribute not in tested:
            raise ModelError(f"{where}: isNotMissing on {c.attribute!r} alone cannot be expressed (a c45rules"
                             " condition tests a value, which implies it is known)")
    return tests


# ---- the document ---------------------------------------------------------------------------
def _qualified(name: str) -> str:
    """An expat name (`uri}local` with the namespace separator "}") as ElementTree spells it."""
    return "{" + name if "}" in name else name


def _parse(text: str | bytes, name: str) -> ET.Element:
    """The document's root element, read by expat with no DTD: a DOCTYPE (and so any entity
    declaration) is refused where expat meets it, in whatever encoding expat decoded the
    document, so no entity is ever expanded whatever the XML library's version; elements
    nested deeper than MAX_NESTING are refused while reading, before any walk recurses."""
    raw = text.encode("utf-8") if isinstance(text, str) else text
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate(namespace_separator="}")
    depth = 0

    def refuse(*_: Any) -> None:
        raise ModelError(f"{name}: line {parser.CurrentLineNumber}: a DOCTYPE or ENTITY declaration; a PMML"
                         " document needs none, and c45rules refuses them rather than expand entities")

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal depth
        depth += 1
        if depth > MAX_NESTING:
            raise ModelError(f"{name}: line {parser.CurrentLineNumber}: {tag.rsplit('}', 1)[-1]} nested"
                             f" {depth} elements deep, beyond the limit of {MAX_NESTING} (trees and"
                             " predicates of real models nest far less)")
        if any("}" in k for k in attrs):   # a namespaced attribute (rare in PMML)
            attrs = {_qualified(k): v for k, v in attrs.items()}
        builder.start(_qualified(tag), attrs)

    def end(tag: str) -> None:
        nonlocal depth
        depth -= 1
        builder.end(_qualified(tag))

    parser.StartDoctypeDeclHandler = parser.EntityDeclHandler = parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CharacterDataHandler = builder.data
    parser.buffer_text = True
    try:
        parser.Parse(raw, True)
    except expat.ExpatError as e:
        raise ModelError(f"{name}: not well-formed XML ({e})") from None
    root = builder.close()
    if _tag(root) != "PMML":
        raise ModelError(f"{name}: the root element is {_tag(root)!r}, not PMML")
    return root


def _fields(root: ET.Element, model: ET.Element) -> tuple[dict[str, _Field], str, list[str]]:
    """(input fields by name, in DataDictionary order; the target's name; its listed values)."""
    dd = _child(root, "DataDictionary")
    if dd is None:
        raise ModelError("PMML: no DataDictionary")
    ms = _child(model, "MiningSchema")
    if ms is None:
        raise ModelError(f"{_tag(model)}: no MiningSchema")
    usage: dict[str, ET.Element] = {}
    for mf in _children(ms, "MiningField"):
        name = mf.get("name")
        if name is None:
            raise ModelError("MiningField without a name")
        for attr in ("missingValueReplacement", "invalidValueReplacement"):
            if mf.get(attr) is not None:
                raise ModelError(f"MiningField {name!r}: {attr} replaces a value before the model sees it;"
                                 " c45rules keeps an unknown value unknown")
        if mf.get("invalidValueTreatment") not in (None, "returnInvalid", "asIs", "asMissing"):
            raise ModelError(f"MiningField {name!r}: invalidValueTreatment {mf.get('invalidValueTreatment')!r}")
        usage[name] = mf
    targets = [n for n, mf in usage.items() if mf.get("usageType") in ("target", "predicted")]
    if len(targets) != 1:
        raise ModelError(f"MiningSchema: {len(targets)} target fields; a classification model has one")
    target = targets[0]
    fields: dict[str, _Field] = {}
    target_values: list[str] | None = None
    for df in _children(dd, "DataField"):
        name = df.get("name")
        if name is None:
            raise ModelError("DataDictionary: a DataField without a name")
        values = [v.get("value") for v in _children(df, "Value")
                  if v.get("property", "valid") == "valid" and v.get("value") is not None]
        if name == target:
            target_values = values
            continue
        if name not in usage:
            continue
        mf = usage[name]
        optype, data_type = df.get("optype"), df.get("dataType", "string")
        if mf.get("usageType", "active") != "active":
            kind = "ignore"
        elif optype == "continuous" or optype is None and data_type in ("double", "float", "integer"):
            kind = "continuous"
        elif optype in ("categorical", "ordinal", None):
            kind = "discrete"
        else:
            raise ModelError(f"DataField {name!r}: optype {optype!r}")
        fields[name] = _Field(name, kind, data_type, values if kind == "discrete" else [],
                              bool(values) and kind == "discrete",
                              mf.get("invalidValueTreatment", "returnInvalid"))
    if target_values is None:
        raise ModelError(f"DataDictionary: no DataField for the target {target!r}")
    missing = [n for n in usage if n != target and n not in fields]
    if missing:
        raise ModelError(f"MiningSchema: field {missing[0]!r} is not in the DataDictionary")
    return fields, target, target_values


def _extension(elem: ET.Element, where: str) -> dict[str, Any]:
    """The JSON payload of a c45rules Extension child of `elem`, or {}."""
    for ext in _children(elem, "Extension"):
        if ext.get("extender") == EXTENDER and ext.get("name") == "c45rules":
            payload = load_json(ext.get("value") or "", f"{where}: the c45rules Extension", ModelError)
            if not isinstance(payload, dict):
                raise ModelError(f"{where}: the c45rules Extension is not a JSON object")
            return payload
    return {}


def _count(text: str | None, where: str) -> int:
    if text is None:
        return 0
    v = _number(text, where)
    if not math.isfinite(v) or v < 0:
        raise ModelError(f"{where}: {text!r} is not a count")
    return int(round(v))


def _firing(error_rate: float, where: str) -> tuple[float, str]:
    """(error rate, note): a rate above 0.7 would stop a rule PMML fires, so it is held at 0.7."""
    if error_rate <= NEVER_FIRES_ABOVE:
        return error_rate, ""
    return NEVER_FIRES_ABOVE, (f"{where}: PMML confidence {1 - error_rate:.6g}; error rate held at 0.7 so that"
                               " the rule fires as in PMML")


def _rule_set(model: ET.Element, ctx: _Context, classes: list[str]) -> tuple[list[Rule], str, list[str]]:
    """(rules, default class, notes) of a RuleSetModel."""
    rs = _child(model, "RuleSet")
    if rs is None:
        raise ModelError("RuleSetModel: no RuleSet")
    methods = _children(rs, "RuleSelectionMethod")
    if not methods or methods[0].get("criterion") != "firstHit":
        found = methods[0].get("criterion") if methods else None
        raise ModelError(f"RuleSet: RuleSelectionMethod {found!r}; only firstHit decides as c45rules' rule order does")
    flat: list[tuple[ET.Element, list[Condition], bool, str]] = []

    def walk(parent: ET.Element, prefix: list[Condition], never: bool, path: str) -> None:
        for i, r in enumerate(_children(parent, "SimpleRule", "CompoundRule")):
            where = f"{path}/{_tag(r)}[{i}]" + (f" (id {r.get('id')})" if r.get("id") is not None else "")
            preds = [c for c in r if _tag(c) not in ("Extension", "ScoreDistribution", "SimpleRule", "CompoundRule")]
            if len(preds) != 1:
                raise ModelError(f"{where}: expected one predicate, found {len(preds)}")
            conds, nv = predicate_conditions(preds[0], ctx, where)
            if _tag(r) == "CompoundRule":
                walk(r, prefix + conds, never or nv, where)
            else:
                flat.append((r, prefix + conds, never or nv, where))

    walk(rs, [], False, "RuleSet")
    rules: list[Rule] = []
    kept_ids: list[str | None] = []
    default = rs.get("defaultScore")
    for r, conds, never, where in flat:
        score = r.get("score")
        if score not in classes:
            raise ModelError(f"{where}: score {score!r} is not a class of the target ({', '.join(classes)})")
        tests = _conjunction(conds, where)
        ext = _extension(r, where)
        if not tests and not never:       # decides every case that reaches it
            default = score
            break
        covered = _count(r.get("recordCount"), f"{where}: recordCount")
        correct = _count(r.get("nbCorrect"), f"{where}: nbCorrect") if r.get("nbCorrect") is not None else covered
        if "error_rate" in ext:
            error_rate = float(ext["error_rate"])
        elif r.get("confidence") is not None:
            error_rate = evidence_rate(1.0 - _number(r.get("confidence"), f"{where}: confidence"))
        else:
            error_rate = 0.0
        note = str(ext.get("note", ""))
        if never:
            if not tests or error_rate <= NEVER_FIRES_ABOVE:
                continue    # never fires in PMML; as a c45rules rule it would fire, so it is left out
        else:
            error_rate, held = _firing(error_rate, where)
            note = note or held
        rules.append(Rule(0, tests, score, covered, max(0, covered - correct), error_rate,
                          float(ext.get("lift", 0.0)), int(ext.get("used", 0)), int(ext.get("wrong", 0)), note))
        kept_ids.append(r.get("id"))
    notes = []
    if default is None:
        default = classes[0]
        notes.append(f"The PMML RuleSet has no defaultScore: where it gives no prediction, this model gives {default}.")
    elif default not in classes:
        raise ModelError(f"RuleSet: defaultScore {default!r} is not a class of the target")
    return _numbered(rules, kept_ids), default, notes


def _numbered(rules: list[Rule], ids: list[str | None]) -> list[Rule]:
    """The rules with their PMML ids when those are distinct positive integers, else 1, 2, ...
    with the PMML id in the note."""
    parsed = []
    for pid in ids:
        try:
            parsed.append(int(pid) if pid is not None and str(int(pid)) == pid.strip() else None)
        except ValueError:
            parsed.append(None)
    if all(p is not None and p >= 1 for p in parsed) and len(set(parsed)) == len(parsed):
        return [_with_id(r, p) for r, p in zip(rules, parsed)]
    out = []
    for k, (r, pid) in enumerate(zip(rules, ids), 1):
        note = r.note if pid is None else "; ".join(x for x in (r.note, f"PMML rule id {pid!r}") if x)
        out.append(_with_id(r, k, note))
    return out


def _with_id(r: Rule, rid: int, note: str | None = None) -> Rule:
    return Rule(rid, r.conditions, r.prediction, r.covered, r.errors, r.error_rate, r.lift, r.used, r.wrong,
                r.note if note is None else note)


# ---- trees ----------------------------------------------------------------------------------
def _node_predicate(node: ET.Element, ctx: _Context, where: str) -> tuple[list[Condition], bool]:
    preds = [c for c in node if _tag(c) not in ("Extension", "Partition", "ScoreDistribution", "Node",
                                                 "Regression", "DecisionTree", "EmbeddedModel")]
    if len(preds) != 1:
        raise ModelError(f"{where}: expected one predicate, found {len(preds)}")
    return predicate_conditions(preds[0], ctx, where)


def _distribution(node: ET.Element, where: str) -> dict[str, float]:
    return {sd.get("value"): _number(sd.get("recordCount", "0"), f"{where}: ScoreDistribution recordCount")
            for sd in _children(node, "ScoreDistribution")}


def _exclusive(children: list[tuple[list[Condition], bool]]) -> bool:
    """Whether no known value satisfies two of the children (each one test of the same field:
    `<= t` and `> t`, or disjoint value sets)."""
    live = [conds for conds, never in children if not never]
    if any(len(c) != 1 for c in live) or len({c[0].attribute for c in live}) > 1:
        return False
    ops = sorted((c[0].op, c[0].value) for c in live)
    if all(op in ("<=", ">") for op, _ in ops):
        return len(ops) <= 1 or len(ops) == 2 and ops[0][0] != ops[1][0] and ops[0][1] == ops[1][1]
    if any(op in ("<=", ">") for op, _ in ops):
        return False
    seen: set[str] = set()
    for op, v in ops:
        vs = {v} if op == "=" else set(v)
        if seen & vs:
            return False
        seen |= vs
    return True


def _complete(children: list[tuple[list[Condition], bool]], fields: dict[str, _Field]) -> bool:
    """Whether every known valid value satisfies some child (so only a missing one stops there)."""
    live = [conds for conds, never in children if not never]
    if any(not c for c in live):
        return True
    if any(len(c) != 1 for c in live) or len({c[0].attribute for c in live}) != 1:
        return False
    ops = sorted((c[0].op, c[0].value) for c in live)
    f = fields[live[0][0].attribute]
    if f.kind == "continuous":
        return any(a[0] == "<=" and b[0] == ">" and b[1] <= a[1] for a in ops for b in ops)
    covered = set()
    for op, v in ops:
        covered |= {v} if op == "=" else set(v)
    return f.listed and f.invalid != "asIs" and covered >= set(f.values)


def _negation(conds: list[Condition], fields: dict[str, _Field], where: str) -> tuple[list[Condition], bool]:
    """(conditions, never): what a known value satisfies exactly when it fails the one test `conds`."""
    if not conds:
        return [], True
    if len(conds) != 1:
        raise ModelError(f"{where}: a child tested by several conditions is followed by other children;"
                         " the case that fails it cannot be said as conditions")
    (c,) = conds
    if c.op in ("<=", ">"):
        return [Condition(c.attribute, ">" if c.op == "<=" else "<=", c.value)], False
    f = fields[c.attribute]
    taken = [c.value] if c.op == "=" else list(c.value)
    return _value_test(f, _complement(f, taken, where, "a child after a value test"))


def _tree(model: ET.Element, ctx: _Context, classes: list[str]) -> tuple[list[Rule], str, list[str], list[int]]:
    """(rules, default class, notes, class counts) of a TreeModel."""
    missing = model.get("missingValueStrategy", "none")
    no_true = model.get("noTrueChildStrategy", "returnNullPrediction")
    if missing not in _TREE_STRATEGIES:
        raise ModelError(f"TreeModel: missingValueStrategy {missing!r} routes a case with a missing value into a"
                         " child, which rules whose conditions an unknown value never satisfies cannot say;"
                         f" readable: {', '.join(_TREE_STRATEGIES)}")
    if no_true not in ("returnNullPrediction", "returnLastPrediction"):
        raise ModelError(f"TreeModel: noTrueChildStrategy {no_true!r}")
    root = _child(model, "Node")
    if root is None:
        raise ModelError("TreeModel: no Node")
    rules: list[tuple[tuple[Condition, ...], str | None, int, int, str]] = []
    null_possible = False

    def score_of(node: ET.Element, where: str) -> str | None:
        s = node.get("score")
        if s is not None and s not in classes:
            raise ModelError(f"{where}: score {s!r} is not a class of the target ({', '.join(classes)})")
        return s

    class Decided(Exception):
        """A path with no condition reached a leaf: it decides every case still undecided."""

        def __init__(self, klass: str | None):
            self.klass = klass

    def walk(node: ET.Element, path: list[Condition], where: str, exclusive_above: bool) -> None:
        nonlocal null_possible
        kids = _children(node, "Node")
        score = score_of(node, where)
        if not kids:
            if score is None:
                raise ModelError(f"{where}: a leaf without a score")
            tests = _conjunction(path, where)
            if not tests:
                raise Decided(score)
            dist = _distribution(node, where)
            covered = _count(node.get("recordCount"), f"{where}: recordCount") if node.get("recordCount") else \
                int(round(sum(dist.values())))
            errors = max(0, covered - int(round(dist.get(score, covered)))) if dist else 0
            rules.append((tests, score, covered, errors, "leaf"))
            return
        parts = [(_node_predicate(k, ctx, f"{where}/Node[{i}]"), k) for i, k in enumerate(kids)]
        preds = [p for p, _ in parts]
        original = list(preds)
        exclusive_here = _exclusive(preds)
        if missing != "none":
            # lastPrediction/nullPrediction stop at the first UNKNOWN child, so a child is taken
            # when every child before it is FALSE with a known value: its rule says so with the
            # earlier tests' complements (which a missing value does not satisfy either; such
            # a case then stops here, as in PMML). sklearn2pmml writes a node's else branch as
            # its children lifted after the test (`x <= t`, then the else children, then True)
            failed: list[Condition] = []
            unreachable = False
            for i, (conds, never) in enumerate(preds):
                preds[i] = (list(dict.fromkeys(failed + conds)), never or unreachable)
                if never or unreachable or i == len(preds) - 1:
                    continue
                negated, none_left = _negation(conds, ctx.fields, f"{where}/Node[{i}]")
                failed = failed + negated
                unreachable = none_left
            exclusive_here = True
        for i, ((conds, never), kid) in enumerate(zip(preds, kids)):
            if not never:
                walk(kid, path + conds, f"{where}/Node[{i}]", exclusive_above and exclusive_here)
        on_missing = score if missing == "lastPrediction" else None
        on_no_true = score if no_true == "returnLastPrediction" else None
        first_live = next((conds for conds, never in original if not never), None)
        outcomes = set()
        if first_live:    # a test comes before any True child: a missing value can stop the case here
            if missing != "none":
                outcomes.add(on_missing)
            # under "none" a missing value fails every test, so only a True child takes the case
            if missing == "none" and not any(not conds and not never for conds, never in original) \
                    or not _complete(original, ctx.fields):
                outcomes.add(on_no_true)
        elif first_live is None:   # no child can be true
            outcomes.add(on_no_true)
        if len(outcomes) > 1:
            raise ModelError(f"{where}: a case stopped here by a missing value gets {on_missing!r} and one that no"
                             f" child takes gets {on_no_true!r}; c45rules cannot tell the two apart")
        if not outcomes:
            return
        (klass,) = outcomes
        null_possible = null_possible or klass is None
        tests = _conjunction(path, where)
        if not tests:
            raise Decided(klass)
        # a case stopped here can only reach later siblings' rules, and none of those fires
        # when every node on the way has exclusive children: then a stop giving the default is idle
        rules.append((tests, klass, 0, 0, "stop_idle" if exclusive_above else "stop"))

    root_conds, root_never = _node_predicate(root, ctx, "Node")
    default: str | None = None
    decided_all = False
    try:
        if not root_never:
            walk(root, root_conds, "Node", True)
    except Decided as d:
        default, decided_all = d.klass, True
    if default is None:
        root_score = score_of(root, "Node")
        default = root_score if root_score is not None else classes[0]
        # no prediction: a stop rule that says so, or a case the root's own predicate refuses
        null_possible = null_possible or decided_all or bool(root_conds) or root_never
    kept = []
    for tests, klass, covered, errors, kind in rules:
        klass = default if klass is None else klass
        if kind == "stop_idle" and klass == default:
            continue
        kept.append((tests, klass, covered, errors, kind))
    while kept and kept[-1][4] != "leaf" and kept[-1][1] == default:
        kept.pop()    # a stop at the end giving the default decides as falling through does
    notes = []
    if null_possible:
        notes.append(f"Where the PMML TreeModel gives no prediction (missingValueStrategy {missing},"
                     f" noTrueChildStrategy {no_true}), this model gives the default class {default}.")
    dist = _distribution(root, "Node")
    class_counts = [int(round(dist.get(c, 0))) for c in classes]
    total = sum(class_counts)
    out = []
    for k, (tests, klass, covered, errors, kind) in enumerate(kept, 1):
        error_rate, note = _firing(errors / covered if covered else 0.0, f"leaf rule {k}")
        if kind != "leaf":
            note = "the cases that stop at this node of the tree (a missing value, or no child takes them)"
        share = class_counts[classes.index(klass)] / total if total else 0.0
        lift = (1 - error_rate) / share if share else 0.0
        out.append(Rule(k, tests, klass, covered, errors, evidence_rate(error_rate), evidence_rate(lift), 0, 0, note))
    return out, default, notes, class_counts


# ---- entry points ---------------------------------------------------------------------------
def ruleset_from_pmml(text: str | bytes, name: str = "PMML") -> RuleSet:
    """The RuleSet deciding as the PMML document's RuleSetModel or TreeModel (ModelError otherwise)."""
    root = _parse(text, name)
    models = [c for c in root if _tag(c).endswith("Model") or _tag(c) == "MiningModel"]
    if not models:
        raise ModelError(f"{name}: no model element")
    model = models[0]
    kind = _tag(model)
    if kind not in ("RuleSetModel", "TreeModel"):
        raise ModelError(f"{name}: a {kind}; c45rules reads a RuleSetModel or a TreeModel")
    if model.get("functionName") != "classification":
        raise ModelError(f"{name}: {kind} functionName {model.get('functionName')!r}; c45rules reads classification")
    if _child(model, "LocalTransformations") is not None or _child(root, "TransformationDictionary") is not None:
        if any(_children(t, "DerivedField") for t in (_child(model, "LocalTransformations"),
                                                      _child(root, "TransformationDictionary")) if t is not None):
            raise ModelError(f"{name}: derived fields (transformations) cannot be read into c45rules conditions")
    try:
        fields, target, target_values = _fields(root, model)
        ctx = _Context(fields)
        classes = list(target_values)
        if not classes:   # the classes the model names, in order of appearance
            classes = list(dict.fromkeys(e.get(a) for e in model.iter() for a in ("defaultScore", "score")
                                         if e.get(a) is not None))
        ext = _extension(model, kind)
        if kind == "RuleSetModel":
            rules, default, notes = _rule_set(model, ctx, classes)
            class_counts = [int(c) for c in ext.get("class_counts", [0] * len(classes))]
        else:
            rules, default, notes, class_counts = _tree(model, ctx, classes)
        default_counts = [int(c) for c in ext.get("default_counts", [0] * len(classes))]
        attributes = tuple(Attribute(f.name, f.kind, tuple(f.values) if f.kind == "discrete" else ())
                           for f in fields.values())
        options = ext.get("options", {})
        if not isinstance(options, dict):
            raise ModelError(f"{kind}: the c45rules Extension's options are not a mapping")
        notes_text = "\n".join([str(ext["notes"])] if ext.get("notes") else notes)
        ruleset = RuleSet(Schema(attributes, tuple(classes), target), tuple(rules), default,
                          tuple(class_counts), tuple(default_counts),
                          tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in options.items()),
                          str(ext.get("fingerprint", "")), notes=notes_text)
    except ModelError as e:
        raise ModelError(f"{name}: {e}") from None
    except (C45RulesError, ValueError, TypeError) as e:
        raise ModelError(f"{name}: {e}") from None
    # the model file's reader checks everything a model must be (counts, ids, values): the
    # imported RuleSet is what it reads back
    from ..export.yaml import dump_yaml, load_yaml
    try:
        return load_yaml(dump_yaml(ruleset))
    except ModelError as e:
        raise ModelError(f"{name}: the imported model is not valid: {e}") from None


def load_pmml(path: str | os.PathLike) -> RuleSet:
    """ruleset_from_pmml of a PMML file (ModelError naming the file when it cannot be read)."""
    return ruleset_from_pmml(read_model_bytes(path, "a PMML file"), str(path))
