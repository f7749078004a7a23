"""DMN export: real DMN tooling decides every row as RuleSet.predict (class, rule id, confidence).

DMN 1.1 files are evaluated by @hbtgmbh/dmn-eval-js; DMN 1.3 files are read by dmn-moddle and
every entry is evaluated by @bpmn-io/feelin under hit policy FIRST (tests/dmn/evaluate.mjs).
Rows: the shared data (training and test cases, with their unknowns) plus probes at, just
above and just below every threshold, None/NaN/inf, '?', '' and unseen categories
(export_cases.probe_rows). FEEL numbers are finite, so an infinity is given as the largest
double of its sign, and the library's answer is taken on those same rows.
"""
from __future__ import annotations

import dataclasses
import math
import sys
import xml.etree.ElementTree as ET

import pytest

from c45rules import Attribute, Condition, Rule, RuleSet, Schema
from c45rules.errors import InputError, ModelError
from c45rules.export import load_yaml, write_yaml
from c45rules.export.dmn import DMN_NAMESPACES, feel_names, feel_number, feel_string, to_dmn, write_dmn
from c45rules.export.pmml import default_confidence
from dmn_engines import decide, require_dmn_engines
from export_cases import UNSEEN, golf_ruleset, score

DATASETS = ("crx", "crx+subset", "labor-neg", "hypo", "credit-g", "vote_weka", "soybean+subset", "hypo+chaid",
            "hypo+quest")
VERSIONS = ("1.3", "1.1")


def _finite(v):
    if isinstance(v, float) and math.isinf(v):
        return math.copysign(sys.float_info.max, v)
    return v


def _unknown(v) -> bool:
    return v is None or isinstance(v, float) and math.isnan(v)


def _check(scored, version: str) -> None:
    """The engine for `version` decides every row of `scored` as the library does."""
    rs = scored.ruleset
    names = feel_names(rs)
    rows = [{a: _finite(r.get(a)) for a in names} for r in scored.rows]
    expected = score(scored.name, rs, rows)
    # unknowns are null for feelin; dmn-eval-js throws on a null operand, so they are left out
    records = [{names[a]: None if _unknown(v) else v for a, v in r.items()
                if version == "1.3" or not _unknown(v)} for r in rows]
    got = decide(version, to_dmn(rs, version), records)
    assert None not in got   # the default rule catches every case
    assert [g["predicted_class"] for g in got] == list(expected.classes)
    assert [g["rule_id"] for g in got] == [int(i) for i in expected.rules]
    by_id = {r.id: r.confidence for r in rs.rules}
    by_id[0] = default_confidence(rs)
    assert [g["confidence"] for g in got] == [by_id[int(i)] for i in expected.rules]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", DATASETS)
def test_engines_decide_as_the_library_on_shared_data(fitted, name, version):
    require_dmn_engines()
    scored = fitted(name)
    # the rows reach the default and several rules, and hold unknowns, unseen values and infinities
    assert (scored.rules == 0).any() and len(set(scored.rules.tolist())) > 3
    assert any(_unknown(v) for r in scored.rows for v in r.values())
    assert any(v == UNSEEN for r in scored.rows for v in r.values())
    _check(scored, version)


@pytest.mark.parametrize("version", VERSIONS)
def test_engines_decide_as_the_library_on_hostile_names(hostile, version):
    require_dmn_engines()
    assert not hostile.ruleset.rules[2].fires   # rule 7 never fires, and some rows satisfy it
    _check(hostile, version)


@pytest.mark.parametrize("version", VERSIONS)
def test_thresholds_exactly_unseen_case_and_never_firing_rule(version):
    require_dmn_engines()
    rs = golf_ruleset()
    rows = [{"outlook": "sunny", "humidity": h, "windy": "false", "temperature": 70.0}
            for h in (75.0, math.nextafter(75.0, math.inf), math.nextafter(75.0, -math.inf), None, math.nan)]
    rows += [{"outlook": o, "humidity": 80.0, "windy": w} for o in ("overcast", "rain", "Sunny", "", "?", None)
             for w in ("true", "false", "TRUE")]
    scored = score("golf", rs, rows)
    assert list(scored.rules[:5]) == [4, 1, 4, 0, 0]      # 75 is <= 75; the next double is > 75
    assert 5 not in scored.rules                           # rule 5 never fires (error 0.8)
    assert list(scored.rules[5:11:3]) == [3, 2]            # overcast -> rule 3; rain and true -> rule 2
    _check(scored, version)


def _bounds_ruleset() -> RuleSet:
    """Rules testing one attribute twice: an interval, a contradiction, a set intersection."""
    schema = Schema((Attribute("x", "continuous"), Attribute("c", "discrete", ("a", "b", "c"))), ("y", "n"))
    rules = (Rule(1, (Condition("x", ">", 1.0), Condition("x", "<=", 5.0), Condition("x", ">", 0.5)),
                  "y", 5, 0, 0.2, 1.5),
             Rule(2, (Condition("x", ">", 7.0), Condition("x", "<=", 6.0)), "y", 5, 0, 0.2, 1.5),
             Rule(3, (Condition("c", "in", ("a", "b")), Condition("c", "in", ("b", "c"))), "n", 5, 0, 0.3, 1.5),
             Rule(4, (Condition("c", "=", "a"), Condition("c", "=", "c")), "y", 5, 0, 0.3, 1.5))
    return RuleSet(schema, rules, "n", (10, 10), (3, 4))


@pytest.mark.parametrize("version", VERSIONS)
def test_conditions_on_one_attribute_merge(version):
    rs = _bounds_ruleset()
    doc = ET.fromstring(to_dmn(rs, version))
    ns = {"d": DMN_NAMESPACES[version]}
    entries = [[e.findtext("d:text", namespaces=ns) for e in r.findall("d:inputEntry", ns)]
               for r in doc.iter(f"{{{ns['d']}}}rule")]
    assert entries == [["(1.0..5.0]", "-"], ["-", '"b"'], ["-", "-"]]
    assert "rule 2 has conditions no case satisfies; rule 4 has conditions no case satisfies" in \
        doc.find("d:decision/d:description", ns).text
    require_dmn_engines()
    rows = [{"x": x, "c": c} for x in (0.5, 1.0, math.nextafter(1.0, 2), 5.0, math.nextafter(5.0, 6), 6.5, None)
            for c in ("a", "b", "c", UNSEEN, None)]
    scored = score("bounds", rs, rows)
    assert set(scored.rules.tolist()) == {0, 1, 3}
    _check(scored, version)


def test_document_layout_1_3(hostile):
    rs = hostile.ruleset
    ns = {"d": DMN_NAMESPACES["1.3"]}
    doc = ET.fromstring(to_dmn(rs, name="loans & <co>").encode("utf-8"))
    assert doc.tag == "{https://www.omg.org/spec/DMN/20191111/MODEL/}definitions"
    assert doc.get("name") == "loans & <co>" and doc.get("namespace") == "urn:c45rules:" + rs.fingerprint
    inputs = doc.findall("d:inputData", ns)
    used = rs.used_attributes()
    assert [(i.get("label"), i.get("name"), i.find("d:variable", ns).get("typeRef")) for i in inputs] == [
        (a, feel_names(rs)[a], "number" if rs.schema.attribute(a).is_continuous else "string") for a in used]
    decision = doc.find("d:decision", ns)
    assert "rule 7 never fires (error above 70%)" in decision.find("d:description", ns).text
    assert [r.find("d:requiredInput", ns).get("href") for r in decision.findall("d:informationRequirement", ns)] \
        == [f"#{i.get('id')}" for i in inputs]
    table = decision.find("d:decisionTable", ns)
    assert table.get("hitPolicy") == "FIRST"
    columns = table.findall("d:input", ns)
    assert [c.get("label") for c in columns] == list(used)
    assert [c.find("d:inputExpression/d:text", ns).text for c in columns] == [feel_names(rs)[a] for a in used]
    outputs = table.findall("d:output", ns)
    assert [(o.get("name"), o.get("typeRef")) for o in outputs] == [
        ("predicted_class", "string"), ("rule_id", "number"), ("confidence", "number")]
    assert outputs[0].findtext("d:outputValues/d:text", namespaces=ns) == \
        '"it\'s", "DROP TABLE t; --", "ok\\n\\"\\"\\"", "{class}"'
    assert [a.get("name") for a in table.findall("d:annotation", ns)] == ["rule", "confidence", "note"]
    rules = table.findall("d:rule", ns)
    ids = [r.findall("d:outputEntry/d:text", ns)[1].text for r in rules]
    assert ids == ["1", "2", "3", "4", "5", "6", "0"]          # rule 7 left out, the default last
    first = rules[0]
    assert [e.text for e in first.findall("d:inputEntry/d:text", ns)] == \
        ["> 0.30000000000000004", '"it\'s"', "-", "-", "-", "-", "-", "-"]
    assert [e.text for e in first.findall("d:outputEntry/d:text", ns)] == ['"DROP TABLE t; --"', "1", "0.9"]
    assert [e.text for e in first.findall("d:annotationEntry/d:text", ns)] == ["1", "90.0%", None]
    assert first.findtext("d:description", namespaces=ns) == "rule 1, confidence 90.0%"
    # every value with a quote, backslash or line break arrives as a FEEL escape
    rule3 = rules[2].findall("d:inputEntry/d:text", ns)[1].text
    assert rule3 == '"new\\nline", "-- comment", "ünï©ødé ✓", "\\"\\"\\"", "\\r\\n"'
    last = rules[-1]
    assert [e.text for e in last.findall("d:inputEntry/d:text", ns)] == ["-"] * len(used)
    assert [e.text for e in last.findall("d:outputEntry/d:text", ns)] == \
        ['"it\'s"', "0", repr(default_confidence(rs))]


def test_document_layout_1_1_has_descriptions_not_annotations():
    rs = golf_ruleset()
    rs = dataclasses.replace(rs, rules=(dataclasses.replace(rs.rules[0], note="checked by <Ann> & Bo"), *rs.rules[1:]))
    text = to_dmn(rs, "1.1")
    ns = {"d": DMN_NAMESPACES["1.1"]}
    doc = ET.fromstring(text)
    assert doc.tag == "{http://www.omg.org/spec/DMN/20151101/dmn.xsd}definitions"
    assert "annotation" not in text and "label=" not in text.split("<decision ")[0]
    rules = doc.findall("d:decision/d:decisionTable/d:rule", ns)
    assert [r.findtext("d:description", namespaces=ns) for r in rules] == [
        "rule 1, confidence 63.0%: checked by <Ann> & Bo", "rule 2, confidence 50.0%",
        "rule 3, confidence 80.0%", "rule 4, confidence 75.0%",
        "default class (rule id 0): no rule fired, confidence 60.0%"]


def test_feel_names_keep_plain_names_and_derive_the_rest():
    attrs = ("age", "a b", "a_b", "a-b", "not", "1st", "Straße", "x")
    schema = Schema(tuple(Attribute(a, "continuous") for a in attrs), ("y", "n"))
    rules = tuple(Rule(i + 1, (Condition(a, ">", 1.0),), "y", 3, 0, 0.2, 1.0) for i, a in enumerate(attrs))
    rs = RuleSet(schema, rules, "n", (3, 4), (0, 4))
    assert feel_names(rs) == {"age": "age", "a b": "a_b_2", "a_b": "a_b", "a-b": "a_b_3", "not": "_not",
                              "1st": "_1st", "Straße": "Stra_e", "x": "x"}


def test_feel_literals():
    assert feel_string('say "hi"\\\n\r\tok', "v") == '"say \\"hi\\"\\\\\\n\\r\\tok"'
    assert feel_string("ünï ✓ '", "v") == "\"ünï ✓ '\""
    assert feel_number(75.0, "t") == "75.0"
    assert feel_number(-1e-05, "t") == "-0.00001"
    assert feel_number(1e300, "t") == "1" + "0" * 300 + ".0"
    assert feel_number(5e-324, "t") == "0." + "0" * 323 + "5"
    with pytest.raises(ModelError, match=r"rule 3: inf is not a FEEL number"):
        feel_number(math.inf, "rule 3")
    with pytest.raises(ModelError, match=r"schema.classes\[1\]: 'a\\x0bb' holds the character U\+000B"):
        feel_string("a\x0bb", "schema.classes[1]")


def test_characters_a_dmn_file_cannot_hold_are_refused():
    schema = Schema((Attribute("x", "discrete", ("ok", "bad\x02")),), ("y", "n"))
    rs = RuleSet(schema, (Rule(1, (Condition("x", "in", ("ok", "bad\x02")),), "y", 3, 0, 0.2, 1.0),),
                 "n", (3, 4), (0, 4))
    with pytest.raises(ModelError, match=r"rules\[0\] \(id 1\): value of 'x': 'bad\\x02' holds the character U\+0002"):
        to_dmn(rs)
    schema = Schema((Attribute("bad\x01name", "continuous"),), ("y", "n"))
    rs = RuleSet(schema, (Rule(1, (Condition("bad\x01name", ">", 1.0),), "y", 3, 0, 0.2, 1.0),), "n", (3, 4), (0, 4))
    with pytest.raises(ModelError, match=r"attribute 'bad\\x01name': .*U\+0001"):
        to_dmn(rs)


def test_unknown_version_is_refused():
    with pytest.raises(InputError, match=r"DMN version '1.2' is not supported \(choose one of: 1.3, 1.1\)"):
        to_dmn(golf_ruleset(), "1.2")


def test_write_dmn_is_atomic(tmp_path):
    path = tmp_path / "model.dmn"
    write_dmn(golf_ruleset(), path)
    assert path.read_text(encoding="utf-8") == to_dmn(golf_ruleset())
    schema = Schema((Attribute("x", "discrete", ("ok", "bad\x02")),), ("y", "n"))
    bad = RuleSet(schema, (Rule(1, (Condition("x", "=", "bad\x02"),), "y", 3, 0, 0.2, 1.0),), "n", (3, 4), (0, 4))
    with pytest.raises(ModelError, match="U\\+0002"):
        write_dmn(bad, path, "1.1")
    assert path.read_text(encoding="utf-8") == to_dmn(golf_ruleset())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.dmn"]


def test_cli_export_to_dmn(tmp_path, capsys):
    from c45rules.cli import main
    model = tmp_path / "golf.yaml"
    write_yaml(golf_ruleset(), model)
    out = tmp_path / "golf.dmn"
    assert main(["export", str(model), "--to", "dmn", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == to_dmn(load_yaml(model), "1.3", "golf")
    assert main(["export", str(model), "--to", "dmn", "--dmn-version", "1.1", "--name", "play"]) == 0
    assert capsys.readouterr().out == to_dmn(load_yaml(model), "1.1", "play")
    assert main(["export", str(model), "--to", "sql", "--dmn-version", "1.1"]) == 2
    assert "c45rules: error: --dmn-version is for --to dmn, not --to sql" in capsys.readouterr().err


def test_cli_warns_of_inputs_renamed_for_feel(tmp_path, capsys, hostile):
    from c45rules.cli import main
    model = tmp_path / "hostile.yaml"
    write_yaml(hostile.ruleset, model)
    assert main(["export", str(model), "--to", "dmn", "-o", str(tmp_path / "h.dmn")]) == 0
    err = capsys.readouterr().err
    assert "c45rules: warning: DMN inputs named for FEEL: '\"x\"' as _x_, 'a b' as a_b, \"O'Brien\" as O_Brien" in err
    assert "'select'" not in err   # a plain name keeps itself
    assert main(["export", str(model), "--to", "dmn", "--dialect", "duckdb"]) == 2
    assert "--dialect do not apply" in capsys.readouterr().err


def test_the_engines_refuse_what_they_cannot_read():
    """The harness fails rather than passes on a file an engine does not fully read: the other
    version's file, and an entry that is not FEEL."""
    require_dmn_engines()
    rs = golf_ruleset()
    rows = [{"outlook": "sunny", "humidity": 80.0, "windy": "true"}]
    assert decide("1.3", to_dmn(rs, "1.3"), rows) == [{"predicted_class": "Don't Play", "rule_id": 1,
                                                        "confidence": 0.63}]
    assert decide("1.1", to_dmn(rs, "1.1"), rows) == decide("1.3", to_dmn(rs, "1.3"), rows)
    with pytest.raises(AssertionError, match="failed to parse document as <dmn:Definitions>"):
        decide("1.3", to_dmn(rs, "1.1"), rows)
    with pytest.raises(AssertionError, match="dmn-eval-js"):
        decide("1.1", to_dmn(rs, "1.3"), rows)
    with pytest.raises(AssertionError, match=r"input entry does not parse: > 75.0 \+"):
        decide("1.3", to_dmn(rs, "1.3").replace("&gt; 75.0", "&gt; 75.0 +"), rows)
    with pytest.raises(AssertionError, match=r"Failed to parse input entry: > 75.0 \+"):
        decide("1.1", to_dmn(rs, "1.1").replace("&gt; 75.0", "&gt; 75.0 +"), rows)
