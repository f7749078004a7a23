"""Misclassification costs with boosting (issue 34): every trial learnt with the costs, the vote
deciding by the least expected cost (boosted.py); fit, evaluate, rules, cv, explain and report."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from c45rules import InputError
from c45rules.data import load_stem
from c45rules.errors import ModelError
from c45rules.export.yaml import dump_yaml, load_yaml
from c45rules.learn.pipeline import fit, fit_dataset
from c45rules.rules.evaluate import evaluate_votes

from .conftest import DATA, fails, ok

CRX = DATA / "crx" / "crx"


def crx_stem(tmp_path, costs: str | None):
    """crx's .names, .data and .test in tmp_path, with `costs` as its crx.costs when given."""
    for suffix in (".names", ".data", ".test"):
        shutil.copy(DATA / "crx" / f"crx{suffix}", tmp_path / f"crx{suffix}")
    if costs is not None:
        (tmp_path / "crx.costs").write_text(costs)
    return tmp_path / "crx"


def test_all_one_costs_with_five_trials_are_todays_boosted_model(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain = crx_stem(tmp_path / "a", None)
    ones = crx_stem(tmp_path / "b", "+, -: 1\n-, +: 1\n")
    ok("fit", plain, "--trials", "5", "-o", tmp_path / "plain.yaml")
    ok("fit", ones, "--trials", "5", "-o", tmp_path / "ones.yaml")
    assert (tmp_path / "plain.yaml").read_bytes() == (tmp_path / "ones.yaml").read_bytes()
    assert "costs" not in load_yaml(tmp_path / "ones.yaml").options_dict


@pytest.fixture(scope="module")
def crx_sets():
    return load_stem(str(CRX), test=True)


@pytest.mark.parametrize("pair, dear, plain_count, costed_count", [
    (("+", "-"), (1, 0), 19, 6),     # predicting + for a - case costs 5: test rows of class -, predicted +
    (("-", "+"), (0, 1), 13, 2),     # predicting - for a + case costs 5
])
def test_raising_an_errors_cost_lowers_its_count(crx_sets, pair, dear, plain_count, costed_count):
    train, test = crx_sets
    plain = fit_dataset(train, trials=10)[0]
    costed = fit_dataset(train, trials=10, costs={pair: 5.0})[0]
    assert len(costed.trials) == 10
    got_plain, got_costed = evaluate_votes(plain, test), evaluate_votes(costed, test)
    assert got_plain.confusion[dear] == plain_count and got_costed.confusion[dear] == costed_count
    # on the training cases too: that error is made no more
    assert evaluate_votes(costed, train).confusion[dear] == 0
    # the vote, not only the trials, decides by cost: the highest total would differ on some cases
    highest = np.array(costed.schema.classes, dtype=object)[np.argmax(costed.votes(test), axis=1)]
    assert (highest != costed.predict(test)).sum() > 0


@pytest.fixture(scope="module")
def costed_fit(tmp_path_factory):
    """fit crx --trials 3 --costs (predicting + for a - case costs 5): the model file and printout."""
    tmp = tmp_path_factory.mktemp("bcost")
    stem = crx_stem(tmp, None)
    (tmp / "dear.costs").write_text("| a + for a - case is dear\n+, -: 5\n")
    path = tmp / "model.yaml"
    out = ok("fit", stem, "--trials", "3", "--costs", tmp / "dear.costs", "-o", path).stdout
    return stem, path, out


def test_fit_round_trips_through_yaml(costed_fit):
    stem, path, out = costed_fit
    train, _ = load_stem(str(stem))
    model = load_yaml(path)
    assert model == fit_dataset(train, trials=3, costs={("+", "-"): 5.0})[0]
    assert model.options_dict["costs"] == (("+", "-", 5.0),) and model.options_dict["trials_built"] == 3
    assert all(rs.options_dict["costs"] == (("+", "-", 5.0),) for rs in model.trials)
    assert dump_yaml(model) == path.read_text()
    assert "boost     46     89(18.2%)   <<\n\nCost 89 (0.182 per case)" in out


def test_evaluate_prints_the_votes_total_cost(costed_fit):
    stem, path, _ = costed_fit
    text = ok("evaluate", path, stem.with_suffix(".test")).stdout
    assert "boost     46     49(24.5%)   <<\n\nCost 73 (0.365 per case)" in text
    got = json.loads(ok("evaluate", path, stem.with_suffix(".test"), "--json").stdout)
    assert (got["errors"], got["cost"], got["cost_per_case"], got["confusion"]) == (49, 73.0, 0.365,
                                                                                    [[47, 43], [6, 104]])


def test_rules_json_gives_the_votes_costs(tmp_path):
    stem = crx_stem(tmp_path, "+, -: 5\n")
    got = json.loads(ok("rules", stem, "--trials", "3", "--json").stdout)
    assert (got["train_errors"], got["train_cost"], got["test_cost"]) == (89, 89.0, None)


def test_cv_gives_each_folds_cost(tmp_path):
    stem = crx_stem(tmp_path, "+, -: 5\n")
    got = json.loads(ok("cv", stem, "--trials", "3", "-k", "3", "--json").stdout)
    costs = [f["cost"] for f in got["folds"]]
    assert len(costs) == 3 and all(c > 0 for c in costs)
    assert got["mean_cost_per_case"] == round(float(np.mean([f["cost"] / f["cases"] for f in got["folds"]])), 6)


def test_explain_and_report_show_the_expected_costs(costed_fit, tmp_path):
    stem, path, _ = costed_fit
    text = ok("explain", path, "--data", stem.with_suffix(".test"), "--row-number", "8").stdout
    assert text.splitlines()[0] == "class - by the vote of 3 trials (confidence 0.24773):"
    assert "  expected costs (sum of cost x total): + 3.08746, - 1.87511 (the least wins; a tie goes to" \
           " the class listed first)" in text
    got = json.loads(ok("explain", path, "--data", stem.with_suffix(".test"), "--row-number", "8", "--json").stdout)
    model = load_yaml(path)
    _, test = load_stem(str(stem), test=True)
    expected = model.expected_costs(test.subset(np.array([7])))[0]
    assert got["expected_costs"] == {"+": expected[0], "-": expected[1]} and got["class"] == "-"
    ok("report", path, "-o", tmp_path / "r.html", "--data", stem.with_suffix(".test"), "--explain-row", "8")
    html = (tmp_path / "r.html").read_text()
    assert '<th class="num">Expected cost</th>' in html and "the least expected cost" in html


def test_no_costs_no_expected_costs(crx_sets):
    model = fit_dataset(crx_sets[0], trials=2)[0]
    with pytest.raises(InputError, match="no misclassification costs"):
        model.expected_costs(crx_sets[1])


def test_a_boosted_files_costs_must_name_its_classes(costed_fit, tmp_path):
    _, path, _ = costed_fit
    bad = tmp_path / "bad.yaml"
    bad.write_text(path.read_text().replace('["+", "-", 5.0]', '["+", "maybe", 5.0]'))
    assert bad.read_text() != path.read_text()
    with pytest.raises(ModelError, match="options.costs"):
        load_yaml(bad)
    assert "options.costs" in fails("evaluate", bad, CRX.with_suffix(".test"))


def test_library_fit_takes_costs_with_trials():
    model = fit(CRX, trials=2, costs={("-", "+"): 3})
    assert model.options_dict["costs"] == (("-", "+", 3.0),) and len(model.trials) == 2
