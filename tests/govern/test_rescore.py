"""rescore: an edited model measured on data; the unedited model on its training data unchanged."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import reference as R
from c45rules import ModelError
from c45rules.data import load_stem
from c45rules.estimate import pessimistic_rate
from c45rules.export import dump_yaml, load_yaml
from c45rules.govern.rescore import load_unmeasured, rescore
from c45rules.learn.pipeline import fit_dataset

from e2e.conftest import cli, cli_err

GOLF = R.DATA / "golf" / "golf"


@pytest.fixture(scope="module")
def golf():
    train, _ = load_stem(str(GOLF))
    return fit_dataset(train)[0], train


@pytest.mark.parametrize("name", ["golf", "crx", "hypo", "soybean", "credit-g", "labor", "monk2"])
def test_the_unedited_model_on_its_training_data_is_byte_identical(name):
    train, _ = load_stem(str(R.DATA / name / name))
    rs = fit_dataset(train)[0]
    assert dump_yaml(rescore(rs, train)) == dump_yaml(rs)


def test_subset_tests_rescore_identically_too():
    train, _ = load_stem(str(R.DATA / "soybean" / "soybean"))
    rs = fit_dataset(train, subset=True)[0]
    assert any(c.op == "in" for r in rs.rules for c in r.conditions)
    assert dump_yaml(rescore(rs, train)) == dump_yaml(rs)


def test_a_moved_threshold_is_measured_anew(golf):
    rs, train = golf
    text = dump_yaml(rs).replace('{attribute: "humidity", op: ">", value: 75.0}',
                                 '{attribute: "humidity", op: ">", value: 85.0}')
    got = rescore(load_yaml(text), train)
    rule1 = next(r for r in got.rules if r.id == 1)
    # sunny and humidity > 85: the rows with 90 and 95, both Don't Play
    assert (rule1.covered, rule1.errors, rule1.used, rule1.wrong) == (2, 0, 2, 0)
    assert rule1.error_rate == 0.5            # 2 * (1 - 0.25 ** (1/2)) / 2, AddErrs with no error
    # the sunny row with humidity 85 (Don't Play) now reaches the default, Play
    assert got.default_counts == (2, 1)
    assert [r.id for r in got.rules] == [2, 4, 1, 3]
    assert got.fingerprint == rs.fingerprint


def test_rules_added_and_reordered_by_hand_keep_their_ids_and_notes(golf):
    rs, train = golf
    text = dump_yaml(rs)
    added = ('  - id: 9\n    prediction: "Don\'t Play"\n    note: "asked for by the regulator"\n'
             '    conditions:\n      - {attribute: "temperature", op: ">", value: 80.0}\n'
             '    evidence: {covered: 0, errors: 0, error_rate: 0.5, confidence: 0.5, lift: 1.0, used: 0, wrong: 0}\n')
    text = text.replace("default_class:", added + "default_class:")
    text = text.replace("rules:\n", 'notes: "Q3 review"\nrules:\n')
    got = rescore(load_yaml(text), train)
    assert [r.id for r in got.rules] == [2, 4, 1, 3, 9]
    r9 = got.rules[-1]
    assert r9.note == "asked for by the regulator" and got.notes == "Q3 review"
    # temperature > 80: 85 (sunny, Don't Play), 83 and 81 (overcast, Play)
    assert (r9.covered, r9.errors) == (3, 2)
    assert r9.error_rate == pytest.approx(float(np.float32(pessimistic_rate(3, 2, 0.25))), abs=5e-7)
    # every case it covers was decided by an earlier rule: rule 2 (overcast), rule 1 (sunny, humidity 85)
    assert (r9.used, r9.wrong) == (0, 0)
    assert 'note: "asked for by the regulator"' in dump_yaml(got)
    assert dump_yaml(got).count("notes: \"Q3 review\"") == 1


def test_counts_agree_with_a_direct_count(golf):
    rs, train = golf
    got = rescore(rs, train)
    assert sum(r.used for r in got.rules) + sum(got.default_counts) == train.n == 14
    assert got.class_counts == (9, 5)


@pytest.mark.parametrize("edit, message", [
    (('{attribute: "windy", op: "=", value: "false"}', '{attribute: "wind", op: "=", value: "false"}'),
     "rules[1].conditions[1].attribute: 'wind' is not an attribute of the schema (rule id 4)"),
    (('{attribute: "windy", op: "=", value: "false"}', '{attribute: "windy", op: "=", value: "maybe"}'),
     "rules[1].conditions[1].value: 'maybe' is not a value of attribute 'windy' (rule id 4)"),
    (('{attribute: "outlook", op: "=", value: "overcast"}', '{attribute: "outlook", op: ">", value: 1.0}'),
     "rules[0].conditions[0].op: threshold test '>' on discrete attribute 'outlook' (rule id 2)"),
    (('    conditions:\n      - {attribute: "outlook", op: "=", value: "overcast"}\n', "    conditions: []\n"),
     "rules[0].conditions: a rule needs at least one condition (rule id 2)"),
    (("  - id: 4\n", "  - id: 2\n"), "rules[1].id: rule id 2 also used by rules[0]"),
    (('default_class: "Play"', 'default_class: "Golf"'), "default_class: 'Golf' is not a class"),
    (("  - id: 4\n", "  - id: 4\n    owner: \"me\"\n"), "rules[1]: unknown key 'owner'"),
])
def test_hand_edits_are_validated_naming_the_rule_and_field(golf, tmp_path, edit, message):
    rs, _ = golf
    text = dump_yaml(rs)
    assert edit[0] in text
    model = tmp_path / "edited.yaml"
    model.write_text(text.replace(edit[0], edit[1], 1))
    with pytest.raises(ModelError) as e:
        load_yaml(model)
    assert message in str(e.value)
    code, out, err = cli_err(["rescore", str(model), "--data", str(GOLF), "-o", str(tmp_path / "new.yaml")])
    assert code == 2 and message in err and not (tmp_path / "new.yaml").exists()


def test_cli_rescore_json_and_byte_identical_output(golf, tmp_path):
    rs, _ = golf
    model = tmp_path / "m.yaml"
    model.write_text(dump_yaml(rs))
    code, out = cli(["rescore", str(model), "--data", str(GOLF), "-o", str(tmp_path / "new.yaml"), "--json"])
    assert code == 0
    assert (tmp_path / "new.yaml").read_bytes() == model.read_bytes()
    assert json.loads(out) == {
        "rules": [{"id": 2, "covered": 4, "errors": 0, "used": 4, "wrong": 0},
                  {"id": 4, "covered": 3, "errors": 0, "used": 3, "wrong": 0},
                  {"id": 1, "covered": 3, "errors": 0, "used": 3, "wrong": 0},
                  {"id": 3, "covered": 2, "errors": 0, "used": 2, "wrong": 0}],
        "errors": 0, "error_rate": 0.0}


def test_cli_rescore_on_other_data_reports_its_errors(tmp_path):
    model = tmp_path / "m.yaml"
    assert cli(["fit", str(R.DATA / "crx" / "crx"), "-o", str(model), "-q"])[0] == 0
    code, out = cli(["rescore", str(model), "--data", str(R.DATA / "crx" / "crx.test"),
                     "-o", str(tmp_path / "new.yaml"), "--json"])
    got = json.loads(out)
    new = load_yaml(tmp_path / "new.yaml")
    # the rescored errors decide which rules fire: the new model makes 30 errors where the old made 31
    test = load_stem(str(R.DATA / "crx" / "crx"), test=True)[1]
    assert code == 0 and got["errors"] == 30 and got["error_rate"] == 0.15
    assert (new.predict(test) != np.array(test.schema.classes, dtype=object)[test.y]).sum() == 30
    assert (load_yaml(model).predict(test) != np.array(test.schema.classes, dtype=object)[test.y]).sum() == 31
    assert sum(r.used for r in new.rules) + sum(new.default_counts) == 200
    assert new.fingerprint != load_yaml(model).fingerprint


# ---- a rule written without its evidence ---------------------------------------------------------
_EVIDENCE_LINE = re.compile(r"^ *evidence: \{[^\n]*\}\n", re.M)


def test_rules_written_without_evidence_are_measured(golf, tmp_path):
    rs, train = golf
    text = dump_yaml(rs)
    bare = _EVIDENCE_LINE.sub("", text)
    assert "evidence" not in bare and bare.count("  - id: ") == len(rs.rules)
    model = tmp_path / "bare.yaml"
    model.write_text(bare)
    # every other reader still wants the evidence: only rescore measures it
    with pytest.raises(ModelError, match="rules\\[0\\]: missing key 'evidence'"):
        load_yaml(model)
    unmeasured = load_unmeasured(model)
    assert [(r.id, r.conditions, r.covered, r.errors, r.error_rate, r.used) for r in unmeasured.rules] == [
        (r.id, r.conditions, 0, 0, 0.0, 0) for r in rs.rules]
    code, out = cli(["rescore", str(model), "--data", str(GOLF), "-o", str(tmp_path / "new.yaml"), "--json"])
    assert code == 0
    # the unedited rules on their training data: measured back to the very file they came from
    assert (tmp_path / "new.yaml").read_text() == text
    assert [r["covered"] for r in json.loads(out)["rules"]] == [4, 3, 3, 2]


def test_a_hand_written_rule_without_evidence_among_measured_ones(golf, tmp_path):
    rs, train = golf
    added = ('  - id: 9\n    prediction: "Don\'t Play"\n    note: "asked for by the regulator"\n'
             '    conditions:\n      - {attribute: "temperature", op: ">", value: 80.0}\n')
    text = dump_yaml(rs).replace("default_class:", added + "default_class:")
    model = tmp_path / "added.yaml"
    model.write_text(text)
    assert cli(["rescore", str(model), "--data", str(GOLF), "-o", str(tmp_path / "new.yaml")])[0] == 0
    r9 = load_yaml(tmp_path / "new.yaml").rules[-1]
    # temperature > 80: 85 (sunny, Don't Play), 83 and 81 (overcast, Play); all decided earlier
    assert (r9.id, r9.covered, r9.errors, r9.used, r9.wrong) == (9, 3, 2, 0, 0)
    assert r9.error_rate == pytest.approx(float(np.float32(pessimistic_rate(3, 2, 0.25))), abs=5e-7)
    # a partial evidence block is still a mistake to point at
    model.write_text(text.replace(added, added + "    evidence: {covered: 3}\n"))
    code, _, err = cli_err(["rescore", str(model), "--data", str(GOLF), "-o", str(tmp_path / "other.yaml")])
    assert code == 2 and "rules[4].evidence: missing key 'errors'" in err


def test_a_boosted_model_without_evidence_is_measured(tmp_path):
    model = tmp_path / "boosted.yaml"
    assert cli(["fit", str(GOLF), "-o", str(model), "--trials", "3", "-q"])[0] == 0
    text = model.read_text()
    assert "trials:" in text
    model.write_text(_EVIDENCE_LINE.sub("", text))
    assert cli(["rescore", str(model), "--data", str(GOLF), "-o", str(tmp_path / "new.yaml"), "--json"])[0] == 0
    train, _ = load_stem(str(GOLF))
    assert load_yaml(tmp_path / "new.yaml") == rescore(load_yaml(text), train)
