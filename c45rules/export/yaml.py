"""RuleSet <-> YAML: a versioned, diff-friendly model file that reads back equal.

Layout (keys always in this order, one condition per line, byte-identical output for equal
RuleSets):

    format: "c45rules-ruleset"
    format_version: 1
    library_version: "0.1.0"
    schema:
      target: "class"
      classes: ["+", "-"]
      attributes:
        - {name: "A9", kind: "discrete", values: ["f", "t"]}
        - {name: "A15", kind: "continuous", values: []}
    rules:
      - id: 1
        prediction: "+"
        conditions:
          - {attribute: "A9", op: "=", value: "t"}
          - {attribute: "A15", op: ">", value: 228.0}
          - {attribute: "A2", op: "<=", value: 30.5, or_unknown: true}   (only when set)
        evidence: {covered: 120, errors: 3, error_rate: 0.048, confidence: 0.952, ...}
    default_class: "-"
    class_counts: [215, 275]
    default_counts: [10, 80]
    options:
      "cf": 0.25
    fingerprint: "sha256:..."

A boosted model (BoostedRuleSet) has format "c45rules-boosted": the same header and schema,
then `trials:`, a list whose items each hold one trial's `rules`, `default_class`,
`class_counts` and `default_counts` exactly as above, then the model's `options` (those of
the fit, plus `trials` asked and `trials_built`) and `fingerprint`. Each trial's RuleSet gets
the options without those two, and the model's fingerprint; every check of a ruleset file
applies to each trial, and an error names it (`trials[2].rules[0].prediction: ...`).

Every string is double-quoted with escapes, so values such as `yes`, `null`, `01`, `:`,
`#` or newlines stay strings. Floats are written with repr() (shortest text that reads
back to the same double) in a form YAML 1.1 resolves as a float (`1.0e-05`, `.inf`, `.nan`).
Options: fit's own options (`cf`, `min_objs`, ...) must hold values fit accepts; other
names are kept, with values that are null, booleans, numbers, strings, and lists or
mappings of those; lists read back as tuples. Every integer is a 64-bit one, every string
valid Unicode (no lone surrogate), on writing as on reading.

Reading builds plain values straight from the events of PyYAML's safe parser (libyaml's
when installed): no node tree, so time and memory grow linearly with the file; nothing but
the core tags (str, int, float, bool, null, seq, map); no aliases, duplicate keys or absurd
nesting. Every field is then validated; a problem raises ModelError naming the field path,
e.g. `rules[3].conditions[1].value: ...`.
"""
from __future__ import annotations

import math
import numbers
import os
import re
from pathlib import Path
from typing import Any, Callable

import yaml

from ..data.costs import cost_matrix
from ..data.schema import Attribute, Schema
from ..errors import C45RulesError, InputError, ModelError, shown
from ..model.boosted import BoostedRuleSet
from ..model.regression import (REGRESSION_FORMAT, Committee, Instances, LinearModel, RegressionModel,
                                RegressionRule)
from ..model.ruleset import EVIDENCE_DIGITS, Condition, Rule, RuleSet
from ..tree.node import Node
from ._atomic import atomic_write_text

FORMAT = "c45rules-ruleset"
BOOSTED_FORMAT = "c45rules-boosted"   # a boosted model: one schema, then `trials`, each a ruleset
# each format version and the first c45rules release that reads it: a new version adds a row
FORMAT_SINCE = {1: "0.1.0"}
FORMAT_VERSION = max(FORMAT_SINCE)
MAX_BYTES = 50 * 1024 * 1024   # a model file larger than this is refused unread
MAX_DEPTH = 20                 # the format nests 5 deep; options values a little more
MAX_KEY = 1000                 # YAML ends a key's search for its ':' after 1024 characters
MAX_NUMBER_TEXT = 1000         # characters: a finite double needs at most ~330, an int64 20
INT64 = 2 ** 63                # ids and counts become numpy int64 (ruleset.py)
UNKNOWN_VALUES = ("", "?")     # spelled unknown in data, so never a value of a schema


# ---- writing ----------------------------------------------------------------------------
def _unicode_problem(s: str) -> str | None:
    """Why `s` cannot be written as UTF-8 (a lone surrogate), or None."""
    if s.isascii():
        return None
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"{s[:40]!r} is not valid Unicode text (a lone surrogate at character {e.start})"
    return None


def _quote(s: str, where: str) -> str:
    """A YAML double-quoted scalar: printable text as is, everything else escaped."""
    problem = _unicode_problem(s)
    if problem:   # would be written as a \uD800 escape that no UTF-8 consumer of the model can take
        raise ModelError(f"{where}: {problem}")
    out = ['"']
    for ch in s:
        if ch == "\\" or ch == '"':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        else:
            code = ord(ch)
            out.append(f"\\x{code:02X}" if code < 0x100 else
                       f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}")
    out.append('"')
    return "".join(out)


def _key(k: Any, where: str) -> str:
    """A mapping key as written, refused when YAML could not read it back as a key."""
    if not isinstance(k, str):
        raise ModelError(f"{where}: cannot write a non-string key {k!r}")
    quoted = _quote(k, where)
    if len(quoted) > MAX_KEY:   # measured escaped: 400 control characters are 1600 written
        raise ModelError(f"{where}: the name {k[:40]!r}... is too long for a YAML key"
                         f" ({len(quoted)} characters written, at most {MAX_KEY})")
    return quoted


def _int64(n: int, where: str) -> int:
    """`n`, or ModelError naming `where` when it is beyond 64 bits (writing and reading alike)."""
    if not -INT64 <= n < INT64:
        raise ModelError(f"{where}: {shown(n)} is beyond the 64-bit integers a model file holds")
    return n


def _int(v: Any, where: str) -> str:
    return str(_int64(int(v), where))


def _float(v: float) -> str:
    """repr() of a float, spelled so that YAML 1.1 (PyYAML) reads it back as a float."""
    v = float(v)
    if math.isnan(v):
        return ".nan"
    if math.isinf(v):
        return ".inf" if v > 0 else "-.inf"
    text = repr(v)
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:          # '1e-05' is a string to YAML 1.1; '1.0e-05' is a float
        mantissa += ".0"
    return mantissa + e + exponent


def _shown_confidence(error_rate: float) -> float:
    """1 - error_rate to EVIDENCE_DIGITS significant digits: the model file's `confidence`.

    The rule keeps only its error rate; the confidence beside it is for the reader, so it
    gets the rate's digits, not the 17 of 1 - 0.0480769 in binary.
    """
    return float(f"{1.0 - error_rate:.{EVIDENCE_DIGITS}g}")


def _scalar(v: Any, where: str) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool) or type(v).__name__ in ("bool", "bool_"):   # numpy's too
        return "true" if bool(v) else "false"
    if isinstance(v, numbers.Integral):
        return _int(v, where)
    if isinstance(v, numbers.Real):
        return _float(v)
    if isinstance(v, str):
        return _quote(v, where)
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(_scalar(x, f"{where}[{i}]") for i, x in enumerate(v)) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k, where)}: {_scalar(x, f'{where}.{k}')}" for k, x in v.items()) + "}"
    raise ModelError(f"{where}: cannot write a value of type {type(v).__name__}")


def _flow(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"


def _count(v: Any, where: str) -> str:
    """A count: whole as an int, a sum of fractional case weights as a float."""
    if isinstance(v, numbers.Real) and not isinstance(v, numbers.Integral) and not float(v).is_integer():
        if not (math.isfinite(v) and v >= 0):
            raise ModelError(f"{where}: a count must be finite and >= 0, got {shown(v)}")
        return _float(v)
    return _int(v, where)


def _ints(values, where: str) -> str:
    return "[" + ", ".join(_count(v, f"{where}[{i}]") for i, v in enumerate(values)) + "]"


def _check_fit_option(name: str, value: Any, where: str) -> None:
    """ModelError naming `where` when `name` is one of fit's options and fit would refuse `value`."""
    from ..learn.pipeline import DEFAULTS, check_options   # pipeline imports every step
    if name in DEFAULTS:
        try:
            check_options({name: value})
        except InputError as e:
            raise ModelError(f"{where}: {e}") from None


def _at_most(part: float, whole: float) -> bool:
    """part <= whole, allowing for sums of fractional weights kept to 12 digits (pipeline.count)."""
    return part <= whole or part <= whole + 1e-9 * abs(whole)


# (part, whole, why): evidence of one rule that counts a subset of another of its counts
_SUBSETS = (("errors", "covered", "its errors are covered cases of another class"),
            ("used", "covered", "the cases it decides are cases it covers"),
            ("wrong", "used", "its wrong decisions are cases it decides"),
            ("wrong", "errors", "its wrong decisions are covered cases of another class"))


def _rule_problem(r: Rule) -> tuple[str, str] | None:
    """(field, problem) of the first number of rule `r` that no fit can give, or None: a
    threshold that is not finite (every test on it is false, and PMML, SQL and DMN cannot write
    it), a count that is not a finite number >= 0, evidence that contradicts itself (more errors
    than cases covered), an error rate outside [0, 1], a lift below 0 or NaN (lift is +inf where
    the class has no training case: govern/rescore)."""
    for j, c in enumerate(r.conditions):
        if c.op in ("<=", ">") and not (isinstance(c.value, numbers.Real) and math.isfinite(c.value)):
            shown_value = _float(c.value) if isinstance(c.value, numbers.Real) else repr(c.value)
            return f"conditions[{j}].value", f"threshold {shown_value} is not a finite number"
    for name in ("covered", "errors", "used", "wrong"):
        v = getattr(r, name)
        if not (isinstance(v, numbers.Real) and math.isfinite(v) and v >= 0):
            return f"evidence.{name}", f"{shown(v)} is not a count (a finite number >= 0)"
    if not (isinstance(r.error_rate, numbers.Real) and 0.0 <= r.error_rate <= 1.0):
        return "evidence.error_rate", f"{shown(r.error_rate)} is not an error rate (a number from 0 to 1)"
    if not (isinstance(r.lift, numbers.Real) and r.lift >= 0):
        return "evidence.lift", f"{shown(r.lift)} is not a lift (a number >= 0)"
    for part, whole, why in _SUBSETS:
        if not _at_most(getattr(r, part), getattr(r, whole)):
            return (f"evidence.{part}", f"{part} {shown(getattr(r, part))} exceeds {whole}"
                    f" {shown(getattr(r, whole))}, but {why}")
    return None


def _counts_problem(class_counts, default_counts) -> tuple[str, str] | None:
    """(field, problem) when a count is not a finite number >= 0 or more cases of a class reach
    the default than the training data holds (default_counts[k] > class_counts[k]), or None."""
    for name, counts in (("class_counts", class_counts), ("default_counts", default_counts)):
        for k, v in enumerate(counts):
            if not (isinstance(v, numbers.Real) and math.isfinite(v) and v >= 0):
                return f"{name}[{k}]", f"{shown(v)} is not a count (a finite number >= 0)"
    for k, (whole, part) in enumerate(zip(class_counts, default_counts)):
        if not _at_most(part, whole):
            return (f"default_counts[{k}]", f"{shown(part)} cases reach the default, more than the"
                    f" {shown(whole)} of the class (class_counts[{k}])")
    return None


def _node_problem(node: Node) -> tuple[str, str] | None:
    """(field, problem) of a kept tree node's first number that is not finite (or a negative
    count), or None."""
    counts = [("items", node.items), ("errors", node.errors),
              *((f"distribution[{j}]", v) for j, v in enumerate(node.class_dist))]
    for name, v in counts:
        if not (math.isfinite(v) and v >= 0):
            return name, f"{_float(v)} is not a count (a finite number >= 0)"
    cuts = [("cut", node.cut)] if node.kind == "threshold" else []
    cuts += [] if node.soft is None else [("soft[0]", node.soft[0]), ("soft[1]", node.soft[1])]
    for name, v in cuts:
        if not math.isfinite(v):
            return name, f"threshold {_float(v)} is not a finite number"
    return None


def dump_yaml(model: RuleSet | BoostedRuleSet) -> str:
    """The model as YAML text (deterministic: equal models give identical bytes); a boosted
    model as one schema, then each trial's rules, default class and counts (BOOSTED_FORMAT).

    Parameters
    ----------
    model : RuleSet or BoostedRuleSet
        The model.

    Returns
    -------
    str
        The model file's text, which `load_yaml` reads back equal.

    Raises
    ------
    ModelError
        A model that its file could not hold as it is (a hand-made one with, say, a count
        out of range or a text YAML cannot carry), naming the field.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import dump_yaml, load_yaml, write_yaml
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> text = dump_yaml(rs)
    >>> print(text[:text.index("rules:")])
    format: "c45rules-ruleset"
    format_version: 1
    library_version: "..."
    schema:
      target: "class"
      classes: ["n", "y"]
      attributes:
        - {name: "a", kind: "continuous", values: []}
    <BLANKLINE>
    >>> load_yaml(text) == rs
    True
    """
    from .. import __version__

    if isinstance(model, RegressionModel):
        return "\n".join(_regression_lines(model)) + "\n"
    boosted = isinstance(model, BoostedRuleSet)
    lines = [
        f"format: {_quote(BOOSTED_FORMAT if boosted else FORMAT, 'format')}",
        f"format_version: {FORMAT_VERSION}",
        f"library_version: {_quote(__version__, 'library_version')}",
        *([f"notes: {_quote(model.notes, 'notes')}"] if model.notes else []),
        *_schema_lines(model.schema),
    ]
    if boosted:
        lines.append("trials:")
        for t, rs in enumerate(model.trials):
            body = ["    " + line for line in _ruleset_lines(rs, f"trials[{t}].")]
            lines += ["  - " + body[0][4:], *body[1:]]
    else:
        lines += _ruleset_lines(model, "")
    lines.append("options:" if model.options else "options: {}")
    for k, v in model.options:
        key = _key(k, "options")
        _check_fit_option(k, v, f"options.{k}")
        lines.append(f"  {key}: {_scalar(v, f'options.{k}')}")
    lines.append(f"fingerprint: {_quote(model.fingerprint, 'fingerprint')}")
    if not boosted and model.tree is not None:
        lines += _tree_lines(model.tree, model.schema)
    return "\n".join(lines) + "\n"


def _schema_lines(schema: Schema) -> list[str]:
    """The schema block: target, classes and one attribute a line."""
    lines = [
        "schema:",
        f"  target: {_quote(schema.target, 'schema.target')}",
        f"  classes: [{', '.join(_quote(c, f'schema.classes[{i}]') for i, c in enumerate(schema.classes))}]",
        "  attributes:" if schema.attributes else "  attributes: []",
    ]
    for i, a in enumerate(schema.attributes):
        where = f"schema.attributes[{i}]"
        values = "[" + ", ".join(_quote(v, f"{where}.values[{j}]") for j, v in enumerate(a.values)) + "]"
        lines.append(f"    - {_flow([('name', _quote(a.name, f'{where}.name')), ('kind', _quote(a.kind, f'{where}.kind')), ('values', values)])}")
    return lines


def _ruleset_lines(ruleset: RuleSet, at: str) -> list[str]:
    """The rules, default class and counts of one ruleset (`at`: the path prefix of its fields
    in error messages, 'trials[2].' for a boosting trial)."""
    lines = ["rules:" if ruleset.rules else "rules: []"]
    for i, r in enumerate(ruleset.rules):
        lines.append(f"  - id: {_int(r.id, f'{at}rules[{i}].id')}")
        lines.append(f"    prediction: {_quote(r.prediction, f'{at}rules[{i}].prediction')}")
        if r.note:
            lines.append(f"    note: {_quote(r.note, f'{at}rules[{i}].note')}")
        if not r.conditions:
            raise ModelError(f"{at}rules[{i}].conditions: a rule needs at least one condition (rule id {r.id})")
        problem = _rule_problem(r)
        if problem:   # load_yaml would refuse the file
            raise ModelError(f"{at}rules[{i}].{problem[0]}: {problem[1]} (rule id {r.id})")
        lines.append("    conditions:")
        for j, c in enumerate(r.conditions):
            where = f"{at}rules[{i}].conditions[{j}]"
            pairs = [('attribute', _quote(c.attribute, f'{where}.attribute')), ('op', _quote(c.op, f'{where}.op')),
                     ('value', _scalar(c.value, f'{where}.value'))]
            if c.or_unknown:   # written only when set, so c4.5's own models read as before
                pairs.append(('or_unknown', 'true'))
            lines.append(f"      - {_flow(pairs)}")
        where = f"{at}rules[{i}].evidence"
        evidence = [("covered", _count(r.covered, f"{where}.covered")), ("errors", _count(r.errors, f"{where}.errors")),
                    ("error_rate", _float(r.error_rate)), ("confidence", _float(_shown_confidence(r.error_rate))),
                    ("lift", _float(r.lift)), ("used", _count(r.used, f"{where}.used")),
                    ("wrong", _count(r.wrong, f"{where}.wrong"))]
        lines.append(f"    evidence: {_flow(evidence)}")
    problem = _counts_problem(ruleset.class_counts, ruleset.default_counts)
    if problem:
        raise ModelError(f"{at}{problem[0]}: {problem[1]}")
    return lines + [
        f"default_class: {_quote(ruleset.default_class, f'{at}default_class')}",
        f"class_counts: {_ints(ruleset.class_counts, f'{at}class_counts')}",
        f"default_counts: {_ints(ruleset.default_counts, f'{at}default_counts')}",
    ]


def _tree_lines(root: Node, schema: Schema) -> list[str]:
    """The kept tree, one node a line in depth-first order (a node's branches follow it).

    Flat rather than nested, so a tree of any depth stays within the reader's nesting limit.
    """
    lines = ["tree:"]
    for i, node in enumerate(root.walk()):
        problem = _node_problem(node)
        if problem:
            raise ModelError(f"tree[{i}].{problem[0]}: {problem[1]}")
        pairs = [("kind", _quote(node.kind, "tree.kind")), ("class", _quote(schema.classes[node.klass], "tree.class")),
                 ("items", _float(node.items)), ("errors", _float(node.errors)),
                 ("distribution", "[" + ", ".join(_float(v) for v in node.class_dist) + "]")]
        if not node.is_leaf:
            pairs.append(("attribute", _quote(schema.attributes[node.attribute].name, "tree.attribute")))
            if node.kind == "threshold":
                pairs.append(("cut", _float(node.cut)))
                if node.soft is not None:       # tree -p's band, kept by fit -p --keep-tree
                    pairs.append(("soft", f"[{_float(node.soft[0])}, {_float(node.soft[1])}]"))
            if node.kind == "subset":
                values = schema.attributes[node.attribute].values
                pairs.append(("subsets", "[" + ", ".join(
                    "[" + ", ".join(_quote(values[c], "tree.subsets") for c in sorted(group)) + "]"
                    for group in node.subsets) + "]"))
            pairs.append(("branches", str(len(node.branches))))
        lines.append(f"  - {_flow(pairs)}")
    return lines


def write_yaml(ruleset: RuleSet | BoostedRuleSet, path: str | os.PathLike) -> Path:
    """Write the model as YAML to `path` atomically (never a partial file).

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
        As `dump_yaml`; nothing is written then.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import dump_yaml, load_yaml, write_yaml
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = write_yaml(rs, os.path.join(d, "model.yaml"))
    ...     load_yaml(path) == rs
    True
    """
    return atomic_write_text(path, dump_yaml(ruleset))


# ---- parsing ----------------------------------------------------------------------------
# libyaml's parser when PyYAML was built with it: ~25x faster than the pure-Python one
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CORE = "tag:yaml.org,2002:"


def _parse(text: str) -> Any:
    """The YAML document in `text` as dicts, lists and scalars (None for an empty text).

    Built straight from the parser's events rather than through PyYAML's node tree, whose
    nodes and marks cost ~700 bytes each: a 4 MB list of zeros took 1.4 GB that way.
    """
    loader = _Loader(text)
    # a plain scalar's value follows from its text alone: each distinct text resolved once (a
    # boosted model repeats its keys and many numbers some 100,000 times: 0.1 s of its load)
    loader.c45rules_plain = {}
    try:
        loader.get_event()                                    # stream start
        doc = None
        if not loader.check_event(yaml.StreamEndEvent):
            loader.get_event()                                # document start
            doc = _value(loader, "", 1)
            loader.get_event()                                # document end
        if not loader.check_event(yaml.StreamEndEvent):
            line = loader.peek_event().start_mark.line + 1
            raise ModelError(f"line {line}: a second YAML document; a model file holds one")
        return doc
    finally:
        loader.dispose()


def _value(loader: Any, path: str, depth: int) -> Any:
    """The next node of the event stream as a plain value; `path` names it in messages."""
    try:
        event = loader.get_event()
        if isinstance(event, yaml.ScalarEvent):
            if event.tag is None and not event.implicit[0]:   # quoted: text, nothing to resolve
                return event.value
            return _scalar_value(loader, event, path, event.start_mark.line + 1)
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            raise ModelError(f"line {line}: YAML aliases are not allowed in a model file")
        if depth > MAX_DEPTH:
            raise ModelError(f"line {line}: nested more than {MAX_DEPTH} levels deep")
        is_list = isinstance(event, yaml.SequenceStartEvent)
        if event.tag not in (None, "!", _CORE + ("seq" if is_list else "map")):
            raise _tag_error(path, line, event.tag)
        if is_list:
            items: list = []
            while not loader.check_event(yaml.SequenceEndEvent):
                items.append(_value(loader, f"{path}[{len(items)}]", depth + 1))
            loader.get_event()
            return items
        mapping: dict = {}
        while not loader.check_event(yaml.MappingEndEvent):
            key_line = loader.peek_event().start_mark.line + 1
            key = _value(loader, path, depth + 1)
            if isinstance(key, (list, dict)):
                raise _fail(path, f"line {key_line}: a key must be a single value, not a list or mapping")
            if key in mapping:
                raise ModelError(f"line {key_line}: duplicate key {key!r}")
            mapping[key] = _value(loader, _join(path, str(key)), depth + 1)
        loader.get_event()
        return mapping
    except yaml.YAMLError as e:   # caught by the innermost node being read: its path is the nearest field
        raise _fail(path, _yaml_problem(e)) from None


def _yaml_problem(e: yaml.YAMLError) -> str:
    """A parser error in one line: where and what."""
    problem = str(e)
    if isinstance(e, yaml.MarkedYAMLError) and e.problem_mark is not None:
        mark = e.problem_mark
        if e.problem == "exceeded maximum nesting depth":   # libyaml's 1000, met scanning ahead of our 20
            return f"line {mark.line + 1}: nested more than {MAX_DEPTH} levels deep"
        problem = f"line {mark.line + 1}, column {mark.column + 1}: {e.problem}"
        if e.context:
            problem += f" ({e.context})"
    return f"not valid YAML or uses a tag a model file cannot hold: {problem}"


def _scalar_value(loader: Any, event: Any, path: str, line: int) -> Any:
    """A plain or tagged scalar as the core YAML 1.1 tags read it; any other tag is refused."""
    tag, text = event.tag, event.value
    if tag is None:
        known = loader.c45rules_plain.get(text, _UNRESOLVED)
        if known is _UNRESOLVED:
            known = loader.c45rules_plain[text] = _resolved(loader, event, path, line)
        return known
    return _resolved(loader, event, path, line)


_UNRESOLVED = object()


def _resolved(loader: Any, event: Any, path: str, line: int) -> Any:
    """_scalar_value's value of a scalar event, resolved from its text and tag."""
    tag, text = event.tag, event.value
    if tag is None and text.isdigit() and text.isascii() and (text[0] != "0" or text == "0") and len(text) <= 18:
        return int(text)   # the common plain count or id, without the resolver's regexes
    if tag is None or tag == "!":
        tag = loader.resolve(yaml.ScalarNode, text, event.implicit)
    kind = tag[len(_CORE):] if tag.startswith(_CORE) else ""
    if kind == "str":
        return text
    if kind == "timestamp":
        raise _fail(path, f"line {line}: {text!r} reads as a date, which a model file cannot hold"
                    " (quote it to make it text)")
    if kind == "null":
        return None
    if kind not in ("bool", "int", "float"):
        raise _tag_error(path, line, tag)
    if len(text) > MAX_NUMBER_TEXT:   # also keeps PyYAML's int() within Python's 4300-digit limit
        raise _fail(path, f"line {line}: a number of {len(text)} characters, beyond any field's range")
    try:
        return getattr(loader, f"construct_yaml_{kind}")(yaml.ScalarNode(tag, text))
    except (ValueError, KeyError, IndexError):   # an explicit tag on a wrong text: !!int "x", !!float ""
        raise _fail(path, f"line {line}: {text[:40]!r} is not a valid {kind}") from None


def _tag_error(path: str, line: int, tag: str) -> ModelError:
    written = "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag
    return _fail(path, f"not valid YAML or uses a tag a model file cannot hold: line {line}: {written}")


# ---- validating -------------------------------------------------------------------------
def _fail(path: str, problem: str) -> ModelError:
    return ModelError(f"{path}: {problem}" if path else problem)


def _type_name(v: Any) -> str:
    return {type(None): "null", bool: "a boolean", int: "an integer", float: "a number",
            str: "a string", list: "a list", dict: "a mapping"}.get(type(v), type(v).__name__)


def _mapping(obj: Any, path: str, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    if not isinstance(obj, dict):
        raise _fail(path, f"expected a mapping, found {_type_name(obj)}")
    for k in obj:
        if k not in keys and k not in optional:
            raise _fail(path, f"unknown key {k!r} (expected: {', '.join(keys + optional)})")
    for k in keys:
        if k not in obj:
            raise _fail(path, f"missing key {k!r}")
    return obj


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _string(obj: Any, path: str) -> str:
    if not isinstance(obj, str):
        raise _fail(path, f"expected a string, found {_type_name(obj)} {obj!r}")
    problem = _unicode_problem(obj)
    if problem:   # a "\uD800" escape: reports, SQL and CSV would fail to encode it later
        raise _fail(path, problem)
    return obj


def _weighed(obj: Any, path: str) -> int | float:
    """A count: an integer, or (a model learnt from weighted cases) a fractional sum of weights;
    a whole count is written as an integer, so 4.0 is refused as before."""
    if isinstance(obj, float) and not (math.isfinite(obj) and obj.is_integer()):
        if not (math.isfinite(obj) and obj >= 0):
            raise _fail(path, f"{shown(obj)} is not a count (a finite number >= 0)")
        return obj
    return _integer(obj, path)


def _integer(obj: Any, path: str, minimum: int = 0) -> int:
    if not isinstance(obj, int) or isinstance(obj, bool):
        raise _fail(path, f"expected an integer, found {_type_name(obj)} {obj!r}")
    if obj < minimum:
        raise _fail(path, f"{shown(obj)} is less than {minimum}")
    if obj >= INT64:
        raise _fail(path, f"{shown(obj)} is more than {INT64 - 1}, the largest 64-bit integer")
    return obj


def _number(obj: Any, path: str) -> float:
    if not isinstance(obj, (int, float)) or isinstance(obj, bool):
        raise _fail(path, f"expected a number, found {_type_name(obj)} {obj!r}")
    try:
        return float(obj)
    except OverflowError:
        raise _fail(path, f"{shown(obj)} is beyond the range of a double") from None


def _list(obj: Any, path: str) -> list:
    if not isinstance(obj, list):
        raise _fail(path, f"expected a list, found {_type_name(obj)}")
    return obj


def _schema(obj: Any, path: str) -> Schema:
    m = _mapping(obj, path, ("target", "classes", "attributes"))
    target = _string(m["target"], _join(path, "target"))
    classes = [_string(c, f"{path}.classes[{i}]")
               for i, c in enumerate(_list(m["classes"], _join(path, "classes")))]
    if not classes:
        raise _fail(_join(path, "classes"), "no class values")
    _no_repeats(classes, f"{path}.classes", "class")
    attributes: list[Attribute] = []
    names: set[str] = set()
    for i, a in enumerate(_list(m["attributes"], _join(path, "attributes"))):
        where = f"{path}.attributes[{i}]"
        am = _mapping(a, where, ("name", "kind"), ("values",))
        name = _string(am["name"], f"{where}.name")
        if not name:
            raise _fail(f"{where}.name", "empty attribute name")
        if name in names:
            raise _fail(f"{where}.name", f"attribute {name!r} declared twice")
        names.add(name)
        kind = _string(am["kind"], f"{where}.kind")
        if kind not in ("continuous", "discrete", "ignore"):
            raise _fail(f"{where}.kind", f"{kind!r} is not one of continuous, discrete, ignore")
        values = [_string(v, f"{where}.values[{j}]")
                  for j, v in enumerate(_list(am.get("values", []), f"{where}.values"))]
        if kind != "discrete" and values:
            raise _fail(f"{where}.values", f"a {kind} attribute has no value list")
        for j, v in enumerate(values):
            if v in UNKNOWN_VALUES:
                raise _fail(f"{where}.values[{j}]", f"{v!r} means unknown and cannot be a value")
        _no_repeats(values, f"{where}.values", "value")
        attributes.append(Attribute(name, kind, tuple(values)))
    try:
        return Schema(tuple(attributes), tuple(classes), target)
    except C45RulesError as e:
        raise _fail(path, str(e)) from None


def _no_repeats(items: list[str], path: str, noun: str) -> None:
    """ModelError at the first item listed a second time."""
    seen: set[str] = set()
    for i, item in enumerate(items):
        if item in seen:
            raise _fail(f"{path}[{i}]", f"{noun} {item!r} listed twice")
        seen.add(item)


# attribute name -> (attribute, its values as a set): one lookup per condition, whatever the
# number of attributes and values (a tuple scan made a 50 000-value model take 20 s)
_Lookup = dict[str, tuple[Attribute, frozenset[str]]]


def _condition(obj: Any, path: str, attributes: _Lookup) -> Condition:
    m = _mapping(obj, path, ("attribute", "op", "value"), ("or_unknown",))
    name = _string(m["attribute"], f"{path}.attribute")
    if name not in attributes:
        raise _fail(f"{path}.attribute", f"{name!r} is not an attribute of the schema")
    attr, known = attributes[name]
    op = _string(m["op"], f"{path}.op")
    value = m["value"]
    if op in ("<=", ">"):
        if not attr.is_continuous:
            raise _fail(f"{path}.op", f"threshold test {op!r} on {attr.kind} attribute {name!r}")
        or_unknown = m.get("or_unknown", False)
        if not isinstance(or_unknown, bool):
            raise _fail(f"{path}.or_unknown", f"expected true or false, found {_type_name(or_unknown)} {or_unknown!r}")
        return Condition(name, op, _number(value, f"{path}.value"), or_unknown)   # finite: _rule_problem
    if "or_unknown" in m:
        raise _fail(f"{path}.or_unknown", f"'or_unknown' is only for threshold tests, not {op!r}")
    if op in ("=", "in"):
        if not attr.is_discrete:
            raise _fail(f"{path}.op", f"value test {op!r} on {attr.kind} attribute {name!r}")
        if op == "=":
            v = _string(value, f"{path}.value")
            if v not in known:
                raise _fail(f"{path}.value", f"{v!r} is not a value of attribute {name!r}")
            return Condition(name, op, v)
        vs = [_string(v, f"{path}.value[{k}]") for k, v in enumerate(_list(value, f"{path}.value"))]
        if not vs:
            raise _fail(f"{path}.value", "an 'in' test needs at least one value")
        for k, v in enumerate(vs):
            if v not in known:
                raise _fail(f"{path}.value[{k}]", f"{v!r} is not a value of attribute {name!r}")
        _no_repeats(vs, f"{path}.value", "value")
        return Condition(name, op, tuple(vs))
    raise _fail(f"{path}.op", f"{op!r} is not one of '<=', '>', '=', 'in'")


_EVIDENCE = ("covered", "errors", "error_rate", "confidence", "lift", "used", "wrong")


def _named_rule(obj: Any, i: int, schema: Schema, attributes: _Lookup, classes: frozenset[str],
                at: str = "") -> Rule:
    """_rule for {at}rules[i], its error also naming the rule's id when it has a readable one."""
    try:
        return _rule(obj, f"{at}rules[{i}]", schema, attributes, classes)
    except ModelError as e:
        rid = obj.get("id") if isinstance(obj, dict) else None
        if isinstance(rid, int) and not isinstance(rid, bool) and ".id:" not in str(e):
            raise ModelError(f"{e} (rule id {rid})") from None
        raise


def _rule(obj: Any, path: str, schema: Schema, attributes: _Lookup, classes: frozenset[str]) -> Rule:
    m = _mapping(obj, path, ("id", "prediction", "conditions", "evidence"), ("note",))
    rid = _integer(m["id"], f"{path}.id", minimum=1)
    prediction = _string(m["prediction"], f"{path}.prediction")
    if prediction not in classes:
        raise _fail(f"{path}.prediction", f"{prediction!r} is not a class ({', '.join(schema.classes)})")
    conditions = tuple(_condition(c, f"{path}.conditions[{j}]", attributes)
                       for j, c in enumerate(_list(m["conditions"], f"{path}.conditions")))
    if not conditions:   # c4.5rules never keeps one (spec 7.3); it would decide every case it reaches
        raise _fail(f"{path}.conditions", "a rule needs at least one condition")
    ev = _mapping(m["evidence"], f"{path}.evidence", _EVIDENCE)
    counts = {k: _weighed(ev[k], f"{path}.evidence.{k}") for k in ("covered", "errors", "used", "wrong")}
    error_rate = _number(ev["error_rate"], f"{path}.evidence.error_rate")
    confidence = _number(ev["confidence"], f"{path}.evidence.confidence")
    lift = _number(ev["lift"], f"{path}.evidence.lift")
    note = _string(m.get("note", ""), f"{path}.note")
    rule = Rule(rid, conditions, prediction, counts["covered"], counts["errors"], error_rate,
                lift, counts["used"], counts["wrong"], note)
    problem = _rule_problem(rule)
    if problem:
        raise _fail(f"{path}.{problem[0]}", problem[1])
    # a file of ours holds 1 - error_rate to 6 digits; an older one, to 17
    if not (abs(confidence - (1.0 - error_rate)) <= 1e-12 or confidence == _shown_confidence(error_rate)):
        raise _fail(f"{path}.evidence.confidence",
                    f"{confidence!r} is not 1 - error_rate ({_shown_confidence(error_rate)!r})")
    return rule


def _option_value(v: Any, path: str) -> Any:
    """An option value as a RuleSet holds it: plain values, lists as tuples."""
    if v is None or isinstance(v, (bool, float)):
        return v
    if isinstance(v, int):
        return _int64(v, path)
    if isinstance(v, str):
        return _string(v, path)
    if isinstance(v, list):
        return tuple(_option_value(x, f"{path}[{i}]") for i, x in enumerate(v))
    if isinstance(v, dict):
        return {_string(k, path): _option_value(x, _join(path, k)) for k, x in v.items()}
    raise _fail(path, f"expected null, a boolean, a number, a string, a list or a mapping,"
                f" found {_type_name(v)}")


def _options(obj: Any, path: str) -> tuple[tuple[str, Any], ...]:
    if not isinstance(obj, dict):
        raise _fail(path, f"expected a mapping, found {_type_name(obj)}")
    out = []
    for k, v in obj.items():
        where = _join(path, _string(k, path))
        value = _option_value(v, where)
        _check_fit_option(k, value, where)
        out.append((k, value))
    return tuple(out)


def _counts(obj: Any, path: str, n: int) -> tuple[int, ...]:
    values = tuple(_weighed(v, f"{path}[{i}]") for i, v in enumerate(_list(obj, path)))
    if len(values) != n:
        raise _fail(path, f"{len(values)} counts for {n} classes")
    return values


_TOP = ("format", "format_version", "library_version", "schema", "rules", "default_class",
        "class_counts", "default_counts", "options", "fingerprint")
_NODE_KINDS = ("leaf", "discrete", "threshold", "subset")


def _tree(obj: Any, schema: Schema) -> Node:
    """The kept tree from its depth-first node list (ModelError naming tree[i].field)."""
    import numpy as np
    items = _list(obj, "tree")
    if not items:
        raise _fail("tree", "an empty node list (leave the key out for a model without its tree)")
    C = len(schema.classes)
    nodes: list[tuple[Node, int]] = []
    for i, raw in enumerate(items):
        where = f"tree[{i}]"
        m = _mapping(raw, where, ("kind", "class", "items", "errors", "distribution"),
                     ("attribute", "cut", "subsets", "branches", "soft"))
        kind = _string(m["kind"], f"{where}.kind")
        if kind not in _NODE_KINDS:
            raise _fail(f"{where}.kind", f"{kind!r} is not one of {', '.join(_NODE_KINDS)}")
        klass = _string(m["class"], f"{where}.class")
        if klass not in schema.classes:
            raise _fail(f"{where}.class", f"{klass!r} is not a class ({', '.join(schema.classes)})")
        dist = [_number(v, f"{where}.distribution[{j}]") for j, v in enumerate(_list(m["distribution"], f"{where}.distribution"))]
        if len(dist) != C:
            raise _fail(f"{where}.distribution", f"{len(dist)} weights for {C} classes")
        node = Node(schema.classes.index(klass), _number(m["items"], f"{where}.items"),
                    _number(m["errors"], f"{where}.errors"), np.array(dist, dtype=np.float64), kind)
        expected = ("attribute", "branches") if kind != "leaf" else ()
        expected += ("cut",) if kind == "threshold" else ("subsets",) if kind == "subset" else ()
        if "soft" in m and kind != "threshold":
            raise _fail(where, f"a {kind} node has no key 'soft' (a threshold test's band)")
        for key in ("attribute", "cut", "subsets", "branches"):
            if (key in m) != (key in expected):
                raise _fail(where, f"a {kind} node {'needs' if key in expected else 'has no'} key {key!r}")
        branches = 0
        if kind != "leaf":
            name = _string(m["attribute"], f"{where}.attribute")
            if name not in schema.names:
                raise _fail(f"{where}.attribute", f"{name!r} is not an attribute of the schema")
            node.attribute = schema.index(name)
            attr = schema.attributes[node.attribute]
            if (kind == "threshold") != attr.is_continuous:
                raise _fail(f"{where}.kind", f"a {kind} test on {attr.kind} attribute {name!r}")
            branches = _integer(m["branches"], f"{where}.branches", minimum=1)
            if kind == "threshold":
                node.cut = _number(m["cut"], f"{where}.cut")
                if branches != 2:
                    raise _fail(f"{where}.branches", "a threshold test has 2 branches")
                if "soft" in m:
                    band = [_number(v, f"{where}.soft[{j}]") for j, v in enumerate(_list(m["soft"], f"{where}.soft"))]
                    if len(band) != 2 or not band[0] <= band[1]:
                        raise _fail(f"{where}.soft", "expected [lower, upper] with lower <= upper")
                    node.soft = (band[0], band[1])
            if kind == "discrete" and branches != len(attr.values):
                raise _fail(f"{where}.branches", f"{branches} branches for the {len(attr.values)} values of {name!r}")
            if kind == "subset":
                groups = []
                for j, g in enumerate(_list(m["subsets"], f"{where}.subsets")):
                    vs = [_string(v, f"{where}.subsets[{j}][{k}]") for k, v in enumerate(_list(g, f"{where}.subsets[{j}]"))]
                    for k, v in enumerate(vs):
                        if v not in attr.values:
                            raise _fail(f"{where}.subsets[{j}][{k}]", f"{v!r} is not a value of attribute {name!r}")
                    groups.append(frozenset(attr.values.index(v) for v in vs))
                if len(groups) != branches:
                    raise _fail(f"{where}.subsets", f"{len(groups)} value groups for {branches} branches")
                node.subsets = tuple(groups)
        problem = _node_problem(node)
        if problem:
            raise _fail(f"{where}.{problem[0]}", problem[1])
        nodes.append((node, branches))
    # rebuild depth first: each test takes the next `branches` subtrees
    position = 0

    def build() -> Node:
        nonlocal position
        stack: list[tuple[Node, int]] = []
        root = None
        while True:
            if position >= len(nodes):
                raise _fail("tree", f"the node list ends inside a test ({len(nodes)} nodes)")
            node, want = nodes[position]
            position += 1
            if stack:
                stack[-1][0].branches.append(node)
            else:
                root = node
            if want:
                stack.append((node, want))
            while stack and len(stack[-1][0].branches) == stack[-1][1]:
                stack.pop()
            if not stack:
                return root
    root = build()
    if position != len(nodes):
        raise _fail(f"tree[{position}]", "a node after the whole tree")
    return root


_BOOSTED_TOP = ("format", "format_version", "library_version", "schema", "trials", "options", "fingerprint")
_TRIAL = ("rules", "default_class", "class_counts", "default_counts")
# the options a boosted model records beside those of its trials' single fits
_BOOST_OPTIONS = ("trials", "trials_built")


def _header(doc: Any, fmt: str) -> None:
    """ModelError unless `doc` is a mapping of format `fmt` at this library's format version."""
    if not isinstance(doc, dict):
        raise _fail("", f"a model file holds a mapping, found {_type_name(doc)}")
    if doc.get("format") != fmt:
        raise _fail("format", f"expected {fmt!r}, found {doc.get('format')!r}"
                    " (not a c45rules model file)")
    version = doc.get("format_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > FORMAT_VERSION:
        raise ModelError(_newer_format(version, doc.get("library_version")))
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise _fail("format_version", f"this library reads version {FORMAT_VERSION},"
                    f" found {version!r}")


def _release(text: Any) -> tuple[int, ...] | None:
    """A release number such as "0.2.1" as (0, 2, 1); None for anything else."""
    if isinstance(text, str) and re.fullmatch(r"\d+(\.\d+)*", text):
        return tuple(int(part) for part in text.split("."))
    return None


def _newer_format(version: int, written_by: Any) -> str:
    """What to do about a model file in a format version this release cannot read."""
    from .. import __version__
    # FORMAT_SINCE ends at this release's version; the release that wrote the file reads its
    # format, so its library_version is the release to ask for (the first reader may be older)
    ours, theirs = _release(__version__), _release(written_by)
    need = written_by if theirs is not None and ours is not None and theirs > ours \
        else f"a release newer than {__version__}"
    return (f"format version {version} is newer than this c45rules reads ({FORMAT_VERSION});"
            f" upgrade c45rules to {need} or later")


def _ruleset_parts(m: dict, at: str, schema: Schema) -> tuple[tuple[Rule, ...], str, tuple, tuple]:
    """(rules, default class, class counts, default counts) of one ruleset's fields (`at`: their
    path prefix), every rule and count validated against `schema`."""
    attributes = {a.name: (a, frozenset(a.values)) for a in schema.attributes}
    classes = frozenset(schema.classes)
    rules = tuple(_named_rule(r, i, schema, attributes, classes, at)
                  for i, r in enumerate(_list(m["rules"], f"{at}rules")))
    seen: dict[int, int] = {}
    for i, r in enumerate(rules):
        if r.id in seen:
            raise _fail(f"{at}rules[{i}].id", f"rule id {r.id} also used by {at}rules[{seen[r.id]}]")
        seen[r.id] = i
    default = _string(m["default_class"], f"{at}default_class")
    if default not in classes:
        raise _fail(f"{at}default_class", f"{default!r} is not a class ({', '.join(schema.classes)})")
    class_counts = _counts(m["class_counts"], f"{at}class_counts", len(schema.classes))
    default_counts = _counts(m["default_counts"], f"{at}default_counts", len(schema.classes))
    problem = _counts_problem(class_counts, default_counts)
    if problem:
        raise _fail(f"{at}{problem[0]}", problem[1])
    return rules, default, class_counts, default_counts


def _check_costs(options: tuple[tuple[str, Any], ...], schema: Schema) -> None:
    """ModelError unless the recorded costs' classes are the model's."""
    try:
        cost_matrix(dict(options).get("costs"), schema.classes)
    except InputError as e:
        raise _fail("options.costs", str(e).removeprefix("option costs: ")) from None


def ruleset_from_dict(doc: Any) -> RuleSet:
    """Validate a parsed model document and build the RuleSet (ModelError names the field)."""
    _header(doc, FORMAT)
    m = _mapping(doc, "", _TOP, ("notes", "tree"))
    library_version = _string(m["library_version"], "library_version")
    schema = _schema(m["schema"], "schema")
    rules, default, class_counts, default_counts = _ruleset_parts(m, "", schema)
    options = _options(m["options"], "options")
    _check_costs(options, schema)
    fingerprint = _string(m["fingerprint"], "fingerprint")
    notes = _string(m.get("notes", ""), "notes")
    tree = _tree(m["tree"], schema) if "tree" in m else None
    return RuleSet(schema, rules, default, class_counts, default_counts, options, fingerprint,
                   version=library_version, notes=notes, tree=tree)


def boosted_from_dict(doc: Any) -> BoostedRuleSet:
    """Validate a parsed boosted model document and build the BoostedRuleSet: every check of a
    single ruleset's file applies to each trial (ModelError names trials[t] and the field)."""
    _header(doc, BOOSTED_FORMAT)
    m = _mapping(doc, "", _BOOSTED_TOP, ("notes",))
    library_version = _string(m["library_version"], "library_version")
    schema = _schema(m["schema"], "schema")
    options = _options(m["options"], "options")
    _check_costs(options, schema)
    fingerprint = _string(m["fingerprint"], "fingerprint")
    notes = _string(m.get("notes", ""), "notes")
    raw = _list(m["trials"], "trials")
    if not raw:
        raise _fail("trials", "a boosted model needs at least one trial")
    recorded = dict(options)
    built = recorded.get("trials_built")
    if built != len(raw) or isinstance(built, bool):
        raise _fail("options.trials_built", f"{built!r} for the {len(raw)} trials the file holds")
    if not isinstance(recorded.get("trials"), int) or recorded["trials"] < len(raw):
        raise _fail("options.trials", f"{recorded.get('trials')!r}: expected the number of trials asked,"
                    f" at least the {len(raw)} built")
    # each trial is the single fit of its weights: it records the fit's options, not the boosting's
    own = tuple((k, v) for k, v in options if k not in _BOOST_OPTIONS)
    trials = []
    for t, obj in enumerate(raw):
        parts = _ruleset_parts(_mapping(obj, f"trials[{t}]", _TRIAL), f"trials[{t}].", schema)
        trials.append(RuleSet(schema, *parts, own, fingerprint, version=library_version))
    return BoostedRuleSet(tuple(trials), options, fingerprint, version=library_version, notes=notes)


def model_from_dict(doc: Any) -> RuleSet | BoostedRuleSet:
    """A parsed model document as the model its format names (ruleset or boosted)."""
    if isinstance(doc, dict) and doc.get("format") == BOOSTED_FORMAT:
        return boosted_from_dict(doc)
    if isinstance(doc, dict) and doc.get("format") == REGRESSION_FORMAT:
        return regression_from_dict(doc)
    return ruleset_from_dict(doc)


# ---- reading ----------------------------------------------------------------------------
def read_model_bytes(path: str | os.PathLike, kind: str = "a model file") -> bytes:
    """The bytes of a model file (YAML or PMML), at most MAX_BYTES; ModelError naming the file.

    A regular file over the limit is refused unread; a pipe or a device (which says size 0 and
    may never end: /dev/zero) is read one byte past the limit and refused then.
    """
    if "\0" in str(path):   # open() would raise a bare ValueError
        name = str(path).replace("\0", "\\0")
        raise ModelError(f"{name}: a file name cannot hold a NUL character")
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_BYTES:
                raise ModelError(f"{path}: {size} bytes exceeds the {MAX_BYTES}-byte model size limit")
            raw = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise ModelError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise ModelError(f"{path}: is a directory, not {kind}") from None
    except OSError as e:
        raise ModelError(f"{path}: cannot read ({e.strerror})") from None
    if len(raw) > MAX_BYTES:
        raise ModelError(f"{path}: more than {MAX_BYTES} bytes, beyond the {MAX_BYTES}-byte model size limit")
    return raw


def _read(source: str | bytes | os.PathLike) -> tuple[str, str]:
    """(text, name for messages) from YAML text or a path."""
    if isinstance(source, bytes):
        if len(source) > MAX_BYTES:
            raise ModelError(f"model text of {len(source)} bytes exceeds the {MAX_BYTES}-byte limit")
        try:
            return source.decode("utf-8"), ""
        except UnicodeDecodeError as e:
            raise ModelError(f"model text is not UTF-8 (byte {e.start})") from None
    if isinstance(source, str) and ("\n" in source or source.lstrip().startswith("{")
                                    or not source.strip()):
        if len(source) > MAX_BYTES:
            raise ModelError(f"model text of {len(source)} characters exceeds the {MAX_BYTES} limit")
        if _unicode_problem(source):   # libyaml takes the text as UTF-8
            raise ModelError("model text holds a lone surrogate, which is not valid Unicode")
        return source, ""
    if not isinstance(source, (str, os.PathLike)):
        raise ModelError(f"cannot read a model from {type(source).__name__}: give YAML text or a path")
    path = Path(source)
    raw = read_model_bytes(path, "a model file")
    try:
        return raw.decode("utf-8"), str(path)
    except UnicodeDecodeError as e:
        raise ModelError(f"{path}: bytes that are not UTF-8 (at byte {e.start})") from None


def load_yaml(text_or_path: str | bytes | os.PathLike,
              prepare: Callable[[Any], Any] | None = None) -> RuleSet | BoostedRuleSet:
    """Read a model (a RuleSet, or a BoostedRuleSet from a boosted file) from YAML text or a
    file path; any problem raises ModelError. `prepare`, when given, gets the parsed document
    before it is checked and returns the one to check (rescore fills in the evidence it is
    about to measure: c45rules.govern.rescore.load_unmeasured).

    Parameters
    ----------
    text_or_path : str, bytes or path
        The YAML text (bytes, or a str holding a line break or starting with ``{``), or the
        path of a model file.
    prepare : callable or None, default=None
        Gets the parsed document and returns the one to check.

    Returns
    -------
    RuleSet or BoostedRuleSet

    Raises
    ------
    ModelError
        An unreadable or invalid model file: the message names the file and the field path.

    Examples
    --------
    >>> import pandas as pd
    >>> from c45rules import fit
    >>> from c45rules.export import dump_yaml, load_yaml, write_yaml
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4] * 5, "class": ["n", "n", "y", "y"] * 5})
    >>> rs = fit(df, target="class")
    >>> load_yaml(dump_yaml(rs)).rules == rs.rules
    True
    >>> load_yaml(b"format: c45rules-ruleset")
    Traceback (most recent call last):
    ...
    c45rules.errors.ModelError: format_version: this library reads version 1, found None
    """
    text, name = _read(text_or_path)
    try:
        try:
            doc = _parse(text)
        except yaml.YAMLError as e:
            raise ModelError(_yaml_problem(e)) from None
        return model_from_dict(doc if prepare is None else prepare(doc))
    except ModelError as e:
        if name:
            raise ModelError(f"{name}: {e}") from None
        raise


# ---- regression models (issue 54) ---------------------------------------------------------
# format "c45rules-regression": the same header and schema as a ruleset (the schema's one
# class is the target's name), then the target's range, extrapolation, the attributes'
# training means, neighbors, `committees` (each a default model and rules: conditions as a
# ruleset's, a model {intercept, coefficients: [[name, coef], ...]}, evidence and bounds),
# `instances` when neighbors > 0, options and fingerprint.
_REGRESSION_TOP = ("format", "format_version", "library_version", "schema", "target_range", "extrapolation",
                   "means", "neighbors", "committees", "options", "fingerprint")


def _linear_flow(m: LinearModel, where: str) -> str:
    coefs = ", ".join(f"[{_quote(n, f'{where}.coefficients[{i}]')}, {_float(c)}]"
                      for i, (n, c) in enumerate(m.coefficients))
    return _flow([("intercept", _float(m.intercept)), ("coefficients", f"[{coefs}]")])


def _regression_lines(model: RegressionModel) -> list[str]:
    from .. import __version__
    lines = [f"format: {_quote(REGRESSION_FORMAT, 'format')}", f"format_version: {FORMAT_VERSION}",
             f"library_version: {_quote(__version__, 'library_version')}", *_schema_lines(model.schema),
             f"target_range: [{_float(model.target_low)}, {_float(model.target_high)}]",
             f"extrapolation: {_float(model.extrapolation)}",
             "means:" if model.means else "means: {}"]
    lines += [f"  {_quote(n, 'means')}: {_float(v)}" for n, v in model.means]
    lines += [f"neighbors: {_int(model.neighbors, 'neighbors')}", "committees:"]
    for k, c in enumerate(model.committees):
        at = f"committees[{k}]"
        lines.append(f"  - default: {_linear_flow(c.default, f'{at}.default')}")
        lines.append("    rules:" if c.rules else "    rules: []")
        for i, r in enumerate(c.rules):
            where = f"{at}.rules[{i}]"
            lines.append(f"      - id: {_int(r.id, f'{where}.id')}")
            lines.append("        conditions:" if r.conditions else "        conditions: []")
            for j, cond in enumerate(r.conditions):
                lines.append(f"          - {_flow([('attribute', _quote(cond.attribute, f'{where}.attribute')), ('op', _quote(cond.op, f'{where}.op')), ('value', _scalar(cond.value, f'{where}.conditions[{j}]'))])}")
            lines.append(f"        model: {_linear_flow(r.model, f'{where}.model')}")
            lines.append(f"        evidence: {_flow([('cases', _int(r.cases, where)), ('mean', _float(r.mean)), ('low', _float(r.low)), ('high', _float(r.high)), ('error', _float(r.error))])}")
            lines.append(f"        bounds: [{_float(r.lower)}, {_float(r.upper)}]")
    if model.instances is not None:
        lines.append("instances:")
        lines.append(f"  targets: [{', '.join(_float(v) for v in model.instances.targets)}]")
        lines.append("  rows:")
        lines += [f"    - {_scalar(list(row), 'instances.rows')}" for row in model.instances.rows]
    lines.append("options:" if model.options else "options: {}")
    lines += [f"  {_key(k, 'options')}: {_scalar(v, f'options.{k}')}" for k, v in model.options]
    lines.append(f"fingerprint: {_quote(model.fingerprint, 'fingerprint')}")
    return lines


def _linear_model(obj: Any, path: str, schema: Schema) -> LinearModel:
    m = _mapping(obj, path, ("intercept", "coefficients"))
    pairs = []
    for i, p in enumerate(_list(m["coefficients"], f"{path}.coefficients")):
        where = f"{path}.coefficients[{i}]"
        p = _list(p, where)
        if len(p) != 2:
            raise _fail(where, "expected [attribute, coefficient]")
        pairs.append((_string(p[0], f"{where}[0]"), _number(p[1], f"{where}[1]")))
    return LinearModel(_number(m["intercept"], f"{path}.intercept"), tuple(pairs))


def regression_from_dict(doc: Any) -> RegressionModel:
    """A parsed `c45rules-regression` document as a RegressionModel; ModelError naming the field."""
    _header(doc, REGRESSION_FORMAT)
    d = _mapping(doc, "", _REGRESSION_TOP, ("instances",))
    schema = _schema(d["schema"], "schema")
    attributes = {a.name: (a, frozenset(a.values)) for a in schema.attributes}
    rng = _list(d["target_range"], "target_range")
    if len(rng) != 2:
        raise _fail("target_range", "expected [low, high]")
    means_doc = d["means"]
    if not isinstance(means_doc, dict):
        raise _fail("means", f"expected a mapping, found {_type_name(means_doc)}")
    means = tuple((_string(n, "means"), _number(v, f"means.{n}")) for n, v in means_doc.items())
    committees = []
    for k, c in enumerate(_list(d["committees"], "committees")):
        at = f"committees[{k}]"
        cm = _mapping(c, at, ("default", "rules"))
        rules = []
        for i, r in enumerate(_list(cm["rules"], f"{at}.rules")):
            where = f"{at}.rules[{i}]"
            rm = _mapping(r, where, ("id", "conditions", "model", "evidence", "bounds"))
            conds = tuple(_condition(x, f"{where}.conditions[{j}]", attributes)
                          for j, x in enumerate(_list(rm["conditions"], f"{where}.conditions")))
            ev = _mapping(rm["evidence"], f"{where}.evidence", ("cases", "mean", "low", "high", "error"))
            bounds = _list(rm["bounds"], f"{where}.bounds")
            if len(bounds) != 2:
                raise _fail(f"{where}.bounds", "expected [lower, upper]")
            rules.append(RegressionRule(
                _integer(rm["id"], f"{where}.id", 1), conds, _linear_model(rm["model"], f"{where}.model", schema),
                _integer(ev["cases"], f"{where}.evidence.cases"),
                *(_number(ev[key], f"{where}.evidence.{key}") for key in ("mean", "low", "high", "error")),
                _number(bounds[0], f"{where}.bounds[0]"), _number(bounds[1], f"{where}.bounds[1]")))
        committees.append(Committee(tuple(rules), _linear_model(cm["default"], f"{at}.default", schema)))
    instances = None
    if "instances" in d:
        im = _mapping(d["instances"], "instances", ("targets", "rows"))
        targets = tuple(_number(v, f"instances.targets[{i}]") for i, v in enumerate(_list(im["targets"], "instances.targets")))
        rows = tuple(tuple(_list(row, f"instances.rows[{i}]")) for i, row in enumerate(_list(im["rows"], "instances.rows")))
        if len(rows) != len(targets) or any(len(row) != len(schema.attributes) for row in rows):
            raise _fail("instances", "expected one row per target, each with one value per attribute")
        instances = Instances(rows, targets)
    options = d["options"]
    if not isinstance(options, dict):
        raise _fail("options", f"expected a mapping, found {_type_name(options)}")
    version = d["library_version"] if isinstance(d["library_version"], str) else ""
    try:
        return RegressionModel(schema, tuple(committees), _number(rng[0], "target_range[0]"),
                               _number(rng[1], "target_range[1]"), _number(d["extrapolation"], "extrapolation"),
                               means, _integer(d["neighbors"], "neighbors"), instances,
                               tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in options.items())),
                               _string(d["fingerprint"], "fingerprint"), version=version)
    except InputError as e:
        raise ModelError(str(e)) from None
