"""PMML export: two independent evaluators (JPMML, PMML4S) decide every row as RuleSet.predict.

Rows: the shared data (training and test cases, with their unknowns) plus probes at, just
above and just below every threshold, None/NaN/inf in continuous columns, '?', '' and unseen
categories (export_cases.probe_rows). JPMML reports the rule id (entityId; "0" for the
default); PMML4S reports none for a RuleSetModel, so its confidence, which is the deciding
rule's, is compared instead.
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from c45rules import Attribute, Condition, Rule, RuleSet, Schema
from c45rules.errors import ModelError
from c45rules.export import load_yaml, write_yaml
from c45rules.export.pmml import default_confidence, output_names, to_pmml, write_pmml
from export_cases import golf_ruleset
from pmml_evaluators import jpmml, pmml4s, require_evaluators

NS = {"p": "http://www.dmg.org/PMML-4_4"}
DATASETS = ("crx", "crx+subset", "hypo", "labor", "credit-g", "breast-cancer", "soybean+subset", "hypo+chaid",
            "hypo+quest")


def _expected_confidence(scored) -> np.ndarray:
    rs = scored.ruleset
    by_id = {r.id: r.confidence for r in rs.rules}
    by_id[0] = default_confidence(rs)
    return np.array([by_id[int(i)] for i in scored.rules])


def _check_both(scored) -> None:
    rs = scored.ruleset
    fields = [a.name for a in rs.schema.attributes if a.kind != "ignore"]
    klass, rule_id, confidence = output_names(rs)
    text = to_pmml(rs)
    j = jpmml(text, scored.rows, fields)
    assert list(j[klass]) == list(scored.classes)
    assert [int(v) for v in j[rule_id]] == [int(v) for v in scored.rules]
    assert np.array_equal(j[confidence].to_numpy(float), _expected_confidence(scored))
    p = pmml4s(text, scored.rows, fields)
    assert list(p[klass]) == list(scored.classes)
    # PMML4S's batch call prints numbers with 15 digits
    assert np.allclose(p[confidence].to_numpy(float), _expected_confidence(scored), rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", DATASETS)
def test_evaluators_decide_as_the_library_on_shared_data(fitted, name):
    require_evaluators()
    scored = fitted(name)
    # the rows reach the default, several rules, and hold unknowns of both kinds
    assert (scored.rules == 0).any() and len(set(scored.rules.tolist())) > 3
    assert any(v is None or isinstance(v, float) and math.isnan(v) for r in scored.rows for v in r.values())
    _check_both(scored)


def test_evaluators_decide_as_the_library_on_hostile_names(hostile):
    require_evaluators()
    # rule 7 never fires (error 0.75), and some rows would satisfy its conditions
    assert not hostile.ruleset.rules[2].fires
    _check_both(hostile)


def test_thresholds_exactly_and_never_firing_rule():
    require_evaluators()
    from export_cases import score
    rs = golf_ruleset()
    rows = [{"outlook": "sunny", "humidity": h, "windy": "false", "temperature": 70.0}
            for h in (75.0, math.nextafter(75.0, math.inf), math.nextafter(75.0, -math.inf), None, math.nan)]
    rows += [{"outlook": o, "humidity": 80.0, "windy": w} for o in ("overcast", "rain", "Sunny", "", "?", None)
             for w in ("true", "false", "TRUE")]
    scored = score("golf", rs, rows)
    assert list(scored.rules[:5]) == [4, 1, 4, 0, 0]      # 75 is <= 75; the next double is > 75
    assert 5 not in scored.rules                           # rule 5 never fires (error 0.8)
    _check_both(scored)


def _tree(text: str) -> ET.Element:
    return ET.fromstring(text.encode("utf-8"))


def test_document_layout_and_hostile_names_read_back(hostile):
    rs = hostile.ruleset
    doc = _tree(to_pmml(rs))
    fields = doc.findall("p:DataDictionary/p:DataField", NS)
    assert [f.get("name") for f in fields] == [*rs.schema.names, rs.schema.target]
    assert [v.get("value") for v in fields[1].findall("p:Value", NS)] == list(rs.schema.attributes[1].values)
    assert [v.get("value") for v in fields[-1].findall("p:Value", NS)] == list(rs.schema.classes)
    assert fields[0].get("dataType") == "double" and fields[1].get("dataType") == "string"
    mining = {m.get("name"): m for m in doc.findall("p:RuleSetModel/p:MiningSchema/p:MiningField", NS)}
    assert mining["class"].get("usageType") == "target"
    assert mining["def"].get("usageType") == "supplementary"
    assert mining['"x"'].get("invalidValueTreatment") == "asMissing"
    ruleset = doc.find("p:RuleSetModel/p:RuleSet", NS)
    assert ruleset.find("p:RuleSelectionMethod", NS).get("criterion") == "firstHit"
    assert ruleset.get("defaultScore") == "it's"
    simple = ruleset.findall("p:SimpleRule", NS)
    assert [s.get("id") for s in simple] == ["1", "2", "7", "3", "4", "5", "6", "0"]
    first = simple[0]
    assert (first.get("score"), first.get("recordCount"), first.get("nbCorrect"), first.get("confidence")) == \
        ("DROP TABLE t; --", "40", "38", repr(0.9))
    preds = first.find("p:CompoundPredicate", NS)
    assert [(p.get("field"), p.get("operator"), p.get("value")) for p in preds] == [
        ('"x"', "isNotMissing", None), ('"x"', "equal", "it's"),
        ("select", "isNotMissing", None), ("select", "greaterThan", repr(0.1 + 0.2))]
    # the rule that never fires keeps its condition behind a leading False
    never = simple[2].find("p:CompoundPredicate", NS)
    assert never[0].tag == "{%s}False" % NS["p"] and never[2].get("value") == "a"
    assert simple[-1].find("p:True", NS) is not None and simple[-1].get("score") == "it's"
    # the values with CR, LF and tab survive attribute-value normalisation
    rule3 = simple[3].find("p:CompoundPredicate", NS)
    values = [p.get("value") for p in rule3.iter() if p.get("operator") == "equal"]
    assert "new\nline" in values and "\r\n" in values


def test_output_names_avoid_the_schema_names():
    schema = Schema((Attribute("rule_id", "continuous"), Attribute("predicted_class", "discrete", ("a", "b"))),
                    ("y", "n"), target="confidence")
    rs = RuleSet(schema, (Rule(1, (Condition("rule_id", ">", 1.0),), "y", 3, 0, 0.2, 1.0),), "n", (3, 4), (0, 4))
    assert output_names(rs) == ("predicted_class_", "rule_id_", "confidence_")


def test_character_xml_cannot_hold_is_refused():
    schema = Schema((Attribute("bad\x01name", "continuous"),), ("y", "n"))
    rs = RuleSet(schema, (Rule(1, (Condition("bad\x01name", ">", 1.0),), "y", 3, 0, 0.2, 1.0),), "n", (3, 4), (0, 4))
    with pytest.raises(ModelError, match=r"schema.attributes\[0\].name: .*U\+0001.*XML 1.0"):
        to_pmml(rs)


def test_write_pmml_is_atomic(tmp_path):
    path = tmp_path / "model.pmml"
    write_pmml(golf_ruleset(), path)
    assert path.read_text(encoding="utf-8") == to_pmml(golf_ruleset())
    schema = Schema((Attribute("x", "discrete", ("ok", "bad\x02")),), ("y", "n"))
    bad = RuleSet(schema, (Rule(1, (Condition("x", "=", "ok"),), "y", 3, 0, 0.2, 1.0),), "n", (3, 4), (0, 4))
    with pytest.raises(ModelError, match="U\\+0002"):
        write_pmml(bad, path)
    assert path.read_text(encoding="utf-8") == to_pmml(golf_ruleset())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pmml"]


def test_cli_export_to_pmml(tmp_path, capsys):
    from c45rules.cli import main
    model = tmp_path / "golf.yaml"
    write_yaml(golf_ruleset(), model)
    out = tmp_path / "golf.pmml"
    assert main(["export", str(model), "--to", "pmml", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == to_pmml(load_yaml(model))
    assert main(["export", str(model), "--to", "pmml"]) == 0
    assert capsys.readouterr().out == to_pmml(load_yaml(model))
