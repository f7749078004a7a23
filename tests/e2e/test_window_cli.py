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
