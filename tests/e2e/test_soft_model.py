"""`fit -p --keep-tree` keeps the tree and bands `tree -p` prints (c4.5 -p, c45r8-options/*.tree_p.txt);
`explain` reports them; -p refuses misclassification costs."""
from __future__ import annotations

import json
import re
import shutil

import pytest

import reference as R
from c45rules.export.yaml import load_yaml
from c45rules.tree.report import print_tree

from .conftest import DATA, fails, ok

LABOR = DATA / "labor" / "labor"


@pytest.fixture(scope="module")
def labor_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("soft") / "labor.yaml"
    ok("fit", LABOR, "-p", "--keep-tree", "-o", path)
    return path


@pytest.mark.parametrize("name", R.option_sets("tree_p"))
def test_fit_p_keeps_c45_p_cuts_and_bands(name, tmp_path):
    model = tmp_path / f"{name}.yaml"
    ok("fit", DATA / name / name, "-p", "--keep-tree", "-o", model)
    rs = load_yaml(model)       # the bands as read back from the file
    cuts = [n for n in rs.tree.walk() if n.kind == "threshold"]
    assert all(n.soft is not None for n in cuts)
    kept = [(rs.schema.attributes[n.attribute].name, f"{n.cut:g}", f"{n.soft[0]:g}", f"{n.soft[1]:g}") for n in cuts]
    assert kept == R.soft_cuts(name)
    # the whole pruned tree as c4.5 -p prints it with its bands: tests, leaves, counts
    assert "Decision Tree:\n" + print_tree(rs.tree, rs.schema, soft=True) + "\n" == R.soft_tree_text(name)


def test_every_tree_p_reference_is_checked():
    assert len(R.option_sets("tree_p")) == 22


def test_fit_p_on_labor_learns_its_rules_from_c45s_tree(labor_model):
    # the default grower's labor tree has 22 nodes (FIDELITY.md) and 4 rules; -p grows c4.5's
    # 17-node tree, whose pruned form it keeps, and the rules from it are c4.5rules' 3
    rs = load_yaml(labor_model)
    ref = R.rules("labor")
    assert [(r.id, [str(c) for c in r.conditions], r.prediction) for r in rs.rules] == \
        [(r.id, r.conditions, r.klass) for r in ref.rules]
    assert rs.default_class == ref.default == "good"
    assert rs.options_dict["soft"] is True
    # the recorded option re-grows that tree from the data (export --data): 17 nodes, not 22
    dot = ok("export", labor_model, "--to", "dot", "--draw-unpruned", "--train", f"{LABOR}.data").stdout
    assert len(re.findall(r"^  n\d+ \[", dot, flags=re.M)) == 17


def test_tree_p_prints_the_bands_fit_p_keeps(labor_model):
    rs = load_yaml(labor_model)
    printed = ok("tree", LABOR, "-p").stdout
    assert ("Softening thresholds\n\nTest wage-increase-first-year <> 2.5\n\tLower = 2.15972, Upper = 2.90347\n\n"
            "Test statutory-holidays <> 10\n\tLower = 9.27548, Upper = 10.1672\n") in printed
    assert "Decision Tree:\n" + print_tree(rs.tree, rs.schema, soft=True) in printed
    assert [n.soft for n in rs.tree.walk() if n.soft is not None] == \
        [(2.1597213745117188, 2.903472661972046), (9.275480270385742, 10.167197227478027)]


def test_explain_says_how_close_a_labor_case_is_to_each_cut(labor_model):
    data = f"{LABOR}.data"
    # case 38: wage 2.8, holidays 9; rule 3's cut at 3 is not in the pruned tree, so it has no band
    out = ok("explain", labor_model, "--row-number", "38", "--data", data).stdout
    assert out == ("class bad by rule 3 [84.1%, covers 8, 0 errors]:\n"
                   "  wage-increase-first-year <= 3   (wage-increase-first-year = 2.8: yes)\n"
                   "  statutory-holidays <= 10   (statutory-holidays = 9: yes; soft band [9.27548, 10.1672]:"
                   " outside it, 1 at or below the cut)\n")
    # case 22: wage 2.5, right on the cut
    out = ok("explain", labor_model, "--row-number", "22", "--data", data).stdout
    assert out == ("class bad by rule 1 [75.7%, covers 15, 2 errors]:\n"
                   "  wage-increase-first-year <= 2.5   (wage-increase-first-year = 2.5: yes;"
                   " soft band [2.15972, 2.90347]: inside it, 0 at or below the cut)\n")
    row = '{"wage-increase-first-year": 2.8, "statutory-holidays": 10.1, "longterm-disability-assistance": "yes"}'
    out = ok("explain", labor_model, "--row", row).stdout
    assert ("rule 3: fails statutory-holidays <= 10   (statutory-holidays = 10.1; soft band [9.27548, 10.1672]:"
            " inside it, 0.1 above the cut)") in out
    got = json.loads(ok("explain", labor_model, "--row", row, "--json").stdout)
    assert got["class"] == "good" and got["rule_id"] == 0
    # the first failed condition of each rule: 3 (holidays), 6 (disability), 1 (wage)
    assert [c.get("soft") for c in got["conditions"]] == [
        {"lower": 9.275480270385742, "upper": 10.167197227478027, "inside": True}, None,
        {"lower": 2.1597213745117188, "upper": 2.903472661972046, "inside": True}]


# ---- -p and misclassification costs: c4.5 -p has none, so -p refuses them -------------------
SOFT_COSTS = "-p (soft thresholds) does not go with misclassification costs"


def _golf_with_costs(tmp_path):
    for suffix in (".names", ".data"):
        shutil.copy(DATA / "golf" / f"golf{suffix}", tmp_path / f"golf{suffix}")
    (tmp_path / "golf.costs").write_text("Play, Don't Play: 5\n")
    return tmp_path / "golf"


def test_tree_p_refuses_costs(tmp_path):
    stem = _golf_with_costs(tmp_path)
    assert SOFT_COSTS in fails("tree", DATA / "golf" / "golf", "-p", "--costs", tmp_path / "golf.costs")
    # the stem's own golf.costs counts too; --costs none learns without them
    assert "give --costs none" in fails("tree", stem, "-p")
    assert "Softening thresholds" in ok("tree", stem, "-p", "--costs", "none").stdout
    # without -p the costs are used as before
    assert "Decision Tree:" in ok("tree", stem, "--costs", tmp_path / "golf.costs").stdout


def test_fit_p_refuses_costs(tmp_path):
    stem = _golf_with_costs(tmp_path)
    assert SOFT_COSTS in fails("fit", stem, "-p", "--keep-tree", "-o", tmp_path / "m.yaml")
    assert not (tmp_path / "m.yaml").exists()
    ok("fit", stem, "-p", "--keep-tree", "--costs", "none", "-o", tmp_path / "m.yaml")
    assert "costs" not in load_yaml(tmp_path / "m.yaml").options_dict


def test_the_library_refuses_soft_with_costs_weights_or_boosting():
    from c45rules.errors import InputError
    from c45rules.learn.pipeline import fit
    with pytest.raises(InputError, match="does not go with misclassification costs"):
        fit(f"{DATA / 'golf' / 'golf'}", soft=True, costs={("Play", "Don't Play"): 5.0})
    with pytest.raises(InputError, match="counts whole cases"):
        fit(f"{DATA / 'golf' / 'golf'}", soft=True, class_weight="balanced")
    with pytest.raises(InputError, match="boosting"):
        fit(f"{DATA / 'golf' / 'golf'}", soft=True, trials=3)
    with pytest.raises(InputError, match="applies to grower c45"):
        fit(f"{DATA / 'golf' / 'golf'}", soft=True, grower="cart")
