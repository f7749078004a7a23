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
        evidence: {covered: 120, errors: 3, error_rate: 0.048, confidence: 0.952, ...}
    default_class: "-"
    class_counts: [215, 275]
    default_counts: [10, 80]
    options:
      "cf": 0.25
    fingerprint: "sha256:..."

Every string is double-quoted with escapes, so values such as `yes`, `null`, `01`, `:`,
`#` or newlines stay strings. Floats are written with repr() (shortest text that reads
back to the same double) in a form YAML 1.1 resolves as a float (`1.0e-05`, `.inf`, `.nan`).
Option values may be null, booleans, numbers, strings, and lists or mappings of those;
lists read back as tuples. Reading uses PyYAML's SafeLoader (no Python objects are ever constructed), rejects
aliases, duplicate keys and absurd nesting, and validates every field; a problem raises
ModelError naming the field path, e.g. `rules[3].conditions[1].value: ...`.
"""
from __future__ import annotations

import math
import numbers
import os
from pathlib import Path
from typing import Any

import yaml

from ..data.schema import Attribute, Schema
from ..errors import C45RulesError, ModelError
from ..ruleset import Condition, Rule, RuleSet
from ._atomic import atomic_write_text

FORMAT = "c45rules-ruleset"
FORMAT_VERSION = 1
MAX_BYTES = 50 * 1024 * 1024   # a model file larger than this is refused unread
MAX_DEPTH = 20                 # the format nests 5 deep; options values a little more
UNKNOWN_VALUES = ("", "?")     # spelled unknown in data, so never a value of a schema


# ---- writing ----------------------------------------------------------------------------
def _quote(s: str) -> str:
    """A YAML double-quoted scalar: printable text as is, everything else escaped."""
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


def _scalar(v: Any, where: str) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool) or type(v).__name__ in ("bool", "bool_"):   # numpy's too
        return "true" if bool(v) else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return _float(v)
    if isinstance(v, str):
        return _quote(v)
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(_scalar(x, f"{where}[{i}]") for i, x in enumerate(v)) + "]"
    if isinstance(v, dict):
        items = []
        for k, x in v.items():
            if not isinstance(k, str):
                raise ModelError(f"{where}: cannot write a non-string key {k!r}")
            items.append(f"{_quote(k)}: {_scalar(x, f'{where}.{k}')}")
        return "{" + ", ".join(items) + "}"
    raise ModelError(f"{where}: cannot write a value of type {type(v).__name__}")


def _flow(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"


def _ints(values) -> str:
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def dump_yaml(ruleset: RuleSet) -> str:
    """The RuleSet as YAML text (deterministic: equal RuleSets give identical bytes)."""
    from .. import __version__

    schema = ruleset.schema
    lines = [
        f"format: {_quote(FORMAT)}",
        f"format_version: {FORMAT_VERSION}",
        f"library_version: {_quote(__version__)}",
        "schema:",
        f"  target: {_quote(schema.target)}",
        f"  classes: [{', '.join(_quote(c) for c in schema.classes)}]",
        "  attributes:" if schema.attributes else "  attributes: []",
    ]
    for a in schema.attributes:
        values = "[" + ", ".join(_quote(v) for v in a.values) + "]"
        lines.append(f"    - {_flow([('name', _quote(a.name)), ('kind', _quote(a.kind)), ('values', values)])}")
    lines.append("rules:" if ruleset.rules else "rules: []")
    for i, r in enumerate(ruleset.rules):
        lines.append(f"  - id: {int(r.id)}")
        lines.append(f"    prediction: {_quote(r.prediction)}")
        lines.append("    conditions:" if r.conditions else "    conditions: []")
        for j, c in enumerate(r.conditions):
            lines.append(f"      - {_flow([('attribute', _quote(c.attribute)), ('op', _quote(c.op)), ('value', _scalar(c.value, f'rules[{i}].conditions[{j}].value'))])}")
        evidence = [("covered", str(int(r.covered))), ("errors", str(int(r.errors))),
                    ("error_rate", _float(r.error_rate)), ("confidence", _float(r.confidence)),
                    ("lift", _float(r.lift)), ("used", str(int(r.used))), ("wrong", str(int(r.wrong)))]
        lines.append(f"    evidence: {_flow(evidence)}")
    lines += [
        f"default_class: {_quote(ruleset.default_class)}",
        f"class_counts: {_ints(ruleset.class_counts)}",
        f"default_counts: {_ints(ruleset.default_counts)}",
        "options:" if ruleset.options else "options: {}",
    ]
    for k, v in ruleset.options:
        if not isinstance(k, str):
            raise ModelError(f"options: cannot write a non-string option name {k!r}")
        if len(k) > 1000:   # YAML keys are limited to 1024 characters
            raise ModelError(f"options: option name {k[:40]!r}... is too long")
        lines.append(f"  {_quote(k)}: {_scalar(v, f'options.{k}')}")
    lines.append(f"fingerprint: {_quote(ruleset.fingerprint)}")
    return "\n".join(lines) + "\n"


def write_yaml(ruleset: RuleSet, path: str | os.PathLike) -> Path:
    """Write the RuleSet as YAML to `path` atomically (never a partial file)."""
    return atomic_write_text(path, dump_yaml(ruleset))


# ---- reading ----------------------------------------------------------------------------
class _StrictSafeLoader(yaml.SafeLoader):
    """yaml.safe_load's loader, minus aliases, duplicate keys and deep nesting."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):  # noqa: ANN001 (PyYAML's signature)
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise ModelError(f"line {mark.line + 1}: YAML aliases are not allowed in a model file")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise ModelError(f"line {mark.line + 1}: nested more than {MAX_DEPTH} levels deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):  # noqa: ANN001
        seen = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = self.construct_object(key_node)
                try:
                    dup = key in seen
                    seen.add(key)
                except TypeError:
                    continue
                if dup:
                    raise ModelError(f"line {key_node.start_mark.line + 1}: duplicate key {key!r}")
        return super().construct_mapping(node, deep=deep)


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
    return obj


def _integer(obj: Any, path: str, minimum: int = 0) -> int:
    if not isinstance(obj, int) or isinstance(obj, bool):
        raise _fail(path, f"expected an integer, found {_type_name(obj)} {obj!r}")
    if obj < minimum:
        raise _fail(path, f"{obj} is less than {minimum}")
    return obj


def _number(obj: Any, path: str) -> float:
    if not isinstance(obj, (int, float)) or isinstance(obj, bool):
        raise _fail(path, f"expected a number, found {_type_name(obj)} {obj!r}")
    return float(obj)


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
    for i, c in enumerate(classes):
        if c in classes[:i]:
            raise _fail(f"{path}.classes[{i}]", f"class {c!r} listed twice")
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
            if v in values[:j]:
                raise _fail(f"{where}.values[{j}]", f"value {v!r} listed twice")
        attributes.append(Attribute(name, kind, tuple(values)))
    try:
        return Schema(tuple(attributes), tuple(classes), target)
    except C45RulesError as e:
        raise _fail(path, str(e)) from None


def _condition(obj: Any, path: str, schema: Schema) -> Condition:
    m = _mapping(obj, path, ("attribute", "op", "value"))
    name = _string(m["attribute"], f"{path}.attribute")
    if name not in schema.names:
        raise _fail(f"{path}.attribute", f"{name!r} is not an attribute of the schema")
    attr = schema.attribute(name)
    op = _string(m["op"], f"{path}.op")
    value = m["value"]
    if op in ("<=", ">"):
        if not attr.is_continuous:
            raise _fail(f"{path}.op", f"threshold test {op!r} on {attr.kind} attribute {name!r}")
        return Condition(name, op, _number(value, f"{path}.value"))
    if op in ("=", "in"):
        if not attr.is_discrete:
            raise _fail(f"{path}.op", f"value test {op!r} on {attr.kind} attribute {name!r}")
        if op == "=":
            v = _string(value, f"{path}.value")
            if v not in attr.values:
                raise _fail(f"{path}.value", f"{v!r} is not a value of attribute {name!r}")
            return Condition(name, op, v)
        vs = [_string(v, f"{path}.value[{k}]") for k, v in enumerate(_list(value, f"{path}.value"))]
        if not vs:
            raise _fail(f"{path}.value", "an 'in' test needs at least one value")
        for k, v in enumerate(vs):
            if v not in attr.values:
                raise _fail(f"{path}.value[{k}]", f"{v!r} is not a value of attribute {name!r}")
            if v in vs[:k]:
                raise _fail(f"{path}.value[{k}]", f"value {v!r} listed twice")
        return Condition(name, op, tuple(vs))
    raise _fail(f"{path}.op", f"{op!r} is not one of '<=', '>', '=', 'in'")


_EVIDENCE = ("covered", "errors", "error_rate", "confidence", "lift", "used", "wrong")


def _rule(obj: Any, path: str, schema: Schema) -> Rule:
    m = _mapping(obj, path, ("id", "prediction", "conditions", "evidence"))
    rid = _integer(m["id"], f"{path}.id", minimum=1)
    prediction = _string(m["prediction"], f"{path}.prediction")
    if prediction not in schema.classes:
        raise _fail(f"{path}.prediction", f"{prediction!r} is not a class ({', '.join(schema.classes)})")
    conditions = tuple(_condition(c, f"{path}.conditions[{j}]", schema)
                       for j, c in enumerate(_list(m["conditions"], f"{path}.conditions")))
    ev = _mapping(m["evidence"], f"{path}.evidence", _EVIDENCE)
    counts = {k: _integer(ev[k], f"{path}.evidence.{k}") for k in ("covered", "errors", "used", "wrong")}
    error_rate = _number(ev["error_rate"], f"{path}.evidence.error_rate")
    confidence = _number(ev["confidence"], f"{path}.evidence.confidence")
    if not (abs(confidence - (1.0 - error_rate)) <= 1e-12 or
            math.isnan(confidence) and math.isnan(error_rate)):
        raise _fail(f"{path}.evidence.confidence",
                    f"{confidence!r} is not 1 - error_rate ({1.0 - error_rate!r})")
    lift = _number(ev["lift"], f"{path}.evidence.lift")
    return Rule(rid, conditions, prediction, counts["covered"], counts["errors"], error_rate,
                lift, counts["used"], counts["wrong"])


def _option_value(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_option_value(x) for x in v)
    if isinstance(v, dict):
        return {k: _option_value(x) for k, x in v.items()}
    return v


def _counts(obj: Any, path: str, n: int) -> tuple[int, ...]:
    values = tuple(_integer(v, f"{path}[{i}]") for i, v in enumerate(_list(obj, path)))
    if len(values) != n:
        raise _fail(path, f"{len(values)} counts for {n} classes")
    return values


_TOP = ("format", "format_version", "library_version", "schema", "rules", "default_class",
        "class_counts", "default_counts", "options", "fingerprint")


def ruleset_from_dict(doc: Any) -> RuleSet:
    """Validate a parsed model document and build the RuleSet (ModelError names the field)."""
    if not isinstance(doc, dict):
        raise _fail("", f"a model file holds a mapping, found {_type_name(doc)}")
    if doc.get("format") != FORMAT:
        raise _fail("format", f"expected {FORMAT!r}, found {doc.get('format')!r}"
                    " (not a c45rules model file)")
    version = doc.get("format_version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise _fail("format_version", f"this library reads version {FORMAT_VERSION},"
                    f" found {version!r}")
    m = _mapping(doc, "", _TOP)
    library_version = _string(m["library_version"], "library_version")
    schema = _schema(m["schema"], "schema")
    rules = tuple(_rule(r, f"rules[{i}]", schema) for i, r in enumerate(_list(m["rules"], "rules")))
    seen: dict[int, int] = {}
    for i, r in enumerate(rules):
        if r.id in seen:
            raise _fail(f"rules[{i}].id", f"rule id {r.id} also used by rules[{seen[r.id]}]")
        seen[r.id] = i
    default = _string(m["default_class"], "default_class")
    if default not in schema.classes:
        raise _fail("default_class", f"{default!r} is not a class ({', '.join(schema.classes)})")
    class_counts = _counts(m["class_counts"], "class_counts", len(schema.classes))
    default_counts = _counts(m["default_counts"], "default_counts", len(schema.classes))
    options = m["options"]
    if not isinstance(options, dict):
        raise _fail("options", f"expected a mapping, found {_type_name(options)}")
    for k in options:
        _string(k, "options")
    fingerprint = _string(m["fingerprint"], "fingerprint")
    return RuleSet(schema, rules, default, class_counts, default_counts,
                   tuple((k, _option_value(v)) for k, v in options.items()), fingerprint,
                   version=library_version)


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
        return source, ""
    if not isinstance(source, (str, os.PathLike)):
        raise ModelError(f"cannot read a model from {type(source).__name__}: give YAML text or a path")
    path = Path(source)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ModelError(f"{path}: {size} bytes exceeds the {MAX_BYTES}-byte model size limit")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ModelError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise ModelError(f"{path}: is a directory, not a model file") from None
    except OSError as e:
        raise ModelError(f"{path}: cannot read ({e.strerror})") from None
    try:
        return raw.decode("utf-8"), str(path)
    except UnicodeDecodeError as e:
        raise ModelError(f"{path}: bytes that are not UTF-8 (at byte {e.start})") from None


def load_yaml(text_or_path: str | bytes | os.PathLike) -> RuleSet:
    """Read a RuleSet from YAML text or a file path; any problem raises ModelError."""
    text, name = _read(text_or_path)
    try:
        try:
            doc = yaml.load(text, Loader=_StrictSafeLoader)  # noqa: S506 (a SafeLoader)
        except yaml.YAMLError as e:
            raise ModelError(f"not valid YAML or uses a tag a model file cannot hold: {e}") from None
        except RecursionError:
            raise ModelError("nested too deeply") from None
        return ruleset_from_dict(doc)
    except ModelError as e:
        if name:
            raise ModelError(f"{name}: {e}") from None
        raise
