"""Model files from the YAML-loader audit: each gives a ModelError naming the field path, or
the documented behaviour, and what dump_yaml writes load_yaml reads back."""
from __future__ import annotations

import os
import threading
import time
import tracemalloc
from dataclasses import replace

import pytest

from c45rules import Attribute, Condition, ModelError, Rule, RuleSet, Schema
from c45rules.export import dump_yaml, load_yaml
from c45rules.export.yaml import MAX_BYTES, ruleset_from_dict

from export_cases import golf_ruleset

GOLF = dump_yaml(golf_ruleset())
FIT_OPTIONS = ('options:\n  "annealing": false\n  "cf": 0.25\n  "fisher": null\n  "gain_ratio": true\n'
               '  "min_objs": 2\n  "redundancy": 1.0\n  "rules_cf": null\n  "seed": null\n  "subset": false\n')


def _edit(old: str, new: str, text: str = GOLF) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def _refused(text: str) -> str:
    with pytest.raises(ModelError) as err:
        load_yaml(text)
    return str(err.value)


def _with_options(options: str) -> str:
    return _edit("options: {}\n", options)


# ---- 1. integers bounded by their use --------------------------------------------------------------
@pytest.mark.parametrize("old, new, message", [
    ("covered: 4,", "covered: " + "9" * 5000 + ",", "rules[3].evidence.covered: line 34: a number of 5000 characters"),
    ('op: ">", value: 75.0', 'op: ">", value: ' + "9" * 400, "rules[0].conditions[1].value: an integer of 1329 bits"
                                                                " is beyond the range of a double"),
    ("  - id: 5", "  - id: " + "9" * 30, "rules[1].id: 999999999999999999999999999999 is more than"
                                          " 9223372036854775807, the largest 64-bit integer"),
    ("class_counts: [9, 5]", "class_counts: [9, 9223372036854775808]", "class_counts[1]: 9223372036854775808 is more than"),
])
def test_huge_integers_are_refused_naming_the_field(old, new, message):
    assert message in _refused(_edit(old, new))


def test_the_largest_64_bit_rule_id_is_read_and_scored():
    rs = load_yaml(_edit("  - id: 3", f"  - id: {2 ** 63 - 1}"))
    assert rs.rules[3].id == 2 ** 63 - 1
    assert rs.predict_rule({"outlook": "overcast", "humidity": 80, "windy": "false"}).tolist() == [2 ** 63 - 1]


def test_dump_refuses_an_integer_beyond_64_bits_naming_the_option():
    with pytest.raises(ModelError, match=r"options\.big\[1\]: an integer of 16610 bits is beyond the 64-bit"):
        dump_yaml(replace(golf_ruleset(), options=(("big", (1, 10 ** 5000)),)))
    with pytest.raises(ModelError, match=r"rules\[0\]\.id: 9223372036854775808 is beyond the 64-bit"):
        dump_yaml(replace(golf_ruleset(), rules=(replace(golf_ruleset().rules[0], id=2 ** 63),)))


# ---- 2. duplicate checks in linear time ------------------------------------------------------------
def test_fifty_thousand_values_and_an_in_test_naming_them_all_load_quickly():
    values = ", ".join(f'"v{i}"' for i in range(50_000))
    text = _edit('values: ["sunny", "overcast", "rain"]', f'values: ["sunny", "overcast", "rain", {values}]')
    text = _edit('op: "=", value: "overcast"', f'op: "in", value: [{values}]', text)
    start = time.perf_counter()
    rs = load_yaml(text)
    assert time.perf_counter() - start < 5          # 20 s when each value was sought in the ones before
    assert len(rs.schema.attribute("outlook").values) == 50_003
    dup = text.replace('"v49999"]', '"v49999", "v17"]', 1)
    assert "schema.attributes[0].values[50003]: value 'v17' listed twice" in _refused(dup)


def test_a_schema_of_many_attributes_is_checked_quickly_and_names_every_duplicate():
    start = time.perf_counter()
    Schema(tuple(Attribute(f"a{i}", "continuous") for i in range(30_000)), ("x",))
    assert time.perf_counter() - start < 5          # 30 s with a list count per name
    with pytest.raises(Exception, match="duplicate attribute name\\(s\\): 'a', 'b'"):
        Schema(tuple(Attribute(n, "continuous") for n in "babca"), ("x",))


# ---- 3. size and memory bounded -------------------------------------------------------------------
def test_a_pipe_is_read_no_further_than_the_size_limit(tmp_path):
    fifo = tmp_path / "model.yaml"
    os.mkfifo(fifo)

    def feed() -> None:
        try:
            with open(fifo, "wb") as f:
                for _ in range(MAX_BYTES // (1 << 20) + 2):
                    f.write(b"#" * (1 << 20))
        except BrokenPipeError:                      # the reader stopped at the limit
            pass
    writer = threading.Thread(target=feed)
    writer.start()
    try:
        assert f"{fifo}: more than {MAX_BYTES} bytes, beyond the {MAX_BYTES}-byte model size limit" in _refused(fifo)
    finally:
        writer.join(timeout=60)
    if os.path.exists("/dev/zero"):                  # a device that never ends
        assert "/dev/zero: more than" in _refused("/dev/zero")


def test_a_long_list_in_an_option_costs_little_memory():
    text = _with_options('options:\n  "note": [' + "0, " * 100_000 + "0]\n")
    tracemalloc.start()
    try:
        rs = load_yaml(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(rs.options_dict["note"]) == 100_001
    assert peak < 10 * 2 ** 20                       # 70 MB when PyYAML's node tree held it


# ---- 4. options checked as fit checks them ---------------------------------------------------------
@pytest.mark.parametrize("old, new, message", [
    ('"cf": 0.25', '"cf": !!binary "aGVsbG8="', "options.cf: not valid YAML or uses a tag a model file cannot hold: line 45: !!binary"),
    ('"cf": 0.25', '"cf": !!set {a, b}', "options.cf: not valid YAML or uses a tag a model file cannot hold: line 45: !!set"),
    ('"cf": 0.25', '"cf": 2001-12-14', "options.cf: line 45: '2001-12-14' reads as a date, which a model file cannot hold"),
    ('"cf": 0.25', '"cf": {1: 2}', "options.cf: expected a string, found an integer 1"),
    ('"cf": 0.25', '"cf": "x"', "options.cf: option cf must be a confidence level in (0, 1], got 'x'"),
    ('"cf": 0.25', '"cf": 0', "options.cf: option cf must be a confidence level in (0, 1], got 0"),
    ('"cf": 0.25', '"cf": [0.25]', "options.cf: option cf must be a confidence level in (0, 1], got (0.25,)"),
    ('"min_objs": 2', '"min_objs": -5', "options.min_objs: option min_objs must be >= 1, got -5"),
    ('"gain_ratio": true', '"gain_ratio": "no"', "options.gain_ratio: option gain_ratio must be True or False, got 'no'"),
    ('"seed": null', '"seed": 1.5', "options.seed: option seed must be an integer"),
    ('"fisher": null', '"fisher": 101', "options.fisher: option fisher is a percentage in (0, 100], got 101"),
])
def test_fit_options_hold_what_fit_accepts_naming_the_option(old, new, message):
    assert message in _refused(_with_options(FIT_OPTIONS.replace(old, new)))


def test_a_fitted_models_options_and_other_names_read_back_and_dump_refuses_what_load_refuses():
    rs = load_yaml(_with_options(FIT_OPTIONS + '  "note": [1, "a", {"k": null, "l": [true, 2.5]}]\n'))
    assert rs.options_dict["cf"] == 0.25 and rs.options_dict["seed"] is None
    assert rs.options_dict["note"] == (1, "a", {"k": None, "l": (True, 2.5)})
    assert load_yaml(dump_yaml(rs)) == rs
    with pytest.raises(ModelError, match=r"options\.cf: option cf must be a confidence level in \(0, 1\], got 'x'"):
        dump_yaml(replace(rs, options=(("cf", "x"),)))


@pytest.mark.parametrize("old, new, message", [
    ('fingerprint: ""', 'fingerprint: !!int "x"', "fingerprint: line 44: 'x' is not a valid int"),
    ('value: "sunny"', "value: 2001-12-14", "rules[0].conditions[0].value: line 16: '2001-12-14' reads as a date"),
    ('fingerprint: ""', 'fingerprint: ""\n---\nformat: 1', "line 45: a second YAML document; a model file holds one"),
    ("class_counts: [9, 5]", "class_counts: [9, 5]\n<<: {a: 1}", "not valid YAML or uses a tag a model file cannot hold: line 42: !!merge"),
])
def test_other_yaml_surprises_are_named(old, new, message):
    assert message in _refused(_edit(old, new))


# ---- 5. lone surrogates ---------------------------------------------------------------------------
def test_a_lone_surrogate_escape_is_refused_naming_the_field():
    message = _refused(_edit('"Don\'t Play"', '"\\uD800"'))
    assert message.startswith("schema.classes") and "Unicode" in message
    doc = {"format": "c45rules-ruleset", "format_version": 1, "library_version": "0", "schema": {
        "target": "class", "classes": ["a", "b"], "attributes": [{"name": "x", "kind": "discrete", "values": ["p", "q\ud800"]}]},
        "rules": [], "default_class": "a", "class_counts": [1, 1], "default_counts": [1, 1],
        "options": {}, "fingerprint": ""}
    with pytest.raises(ModelError, match=r"schema\.attributes\[0\]\.values\[1\]: 'q\\ud800' is not valid Unicode text"):
        ruleset_from_dict(doc)
    doc["schema"]["attributes"][0]["values"][1] = "q"
    doc["options"] = {"n\udc00": 1}
    with pytest.raises(ModelError, match=r"options: 'n\\udc00' is not valid Unicode text"):
        ruleset_from_dict(doc)


def test_dump_refuses_a_lone_surrogate_naming_the_field():
    schema = Schema((Attribute("x", "discrete", ("p", "q\ud800")),), ("a", "b"))
    rs = RuleSet(schema, (Rule(1, (Condition("x", "=", "p"),), "a", 1, 0, 0.1, 1.0),), "b", (1, 1), (0, 1))
    with pytest.raises(ModelError, match=r"schema\.attributes\[0\]\.values\[1\]: 'q\\ud800' is not valid Unicode text"):
        dump_yaml(rs)


# ---- 8. file names with NUL; keys YAML cannot read back ---------------------------------------------
def test_a_file_name_with_nul_is_refused_naming_it():
    assert _refused("model\x00.yaml") == "model\\0.yaml: a file name cannot hold a NUL character"


@pytest.mark.parametrize("options, message", [
    ((("\x01" * 400, 1),), "options: the name '\\x01\\x01"),
    ((("note", {"k" * 999 + "\x02": 1}),), "options.note: the name 'kkkk"),
])
def test_dump_refuses_an_option_name_too_long_once_escaped(options, message):
    with pytest.raises(ModelError) as err:
        dump_yaml(replace(golf_ruleset(), options=options))
    assert str(err.value).startswith(message) and "too long for a YAML key" in str(err.value)
    long_but_fine = replace(golf_ruleset(), options=(("k" * 998, 1),))
    assert load_yaml(dump_yaml(long_but_fine)) == long_but_fine


# ---- 6. every number checked on load, naming the rule (issue 47.2) ----------------------------------
GOLF_TREE = GOLF + (
    "tree:\n"
    '  - {kind: "threshold", class: "Play", items: 14.0, errors: 5.0, distribution: [9.0, 5.0],'
    ' attribute: "humidity", cut: 75.0, branches: 2}\n'
    '  - {kind: "leaf", class: "Play", items: 7.0, errors: 1.0, distribution: [6.0, 1.0]}\n'
    '  - {kind: "leaf", class: "Don\'t Play", items: 7.0, errors: 3.0, distribution: [3.0, 4.0]}\n')
RULE_4 = "covered: 4, errors: 0, error_rate: 0.2, confidence: 0.8, lift: 1.2, used: 4, wrong: 0"


@pytest.mark.parametrize("old, new, message", [
    # thresholds that are not finite: every test on them is false; PMML/SQL cannot write them
    ('op: ">", value: 75.0', 'op: ">", value: .nan', "rules[0].conditions[1].value: threshold .nan is not a finite"
                                                     " number (rule id 1)"),
    ('op: "<=", value: 75.0', 'op: "<=", value: .inf', "rules[4].conditions[0].value: threshold .inf is not a finite"
                                                        " number (rule id 4)"),
    ('op: "<=", value: 75.0', 'op: "<=", value: -.inf', "rules[4].conditions[0].value: threshold -.inf is not a"
                                                         " finite number (rule id 4)"),
    # evidence that contradicts itself
    (RULE_4, RULE_4.replace("errors: 0", "errors: 5"),
     "rules[3].evidence.errors: errors 5 exceeds covered 4, but its errors are covered cases of another class"
     " (rule id 3)"),
    (RULE_4, RULE_4.replace("used: 4", "used: 9"), "rules[3].evidence.used: used 9 exceeds covered 4, but the cases it decides are cases it covers"
                                                        " (rule id 3)"),
    (RULE_4, RULE_4.replace("used: 4, wrong: 0", "used: 2, wrong: 3"), "rules[3].evidence.wrong: wrong 3 exceeds used 2"),
    (RULE_4, RULE_4.replace("wrong: 0", "wrong: 1"), "rules[3].evidence.wrong: wrong 1 exceeds errors 0"),
    (RULE_4, RULE_4.replace("covered: 4", "covered: 2.5"), "rules[3].evidence.used: used 4 exceeds covered 2.5"),
    # negative or non-finite counts
    (RULE_4, RULE_4.replace("wrong: 0", "wrong: -1"), "rules[3].evidence.wrong: -1 is less than 0 (rule id 3)"),
    (RULE_4, RULE_4.replace("covered: 4", "covered: -0.5"), "rules[3].evidence.covered: -0.5 is not a count"),
    (RULE_4, RULE_4.replace("covered: 4", "covered: .inf"), "rules[3].evidence.covered: inf is not a count"),
    ("class_counts: [9, 5]", "class_counts: [9, -5]", "class_counts[1]: -5 is less than 0"),
    ("class_counts: [9, 5]", "class_counts: [1, 5]", "default_counts[0]: 2 cases reach the default, more than the 1"
                                                       " of the class (class_counts[0])"),
    # rates and lifts
    (RULE_4, RULE_4.replace("error_rate: 0.2, confidence: 0.8", "error_rate: .nan, confidence: .nan"),
     "rules[3].evidence.error_rate: nan is not an error rate (a number from 0 to 1) (rule id 3)"),
    (RULE_4, RULE_4.replace("error_rate: 0.2, confidence: 0.8", "error_rate: 1.5, confidence: -0.5"),
     "rules[3].evidence.error_rate: 1.5 is not an error rate"),
    (RULE_4, RULE_4.replace("error_rate: 0.2, confidence: 0.8", "error_rate: -0.1, confidence: 1.1"),
     "rules[3].evidence.error_rate: -0.1 is not an error rate"),
    (RULE_4, RULE_4.replace("lift: 1.2", "lift: .nan"), "rules[3].evidence.lift: nan is not a lift (a number >= 0)"),
    (RULE_4, RULE_4.replace("lift: 1.2", "lift: -1.2"), "rules[3].evidence.lift: -1.2 is not a lift"),
])
def test_every_number_of_a_rule_is_checked_on_load_naming_the_rule(old, new, message, tmp_path):
    assert message in _refused(_edit(old, new))
    path = tmp_path / "model.yaml"
    path.write_text(_edit(old, new))
    assert str(path) + ": " + message.split(":")[0] in _refused(path)


@pytest.mark.parametrize("old, new, message", [
    ("cut: 75.0", "cut: .nan", "tree[0].cut: threshold .nan is not a finite number"),
    ("distribution: [6.0, 1.0]", "distribution: [6.0, -1.0]", "tree[1].distribution[1]: -1.0 is not a count"),
    ("items: 7.0, errors: 3.0", "items: 7.0, errors: .inf", "tree[2].errors: .inf is not a count"),
])
def test_the_kept_trees_numbers_are_checked_on_load(old, new, message):
    assert load_yaml(GOLF_TREE).tree is not None
    assert message in _refused(_edit(old, new, GOLF_TREE))


def test_a_boosted_trials_numbers_are_checked_naming_the_trial_and_rule():
    from export_cases import boosted_model
    text = dump_yaml(replace(boosted_model("golf", 2), options=(("trials", 2), ("trials_built", 2))))
    assert load_yaml(text).trials[1].rules[2].conditions[1].value == 75.0
    at = text.index("  - rules:", text.index("  - rules:") + 1)          # the second trial
    head, trial = text[:at], text[at:]
    edited = head + trial.replace('op: ">", value: 75.0', 'op: ">", value: .nan', 1)
    assert "trials[1].rules[2].conditions[1].value: threshold .nan is not a finite number (rule id 1)" \
        in _refused(edited)
    counts = trial[trial.index("class_counts:"):].split("\n", 1)[0]
    edited = head + trial.replace(counts, "class_counts: [0, 0]", 1)
    assert "trials[1].default_counts[0]:" in _refused(edited)


def test_dump_refuses_what_load_refuses_naming_the_rule():
    rs = golf_ruleset()
    bad = replace(rs, rules=(replace(rs.rules[0], errors=4),) + rs.rules[1:])
    with pytest.raises(ModelError, match=r"rules\[0\]\.evidence\.errors: errors 4 exceeds covered 3.*\(rule id 1\)"):
        dump_yaml(bad)
    with pytest.raises(ModelError, match=r"default_counts\[1\]: 7 cases reach the default"):
        dump_yaml(replace(rs, default_counts=(2, 7)))


def test_the_cli_and_the_service_refuse_a_nan_threshold(tmp_path):
    from e2e.conftest import fails

    from c45rules.service.models import ModelFolder, load_version
    text = _edit('op: ">", value: 75.0', 'op: ">", value: .nan')
    path = tmp_path / "model.yaml"
    path.write_text(text)
    expected = f"{path}: rules[0].conditions[1].value: threshold .nan is not a finite number (rule id 1)"
    assert fails("export", path, "--to", "pmml", "-o", tmp_path / "m.pmml") == f"c45rules: error: {expected}"
    assert not (tmp_path / "m.pmml").exists()
    assert fails("explain", path, "--row", "{}") == f"c45rules: error: {expected}"
    with pytest.raises(ModelError, match=r"threshold \.nan is not a finite number \(rule id 1\)"):
        load_version("model", text.encode())
    folder = ModelFolder(tmp_path)
    folder.scan()
    assert folder.get("model") is None
