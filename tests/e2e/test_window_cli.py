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
