"""Issue 49.1: one option vocabulary across every command and grower (c45rules/cli/vocabulary.py),
the table of docs/options.md, and the old spellings kept for one release with a warning."""
from __future__ import annotations

import argparse
import json

import pytest

from c45rules.cli import _MODULES, build_parser
from c45rules.cli.vocabulary import OPTIONS, accepted, markdown_table

from .conftest import DATA, REPO, cli_err

GOLF = str(DATA / "golf" / "golf")
CRX = str(DATA / "crx" / "crx")


def _command_parser(name: str) -> argparse.ArgumentParser:
    return build_parser(name)._command_parser(name)


@pytest.mark.parametrize("name", sorted(_MODULES))
def test_every_option_of_every_command_is_in_the_vocabulary(name):
    spellings = {s for a in _command_parser(name)._actions for s in a.option_strings}
    assert spellings - accepted(name) == set()


# options of the learning commands with no default to show: the class column (required for a
# table, read from a C4.5 stem's .names) and fit's output (required)
NO_DEFAULT = {"--target", "--output"}


@pytest.mark.parametrize("name", ["tree", "rules", "fit", "tune", "cv"])
@pytest.mark.parametrize("grower", ["c45", "cart", "id3", "j48", "chaid", "quest"])
def test_learning_helps_show_each_options_default(name, grower):
    """`fit --grower G --help` (issue 49.1): every option taking a value shows its default, unless
    the vocabulary has none for it."""
    from c45rules.cli import build_parser
    from c45rules.cli.vocabulary import option
    parser = build_parser(name, help_grower=grower)._command_parser(name)
    missing = []
    for a in parser._actions:
        if not a.option_strings or a.nargs == 0 or a.help == argparse.SUPPRESS:
            continue
        shown = parser._get_formatter()._expand_help(a) if a.help else ""
        flag = a.option_strings[-1]
        if "default" not in shown and option(flag, name).default != "none" and flag not in NO_DEFAULT:
            missing.append(flag)
    assert missing == []
    assert "example:\n  c45rules " in parser.format_help()


def test_one_meaning_per_spelling_in_each_command():
    for name in _MODULES:
        seen: dict[str, object] = {}
        for o in OPTIONS:
            if name in o.commands:
                for f in o.flags:
                    assert seen.setdefault(f, o) is o, (name, f)
            for a in o.aliases:
                if name in a.commands:
                    # an old spelling is never a current option of the command it is deprecated in
                    assert all(a.spelling not in p.flags for p in OPTIONS if name in p.commands), (name, a)


def test_the_options_page_is_the_vocabularys_table():
    assert (REPO / "docs" / "options.md").read_text() == markdown_table()


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if "is deprecated" in line]


# (old argv, new argv, old spelling, new spelling): the same output, one warning naming the new one
RENAMES = [
    (["tree", GOLF, "--grower", "cart", "--minsplit", "2", "--maxdepth", "1", "--json"],
     ["tree", GOLF, "--grower", "cart", "--minsplit", "2", "--max-depth", "1", "--json"], "--maxdepth", "--max-depth"),
    (["tree", CRX, "--grower", "cart", "--xval", "5", "--seed", "1", "--json"],
     ["tree", CRX, "--grower", "cart", "--prune-folds", "5", "--seed", "1", "--json"], "--xval", "--prune-folds"),
    (["tree", CRX, "--grower", "quest", "--xval", "3", "--json"],
     ["tree", CRX, "--grower", "quest", "--prune-folds", "3", "--json"], "--xval", "--prune-folds"),
    (["tree", CRX, "--grower", "j48", "--reduced-error-pruning", "--folds", "5", "--json"],
     ["tree", CRX, "--grower", "j48", "--reduced-error-pruning", "--prune-folds", "5", "--json"],
     "--folds", "--prune-folds"),
    (["cv", GOLF, "-k", "3", "--json"], ["cv", GOLF, "--cv-folds", "3", "--json"], "-k", "--cv-folds"),
    (["cv", GOLF, "--folds", "3", "--json"], ["cv", GOLF, "--cv-folds", "3", "--json"], "--folds", "--cv-folds"),
    (["tune", GOLF, "--grid", "cf=10,25", "-k", "3", "--json"],
     ["tune", GOLF, "--grid", "cf=10,25", "--cv-folds", "3", "--json"], "-k", "--cv-folds"),
    (["tune", GOLF, "--grid", "cf=10,25", "--tune-folds", "3", "--json"],
     ["tune", GOLF, "--grid", "cf=10,25", "--cv-folds", "3", "--json"], "--tune-folds", "--cv-folds"),
    (["fit", GOLF, "--tune", "--grid", "cf=10,25", "--tune-folds", "3", "-o", "-"],
     ["fit", GOLF, "--tune", "--grid", "cf=10,25", "--cv-folds", "3", "-o", "-"], "--tune-folds", "--cv-folds"),
]


@pytest.mark.parametrize("old,new,spelling,use", RENAMES, ids=[f"{r[0][0]}{r[2]}" for r in RENAMES])
def test_old_spelling_works_as_before_and_warns_naming_the_new(old, new, spelling, use):
    code_old, out_old, err_old = cli_err(old)
    code_new, out_new, err_new = cli_err(new)
    assert (code_old, code_new) == (0, 0), err_old + err_new
    assert out_old == out_new
    assert _warnings(err_old) == [f"c45rules: warning: {spelling} is deprecated, use {use}"]
    assert _warnings(err_new) == []


def test_old_spelling_warns_once():
    code, out, err = cli_err(["cv", GOLF, "-k", "3", "-k", "3", "--json"])
    assert code == 0 and json.loads(out)["k"] == 3
    assert len(_warnings(err)) == 1


def test_old_cv_folds_are_the_cross_validations():
    code, out, _ = cli_err(["cv", GOLF, "--folds", "4", "--json"])
    assert code == 0 and json.loads(out)["k"] == 4 and len(json.loads(out)["folds"]) == 4


@pytest.mark.parametrize("argv,message", [
    # J48's --folds keeps J48's meaning alone: never cart's or quest's folds
    (["tree", GOLF, "--folds", "3"], "--folds: option of --grower j48, not of --grower c45 (its new name: --prune-folds)"),
    (["tree", GOLF, "--grower", "cart", "--folds", "3"], "--folds: option of --grower j48, not of --grower cart"),
    # cart's --maxdepth was never chaid's
    (["tree", GOLF, "--grower", "chaid", "--maxdepth", "2"], "--maxdepth: option of --grower cart, not of --grower"
                                                              " chaid"),
    (["tree", GOLF, "--grower", "cart", "--maxdepth", "2", "--max-depth", "3"], "--maxdepth and --max-depth"),
    (["tree", GOLF, "--max-depth", "2"], "--max-depth: option of --grower cart or --grower chaid, not of --grower c45"),
    (["tree", GOLF, "--grower", "id3", "--prune-folds", "2"], "--prune-folds: option of --grower j48 or --grower cart"
                                                              " or --grower quest, not of --grower id3"),
])
def test_old_spellings_keep_their_old_meaning_only(argv, message):
    code, _, err = cli_err(argv)
    assert code == 2 and message in err, err


def test_max_depth_is_carts_and_chaids():
    code, out, _ = cli_err(["tree", CRX, "--grower", "cart", "--max-depth", "1", "--json"])
    assert code == 0 and json.loads(out)["leaves"] == 2
    code, out, _ = cli_err(["tree", CRX, "--grower", "chaid", "--max-depth", "1", "--json"])
    assert code == 0 and [s["depth"] for s in json.loads(out)["splits"]] == [0]


def test_cv_takes_j48s_pruning_folds_now_that_they_have_their_own_name():
    code, out, err = cli_err(["cv", GOLF, "--grower", "j48", "--reduced-error-pruning", "--prune-folds", "2",
                              "--cv-folds", "2", "--json"])
    assert code == 0, err
    assert json.loads(out)["k"] == 2


@pytest.fixture(scope="module")
def crx_model_kept(tmp_path_factory):
    path = tmp_path_factory.mktemp("vocab") / "crx.yaml"
    code, _, err = cli_err(["fit", CRX, "-o", str(path)])
    assert code == 0, err
    return path


def test_export_train_and_draw_unpruned_replace_data_and_unpruned(crx_model_kept, tmp_path):
    old, new = tmp_path / "old.dot", tmp_path / "new.dot"
    code, _, err = cli_err(["export", str(crx_model_kept), "--to", "dot", "--data", CRX, "--unpruned", "-o", str(old)])
    assert code == 0, err
    assert _warnings(err) == ["c45rules: warning: --data is deprecated, use --train",
                              "c45rules: warning: --unpruned is deprecated, use --draw-unpruned"]
    code, _, err = cli_err(["export", str(crx_model_kept), "--to", "dot", "--train", CRX, "--draw-unpruned",
                            "-o", str(new)])
    assert code == 0 and _warnings(err) == [], err
    assert old.read_text() == new.read_text()
    assert new.read_text() != "" and "digraph" in new.read_text()


def test_report_row_number_replaces_explain_row(crx_model_kept, tmp_path):
    pages = []
    for flag in ("--explain-row", "--row-number"):
        out = tmp_path / f"{flag[2:]}.html"
        code, _, err = cli_err(["report", str(crx_model_kept), "--data", CRX + ".test", flag, "3", "-o", str(out)])
        assert code == 0, err
        assert _warnings(err) == ([] if flag == "--row-number" else
                                  ["c45rules: warning: --explain-row is deprecated, use --row-number"])
        pages.append(out.read_text())
    assert pages[0] == pages[1]


# ---- help: the common options and the chosen grower's, each with its default, one example ----
def _help(*argv: str) -> str:
    code, out, err = cli_err([*argv, "--help"])
    assert code == 0, err
    return out


@pytest.mark.parametrize("command", ["fit", "tree", "rules", "cv", "tune"])
def test_help_shows_the_chosen_growers_options_only(command):
    cart = _help(command, "--grower", "cart")
    assert "--cp CP" in cart and "--max-depth N" in cart and "--prune-folds N" in cart
    assert "--alpha-merge" not in cart and "--binary-splits" not in cart and "--min-objs" not in cart
    assert "--grower cart --cp" in cart.rstrip().splitlines()[-1]     # ends with one example, cart's
    c45 = _help(command)
    assert "--min-objs N" in c45 and "--cp CP" not in c45 and "--min-node N" not in c45 and "--max-depth N" not in c45
    assert "the other growers (cart, id3, j48, chaid, quest): 'c45rules" in " ".join(c45.split())
    assert c45.rstrip().splitlines()[-2:][0] == "example:"
    assert "C5.0's -t N is boosting trials" in " ".join(c45.split())
    chaid = _help(command, "--grower=chaid")
    assert "--min-parent N" in chaid and "--max-depth N" in chaid and "--prune-folds N" not in chaid


def test_fit_help_is_short_and_every_value_option_shows_its_default():
    text = _help("fit")
    assert len(text.splitlines()) < 200
    flat = " ".join(text.split())
    assert "--decimal {.,,} decimal mark of the numbers (',': 1,5 is 1.5; then the separator is not ',')" \
           " (default: .)" in flat
    assert "--encoding NAME" in flat and "(default utf-8" in flat


# ---- rules --json and fit --json hold the rules themselves --------------------------------------
def test_rules_json_and_fit_json_include_the_rules(tmp_path):
    from c45rules.export.yaml import load_yaml
    code, out, err = cli_err(["rules", CRX, "-u", "--json"])
    assert code == 0, err
    got = json.loads(out)
    # the counts as before (reference figures), and now the rules
    assert {k: got[k] for k in ("rules", "conditions", "default_class", "train_errors", "test_errors")} == \
        {"rules": 14, "conditions": 41, "default_class": "-", "train_errors": 34, "test_errors": 31}
    assert len(got["rule_list"]) == 14 and sum(len(r["conditions"]) for r in got["rule_list"]) == 41
    model = tmp_path / "m.yaml"
    code, out, err = cli_err(["fit", CRX, "-u", "--json", "-o", str(model)])
    assert code == 0, err
    fitted = json.loads(out)
    assert fitted["model"] == str(model) and fitted["rule_list"] == got["rule_list"]
    ruleset = load_yaml(model)
    for r, j in zip(ruleset.rules, fitted["rule_list"]):
        assert (j["id"], j["class"], j["covered"], j["errors"]) == (r.id, r.prediction, r.covered, r.errors)
        assert abs(j["confidence"] - r.confidence) < 1e-6
        assert j["text"] == " and ".join(str(c) for c in r.conditions)
        assert [(c["attribute"], c["op"]) for c in j["conditions"]] == [(c.attribute, c.op) for c in r.conditions]
    assert any(c["op"] == ">" and isinstance(c["value"], float) for j in fitted["rule_list"] for c in j["conditions"])


def test_boosted_rules_json_has_each_trials_rules():
    code, out, err = cli_err(["rules", GOLF, "--trials", "3", "--json"])
    assert code == 0, err
    got = json.loads(out)
    assert all(len(t["rule_list"]) == t["rules"] for t in got["trials"])


def test_fit_json_needs_a_model_file():
    code, _, err = cli_err(["fit", GOLF, "--json", "-o", "-"])
    assert code == 2 and "--json and -o - both write to stdout" in err


# ---- the library speaks Python, the command speaks its options ------------------------------------
def test_python_errors_name_parameters_and_cli_errors_name_options(tmp_path):
    import c45rules
    from c45rules.errors import InputError
    table = tmp_path / "t.csv"
    table.write_text("a,b,c\n1,x,yes\n2,y,no\n3,x,yes\n")
    with pytest.raises(InputError, match=r"t\.csv: a CSV/Parquet file needs target=COLUMN$") as e:
        c45rules.fit(str(table))
    assert "--" not in str(e.value)
    code, _, err = cli_err(["rules", str(table)])
    assert code == 2 and err.strip() == f"c45rules: error: {table}: a CSV/Parquet file needs --target COLUMN"
    with pytest.raises(InputError, match=r"^sep: expected ',', ';'") as e:
        c45rules.fit(str(table), "c", sep=":")
    code, _, err = cli_err(["rules", str(table), "--target", "c", "--sep", ":"])
    assert code == 2 and err.startswith("c45rules: error: --sep: expected ',', ';'"), err
    with pytest.raises(InputError, match=r"^decimal=',' needs another separator than ',' \(give sep=';'"):
        c45rules.fit(str(table), "c", decimal=",", sep=",")
    with pytest.raises(InputError, match=r"^encoding: unknown encoding 'klingon'"):
        c45rules.fit(str(table), "c", encoding="klingon")
    code, _, err = cli_err(["rules", str(table), "--target", "c", "--encoding", "klingon"])
    assert code == 2 and "c45rules: error: --encoding: unknown encoding 'klingon'" in err, err
    with pytest.raises(InputError, match=r"na_values, keep_na_tokens, sep, decimal and encoding apply"):
        c45rules.fit(GOLF, sep=";")
    code, _, err = cli_err(["rules", GOLF, "--sep", ";"])
    assert code == 2 and "--na-values, --keep-na-tokens, --sep, --decimal and --encoding apply" in err, err
    for param, flag in (("discrete", "--discrete"), ("continuous", "--continuous"), ("ignore", "--ignore")):
        with pytest.raises(InputError, match=rf"t\.csv: {param} names unknown column\(s\): 'zz'$"):
            c45rules.fit(str(table), "c", **{param: ["zz"]})
        code, _, err = cli_err(["rules", str(table), "--target", "c", flag, "zz"])
        assert code == 2 and err.strip() == f"c45rules: error: {table}: {flag} names unknown column(s): 'zz'", err


def test_cli_message_translates_only_the_named_parameters():
    from c45rules.cli.vocabulary import cli_message
    assert cli_message("x: needs target=COLUMN; the target column", ("target",)) == \
        "x: needs --target COLUMN; the target column"
    assert cli_message("class_weight: bad", ("class_weight",)) == "--class-weights: bad"
    assert cli_message("sep: bad", ()) == "sep: bad"
    # a parameter's name inside a path or file name is the path's, not the parameter's
    assert cli_message("/data/target/t.csv: needs target=COLUMN", ("target",)) == \
        "/data/target/t.csv: needs --target COLUMN"
    assert cli_message("x.sep.csv: give the separator with sep.", ("sep",)) == \
        "x.sep.csv: give the separator with --sep."
