"""Boosting (issue 34): the trials, early stops, the YAML of a boosted model, rescore and diff."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import reference as R
from c45rules import InputError, ModelError
from c45rules.boosted import BoostedRuleSet
from c45rules.data import load_stem
from c45rules.data.weights import weighted
from c45rules.export.yaml import dump_yaml, load_yaml
from c45rules.govern.diff import diff_models, describe_models
from c45rules.govern.rescore import rescore
from c45rules.pipeline import fit, fit_dataset
from c45rules.rules.boost import boost_trials
from c45rules.rules.evaluate import evaluate_votes
from c45rules.ruleset import RuleSet


def stem(name: str) -> str:
    return str(R.DATA / name / name)


@pytest.fixture(scope="module")
def crx():
    train, test = load_stem(stem("crx"), test=True)
    return train, test, fit_dataset(train)[0], fit_dataset(train, trials=10)[0]


def test_crx_ten_trials_exact(crx):
    train, test, single, boosted = crx
    assert isinstance(boosted, BoostedRuleSet)
    assert [len(rs.rules) for rs in boosted.trials] == [14, 28, 33, 24, 15, 25, 29, 32, 20, 29]
    assert boosted.options_dict["trials"] == 10 and boosted.options_dict["trials_built"] == 10
    assert evaluate_votes(boosted, train).errors == 0
    assert evaluate_votes(boosted, test).errors == 32
    # trial 1 learns from the cases as given: it is the single model, options and all
    assert boosted.trials[0] == single
    # every later trial learnt from fractional weights
    assert isinstance(boosted.trials[1].class_counts[0], float)


def test_trials_1_is_todays_model_and_file(crx):
    train, _, single, _ = crx
    again = fit_dataset(train, trials=1)[0]
    assert isinstance(again, RuleSet) and again == single
    assert dump_yaml(again) == dump_yaml(single)
    assert "trials" not in single.options_dict


def test_a_perfect_first_trial_stops_boosting():
    # monk1 and iris: a trial that classifies every training case correctly ends the boosting
    for name, built in (("monk1", 1), ("golf", 1), ("iris", 4)):
        train, _ = load_stem(stem(name))
        model = fit_dataset(train, trials=10)[0]
        assert len(model.trials) == built and model.options_dict["trials_built"] == built
        assert model.options_dict["trials"] == 10
        assert evaluate_votes(model, train).errors == 0


def test_a_trial_at_half_the_weight_is_dropped_and_stops_boosting():
    # a learner that always answers the majority class: 40% wrong at trial 1, reweighted (the
    # right cases times 0.4 / 0.6) to exactly half the weight wrong at trial 2, which is dropped
    train, _ = load_stem(stem("golf"))           # 9 play, 5 don't play
    base = fit_dataset(train)[0]
    majority = replace(base, rules=(), default_class=train.schema.classes[int(np.argmax(train.class_weights()))])
    seen = []

    def learn(data):
        seen.append(None if data.weights is None else data.weights.copy())
        return majority
    trials = boost_trials(train, 10, learn)
    assert [(round(t.error, 12), t.kept) for t in trials] == [(round(5 / 14, 12), True), (0.5, False)]
    assert seen[0] is None
    np.testing.assert_allclose(seen[1].sum(), 14.0)


def test_user_weights_are_the_starting_weights():
    train, _ = load_stem(stem("monk3"))
    given = weighted(train, np.where(train.y == 0, 2.0, 1.0))
    model = fit_dataset(given, trials=5)[0]
    assert model.trials[0] == fit_dataset(given)[0]
    assert model.options_dict["weights"] == "sample_weight"
    assert [len(rs.rules) for rs in model.trials] == [14, 16, 10, 14, 12]
    # every trial's weights sum to the given total (62 cases at 2, 60 at 1)
    assert model.trials[0].class_counts == (124, 60)
    assert model.trials[1].class_counts == (64.4519774012, 119.548022599)
    assert evaluate_votes(model, train).errors == 0


def test_refusals():
    train, _ = load_stem(stem("golf"))
    with pytest.raises(InputError, match="grower c45, not to grower 'cart'"):
        fit_dataset(train, trials=3, grower="cart")
    for bad in (0, 1001, 2.5, True, "10"):
        with pytest.raises(InputError, match="option trials"):
            fit_dataset(train, trials=bad)


def test_fit_from_a_frame_with_trials():
    import pandas as pd
    frame = pd.read_csv(R.DATA / "crx" / "crx.csv")
    model = fit(frame, "class", trials=3)
    assert isinstance(model, BoostedRuleSet) and len(model.trials) == 3


# ---- YAML -------------------------------------------------------------------------------------
def test_yaml_round_trip_is_equal_and_byte_identical(crx):
    train, test, _, boosted = crx
    text = dump_yaml(boosted)
    assert text.startswith('format: "c45rules-boosted"\n')
    back = load_yaml(text)
    assert back == boosted and dump_yaml(back) == text
    # the same bytes from a second fit: deterministic
    assert dump_yaml(fit_dataset(train, trials=10)[0]) == text
    # and the same decisions, unknowns included (crx.test holds unknown values)
    assert np.isnan(test.columns[1]).any()
    assert (back.predict(test) == boosted.predict(test)).all()
    assert (back.predict_confidence(test) == boosted.predict_confidence(test)).all()
    assert (back.trial_rules(test) == boosted.trial_rules(test)).all()


def _edited(text: str, old: str, new: str, trial: int) -> str:
    """`text` with the first `old` after the start of trial `trial` (0-based) replaced."""
    at = -1
    for _ in range(trial + 1):
        at = text.index("  - rules:", at + 1)
    k = text.index(old, at)
    return text[:k] + new + text[k + len(old):]


def test_bad_boosted_yaml_names_the_trial_and_rule(crx):
    _, _, _, boosted = crx
    text = dump_yaml(boosted)
    rule = boosted.trials[1].rules[0]
    bad = _edited(text, f'prediction: "{rule.prediction}"', 'prediction: "maybe"', 1)
    with pytest.raises(ModelError, match=rf"trials\[1\]\.rules\[0\]\.prediction: 'maybe' is not a class.*rule id {rule.id}"):
        load_yaml(bad)
    bad = _edited(text, '{attribute: "', '{attribute: "nope', 2)
    with pytest.raises(ModelError, match=r"trials\[2\]\.rules\[0\]\.conditions\[0\]\.attribute: 'nopeA"):
        load_yaml(bad)
    bad = _edited(text, "class_counts: [", "class_counts: [1, ", 3)
    with pytest.raises(ModelError, match=r"trials\[3\]\.class_counts: 3 counts for 2 classes"):
        load_yaml(bad)
    with pytest.raises(ModelError, match=r"options.trials_built: 9 for the 10 trials"):
        load_yaml(text.replace("\"trials_built\": 10", "\"trials_built\": 9"))
    with pytest.raises(ModelError, match=r"trials\[4\]: unknown key 'default_klass'"):
        load_yaml(_edited(text, "    default_class:", "    default_klass:", 4))
    head = text.split("trials:\n")[0]
    with pytest.raises(ModelError, match="trials: a boosted model needs at least one trial"):
        load_yaml(head + "trials: []\n" + text.split("\noptions:")[1].join(["options:", ""]))


# ---- rescore and diff -------------------------------------------------------------------------
def test_rescore_recounts_each_trial_on_the_data(crx):
    train, test, _, boosted = crx
    scored = rescore(boosted, test)
    assert isinstance(scored, BoostedRuleSet) and len(scored.trials) == 10
    assert scored.fingerprint == test.fingerprint()
    assert all(rs.class_counts == (90, 110) for rs in scored.trials)
    assert [[r.conditions for r in rs.rules] for rs in scored.trials] == \
        [[r.conditions for r in rs.rules] for rs in boosted.trials]
    assert evaluate_votes(scored, test).errors == 27
    # trial 1 rescored on its own (unweighted) training data is trial 1
    assert rescore(boosted, train).trials[0] == boosted.trials[0]
    assert load_yaml(dump_yaml(scored)) == scored


def test_diff_trial_by_trial_and_the_decisions_that_move(crx):
    _, test, single, boosted = crx
    d = diff_models(single, boosted, test)
    out = d.as_json()
    assert out["old_trials"] == 1 and out["new_trials"] == 10
    assert out["trials"][0] == {"trial": 1, "rules": {"added": [], "removed": [], "changed": [], "unchanged": 14}}
    assert len(out["trials"][1]["rules"]["added"]) == 28
    assert out["decisions"] == {"rows": 200, "changed": 13, "flips": {"+ -> -": 7, "- -> +": 6}}
    text = describe_models(d, single, boosted, "crx.test")
    assert "Trial 2: only in the new model" in text and "Decisions on crx.test: 13 of 200 rows change" in text
    same = diff_models(boosted, boosted, test)
    assert same.decisions_changed == 0 and all(not t.added and not t.removed for t in same.trials)
