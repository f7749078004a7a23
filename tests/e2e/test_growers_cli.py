"""`--grower` and rpart's options on the command line: tree, rules, fit."""
from __future__ import annotations

import json

import pytest

from c45rules.export.yaml import load_yaml

from .conftest import DATA, fails, ok

CRX = DATA / "crx" / "crx"


def test_tree_json_for_cart_is_rparts_leaves_and_errors():
    # ../shared/reference/rpart/crx.rpart.txt: default and full-tree controls
    out = json.loads(ok("tree", CRX, "-u", "--grower", "cart", "--json").stdout)
    assert out == {"grower": "cart", "leaves": 7, "train_errors": 47, "test_errors": 39}
    full = ok("tree", CRX, "-u", "--grower", "cart", "--cp", "0", "--minsplit", "2", "--minbucket", "1", "--json")
    assert json.loads(full.stdout) == {"grower": "cart", "leaves": 56, "train_errors": 0, "test_errors": 38}
    nosur = ok("tree", DATA / "hypo" / "hypo", "-u", "--grower", "cart", "--usesurrogate", "0",
               "--maxsurrogate", "0", "--json")
    assert json.loads(nosur.stdout) == {"grower": "cart", "leaves": 5, "train_errors": 16, "test_errors": 10}


def test_tree_text_for_cart_and_id3():
    out = ok("tree", DATA / "iris" / "iris", "--grower", "cart").stdout
    assert out.startswith("Decision Tree (cart):\n\npetallength <= 2.45 : Iris-setosa (50.0)\n")
    assert "Leaves 3, training errors 6 of 150 (4.0%)" in out
    golf = ok("tree", DATA / "golf" / "golf", "--grower", "id3").stdout
    assert "outlook = overcast: Play (4.0)" in golf and "|   humidity <= 70 : Play (2.0)" in golf


def test_fit_records_the_grower_and_its_options(tmp_path):
    model = tmp_path / "m.yaml"
    ok("fit", CRX, "--grower", "cart", "--cp", "0.02", "--xval", "3", "--seed", "7", "-o", model)
    options = load_yaml(model).options_dict
    assert (options["grower"], options["cp"], options["xval"], options["seed"]) == ("cart", 0.02, 3, 7)
    assert "min_objs" not in options
    rules = json.loads(ok("rules", CRX, "-u", "--grower", "id3", "--json").stdout)
    assert rules["rules"] > 0 and rules["test_errors"] is not None


def test_options_of_another_grower_are_refused():
    assert "--cp: option(s) of --grower cart, not of --grower c45" in fails("tree", CRX, "--cp", "0.1")
    assert "-m, -s: option(s) of --grower c45, not of --grower cart" in fails("rules", CRX, "--grower", "cart",
                                                                              "-m", "3", "-s")
    assert "expected 0, 1 or 2, got '3'" in fails("tree", CRX, "--grower", "cart", "--usesurrogate", "3")
    assert "invalid choice: 'c50'" in fails("tree", CRX, "--grower", "c50")
    assert "--min-child: option(s) of --grower chaid, not of --grower cart" in fails("tree", CRX, "--grower", "cart",
                                                                                    "--min-child", "5")
    assert "--alpha-merge: expected a number in (0, 1], got '0'" in fails("tree", CRX, "--grower", "chaid",
                                                                          "--alpha-merge", "0")


def test_chaid_tree_shows_kass_statistics_and_fit_records_its_options(tmp_path):
    args = ("tree", CRX, "-u", "--grower", "chaid", "--min-parent", "50", "--min-child", "20")
    out = ok(*args).stdout
    assert out.startswith("Decision Tree (chaid):\n\n[A9: chi-square 267.22, df 1, adjusted p 4.59e-60]\nA9 = t :\n"
                          "|   [A10: chi-square 29.76, df 1, adjusted p 4.9e-08]\n")
    assert "|   |   A11 <= 3 : + (64.0/13.0)\n" in out and "Test errors 33 of 200 (16.5%)" in out
    js = json.loads(ok(*args, "--json").stdout)
    assert (js["leaves"], js["train_errors"], js["test_errors"]) == (6, 61, 33)
    root = js["splits"][0]
    assert (root["attribute"], root["groups"], root["chi2"], root["df"]) == ("A9", ["A9 = t", "A9 = f"], 267.215316, 1)
    # A10 at depth 1 under A9 = t: 2 nominal categories in 2 groups, Kass's multiplier 1
    assert [(s["depth"], s["attribute"]) for s in js["splits"]] == [(0, "A9"), (1, "A10"), (2, "A11"), (2, "A4"),
                                                                    (1, "A10")]
    model = tmp_path / "m.yaml"
    ok("fit", CRX, "--grower", "chaid", "--bins", "10", "--no-bonferroni", "--max-depth", "2", "-o", model)
    options = load_yaml(model).options_dict
    assert {k: options[k] for k in ("grower", "bins", "bonferroni", "max_depth", "min_parent", "alpha_merge")} == {
        "grower": "chaid", "bins": 10, "bonferroni": False, "max_depth": 2, "min_parent": 100, "alpha_merge": 0.05}
    assert "cp" not in options and "min_objs" not in options
    assert "--no-bonferroni: option(s) of --grower chaid, not of --grower c45" in fails("tree", CRX, "--no-bonferroni")


def test_quest_on_the_command_line(tmp_path):
    out = json.loads(ok("tree", DATA / "iris" / "iris", "--grower", "quest", "--json").stdout)
    splits = out.pop("splits")
    assert out == {"grower": "quest", "leaves": 3, "train_errors": 6, "test_errors": None}
    # each split with the test that chose its attribute (issue 35 point 3)
    assert [(s["depth"], s["cases"], s["attribute"], s["test"], s["statistic"], s["df"]) for s in splits] == [
        (0, 150, "petallength", "F", 1179.034328, [2.0, 147.0]), (1, 100, "petalwidth", "F", 213.901361, [1.0, 98.0])]
    assert splits[0]["p"] == pytest.approx(3.05e-91, rel=1e-2)
    text = ok("tree", DATA / "iris" / "iris", "--grower", "quest").stdout
    assert "petallength (150 cases): F 1179.03, df 2, 147, p 3.05e-91\n    petalwidth (100 cases): F 213.901" in text
    crx = json.loads(ok("tree", CRX, "--grower", "quest", "--json").stdout)["splits"][0]
    # the chi-square of a discrete attribute is CHAID's: A9's at crx's root is 267.22 on 1 df there too
    assert (crx["attribute"], crx["test"], crx["statistic"], crx["df"]) == ("A9", "chi-square", 267.215316, [1.0])
    model = tmp_path / "m.yaml"
    ok("fit", CRX, "--grower", "quest", "--min-node", "30", "--prune-folds", "5", "--se-rule", "0",
       "--quest-alpha", "0.01", "--seed", "2", "-o", model)
    options = load_yaml(model).options_dict
    assert {k: options[k] for k in ("grower", "quest_alpha", "min_node", "prune_folds", "se_rule", "seed")} == {
        "grower": "quest", "quest_alpha": 0.01, "min_node": 30, "prune_folds": 5, "se_rule": 0.0, "seed": 2}
    # diff takes a quest model like any other: the same model twice changes nothing
    same = ok("diff", model, model).stdout
    assert same.startswith(f"Rules: 0 added, 0 removed, 0 changed, {len(load_yaml(model).rules)} unchanged")
    assert "--min-node: option(s) of --grower quest, not of --grower cart" in fails(
        "tree", CRX, "--grower", "cart", "--min-node", "5")
    assert "option prune_folds must be 0 (no pruning) or at least 2 folds, got 1" in fails(
        "tree", CRX, "--grower", "quest", "--prune-folds", "1")
    assert "expected a number in (0, 1), got '1'" in fails("tree", CRX, "--grower", "quest", "--quest-alpha", "1")
    # --xval K --seed N, as the issue and rpart name them, are quest's pruning folds
    model2 = tmp_path / "m2.yaml"
    ok("fit", CRX, "--grower", "quest", "--xval", "5", "--seed", "2", "--min-node", "30", "--se-rule", "0",
       "--quest-alpha", "0.01", "-o", model2)
    assert load_yaml(model2).options_dict["prune_folds"] == 5
    assert load_yaml(model2).rules == load_yaml(model).rules
    assert "--xval and --prune-folds: the same option" in fails("tree", CRX, "--grower", "quest", "--xval", "5",
                                                               "--prune-folds", "4")
