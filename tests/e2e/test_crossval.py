"""cv, tune and fit --tune: stratified folds, fold errors checked against the rules command on
the same fold's files, C5.0 on the same folds, and the tuned choice stored in the model."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from c45rules.learn.crossval import GridPoint, choose, parse_grid, stratified_folds, tune
from c45rules.data.names import load_stem, split_cases
from c45rules.errors import InputError
from reference import SHARED

from .conftest import DATA, fails, ok

C50 = SHARED / "anchors" / "c5.0"


def test_stratified_folds_split_every_class_evenly_and_repeatably():
    y = np.array([0] * 7 + [1] * 3 + [2] * 11)
    fold = stratified_folds(y, 3, seed=4)
    # 21 cases: 7 each; class counts per fold differ by at most one
    assert np.bincount(fold, minlength=3).tolist() == [7, 7, 7]
    for c in range(3):
        counts = np.bincount(fold[y == c], minlength=3)
        assert counts.max() - counts.min() <= 1 and counts.sum() == (y == c).sum()
    assert (stratified_folds(y, 3, seed=4) == fold).all()
    assert (stratified_folds(y, 3, seed=5) != fold).any()
    with pytest.raises(InputError, match="at least 2 folds"):
        stratified_folds(y, 1)
    with pytest.raises(InputError, match="30 folds need at least 30 cases, the data has 21"):
        stratified_folds(y, 30)


def _fold_stem(tmp_path: Path, name: str, train: np.ndarray, test: np.ndarray) -> Path:
    """A C4.5 stem holding one fold: the dataset's .names, its train cases and its test cases."""
    data, _ = load_stem(DATA / name / name)
    cells = split_cases(DATA / name / f"{name}.data", len(data.schema.attributes) + 1)
    lines = cells.apply(lambda r: ",".join(r), axis=1).to_numpy()
    stem = tmp_path / name
    (tmp_path / f"{name}.names").write_text((DATA / name / f"{name}.names").read_text())
    (tmp_path / f"{name}.data").write_text("\n".join(lines[train]) + "\n")
    (tmp_path / f"{name}.test").write_text("\n".join(lines[test]) + "\n")
    return stem


def test_cv_fold_errors_are_those_of_the_rules_command_on_that_fold(tmp_path):
    out = json.loads(ok("cv", DATA / "crx" / "crx", "-k", "5", "--seed", "3", "--json").stdout)
    assert set(out) == {"k", "repeats", "seed", "folds", "mean_error_pct", "se_error_pct"}
    assert (out["k"], out["repeats"], out["seed"], len(out["folds"])) == (5, 1, 3, 5)
    assert sum(f["cases"] for f in out["folds"]) == 490
    pct = [100 * f["errors"] / f["cases"] for f in out["folds"]]
    assert out["mean_error_pct"] == pytest.approx(np.mean(pct), abs=1e-4)
    assert out["se_error_pct"] == pytest.approx(np.std(pct, ddof=1) / np.sqrt(5), abs=1e-4)
    data, _ = load_stem(DATA / "crx" / "crx")
    fold = stratified_folds(data.y, 5, seed=3)
    for f in (0, 4):   # two folds, each learned again from files by `rules -u`
        (tmp_path / str(f)).mkdir()
        stem = _fold_stem(tmp_path / str(f), "crx", np.flatnonzero(fold != f), np.flatnonzero(fold == f))
        got = json.loads(ok("rules", stem, "-u", "--json").stdout)
        assert (got["test_errors"], got["rules"]) == (out["folds"][f]["errors"], out["folds"][f]["rules"])


def test_cv_repeats_use_new_shuffles_and_print_a_table():
    out = json.loads(ok("cv", DATA / "labor-neg" / "labor-neg", "-k", "3", "--repeats", "2", "--json").stdout)
    assert [(f["repeat"], f["fold"]) for f in out["folds"]] == [(r, f) for r in range(2) for f in range(3)]
    text = ok("cv", DATA / "golf" / "golf", "-k", "2").stdout
    assert text.startswith("2-fold cross-validation (seed 0)")
    assert [ln.split()[0] for ln in text.splitlines()[3:6]] == ["1", "2", "mean"]


@pytest.mark.skipif(not os.access(C50, os.X_OK) and not os.environ.get("CI"), reason="no c5.0 anchor")
def test_cv_compare_runs_c50_on_the_same_folds(tmp_path):
    out = json.loads(ok("cv", DATA / "crx" / "crx", "-k", "5", "--seed", "3", "--json",
                        "--compare", "c50", C50).stdout)
    theirs = out["c50"]
    assert [f["cases"] for f in theirs["folds"]] == [f["cases"] for f in out["folds"]]
    # fold 2 by hand: c5.0 on that fold's files prints the same test errors and rule count
    data, _ = load_stem(DATA / "crx" / "crx")
    fold = stratified_folds(data.y, 5, seed=3)
    stem = _fold_stem(tmp_path, "crx", np.flatnonzero(fold != 1), np.flatnonzero(fold == 1))
    import re
    import subprocess
    text = subprocess.run([str(C50), "-f", str(stem), "-r"], capture_output=True, text=True, check=True).stdout
    rules, errors = re.search(r"Evaluation on test data.*?^\s*(\d+)\s+(\d+)\(", text, re.S | re.M).groups()
    assert (theirs["folds"][1]["rules"], theirs["folds"][1]["errors"]) == (int(rules), int(errors))
    table = ok("cv", DATA / "crx" / "crx", "-k", "5", "--seed", "3", "--compare", "c50", C50).stdout
    assert "C5.0 errors" in table.splitlines()[2]


def test_cv_refusals():
    assert "the one peer known is c50" in fails("cv", DATA / "golf" / "golf", "--compare", "weka", "x")
    assert "not an executable file" in fails("cv", DATA / "golf" / "golf", "--compare", "c50", "/nonexistent")
    assert "--grid applies with --tune" in fails("cv", DATA / "golf" / "golf", "--grid", "cf=10")
    assert "expected NAME=V1,V2" in fails("tune", DATA / "golf" / "golf", "--grid", "x=1")
    assert "20 folds need at least 20 cases, the data has 14" in fails("cv", DATA / "golf" / "golf", "-k", "20")


def test_parse_grid():
    assert parse_grid(["cf=5,25", "m=2", "s=0,1"]) == {"cf": (5, 25), "m": (2,), "s": (0, 1)}
    with pytest.raises(InputError, match="the values must be numbers"):
        parse_grid(["cf=a"])
    with pytest.raises(InputError, match="at least one finite number"):
        parse_grid(["cf=inf"])


def test_choose_keeps_the_untuned_options_within_one_standard_error():
    untuned = GridPoint({"cf": 25, "m": 2}, 14.0, 2.0, 9.0)
    a = GridPoint({"cf": 10, "m": 2}, 12.0, 2.0, 8.0)
    b = GridPoint({"cf": 10, "m": 5}, 12.0, 1.5, 6.0)    # ties a's error with fewer rules: the lowest
    c = GridPoint({"cf": 50, "m": 5}, 13.0, 0.5, 5.0)
    # the limit is b's 12.0 + 1.5: the untuned 14.0 is beyond it, so b is chosen
    lowest, chosen = choose([a, b, c, untuned], untuned)
    assert (lowest.options, chosen.options) == ({"cf": 10, "m": 5}, {"cf": 10, "m": 5})
    # at exactly the limit (13.5) the untuned options stay, though three points err less
    kept = GridPoint({"cf": 25, "m": 2}, 13.5, 3.0, 9.0)
    lowest, chosen = choose([a, b, c, kept], kept)
    assert (lowest.options, chosen.options) == ({"cf": 10, "m": 5}, {"cf": 25, "m": 2})
    # equal errors and rules: the first in the grid is the lowest
    d = GridPoint({"cf": 5, "m": 10}, 12.0, 4.0, 6.0)
    assert choose([d, b, untuned], untuned) == (d, untuned)     # limit 16.0 keeps the untuned


def test_tune_on_crx_keeps_the_defaults_the_folds_cannot_beat():
    data, _ = load_stem(DATA / "crx" / "crx")
    res = tune(data, {"cf": (10, 25), "m": (2, 5)}, k=5, seed=0)
    got = {tuple(p.options.values()): (round(p.error_pct, 2), round(p.se_pct, 2), p.rules) for p in res.points}
    assert got == {(10, 2): (13.27, 2.16, 8.8), (10, 5): (13.27, 2.39, 6.6),
                   (25, 2): (13.67, 2.23, 10.8), (25, 5): (13.88, 2.2, 8.4)}
    # cf 10 with m 2 and with m 5 err alike, m 5 has fewer rules: the lowest; the defaults'
    # 13.67% is within its 13.27% + 2.39, so they stay
    assert res.lowest.options == {"cf": 10, "m": 5} and res.untuned.options == {"cf": 25, "m": 2}
    assert res.best == {"cf": 25, "m": 2} and round(res.limit_pct, 2) == 15.66


def test_tune_adds_the_untuned_point_when_the_grid_lacks_it():
    data, _ = load_stem(DATA / "crx" / "crx")
    res = tune(data, {"cf": (10, 50), "m": (5, 10)}, k=5, seed=0, options={"cf": 0.1})
    assert [p.options for p in res.points][-1] == {"cf": 10, "m": 2}
    assert len(res.points) == 5 and res.untuned is res.points[-1]
    assert res.best == {"cf": 10, "m": 2}      # 13.27%, as m 5's lowest 13.27%
    out = json.loads(ok("tune", DATA / "crx" / "crx", "--grid", "cf=10,50", "m=5,10", "-k", "5", "-c", "10",
                        "--json").stdout)
    assert (out["untuned"], out["lowest"], out["best"]) == ({"cf": 10, "m": 2}, {"cf": 10, "m": 5}, {"cf": 10, "m": 2})
    assert len(out["grid"]) == 5 and out["limit_pct"] == round(res.limit_pct, 4)


def test_fit_tune_stores_the_choice_and_fits_with_it(tmp_path):
    vote = DATA / "vote" / "vote"
    model = tmp_path / "m.yaml"
    ok("fit", vote, "--tune", "--grid", "cf=10,25,50", "m=2,5", "--tune-folds", "5", "-o", model)
    from c45rules.export.yaml import load_yaml
    rs = load_yaml(model)
    o = rs.options_dict
    # on vote cf 10, m 5 errs 5.33% (se 0.62) against the defaults' 7.33%: beyond the limit
    assert (o["cf"], o["min_objs"]) == (0.1, 5)
    assert o["tuned"] == {"grid": {"cf": (10, 25, 50), "m": (2, 5)}, "folds": 5, "seed": 0,
                          "best": {"cf": 10, "m": 5}, "mean_error_pct": 5.3333, "limit_pct": 5.9569}
    plain = tmp_path / "p.yaml"
    ok("fit", vote, "-c", "10", "-m", "5", "-o", plain)
    assert load_yaml(plain).rules == rs.rules
    tuned = json.loads(ok("tune", vote, "--grid", "cf=10,25,50", "m=2,5", "-k", "5", "--json").stdout)
    assert tuned["best"] == {"cf": 10, "m": 5} and len(tuned["grid"]) == 6
    text = ok("tune", vote, "--grid", "cf=10,25,50", "m=2,5", "-k", "5").stdout.splitlines()
    assert "limit 5.96%" in text[0]
    assert text[4].split() == ["10", "5", "5.33%", "0.62", "2.4", "<-", "best,", "lowest"]
    assert text[5].split() == ["25", "2", "7.33%", "1.13", "4.6", "<-", "untuned"]


def test_nested_cv_tunes_each_fold_on_its_training_part():
    out = json.loads(ok("cv", DATA / "labor-neg" / "labor-neg", "-k", "3", "--tune", "--grid", "cf=10,25",
                        "m=1,2", "--tune-folds", "3", "--json").stdout)
    assert all(set(f["options"]) == {"cf", "m"} for f in out["folds"])


@pytest.mark.parametrize("name, base, subsets", [("crx", {}, (False,)), ("monk2", {"subset": True}, (True,)),
                                                  ("labor", {"winnow": True}, (False,)),
                                                  ("glass", {}, (False, True))])   # no discrete attribute
def test_fit_rulesets_sharing_a_tree_across_cf_gives_fit_datasets_rulesets(name, base, subsets, monkeypatch):
    from c45rules.learn import pipeline
    from c45rules.learn.pipeline import fit_dataset, fit_rulesets
    data, _ = load_stem(DATA / name / name)
    sets = [{**base, "cf": cf, "min_objs": m, "subset": s} for s in subsets for m in (2, 5) for cf in (0.1, 0.25, 0.5)]
    grown = []
    real = pipeline.grow_with
    monkeypatch.setattr(pipeline, "grow_with", lambda d, o, **kw: grown.append(o["min_objs"]) or real(d, o, **kw))
    shared = fit_rulesets(data, sets)
    monkeypatch.undo()
    if not base.get("winnow"):      # (winnowing grows trees of its own)
        assert grown == [2, 5]      # one tree per m: cf, and subset without discrete attributes, share it
    alone = [fit_dataset(data, **o)[0] for o in sets]
    assert shared == alone
    # cf changes the rules, so sharing the tree did not collapse them into one
    assert len({len(rs.rules) for rs in alone}) > 1 or len({str(rs) for rs in alone}) > 1
