"""`--costs FILE` and a stem's STEM.costs on the command line (issue 34, point 4)."""
from __future__ import annotations

import json
import shutil

from c45rules.export.yaml import load_yaml

from .conftest import DATA, cli_err, fails, ok


def costed_stem(tmp_path, text="good, bad: 5\n"):
    for suffix in (".names", ".data"):
        shutil.copy(DATA / "credit-g" / f"credit-g{suffix}", tmp_path / f"credit-g{suffix}")
    (tmp_path / "credit-g.costs").write_text(text)
    return tmp_path / "credit-g"


def test_stem_costs_read_and_said(tmp_path):
    stem = costed_stem(tmp_path)
    code, out, err = cli_err(["fit", str(stem), "-o", str(tmp_path / "m.yaml")])
    assert code == 0
    assert err == f"c45rules: note: misclassification costs read from {stem}.costs (--costs none: without them)\n"
    assert "Tested 1000, errors 260 (26.0%)   <<\nCost 424 (0.424 per case)\n" in out
    model = load_yaml(tmp_path / "m.yaml")
    assert model.options_dict["costs"] == (("good", "bad", 5.0),)
    code, out, err = cli_err(["evaluate", str(tmp_path / "m.yaml"), str(stem), "--json"])
    got = json.loads(out)
    assert (got["errors"], got["cost"], got["cost_per_case"]) == (260, 424.0, 0.424)
    # -q: no note
    code, out, err = cli_err(["rules", str(stem), "--json", "-q"])
    assert (code, err) == (0, "")
    got = json.loads(out)
    assert (got["train_errors"], got["train_cost"], got["test_cost"], got["default_class"]) == (260, 424.0, None, "bad")


def test_costs_none_is_todays_model(tmp_path):
    stem = costed_stem(tmp_path)
    code, _, err = cli_err(["fit", str(stem), "--costs", "none", "-o", str(tmp_path / "none.yaml")])
    assert (code, err) == (0, "")
    ok("fit", DATA / "credit-g" / "credit-g", "-o", tmp_path / "plain.yaml")
    assert (tmp_path / "none.yaml").read_bytes() == (tmp_path / "plain.yaml").read_bytes()


def test_costs_file_with_csv(tmp_path):
    costs = tmp_path / "crx.costs"
    costs.write_text("| predicting + for a - case costs 5\n+, -: 5\n")
    p = ok("rules", DATA / "crx" / "crx.csv", "--target", "class", "--costs", costs,
           "--test", DATA / "crx" / "crx_test.csv", "--json")
    got = json.loads(p.stdout)
    assert p.stderr == ""
    assert (got["train_errors"], got["train_cost"], got["test_errors"], got["test_cost"]) == (29, 53.0, 32, 96.0)


def test_cv_reports_the_mean_cost(tmp_path):
    stem = costed_stem(tmp_path)
    code, out, _ = cli_err(["cv", str(stem), "-k", "3", "--json", "-q"])
    got = json.loads(out)
    assert [(f["cases"], f["cost"]) for f in got["folds"]] == [(334, 221.0), (333, 242.0), (333, 259.0)]
    assert got["mean_cost_per_case"] == round((221 / 334 + 242 / 333 + 259 / 333) / 3, 6)


def test_bad_costs_file_is_one_line(tmp_path):
    stem = costed_stem(tmp_path, "good, bad: 5\nbad, ugly: 1\n")
    assert fails("fit", stem, "-q", "-o", tmp_path / "m.yaml") == (
        f"c45rules: error: {stem}.costs:2: unknown class 'ugly' (classes: good, bad)")
    assert not (tmp_path / "m.yaml").exists()


def test_windowing_and_costs_refused(tmp_path):
    stem = costed_stem(tmp_path)
    assert fails("rules", stem, "-t", "3", "-q") == (
        "c45rules: error: -t/-w/-i (windowing) do not go with misclassification costs (--costs FILE, or the"
        " stem's STEM.costs: give --costs none)")


def test_tree_with_costs(tmp_path):
    stem = costed_stem(tmp_path)
    code, out, _ = cli_err(["tree", str(stem), "--json", "-q"])
    got = json.loads(out)
    # without costs: 466 / 60 unpruned, 140 / 145 pruned (FIDELITY.md)
    assert (got["unpruned"]["size"], got["unpruned"]["train_errors"]) == (475, 70)
    assert (got["pruned"]["size"], got["pruned"]["train_errors"]) == (249, 119)
