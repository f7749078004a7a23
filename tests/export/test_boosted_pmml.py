"""PMML export of a boosted model: a MiningModel chaining a RuleSetModel per trial and a TreeModel
that counts the vote. JPMML and PMML4S (pypmml) give BoostedRuleSet's class and confidence on every
row: the shared sets with their unknowns and probes, the tie set, and hostile names."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from c45rules.model.boosted import BoostedRuleSet
from c45rules.export.pmml import output_names, to_pmml

from export_cases import Scored, hostile_ruleset, random_rows, score_boosted
from pmml_evaluators import jpmml, pmml4s, require_evaluators

NS = {"p": "http://www.dmg.org/PMML-4_4"}


def check_evaluators(scored: Scored) -> None:
    """Both evaluators, row for row: the class exactly, the confidence bit for bit (JPMML) or to the
    15 digits PMML4S's batch call prints."""
    model = scored.ruleset
    fields = [a.name for a in model.schema.attributes if a.kind != "ignore"]
    klass, _, confidence = output_names(model)
    text = to_pmml(model)
    j = jpmml(text, scored.rows, fields)
    bad = np.flatnonzero(j[klass].to_numpy(object) != scored.classes)
    assert not len(bad), f"JPMML: {len(bad)} rows differ; first: row {bad[0]} {scored.rows[bad[0]]!r}"
    assert np.array_equal(j[confidence].to_numpy(float), scored.confidence)
    p = pmml4s(text, scored.rows, fields)
    assert list(p[klass]) == list(scored.classes)
    assert np.allclose(p[confidence].to_numpy(float), scored.confidence, rtol=1e-12, atol=0)


# the tie set, crx and soybean (19 classes); the other sets are scored by SQL and Python (the JVM
# evaluators take some seconds a set)
@pytest.mark.parametrize("name", ("tie", "crx", "soybean"))
def test_evaluators_vote_as_the_library(name, boosted):
    require_evaluators()
    check_evaluators(boosted(name))


def test_document_chains_a_ruleset_model_per_trial_and_a_vote(boosted):
    model = boosted("tie").ruleset
    root = ET.fromstring(to_pmml(model))
    mining = root.find("p:MiningModel", NS)
    segments = mining.findall("p:Segmentation/p:Segment", NS)
    assert mining.find("p:Segmentation", NS).get("multipleModelMethod") == "modelChain"
    assert [s.find("p:RuleSetModel", NS) is not None for s in segments] == [True] * 5 + [False]
    # each trial's rules carry its votes: decision_confidences, the default's last
    first = segments[0].findall("p:RuleSetModel/p:RuleSet/p:SimpleRule", NS)
    assert [(r.get("id"), r.get("score"), r.get("confidence")) for r in first] == \
        [("1", "no", "0.596"), ("2", "yes", "0.75"), ("0", "no", "0.75")]
    vote = segments[-1].find("p:TreeModel", NS)
    derived = [d.get("name") for d in vote.findall("p:LocalTransformations/p:DerivedField", NS)]
    assert derived == ["votes_1", "votes_2", "votes_total", "winner", "winner_votes", "vote_share"]
    assert [n.get("score") for n in vote.findall("p:Node/p:Node", NS)] == ["no", "yes"]


def test_hostile_names_stay_attribute_values():
    require_evaluators()
    hostile = hostile_ruleset()
    model = BoostedRuleSet((hostile, type(hostile)(hostile.schema, hostile.rules[::-1], "{class}",
                                                   hostile.class_counts, (1, 2, 3, 9))))
    scored = score_boosted("hostile", model, random_rows(hostile, 300, seed=5))
    assert len(set(scored.classes)) >= 3
    text = to_pmml(model)
    root = ET.fromstring(text)   # well-formed; every class a NormDiscrete value or a score, as written
    values = {n.get("value") for n in root.iter("{%s}NormDiscrete" % NS["p"])}
    assert values == set(hostile.schema.classes)
    assert "<Constant" not in text.replace('<Constant dataType="integer">', "")
    check_evaluators(scored)
