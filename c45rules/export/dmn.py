"""RuleSet -> DMN decision table (1.3 by default, 1.1 for older engines) that a DMN engine
decides exactly as `RuleSet.predict`.

Layout: one inputData per attribute the rules test (typed number or string), one decision
whose decisionTable has hit policy FIRST, an input column per tested attribute (schema
order), output columns for the class, the rule id and the confidence, and the rules in the
model's order; the last rule has "-" in every input and gives the default class with rule
id 0, as `predict_rule` reports it. Rule id, confidence and note ride in annotation columns
(1.3) and in each rule's description (both versions: DMN 1.1 has no annotation columns,
and Camunda shows the description as the annotation).

Names: FEEL refers to an input by name, and FEEL names cannot hold quotes, most
punctuation, or a leading digit, may not be a keyword, and a name with spaces is read
differently by different engines. An attribute whose name is a plain identifier
([A-Za-z_][A-Za-z0-9_]*, not a FEEL keyword) keeps it; any other gets a derived one (every
other character becomes '_', '_' prefixed when needed, '_2', '_3' ... appended against
clashes). `feel_names` gives the mapping; each input column's label is the attribute's own
name. Engines take the input context under the FEEL names.

Why the engines decide as the library does (spec 7.11):
* a continuous condition is a unary test on a number, `<= t`, `> t` or an interval
  `(a..b]` when a rule bounds one attribute on both sides; t is written as the exact
  decimal of repr(t) (FEEL numbers have no exponent), which every engine reads back as the
  same double. Unknown values are null or left out: a comparison with null is null, so the
  test is not satisfied (@hbtgmbh/dmn-eval-js throws on an explicit null: leave unknowns
  out of its context). NaN and infinities are not FEEL numbers: give NaN as unknown;
* a discrete condition is a list of string literals; an unknown (null, left out, '?', '')
  or a category the model never saw equals none of them. Discrete values are strings (the
  value 1 of an attribute is "1");
* rules that never fire (pessimistic error above 0.7, spec 7.6.1) and rules whose
  conditions no case can satisfy are left out, named in the decision's description.

Escaping: values and classes become FEEL string literals (backslash escapes for quote,
backslash, LF, CR and tab; other characters a FEEL literal or XML cannot hold raw are
refused with a ModelError, as names and notes XML cannot hold are), and all text is
XML-escaped; ids are generated, never taken from the model.
"""
from __future__ import annotations

import os
import re
from decimal import Decimal
from pathlib import Path

from ..errors import InputError, ModelError
from ..model.boosted import BoostedRuleSet
from ..model.ruleset import Rule, RuleSet, checked_condition
from ._atomic import atomic_write_text
from ._comment import comment_text
from .choices import DMN_NAMESPACES, DMN_VERSIONS
from .pmml import default_confidence, output_names, xml_attribute
from .sql import UNKNOWN_VALUES

# FEEL's reserved words (DMN 1.3, 10.3.1.2) and the names of built-in functions and types an
# engine may resolve before the context: an attribute named so gets a derived name
FEEL_RESERVED = frozenset((
    "and", "or", "not", "in", "between", "instance", "of", "if", "then", "else", "for", "return",
    "some", "every", "satisfies", "function", "external", "true", "false", "null", "date", "time",
    "duration", "number", "string", "boolean", "context", "list", "range", "item", "years", "months",
    "days", "hours", "minutes", "seconds"))
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_FEEL_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
# vertical space may not stand raw in a FEEL string literal (DMN 1.3 grammar rules 35, 64),
# and XML 1.0 cannot hold the other C0 controls, surrogates or U+FFFE/U+FFFF
_NOT_IN_LITERAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def feel_names(ruleset: RuleSet) -> dict[str, str]:
    """Attribute name -> the FEEL name its input takes in the DMN table, for every attribute
    the rules test (a plain identifier keeps its name; see the module docstring)."""
    used = ruleset.used_attributes()
    taken = {n for n in used if _plain(n)}
    out = {}
    for name in used:
        if _plain(name):
            out[name] = name
            continue
        base = re.sub(r"[^A-Za-z0-9_]", "_", name)
        if not base or base[0].isdigit() or base in FEEL_RESERVED:
            base = "_" + base
        candidate, k = base, 2
        while candidate in taken:
            candidate, k = f"{base}_{k}", k + 1
        taken.add(candidate)
        out[name] = candidate
    return out


def _plain(name: str) -> bool:
    return bool(_PLAIN_NAME.match(name)) and name not in FEEL_RESERVED


def feel_string(value: str, where: str) -> str:
    """`value` as a FEEL string literal, or ModelError naming `where` for a character a
    literal (or the XML around it) cannot hold."""
    bad = _NOT_IN_LITERAL.search(value)
    if bad:
        raise ModelError(f"{where}: {value[:40]!r} holds the character U+{ord(bad.group()):04X},"
                         " which a DMN file cannot hold")
    return '"' + "".join(_FEEL_ESCAPES.get(ch, ch) for ch in value) + '"'


def feel_number(value: float, where: str) -> str:
    """A finite double as a FEEL numeric literal (plain decimal, no exponent) that reads back
    as the same double: the digits of repr(), which are the shortest that do."""
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ModelError(f"{where}: {value!r} is not a FEEL number")
    text = format(Decimal(repr(value)), "f")
    # with a point every engine reads it as a decimal (feelin reads an integer literal with
    # parseInt, which may round long digit strings differently)
    return text if "." in text else text + ".0"


def _entries(rule: Rule, ruleset: RuleSet, where: str) -> dict[str, str | None]:
    """Attribute -> the rule's input entry for it (a FEEL unary test; None when no case can
    pass), the rule's conditions on one attribute merged: the tightest bounds (a number),
    the common values (a category)."""
    lower: dict[str, float] = {}
    upper: dict[str, float] = {}
    values: dict[str, list[str]] = {}
    for j, cond in enumerate(rule.conditions):
        attr, allowed = checked_condition(cond, ruleset.schema, f"{where}.conditions[{j}]")
        name = attr.name
        if cond.op == ">":
            lower[name] = max(lower.get(name, -float("inf")), float(cond.value))
        elif cond.op == "<=":
            upper[name] = min(upper.get(name, float("inf")), float(cond.value))
        else:
            # '?' and '' are unknown in data, so a test on them is never satisfied (as in SQL)
            known = [v for v in allowed if v not in UNKNOWN_VALUES]
            values[name] = [v for v in values[name] if v in known] if name in values else known
    out = {}
    for name in {**lower, **upper}:
        lo, hi = lower.get(name), upper.get(name)
        w = f"{where}: {name!r}"
        if lo is None:
            out[name] = f"<= {feel_number(hi, w)}"
        elif hi is None:
            out[name] = f"> {feel_number(lo, w)}"
        elif lo < hi:
            out[name] = f"({feel_number(lo, w)}..{feel_number(hi, w)}]"
        else:
            out[name] = None
    for name, vals in values.items():
        out[name] = ", ".join(feel_string(v, f"{where}: value of {name!r}") for v in vals) or None
    return out


def _text(value: str, where: str) -> str:
    """`value` escaped for XML element content (the attribute escaping, which content
    accepts too, without its quotes)."""
    return xml_attribute(value, where)[1:-1]


def _percent(confidence: float) -> str:
    return f"{100 * confidence:.1f}%"


def to_dmn(ruleset: RuleSet, version: str = "1.3", name: str = "c45rules") -> str:
    """The RuleSet as a DMN `version` (1.3 or 1.1) document (text) holding one decision
    table named `name`, hit policy FIRST.

    Parameters
    ----------
    ruleset : RuleSet
        The model (a BoostedRuleSet is refused: FEEL adds numbers as decimals, so its vote
        totals would not be the model's).
    version : {"1.3", "1.1"}, default="1.3"
        The DMN version.
    name : str, default="c45rules"
        The decision table's name.

    Returns
    -------
    str
        The DMN document (XML).

    Raises
    ------
    InputError
        A boosted model or an unsupported version.
    ModelError
        A name or value the document cannot hold, or a condition that does not fit the schema.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import to_dmn
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> doc = to_dmn(rs)
    >>> 'hitPolicy="FIRST"' in doc, doc.count("<rule ")
    (True, 3)
    """
    if isinstance(ruleset, BoostedRuleSet):
        # a decision table per trial would do, but FEEL numbers are decimals (IEEE 754 decimal128): the
        # sum of the votes would not round as the model's double-precision totals do, and a tie could
        # be made or broken (0.596 + 0.502 + 0.474 is 1.572 in decimal, 1.5719999999999998 in double)
        raise InputError("a boosted model cannot be exported to DMN: FEEL adds numbers as decimals, so the"
                         " trials' vote totals would not be the model's (double precision) and ties could"
                         " differ; export it to SQL, Python or PMML")
    if version not in DMN_NAMESPACES:
        raise InputError(f"DMN version {version!r} is not supported (choose one of: {', '.join(DMN_VERSIONS)})")
    from .. import __version__

    v13 = version == "1.3"
    schema = ruleset.schema
    names = feel_names(ruleset)
    used = list(names)
    klass, rule_id, confidence = (xml_attribute(n, "output name") for n in output_names(ruleset))
    title = xml_attribute(name, "name")
    # (rule id, class literal, confidence, note, input entries, description) per table row
    rows: list[tuple[str, str, float, str, dict[str, str | None], str]] = []
    dropped: list[str] = []
    for i, r in enumerate(ruleset.rules):
        where = f"rules[{i}] (id {r.id})"
        prediction = feel_string(r.prediction, f"{where}.prediction")
        entries = _entries(r, ruleset, where)
        if not r.fires:
            dropped.append(f"rule {int(r.id)} never fires (error above 70%)")
        elif any(e is None for e in entries.values()):
            dropped.append(f"rule {int(r.id)} has conditions no case satisfies")
        else:
            rows.append((str(int(r.id)), prediction, r.confidence, r.note, entries,
                         f"rule {int(r.id)}, confidence {_percent(r.confidence)}" + (f": {r.note}" if r.note else "")))
    conf = default_confidence(ruleset)
    rows.append(("0", feel_string(ruleset.default_class, "default_class"), conf, "default class", {},
                 f"default class (rule id 0): no rule fired, confidence {_percent(conf)}"))
    fingerprint = ruleset.fingerprint
    namespace = "urn:c45rules:" + (fingerprint if re.fullmatch(r"sha256:[0-9a-f]+", fingerprint) else "model")
    about = (f"C4.5 rules exported by c45rules {__version__}"
             + (f"; model {fingerprint}" if fingerprint else "")
             + (f"; notes: {comment_text(ruleset.notes)}" if ruleset.notes else ""))
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<definitions xmlns="{DMN_NAMESPACES[version]}" id="definitions" name={title}'
             f' namespace="{namespace}">',
             f"  <description>{_text(about, 'notes')}</description>"]
    for k, attr_name in enumerate(used, 1):
        attr = schema.attribute(attr_name)
        feel = xml_attribute(names[attr_name], "FEEL name")
        label = f" label={xml_attribute(attr_name, f'attribute {attr_name!r}')}" if v13 else ""
        lines += [f'  <inputData id="input_{k}" name={feel}{label}>',
                  f'    <variable id="input_{k}_variable" name={feel} typeRef="{_type(attr)}"/>',
                  "  </inputData>"]
    about = "hit policy FIRST in the model order, the default class last; " + \
        ("; ".join(dropped) if dropped else "no rule left out")
    lines += [f'  <decision id="decision" name={title}>',
              f"    <description>{_text(about, 'decision')}</description>",
              f'    <variable id="decision_variable" name={title}/>' if v13 else None]
    for k in range(1, len(used) + 1):
        req_id = f' id="requirement_{k}"' if v13 else ""
        lines.append(f'    <informationRequirement{req_id}><requiredInput href="#input_{k}"/></informationRequirement>')
    lines.append('    <decisionTable id="table" hitPolicy="FIRST">')
    for k, attr_name in enumerate(used, 1):
        attr = schema.attribute(attr_name)
        lines += [f'      <input id="column_{k}" label={xml_attribute(attr_name, f"attribute {attr_name!r}")}>',
                  f'        <inputExpression id="column_{k}_expression" typeRef="{_type(attr)}">'
                  f"<text>{names[attr_name]}</text></inputExpression>",
                  "      </input>"]
    classes = ", ".join(feel_string(c, f"schema.classes[{j}]") for j, c in enumerate(schema.classes))
    lines += [f'      <output id="output_class" name={klass} label={xml_attribute(schema.target, "schema.target")}'
              ' typeRef="string">',
              f"        <outputValues><text>{_text(classes, 'schema.classes')}</text></outputValues>",
              "      </output>",
              f'      <output id="output_rule" name={rule_id} typeRef="number"/>',
              f'      <output id="output_confidence" name={confidence} typeRef="number"/>']
    if v13:
        lines += ['      <annotation name="rule"/>', '      <annotation name="confidence"/>',
                  '      <annotation name="note"/>']
    for position, (rid, prediction, conf, note, entries, described) in enumerate(rows, 1):
        where = f"rule {rid}"
        lines += [f'      <rule id="rule_{position}">',
                  f"        <description>{_text(described, f'{where}.note')}</description>"]
        for k, attr_name in enumerate(used, 1):
            test = entries.get(attr_name, "-")
            lines.append(f'        <inputEntry id="rule_{position}_input_{k}"><text>{_text(test, where)}</text>'
                         "</inputEntry>")
        outputs = (("class", _text(prediction, where)), ("id", rid), ("confidence", feel_number(conf, where)))
        lines += [f'        <outputEntry id="rule_{position}_{kind}"><text>{text}</text></outputEntry>'
                  for kind, text in outputs]
        if v13:
            lines += [f"        <annotationEntry><text>{rid}</text></annotationEntry>",
                      f"        <annotationEntry><text>{_percent(conf)}</text></annotationEntry>",
                      f"        <annotationEntry><text>{_text(note, f'{where}.note')}</text></annotationEntry>"]
        lines.append("      </rule>")
    lines += ["    </decisionTable>", "  </decision>", "</definitions>"]
    return "\n".join(line for line in lines if line is not None) + "\n"


def _type(attr) -> str:
    return "number" if attr.is_continuous else "string"


def write_dmn(ruleset: RuleSet, path: str | os.PathLike, version: str = "1.3", name: str = "c45rules") -> Path:
    """Write to_dmn(ruleset, version, name) to `path` atomically.

    Parameters
    ----------
    ruleset : RuleSet
        The model.
    path : str or path
        The file to write (replaced whole, or left as it was on an error).
    version : {"1.3", "1.1"}, default="1.3"
        The DMN version.
    name : str, default="c45rules"
        The decision table's name.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    InputError, ModelError
        As `to_dmn`; nothing is written then.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import write_dmn
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = write_dmn(rs, os.path.join(d, "model.dmn"), version="1.1")
    ...     "<decisionTable" in path.read_text()
    True
    """
    return atomic_write_text(path, to_dmn(ruleset, version, name))
