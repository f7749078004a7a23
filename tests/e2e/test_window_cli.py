"""`tree -t/-w/-i` (c4.5 windowing), `tree -p` and `rules -t` on the command line: text and --json shapes."""
from __future__ import annotations

import json

import reference as R

from .conftest import DATA, fails, ok

GOLF = DATA / "golf" / "golf"
MONK1 = DATA / "monk1" / "monk1"


def test_tree_t10_text_is_c45s_with_test_data():
    assert ok("tree", MONK1, "-u", "-t", "10").stdout == R.windowing_text("monk1")


def test_tree_t_json_shape():
    out = json.loads(ok("tree", GOLF, "-t", "3", "--json").stdout)
    assert out == {"trials": [{"unpruned": {"size": 8, "train_errors": 0},
                               "pruned": {"size": 8, "train_errors": 0}}] * 3,
                   "best_trial": 0}


def test_window_alone_means_ten_trials():
    out = json.loads(ok("tree", MONK1, "-w", "40", "--json").stdout)
    assert len(out["trials"]) == 10
    # a different first window than the default (max(2 sqrt(124), 24) = 24) gives other trees
    assert out != json.loads(ok("tree", MONK1, "-t", "10", "--json").stdout)


def _windows(text: str) -> list[int]:
    """The window column of the first trial's cycle table."""
    table = text.split("-----   ----    ------")[1].split("\n\n")[0]
    return [int(line.split()[2]) for line in table.splitlines()[1:]]


def test_increment_bounds_the_cases_added_per_cycle():
    # 4 misclassified cases: -i 1 adds max(1, 4 // 2) = 2, -i 7 adds all 4 (besttree.c Iterate)
    assert _windows(ok("tree", GOLF, "-t", "1", "-i", "1").stdout) == [7, 9, 10, 11, 12]
    assert _windows(ok("tree", GOLF, "-t", "1", "-i", "7").stdout) == [7, 11, 13]


def test_bad_windowing_options_are_refused():
    assert "at most 10000" in fails("tree", GOLF, "-t", "10001")
    assert "whole number" in fails("tree", GOLF, "-t", "0")
    assert "--grower c45" in fails("tree", GOLF, "-t", "2", "--grower", "cart")


# ---- -p -------------------------------------------------------------------------------------
CRX = DATA / "crx" / "crx"


def test_tree_p_text_is_c45s():
    text = (R.OPTIONS / "crx.tree_p.txt").read_text()
    assert ok("tree", CRX, "-u", "-p").stdout == text[text.index("Decision Tree:"):].replace("Tree saved\n\n\n", "")


def test_tree_p_on_labor_prints_c45s_tree():
    # fractional weights: c4.5's 17-node tree, grown in its order of the cases (FIDELITY.md)
    text = (R.OPTIONS / "labor.tree_p.txt").read_text()
    assert ok("tree", DATA / "labor" / "labor", "-p").stdout == \
        text[text.index("Decision Tree:"):].replace("Tree saved\n\n\n", "")


def test_fit_p_keeps_the_bands_and_explain_reports_them(tmp_path):
    from c45rules.export.yaml import load_yaml
    model = tmp_path / "crx.yaml"
    ok("fit", CRX, "-p", "--keep-tree", "-o", model)
    bands = [n.soft for n in load_yaml(model).tree.walk() if n.soft is not None]
    assert len(bands) == 9 and f"{bands[0][0]:g},{bands[0][1]:g}" == "132.28,608.659"
    out = ok("explain", model, "--row", '{"A9": "t", "A15": 300}').stdout
    assert "A15 > 228   (A15 = 300: yes; soft band [132.28, 608.659]: inside it, 72 above the cut)" in out
    soft = json.loads(ok("explain", model, "--row", '{"A9": "t", "A15": 700}', "--json").stdout)
    assert soft["conditions"][1]["soft"] == {"lower": bands[0][0], "upper": bands[0][1], "inside": False}


def test_fit_without_p_keeps_no_band(tmp_path):
    model = tmp_path / "crx.yaml"
    ok("fit", CRX, "--keep-tree", "-o", model)
    assert "soft:" not in model.read_text()


def test_bad_soft_options_are_refused(tmp_path):
    assert "--keep-tree" in fails("fit", CRX, "-p", "-o", tmp_path / "m.yaml")
    assert "-p" in fails("tree", CRX, "-p", "-t", "2")


def test_a_bad_band_in_a_model_is_named(tmp_path):
    import pytest

    from c45rules.errors import ModelError
    from c45rules.export.yaml import load_yaml
    model = tmp_path / "crx.yaml"
    ok("fit", CRX, "-p", "--keep-tree", "-o", model)
    text = model.read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("soft: [132.2799530029297, 608.6588745117188]", "soft: [608.7, 132.3]"))
    with pytest.raises(ModelError, match=r"tree\[\d+\]\.soft.*lower <= upper"):
        load_yaml(bad)


# ---- rules -t and fit -t: the composite ruleset ----------------------------------------------
def test_rules_t_json_shape_and_numbers():
    out = json.loads(ok("rules", MONK1, "-u", "-t", "10", "--json").stdout)
    # c4.5rules' table for monk1 -t 10 (c45r8-options/monk1.rules_t10.txt)
    assert [t["rules"] for t in out["trials"]] == [10, 12, 12, 11, 12, 12, 11, 11, 12, 11]
    assert [t["train_errors"] for t in out["trials"]] == [0, 0, 0, 8, 0, 0, 0, 0, 0, 0]
    assert (out["rules"], out["train_errors"], out["test_errors"]) == (10, 0, 0)


def test_rules_t_text_is_c4_5rules_with_test_data_and_dropped_rules():
    # monk2: five "Drop rule" steps, evaluation on monk2.test; the stem echoed as given
    text = ok("rules", "monk2", "-u", "-t", "10", cwd=DATA / "monk2").stdout
    assert R.undated(text) == R.composite_text("monk2")
    assert text.splitlines()[1].startswith("C4.5 [release 8] rule generator\t")


def test_rules_t_text_echoes_the_stem_given_and_counts_the_attributes():
    text = ok("rules", f"{GOLF}.names", "-t", "2").stdout
    assert f"\tFile stem <{GOLF}>\n\nRead 14 cases (4 attributes) from {GOLF}\n" in text
    assert "unseen" not in text and text.count("Final rules from tree") == 2
    assert text.endswith("  **       4    0( 0.0%)\n\t\t\t\tAv size = 4.0,  av errors = 0.0 (0.0%)\n")


def test_fit_t_saves_the_composite_and_records_the_windowing(tmp_path):
    from c45rules.export.yaml import load_yaml
    model = tmp_path / "monk1.yaml"
    ok("fit", MONK1, "-t", "10", "-o", model)
    rs = load_yaml(model)
    assert len(rs.rules) == 10
    assert {k: rs.options_dict[k] for k in ("trials", "window", "increment")} == \
        {"trials": 10, "window": 24, "increment": 4}
    # the tree of a windowed model cannot be re-grown from the data alone
    assert "--keep-tree" in fails("export", model, "--to", "dot", "--train", f"{MONK1}.data")


def test_windowing_with_tune_is_refused(tmp_path):
    assert "--tune" in fails("fit", GOLF, "-t", "2", "--tune", "-o", tmp_path / "m.yaml")


def test_windowing_and_soft_thresholds_refuse_weights_and_winnowing(tmp_path):
    import pandas as pd
    table = pd.read_csv(DATA / "golf" / "golf.csv")
    table["w"] = [1, 2] * 7
    path = tmp_path / "golf_w.csv"
    table.to_csv(path, index=False)
    target = table.columns[-2]
    weighted = (path, "--target", target, "--weights", "w")
    assert "(windowing) count whole cases: they do not go with --weights" in fails("rules", *weighted, "-t", "3")
    assert "do not go with --weights or --class-weights" in fails("tree", *weighted, "-t", "3")
    assert "do not go with --weights or --class-weights" in fails("tree", *weighted, "-p")
    assert "counts whole cases: it does not go with --weights" in fails(
        "fit", *weighted, "-p", "--keep-tree", "-o", tmp_path / "m.yaml")
    assert "-t/-w/-i (windowing) and --winnow: choose one" in fails("rules", GOLF, "-t", "3", "--winnow")
