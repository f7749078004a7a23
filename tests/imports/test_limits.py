"""Hostile PMML and JSON: a DOCTYPE or entity declaration is refused in every encoding expat
reads, and nesting past MAX_NESTING is a clear error (exit 2), never a RecursionError."""
from __future__ import annotations

import time

import pytest

from c45rules.errors import ModelError
from c45rules.imports import ruleset_from_pmml
from c45rules.data.nesting import MAX_NESTING, json_depth
from test_pmml_import import TREE

PLAIN = TREE.replace("{missing}", "none")
BODY = PLAIN.split("\n", 1)[1]          # without the XML declaration


def _declared(encoding: str, doctype: str) -> str:
    return f'<?xml version="1.0" encoding="{encoding}"?>\n{doctype}\n{BODY}'


ENTITY = ('<!DOCTYPE PMML [<!ENTITY answer "no">]>', ('score="no" recordCount="60"', 'score="&answer;" recordCount="60"'))
LAUGHS = ("<!DOCTYPE PMML [<!ENTITY l0 \"ha\">"
          + "".join(f'<!ENTITY l{k} "{f"&l{k - 1};" * 10}">' for k in range(1, 10)) + "]>",
          ("<Header/>", '<Header description="&l9;"/>'))
BARE = ("<!DOCTYPE PMML>", ("", ""))


@pytest.mark.parametrize("doctype, use", [BARE, ENTITY, LAUGHS], ids=["doctype", "entity", "laughs"])
@pytest.mark.parametrize("encoding, codec, bom", [
    ("UTF-16", "utf-16-le", "\ufeff"), ("UTF-16", "utf-16-be", "\ufeff"), ("UTF-16LE", "utf-16-le", ""),
    ("UTF-8", "utf-8", "\ufeff"), ("ISO-8859-1", "latin-1", "")])
def test_a_declaration_is_refused_in_any_encoding(doctype, use, encoding, codec, bom):
    ruleset_from_pmml((bom + _declared(encoding, "")).encode(codec), "t.pmml")   # the same without it reads
    raw = (bom + _declared(encoding, doctype).replace(*use)).encode(codec)
    started = time.perf_counter()
    with pytest.raises(ModelError, match=r"t.pmml: line 2: a DOCTYPE or ENTITY declaration"):
        ruleset_from_pmml(raw, "t.pmml")
    assert time.perf_counter() - started < 1.0


def test_an_entity_without_its_declaration_is_not_well_formed():
    with pytest.raises(ModelError, match="t.pmml: not well-formed XML .undefined entity"):
        ruleset_from_pmml(PLAIN.replace('score="yes" recordCount="40"', 'score="&yes;" recordCount="40"'), "t.pmml")


def _nodes(depth: int) -> str:
    """A tree `depth` Nodes below the root: at level k, x <= k goes down and x > k is a leaf."""
    head, tail = PLAIN.split("  <Node id=\"root\"")[0], "</TreeModel>\n</PMML>\n"
    body = ['<Node score="no"><True/>']
    for k in range(depth, 0, -1):
        body.append(f'<Node score="yes"><SimplePredicate field="x" operator="greaterThan" value="{k}"/></Node>'
                    f'<Node score="no"><SimplePredicate field="x" operator="lessOrEqual" value="{k}"/>')
    body.append("</Node>" * (depth + 1))
    return head + "".join(body) + tail


def _compound(depth: int) -> str:
    """The first child's predicate as `depth` CompoundPredicates "and" around one test."""
    pred = '<SimpleSetPredicate field="kind" booleanOperator="isIn"><Array type="string" n="2">a b</Array></SimpleSetPredicate>'
    nested = '<CompoundPredicate booleanOperator="and">' * depth + pred + "</CompoundPredicate>" * depth
    return PLAIN.replace(pred, nested, 1)


def test_nesting_up_to_the_limit_reads():
    # PMML, TreeModel, the root Node: the deepest Node sits at element depth levels + 3
    deep = ruleset_from_pmml(_nodes(MAX_NESTING - 4))
    assert len(deep.rules[-1].conditions) == MAX_NESTING - 4
    # PMML, TreeModel, two Nodes, the CompoundPredicates, then the test and its Array
    assert ruleset_from_pmml(_compound(MAX_NESTING - 6)).rules == ruleset_from_pmml(PLAIN).rules


@pytest.mark.parametrize("text, element", [
    (_compound(900), "CompoundPredicate"), (_compound(MAX_NESTING - 5), "Array"),
    (_nodes(20_000), "SimplePredicate"), (_nodes(MAX_NESTING - 3), "SimplePredicate")],
    ids=["compound-900", "compound-limit", "nodes-20000", "nodes-limit"])
def test_nesting_past_the_limit_is_refused(text, element):
    with pytest.raises(ModelError, match=f"t.pmml: line [0-9]+: {element} nested {MAX_NESTING + 1} elements deep,"
                                         f" beyond the limit of {MAX_NESTING}"):
        ruleset_from_pmml(text, "t.pmml")


def _extension(value: str) -> str:
    return PLAIN.replace("<MiningSchema>", f'<Extension extender="c45rules" name="c45rules" value="{value}"/>'
                         "<MiningSchema>", 1)


def test_extension_json_nested_too_deep_is_refused():
    with pytest.raises(ModelError, match=f"TreeModel: the c45rules Extension: JSON nested 100000 levels deep,"
                                         f" beyond the limit of {MAX_NESTING}"):
        ruleset_from_pmml(_extension("[" * 100_000), "t.pmml")
    with pytest.raises(ModelError, match="the c45rules Extension: not valid JSON"):
        ruleset_from_pmml(_extension("{"), "t.pmml")
    # brackets in a string are text: this object is one level deep
    ok = ruleset_from_pmml(_extension("{&quot;notes&quot;: &quot;" + "[" * 1000 + "&quot;}"), "t.pmml")
    assert ok.notes == "[" * 1000


def test_json_depth_counts_brackets_outside_strings():
    assert json_depth('{"a": [1, {"b": "]]]]"}], "c": "\\"[[["}') == 3
    assert json_depth("3") == 0 and json_depth("[[]][]") == 2 and json_depth("[" * 7) == 7
    # a string left open runs to the end, as the decoder reads it
    assert json_depth('[[ "\\"[[[') == 2 and json_depth('["a\\\\" [[') == 3
    started = time.perf_counter()     # escaped quotes and no closing one: linear, not quadratic
    assert json_depth('"' + '\\"' * 200_000) == 0
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize("make, message", [
    (lambda: _compound(900), f"CompoundPredicate nested {MAX_NESTING + 1} elements deep"),
    (lambda: _nodes(20_000), f"SimplePredicate nested {MAX_NESTING + 1} elements deep"),
    (lambda: _extension("[" * 100_000), "JSON nested 100000 levels deep"),
    (lambda: "\ufeff" + _declared("UTF-16", ENTITY[0]).replace(*ENTITY[1]), "a DOCTYPE or ENTITY declaration"),
], ids=["compound", "nodes", "extension", "utf16-entity"])
def test_cli_import_says_it_in_one_line(tmp_path, capsys, make, message):
    from c45rules.cli import main
    src = tmp_path / "hostile.pmml"
    text = make()
    src.write_bytes(text.encode("utf-16-le") if text.startswith("\ufeff") else text.encode("utf-8"))
    assert main(["import", str(src), "-o", str(tmp_path / "out.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"c45rules: error: {src}: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "out.yaml").exists()


def test_explain_row_nested_too_deep_is_refused(tmp_path, capsys):
    from c45rules.cli import main
    from c45rules.export import write_yaml
    model = tmp_path / "model.yaml"
    write_yaml(ruleset_from_pmml(PLAIN), model)
    assert main(["explain", str(model), "--row", '{"x": 1, "kind": "a"}']) == 0
    capsys.readouterr()
    for row, message in (("[" * 5000, f"--row: JSON nested 5000 levels deep, beyond the limit of {MAX_NESTING}"),
                         ('{"x": 1, "kind": [["a"]]}', "--row: attribute 'kind' is given a JSON array"),
                         ('{"x": {"y": 1}}', "--row: attribute 'x' is given a JSON object")):
        assert main(["explain", str(model), "--row", row]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"c45rules: error: {message}") and err.count("\n") == 1
