"""PMML import: our own export reads back equal; hand-written RuleSetModels and TreeModels
(and one written by sklearn2pmml) become RuleSets that decide as the PMML evaluators do."""
from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from c45rules import Condition
from c45rules.errors import ModelError
from c45rules.export import load_yaml, to_pmml
from c45rules.imports import load_pmml, ruleset_from_pmml
from pmml_evaluators import jpmml, pmml4s, require_evaluators

FIXTURES = Path(__file__).parent / "fixtures"
HEAD = '<?xml version="1.0"?>\n<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4">\n<Header/>\n'


def _rows(ruleset, n: int = 300, seed: int = 1) -> list[dict]:
    """Random rows: at, above and below every threshold (and its float32 neighbours), None,
    NaN, every value, an unseen one."""
    rng = random.Random(seed)
    ts: dict[str, list[float]] = {}
    for r in ruleset.rules:
        for c in r.conditions:
            if c.op in ("<=", ">"):
                ts.setdefault(c.attribute, []).append(float(c.value))
    rows = []
    for _ in range(n):
        row = {}
        for a in ruleset.schema.attributes:
            if a.is_discrete:
                row[a.name] = rng.choice([None, "unseen value"] + list(a.values) * 2)
            elif a.is_continuous:
                near = [f(t) for t in ts.get(a.name, [0.0]) for f in (
                    lambda t: t, lambda t: math.nextafter(t, math.inf), lambda t: math.nextafter(t, -math.inf),
                    lambda t: float(np.float32(t)), lambda t: round(t, 2))]
                row[a.name] = rng.choice(near + [None, math.nan, rng.uniform(-1, 8)])
        rows.append(row)
    return rows


def _ours(ruleset, rows) -> list[str]:
    fields = [a.name for a in ruleset.schema.attributes]
    return list(ruleset.predict(pd.DataFrame(rows, columns=fields)))


def _null(v) -> bool:
    return v is None or isinstance(v, float) and math.isnan(v)


# ---- round trip ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ("golf", "crx", "crx+subset", "hypo", "soybean+subset"))
def test_own_export_reads_back_equal(fitted, name):
    rs = fitted(name).ruleset
    back = ruleset_from_pmml(to_pmml(rs))
    assert back == rs
    assert back.options == rs.options and back.fingerprint == rs.fingerprint


def test_hostile_export_reads_back_equal(hostile):
    back = ruleset_from_pmml(to_pmml(hostile.ruleset))
    assert back == hostile.ruleset
    assert back.rules[2].conditions == (Condition("`tick` [br]", "=", "a"),) and not back.rules[2].fires


# ---- a hand-written RuleSetModel ---------------------------------------------------------------
RULES = HEAD + """<DataDictionary>
  <DataField name="age" optype="continuous" dataType="double"/>
  <DataField name="colour" optype="categorical" dataType="string">
    <Value value="red"/><Value value="green"/><Value value="dark blue"/><Value value='say "hi"'/>
    <Value value="?" property="missing"/>
  </DataField>
  <DataField name="risk" optype="categorical" dataType="string"><Value value="high"/><Value value="low"/></DataField>
</DataDictionary>
<RuleSetModel functionName="classification">
  <MiningSchema>
    <MiningField name="age"/><MiningField name="colour" invalidValueTreatment="asMissing"/>
    <MiningField name="risk" usageType="predicted"/>
  </MiningSchema>
  <RuleSet defaultScore="low">
    <RuleSelectionMethod criterion="firstHit"/>
    <SimpleRule id="r1" score="high" recordCount="20" nbCorrect="15" confidence="0.75">
      <CompoundPredicate booleanOperator="and">
        <SimplePredicate field="age" operator="lessThan" value="30"/>
        <SimpleSetPredicate field="colour" booleanOperator="isIn"><Array type="string" n="2">"dark blue" "say \\"hi\\""</Array></SimpleSetPredicate>
      </CompoundPredicate>
    </SimpleRule>
    <SimpleRule id="r2" score="high" confidence="0.9"><False/></SimpleRule>
    <CompoundRule>
      <SimplePredicate field="age" operator="greaterOrEqual" value="60"/>
      <SimpleRule id="r3" score="high" recordCount="8" nbCorrect="2" confidence="0.1">
        <SimplePredicate field="colour" operator="notEqual" value="green"/>
      </SimpleRule>
    </CompoundRule>
    <SimpleRule id="r4" score="low" recordCount="5" nbCorrect="5" confidence="0.8">
      <SimplePredicate field="colour" operator="equal" value="red"/>
    </SimpleRule>
    <SimpleRule id="r5" score="high"><True/></SimpleRule>
    <SimpleRule id="r6" score="low"><SimplePredicate field="age" operator="greaterThan" value="1"/></SimpleRule>
  </RuleSet>
</RuleSetModel>
</PMML>
"""


def test_hand_written_rule_set_model_reads_as_its_rules():
    rs = ruleset_from_pmml(RULES)
    assert rs.schema.target == "risk" and rs.schema.classes == ("high", "low")
    assert rs.schema.attribute("colour").values == ("red", "green", "dark blue", 'say "hi"')
    below_30 = math.nextafter(30.0, -math.inf)
    assert [(r.id, r.conditions, r.prediction) for r in rs.rules] == [
        (1, (Condition("age", "<=", below_30), Condition("colour", "in", ("dark blue", 'say "hi"'))), "high"),
        (2, (Condition("age", ">", math.nextafter(60.0, -math.inf)),
             Condition("colour", "in", ("red", "dark blue", 'say "hi"'))), "high"),
        (3, (Condition("colour", "=", "red"),), "low")]
    # the True rule decides all the rest: it is the default, and r6 after it is dropped
    assert rs.default_class == "high"
    assert [(r.covered, r.errors) for r in rs.rules] == [(20, 5), (8, 6), (5, 0)]
    assert rs.rules[0].error_rate == 0.25
    # confidence 0.1 would stop the rule (error above 0.7), which PMML fires: held at 0.7
    assert rs.rules[1].error_rate == 0.7 and "PMML confidence 0.1" in rs.rules[1].note
    assert [r.note.split(";")[-1].strip() for r in rs.rules] == ["PMML rule id 'r1'", "PMML rule id 'r3'",
                                                                  "PMML rule id 'r4'"]


def test_hand_written_rule_set_model_decides_as_the_evaluators():
    require_evaluators()
    rs = ruleset_from_pmml(RULES)
    edges = (30.0, math.nextafter(30.0, -math.inf), 60.0, math.nextafter(60.0, -math.inf), None, math.nan)
    rows = _rows(rs) + [{"age": a, "colour": c} for a in edges
                        for c in ("dark blue", 'say "hi"', "green", "red", "?", "", None)]
    ours = _ours(rs, rows)
    j = jpmml(RULES, rows, ["age", "colour"])
    p = pmml4s(RULES, rows, ["age", "colour"])
    assert list(j["risk"]) == ours
    assert list(p["predicted_risk"]) == ours
    assert {"high", "low"} <= set(ours)


# ---- trees ---------------------------------------------------------------------------------
def test_sklearn2pmml_tree_reads_as_one_rule_per_leaf():
    rs = load_pmml(FIXTURES / "sklearn2pmml_tree.pmml")
    # thresholds of a float field: the largest double whose float rounding is <= the float threshold
    b08, b175, b495, b485 = (rs.rules[0].conditions[0].value, rs.rules[1].conditions[1].value,
                             rs.rules[1].conditions[2].value, rs.rules[3].conditions[2].value)
    for bound, t in ((b08, 0.8), (b175, 1.75), (b495, 4.95), (b485, 4.85)):
        assert np.float32(bound) == np.float32(t) and np.float32(math.nextafter(bound, math.inf)) > np.float32(t)
    assert [[(c.attribute, c.op) for c in r.conditions] + [r.prediction] for r in rs.rules] == [
        [("petalwidth", "<="), "Iris-setosa"],
        [("petalwidth", ">"), ("petalwidth", "<="), ("petallength", "<="), "Iris-versicolor"],
        [("petalwidth", ">"), ("petalwidth", "<="), ("petallength", ">"), "Iris-virginica"],
        [("petalwidth", ">"), ("petalwidth", ">"), ("petallength", "<="), "Iris-virginica"],
        [("petalwidth", ">"), ("petalwidth", ">"), ("petallength", ">"), "Iris-virginica"]]
    assert "no prediction (missingValueStrategy nullPrediction" in rs.notes


def test_sklearn2pmml_tree_decides_as_the_evaluators():
    require_evaluators()
    rs = load_pmml(FIXTURES / "sklearn2pmml_tree.pmml")
    text = (FIXTURES / "sklearn2pmml_tree.pmml").read_text(encoding="utf-8")
    rows = _rows(rs, 400)
    ours = _ours(rs, rows)
    j = jpmml(text, rows, ["petallength", "petalwidth"])
    nulls = [i for i, v in enumerate(j["class"]) if _null(v)]
    assert 0 < len(nulls) < len(rows) // 2
    # where JPMML gives no prediction (a missing value: nullPrediction), the model gives the default
    assert [v if not _null(v) else rs.default_class for v in j["class"]] == ours
    # PMML4S compares a float field's value and threshold in double and ignores nullPrediction,
    # so it is asked about complete rows off the thresholds, where every reading agrees
    cuts = (0.8, 1.75, 4.85, 4.95)
    exact = [r for r in rows if all(not _null(v) and min(abs(v - t) for t in cuts) > 1e-6 for v in r.values())]
    exact += [{"petallength": 4.0 + k / 10, "petalwidth": w} for k in range(11) for w in (0.5, 1.0, 1.7, 1.8, 2.5)]
    p = pmml4s(text, exact, ["petallength", "petalwidth"])
    assert list(p["predicted_class"]) == _ours(rs, exact)


TREE = HEAD + """<DataDictionary>
  <DataField name="x" optype="continuous" dataType="double"/>
  <DataField name="kind" optype="categorical" dataType="string"><Value value="a"/><Value value="b"/><Value value="c"/></DataField>
  <DataField name="y" optype="categorical" dataType="string"><Value value="yes"/><Value value="no"/><Value value="maybe"/></DataField>
</DataDictionary>
<TreeModel functionName="classification" missingValueStrategy="{missing}" noTrueChildStrategy="returnLastPrediction">
  <MiningSchema><MiningField name="x"/><MiningField name="kind" invalidValueTreatment="asMissing"/><MiningField name="y" usageType="target"/></MiningSchema>
  <Node id="root" score="no" recordCount="100">
    <True/>
    <ScoreDistribution value="yes" recordCount="30"/><ScoreDistribution value="no" recordCount="60"/>
    <ScoreDistribution value="maybe" recordCount="10"/>
    <Node id="n1" score="yes" recordCount="40">
      <SimpleSetPredicate field="kind" booleanOperator="isIn"><Array type="string" n="2">a b</Array></SimpleSetPredicate>
      <ScoreDistribution value="yes" recordCount="28"/><ScoreDistribution value="no" recordCount="12"/>
      <Node id="n11" score="maybe" recordCount="10"><SimplePredicate field="x" operator="lessOrEqual" value="2.5"/>
        <ScoreDistribution value="maybe" recordCount="7"/><ScoreDistribution value="yes" recordCount="3"/></Node>
      <Node id="n12" score="yes" recordCount="30"><SimplePredicate field="x" operator="greaterThan" value="2.5"/></Node>
    </Node>
    <Node id="n2" score="no" recordCount="60">
      <SimpleSetPredicate field="kind" booleanOperator="isNotIn"><Array type="string" n="2">a b</Array></SimpleSetPredicate>
    </Node>
  </Node>
</TreeModel>
</PMML>
"""


@pytest.mark.parametrize("missing", ("lastPrediction", "none"))
def test_hand_written_tree_decides_as_the_evaluators(missing):
    text = TREE.replace("{missing}", missing)
    rs = ruleset_from_pmml(text)
    listing = [(r.conditions, r.prediction) for r in rs.rules]
    if missing == "lastPrediction":
        # a missing x stops at n1 with its score: the stop rule after n1's leaves says so
        assert listing == [
            ((Condition("kind", "in", ("a", "b")), Condition("x", "<=", 2.5)), "maybe"),
            ((Condition("kind", "in", ("a", "b")), Condition("x", ">", 2.5)), "yes"),
            ((Condition("kind", "in", ("a", "b")),), "yes"),
            ((Condition("kind", "=", "c"),), "no")]
        assert rs.default_class == "no" and "stop at this node" in rs.rules[2].note
    else:
        # "none": a missing x fails both tests, no child is true, returnLastPrediction: n1's score
        assert listing[2] == ((Condition("kind", "in", ("a", "b")),), "yes")
    assert [(r.covered, r.errors) for r in rs.rules[:2]] == [(10, 3), (30, 0)]
    assert rs.class_counts == (30, 60, 10)
    require_evaluators()
    rows = _rows(rs) + [{"x": v, "kind": k} for v in (2.5, None, math.nan) for k in ("a", "c", "zz", None)]
    ours = _ours(rs, rows)
    j = jpmml(text, rows, ["x", "kind"])
    assert list(j["y"]) == ours
    assert set(ours) == {"yes", "no", "maybe"}


@pytest.mark.parametrize("change, message", [
    (('missingValueStrategy="none"', 'missingValueStrategy="defaultChild"'),
     "missingValueStrategy 'defaultChild' routes a case with a missing value into a child"),
    (('missingValueStrategy="none"', 'missingValueStrategy="weightedConfidence"'),
     "missingValueStrategy 'weightedConfidence'"),
    (('<True/>', '<CompoundPredicate booleanOperator="surrogate"><True/><True/></CompoundPredicate>'),
     "CompoundPredicate 'surrogate' cannot be expressed"),
    (('invalidValueTreatment="asMissing"', 'invalidValueTreatment="asIs"'),
     "isNotIn on field 'kind' with invalidValueTreatment asIs"),
    (('operator="lessOrEqual"', 'operator="isMissing"'), "SimplePredicate operator 'isMissing'"),
    (('<MiningField name="x"/>', '<MiningField name="x" missingValueReplacement="0"/>'),
     "MiningField 'x': missingValueReplacement replaces a value"),
])
def test_what_cannot_be_said_is_refused(change, message):
    text = TREE.replace("{missing}", "none").replace(*change)
    with pytest.raises(ModelError, match=message.replace("(", r"\(")):
        ruleset_from_pmml(text, "t.pmml")


def test_not_pmml_is_refused(tmp_path):
    with pytest.raises(ModelError, match="t.pmml: not well-formed XML"):
        ruleset_from_pmml("<PMML><oops></PMML>", "t.pmml")
    with pytest.raises(ModelError, match="DOCTYPE or ENTITY"):
        ruleset_from_pmml('<!DOCTYPE x [<!ENTITY a "aaaa">]><PMML>&a;</PMML>', "t.pmml")
    with pytest.raises(ModelError, match="a RegressionModel; c45rules reads a RuleSetModel or a TreeModel"):
        ruleset_from_pmml(HEAD + '<RegressionModel functionName="regression"/></PMML>', "t.pmml")
    with pytest.raises(ModelError, match="missing.pmml: file not found"):
        load_pmml(tmp_path / "missing.pmml")


def test_cli_import(tmp_path, capsys):
    from c45rules.cli import main
    src = tmp_path / "tree.pmml"
    src.write_text(TREE.replace("{missing}", "lastPrediction"), encoding="utf-8")
    out = tmp_path / "model.yaml"
    assert main(["import", str(src), "-o", str(out)]) == 0
    assert load_yaml(out) == ruleset_from_pmml(src.read_bytes())
    assert "4 rules, default class no" in capsys.readouterr().out
    src.write_text(TREE.replace("{missing}", "defaultChild"), encoding="utf-8")
    assert main(["import", str(src), "-o", str(tmp_path / "other.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("c45rules: error: ") and "missingValueStrategy 'defaultChild'" in err
    assert not (tmp_path / "other.yaml").exists()


def test_a_device_that_never_ends_is_refused_at_the_size_limit():
    from c45rules import ModelError
    from c45rules.imports import load_pmml
    with pytest.raises(ModelError, match=r"/dev/zero: more than 52428800 bytes, beyond the 52428800-byte model size limit"):
        load_pmml("/dev/zero")
