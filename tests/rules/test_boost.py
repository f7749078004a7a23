"""Boosting (issue 34): the trials, early stops, the YAML of a boosted model, rescore and diff."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import reference as R
from c45rules import InputError, ModelError
from c45rules.model.boosted import BoostedRuleSet
from c45rules.data import load_stem
from c45rules.data.weights import weighted
from c45rules.export.yaml import dump_yaml, load_yaml
from c45rules.govern.diff import diff_models, describe_models
from c45rules.govern.rescore import rescore
from c45rules.learn.pipeline import fit, fit_dataset
from c45rules.rules.boost import boost_trials
from c45rules.rules.evaluate import evaluate_votes
from c45rules.model.ruleset import RuleSet


def stem(name: str) -> str:
    return str(R.DATA / name / name)


@pytest.fixture(scope="module")
def crx():
    train, test = load_stem(stem("crx"), test=True)
    return train, test, fit_dataset(train)[0], fit_dataset(train, trials=10)[0]


def test_crx_ten_trials_exact(crx):
    train, test, single, boosted = crx
    assert isinstance(boosted, BoostedRuleSet)
    # C5.0's gentle reweighting and leaf budget (issue 48): 185 rules (AdaBoost.M1 without a
    # budget: 249), the same 32 errors on crx.test
    assert [len(rs.rules) for rs in boosted.trials] == [14, 15, 11, 23, 18, 26, 19, 17, 17, 25]
    assert boosted.options_dict["trials"] == 10 and boosted.options_dict["trials_built"] == 10
    assert evaluate_votes(boosted, train).errors == 3
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
    # monk1 and golf: a trial that classifies every training case correctly ends the boosting
    for name in ("monk1", "golf"):
        train, _ = load_stem(stem(name))
        model = fit_dataset(train, trials=10)[0]
        assert len(model.trials) == 1 and model.options_dict["trials_built"] == 1
        assert model.options_dict["trials"] == 10
        assert evaluate_votes(model, train).errors == 0


def _constant(train, klass: int, rules: bool = True):
    """golf's single model with every rule and the default answering `klass` (or, without
    `rules`, stripped to that default class)."""
    base = fit_dataset(train)[0]
    name = train.schema.classes[klass]
    kept = tuple(replace(r, prediction=name) for r in base.rules) if rules else ()
    return replace(base, rules=kept, default_class=name)


def test_the_wrong_cases_share_moves_halfway_to_one_half():
    # a learner that always answers the majority class: 5 of 14 wrong at trial 1; C5.0's gentle
    # reweighting moves the wrong cases' share halfway to 1/2 each trial (AdaBoost.M1 put it at
    # 1/2 at once, and dropped trial 2), and each trial's error is that share
    train, _ = load_stem(stem("golf"))           # 9 play, 5 don't play
    majority = _constant(train, int(np.argmax(train.class_weights())))
    seen, ratios = [], []

    def learn(data, leaf_ratio):
        seen.append(None if data.weights is None else data.weights.copy())
        ratios.append(leaf_ratio)
        return majority, 1
    trials = boost_trials(train, 4, learn)
    e = 5 / 14
    expected = [e, (e + 0.5) / 2, ((e + 0.5) / 2 + 0.5) / 2]
    expected.append((expected[-1] + 0.5) / 2)
    np.testing.assert_allclose([t.error for t in trials], expected, rtol=1e-11)
    assert all(t.kept for t in trials)
    assert seen[0] is None
    for w in seen[1:]:
        np.testing.assert_allclose(w.sum(), 14.0)
        # each class's cases weigh alike: the share is taken in proportion and given equally
        assert len(np.unique(np.round(w, 12))) == 2
    # the leaf ratio: 1.1 x trial 1's pruned leaves (1 here) over the 14 cases, for trials 2 on
    assert ratios == [None] + [1.1 / 14] * 3


def test_a_trial_at_half_the_weight_is_dropped_and_stops_boosting():
    # trial 2 answers the minority class: more than half the weight wrong, so it is dropped
    train, _ = load_stem(stem("golf"))
    answers = iter([int(np.argmax(train.class_weights())), int(np.argmin(train.class_weights()))])

    def learn(data, leaf_ratio):
        return _constant(train, next(answers)), 1
    trials = boost_trials(train, 10, learn)
    assert [t.kept for t in trials] == [True, False] and trials[1].error > 0.5


def test_a_later_trial_without_rules_is_dropped_and_stops_boosting():
    train, _ = load_stem(stem("golf"))
    answers = iter([_constant(train, 0), _constant(train, 0), _constant(train, 0, rules=False)])
    trials = boost_trials(train, 10, lambda data, leaf_ratio: (next(answers), 1))
    # trials 1 and 2 have rules; trial 3 has none: dropped, though less than half the weight is wrong
    assert [t.kept for t in trials] == [True, True, False] and trials[2].error < 0.5


def test_reweighting_on_a_toy_vector():
    from c45rules.rules.boost import FLOOR, reweighted
    w = np.array([1.0, 1.0, 2.0, 4.0])
    wrong = np.array([True, False, False, False])
    # Wc 7, We 1: x = (7 - 1) / 4 = 1.5 taken from the right cases (times 5.5 / 7), given to the wrong
    np.testing.assert_allclose(reweighted(w, wrong, np.ones(4)), [2.5, 5.5 / 7, 11 / 7, 22 / 7])
    # two wrong cases share the extra equally, whatever their weights: Wc 6, We 2, x = 1
    np.testing.assert_allclose(reweighted(w, np.array([True, True, False, False]), np.ones(4)),
                               [1.5, 1.5, 5 / 3, 10 / 3])
    # the floor: no case below FLOOR x its starting weight, the total kept
    tiny = np.array([1e-9, 1.0, 1.0, 1.0])
    out = reweighted(tiny, np.array([False, True, False, False]), np.ones(4))
    # Wc 2, We 1, x = 0.25: the wrong case 1.25, the right ones times 0.875, the first then at
    # the floor; all scaled back to the total
    moved = np.array([FLOOR, 1.25, 0.875, 0.875])
    np.testing.assert_allclose(out, moved * tiny.sum() / moved.sum(), rtol=1e-6)


# ---- the leaf budget of the later trials (grow.py) ---------------------------------------------
def _frame_data(rows: dict, target: str = "k"):
    import pandas as pd
    from c45rules.data import from_frame
    return from_frame(pd.DataFrame(rows), target)


def _grown(data, leaf_ratio, compiled: bool):
    """The unpruned tree grown with the leaf budget, in the compiled growth or node by node."""
    from c45rules.tree.grow import _Grower
    g = _Grower(data, 2, True, False, leaf_ratio=leaf_ratio)
    g.compiled = compiled and g.compiled
    return g.run()


@pytest.mark.parametrize("compiled", [True, False])
def test_a_node_whose_budget_is_under_two_is_a_leaf(compiled):
    data = _frame_data({"x": [1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10], "k": list("aaaaabbbbb")})
    data = weighted(data, np.full(10, 0.5), None)      # weighted as a later trial: 5 in all
    assert _grown(data, None, compiled).kind == "threshold"
    # budget 0.39 x 5 = 1.95 < 2: a leaf; 0.4 x 5 = 2: the split
    assert _grown(data, 0.39, compiled).is_leaf
    assert _grown(data, 0.4, compiled).kind == "threshold"


@pytest.mark.parametrize("compiled", [True, False])
def test_a_discrete_test_with_more_branches_than_the_budget_is_refused(compiled):
    # d's four values give the classes exactly (gain ratio 0.5); x's best cut misses some
    d = list("pqrs") * 6
    k = ["a" if v in "pq" else "b" for v in d]
    xs = [float(i) + (0 if c == "a" else 6) for i, c in enumerate(k)]
    data = weighted(_frame_data({"d": d, "x": xs, "k": k}), np.ones(24), None)
    assert _grown(data, None, compiled).attribute == 0
    # 24 x 0.16 = 3.84 < 4 branches: d refused, x tested; 24 x 0.17 = 4.08: d again
    assert _grown(data, 0.16, compiled).attribute == 1
    assert _grown(data, 0.17, compiled).attribute == 0


@pytest.mark.parametrize("name", ["crx", "synth_10k"])
def test_the_budget_paths_grow_the_same_tree(name):
    # crx has unknown values (a branch with unknown outcomes sorts its own cases in the compiled
    # growth), synth_10k none (every node's sorted cases are handed down from its parent)
    from c45rules.tree.node import FlatTree
    train, _ = load_stem(stem(name))
    data = weighted(train, np.random.default_rng(1).uniform(0.2, 3.0, train.n), None)
    a, b = (FlatTree(_grown(data, 40 / train.n, c)) for c in (True, False))
    for field in ("klass", "kind", "attribute", "fanout", "cut", "items", "errors", "dist"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert len(a.klass) > 20 and len(a.klass) < len(FlatTree(_grown(data, None, True)).klass)


def test_later_trials_make_far_fewer_rules_on_synth_10k():
    # AdaBoost.M1 without a budget: 2,743 rules (66 in trial 1, 233-374 in each later one)
    train, _ = load_stem(stem("synth_10k"))
    model = fit_dataset(train, trials=10)[0]
    sizes = [len(rs.rules) for rs in model.trials]
    assert sizes[0] == 66 and max(sizes[1:]) < 100 and sum(sizes) < 1000


def test_user_weights_are_the_starting_weights():
    train, _ = load_stem(stem("monk3"))
    given = weighted(train, np.where(train.y == 0, 2.0, 1.0))
    model = fit_dataset(given, trials=5)[0]
    assert model.trials[0] == fit_dataset(given)[0]
    assert model.options_dict["weights"] == "sample_weight"
    assert [len(rs.rules) for rs in model.trials] == [14, 4, 7, 4, 9]
    # every trial's weights sum to the given total (62 cases at 2, 60 at 1)
    assert model.trials[0].class_counts == (124, 60)
    assert model.trials[1].class_counts == (94.2259887006, 89.7740112994)
    assert evaluate_votes(model, train).errors == 3


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
    assert len(out["trials"][1]["rules"]["added"]) == 15
    assert out["decisions"] == {"rows": 200, "changed": 11, "flips": {"+ -> -": 3, "- -> +": 8}}
    text = describe_models(d, single, boosted, "crx.test")
    assert "Trial 2: only in the new model" in text and "Decisions on crx.test: 11 of 200 rows change" in text
    same = diff_models(boosted, boosted, test)
    assert same.decisions_changed == 0 and all(not t.added and not t.removed for t in same.trials)


def test_later_trials_share_the_value_ranks_and_grow_the_same_trees():
    from c45rules.tree.grow import grow_tree
    from c45rules.tree.node import FlatTree
    train, _ = load_stem(stem("crx"))
    w = np.random.default_rng(2).uniform(0.2, 3.0, train.n)
    first = replace(train, weights=w, _value_ranks={})
    a = FlatTree(grow_tree(first, leaf_ratio=0.05))
    assert len(first._value_ranks) == 1
    ranks = next(iter(first._value_ranks.values()))
    second = replace(first, weights=w.copy()) # a later trial's copy: the same dict
    b = FlatTree(grow_tree(second, leaf_ratio=0.05))
    assert next(iter(second._value_ranks.values())) is ranks
    fresh = replace(train, weights=w, _value_ranks={})   # another dict: ranks of its own
    c = FlatTree(grow_tree(fresh, leaf_ratio=0.05))
    for x in (b, c):
        assert a.klass.tolist() == x.klass.tolist() and np.array_equal(a.items, x.items)
    # a boosting run keeps them to itself, not on the data it was given
    fit_dataset(train, trials=3)
    assert not train._value_ranks
