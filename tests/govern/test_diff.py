"""diff: rules matched by their conditions, decisions counted by class pair."""
from __future__ import annotations

import json

import pytest

import reference as R
from c45rules.data import load_stem
from c45rules.export import dump_yaml
from c45rules.learn.pipeline import fit_dataset

from e2e.conftest import cli

GOLF = R.DATA / "golf" / "golf"


@pytest.fixture(scope="module")
def golf_yaml():
    train, _ = load_stem(str(GOLF))
    return dump_yaml(fit_dataset(train)[0])


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_same_model_is_all_unchanged(golf_yaml, tmp_path):
    a = _write(tmp_path, "a.yaml", golf_yaml)
    code, out = cli(["diff", a, a, "--json"])
    assert code == 0 and json.loads(out) == {
        "rules": {"added": [], "removed": [], "changed": [], "unchanged": 4}}


def test_ids_do_not_matter_thresholds_and_classes_make_a_change(golf_yaml, tmp_path):
    old = _write(tmp_path, "old.yaml", golf_yaml)
    new_text = (golf_yaml
                .replace("  - id: 2\n", "  - id: 20\n")                          # renumbered only
                .replace('value: 75.0}', 'value: 80.0}')                         # rule 1: threshold moved
                .replace('    prediction: "Don\'t Play"\n    conditions:\n      - {attribute: "outlook", op: "=", value: "rain"}',
                         '    prediction: "Play"\n    conditions:\n      - {attribute: "outlook", op: "=", value: "rain"}'))
    # rule 3 (rain, windy true) now predicts Play: the same conditions, another class
    # and a rule on another discrete value is a new rule: rule 4's windy = false becomes a removal + addition
    new_text = new_text.replace('  - id: 4\n    prediction: "Play"\n    conditions:\n      - {attribute: "outlook", op: "=", value: "rain"}\n'
                                '      - {attribute: "windy", op: "=", value: "false"}',
                                '  - id: 7\n    prediction: "Play"\n    conditions:\n      - {attribute: "outlook", op: "=", value: "sunny"}\n'
                                '      - {attribute: "windy", op: "=", value: "false"}')
    new = _write(tmp_path, "new.yaml", new_text)
    code, out = cli(["diff", old, new, "--data", str(GOLF), "--json"])
    assert code == 0
    got = json.loads(out)
    assert got["rules"] == {"added": [7], "removed": [4],
                            "changed": [{"old_id": 1, "new_id": 1}, {"old_id": 3, "new_id": 3}],
                            "unchanged": 1}
    # golf: rain & windy true (2 Don't Play rows) now Play by rule 3; the new rule 7 (sunny & windy
    # false -> Play) comes before rule 1 and takes sunny 85/85 and 72/95 (Don't Play) too
    assert got["decisions"] == {"rows": 14, "changed": 4, "flips": {"Don't Play -> Play": 4}}


def test_text_output_names_rules_and_flips(golf_yaml, tmp_path):
    old = _write(tmp_path, "old.yaml", golf_yaml)
    new = _write(tmp_path, "new.yaml", golf_yaml.replace('value: 75.0}', 'value: 90.0}'))
    code, out = cli(["diff", old, new, "--data", str(GOLF)])
    assert code == 0
    assert out == ("Rules: 0 added, 0 removed, 1 changed, 3 unchanged\n"
                   "  changed  rule 1: if outlook = sunny and humidity > 75 then Don't Play [63.0%]\n"
                   "       to  rule 1: if outlook = sunny and humidity > 90 then Don't Play [63.0%]\n"
                   f"Decisions on {GOLF}: 2 of 14 rows change\n"     # sunny, humidity 85 and 90
                   "  Don't Play -> Play: 2\n")
