"""The `c45rules` command end to end on the shared datasets, checked against c4.5 / c4.5rules."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pandas as pd
import pytest

from c45rules.data.frame import load_data
from c45rules.learn.pipeline import fit_dataset
from c45rules.export.yaml import load_yaml

from .conftest import DATA, REFERENCE, REPO, cli, cli_err, fails, ok, run

CRX = DATA / "crx" / "crx"
CRX_TEST_CSV = DATA / "crx" / "crx_test.csv"
GOLF = DATA / "golf" / "golf"


def reference_tree(name: str) -> str:
    """c4.5's output from 'Decision Tree:' on, without its 'Tree saved' note."""
    text = (REFERENCE / f"{name}.tree.txt").read_text()
    return text[text.index("Decision Tree:"):].replace("Tree saved\n\n\n", "")


def reference_rules(name: str) -> str:
    """c4.5rules' output from the first rule on."""
    text = (REFERENCE / f"{name}.rules.txt").read_text()
    return text[text.index("\nRule ") + 1:]


# ---- tree and rules: the reference programs' numbers and layout ------------------------------
def test_tree_json_crx_matches_reference_summary():
    out = json.loads(ok("tree", CRX, "-u", "--json").stdout)
    assert out == {"unpruned": {"size": 90, "train_errors": 19, "test_errors": 34},
                   "pruned": {"size": 58, "train_errors": 24, "test_errors": 34, "estimate_pct": 11.9}}


def test_tree_json_without_test_data_has_null_test_errors():
    out = json.loads(cli(["tree", f"{GOLF}.names", "--json"])[1])
    assert out == {"unpruned": {"size": 8, "train_errors": 0, "test_errors": None},
                   "pruned": {"size": 8, "train_errors": 0, "test_errors": None, "estimate_pct": 38.5}}


@pytest.mark.parametrize("name,flags", [("crx", ["-u"]), ("golf", [])])
def test_tree_text_is_c45s(name, flags):
    p = ok("tree", DATA / name / name, *flags)
    assert p.stdout == reference_tree(name)
    assert p.stderr == ""   # no progress when stderr is not a terminal
    assert ("Simplified Decision Tree:" in p.stdout) == (name == "crx")


def test_rules_json_crx_matches_reference_summary():
    out = json.loads(ok("rules", CRX, "-u", "--json").stdout)
    assert len(out.pop("rule_list")) == 14   # the rules themselves (issue 49)
    assert out == {"rules": 14, "conditions": 41, "default_class": "-", "train_errors": 34,
                   "test_errors": 31}


def test_rules_with_two_jobs_print_the_same_as_one():
    assert ok("rules", CRX, "-u", "-j", "2").stdout == ok("rules", CRX, "-u").stdout


def test_rules_golf_prints_the_reference_rule_block():
    stdout = ok("rules", GOLF).stdout
    block = ("Rule 2:\n    \toutlook = overcast\n\t->  class Play  [70.7%]\n\n"
             "Rule 4:\n    \toutlook = rain\n    \twindy = false\n\t->  class Play  [63.0%]\n\n"
             "Rule 1:\n    \toutlook = sunny\n    \thumidity > 75\n\t->  class Don't Play  [63.0%]\n\n"
             "Rule 3:\n    \toutlook = rain\n    \twindy = true\n\t->  class Don't Play  [50.0%]\n\n"
             "Default class: Play\n")
    assert block in stdout
    assert stdout == reference_rules("golf")   # the evaluation table and matrix too


def test_rules_crx_with_test_data_is_c45rules_output():
    assert ok("rules", CRX, "-u").stdout == reference_rules("crx")


def test_rules_from_csv_with_test_csv():
    out = json.loads(ok("rules", f"{CRX}.csv", "--target", "class", "--test", CRX_TEST_CSV,
                        "--json").stdout)
    assert len(out.pop("rule_list")) == 14   # the rules themselves (issue 49.1), then the figures
    assert out == {"rules": 14, "conditions": 41, "default_class": "-", "train_errors": 34,
                   "test_errors": 31}


def test_rules_options_reach_the_learner():
    flags = ["-c", "10", "-F", "5", "-r", "2", "-m", "5", "-g"]
    got = json.loads(ok("rules", CRX, *flags, "--json").stdout)
    train, _ = load_data(str(CRX))
    rs = fit_dataset(train, cf=0.10, fisher=5.0, redundancy=2.0, min_objs=5, gain_ratio=False)[0]
    assert got["rules"] == len(rs.rules) != 14
    assert got["conditions"] == sum(len(r.conditions) for r in rs.rules)


# ---- fit, evaluate, explain ------------------------------------------------------------------
def test_fit_writes_the_library_model_and_prints_rules(crx_model, tmp_path):
    train, _ = load_data(str(CRX))
    assert load_yaml(crx_model) == fit_dataset(train)[0]
    p = ok("fit", CRX, "-o", tmp_path / "m.yaml", "--test", DATA / "crx" / "crx.test")
    assert p.stdout.startswith("Rule 28:\n    \tA9 = t\n    \tA15 > 228\n\t->  class +  [96.4%]\n")
    assert "Tested 490, errors 34 (6.9%)" in p.stdout and "Tested 200, errors 31 (15.5%)" in p.stdout
    assert (tmp_path / "m.yaml").read_text() == crx_model.read_text()


def test_evaluate_on_csv_and_c45_test_file(crx_model):
    csv_out = ok("evaluate", crx_model, CRX_TEST_CSV).stdout
    c45_out = cli(["evaluate", str(crx_model), f"{CRX}.test"])[1]
    # the heading names the file evaluated; the rest is c4.5rules' test evaluation
    assert csv_out.startswith(f"Evaluation on {CRX_TEST_CSV} (200 items):\n")
    assert c45_out.startswith(f"Evaluation on {CRX}.test (200 items):\n")
    assert csv_out.split("\n", 1)[1] == c45_out.split("\n", 1)[1]
    ref = reference_rules("crx")
    ref = ref[ref.index("Evaluation on test data"):].rstrip("\n") + "\n"
    assert ref.startswith("Evaluation on test data (200 items):\n")
    assert csv_out.split("\n", 1)[1] == ref.split("\n", 1)[1]
    assert "Tested 200, errors 31 (15.5%)   <<" in csv_out
    assert "  15     3   4.6%    12      6 (50.0%)\t    -1 (3|4) \t+" in csv_out


def test_evaluate_target_names_the_class_column(crx_model, tmp_path):
    renamed = tmp_path / "renamed.csv"
    renamed.write_text(CRX_TEST_CSV.read_text().replace(",class\n", ",approved\n", 1))
    assert "Tested 200, errors 31" in ok("evaluate", crx_model, renamed, "--target", "approved").stdout
    code, _, err = cli_err(["evaluate", str(crx_model), str(renamed)])
    assert code == 2 and "renamed.csv: class column 'class' not found" in err


def test_explain_row_names_the_rule(crx_model):
    out = ok("explain", crx_model, "--row", '{"A9": "t", "A15": 300}').stdout
    assert out == ("class + by rule 28 [96.4%, covers 106, 2 errors]:\n"
                   "  A9 = t   (A9 = t: yes)\n  A15 > 228   (A15 = 300: yes)\n")


def test_explain_default_lists_the_failed_conditions(crx_model):
    out = ok("explain", crx_model, "--row", "{}").stdout
    assert out.startswith("class - by default: no rule fired\n  rule 28: fails A9 = t   (A9 = unknown)")
    assert out.count("  rule ") == 14


def test_explain_row_number_of_a_file(crx_model):
    out = ok("explain", crx_model, "--row-number", "3", "--data", f"{CRX}.test").stdout
    assert out.startswith("class + by rule 28") and "(A15 = 4607: yes)" in out
    assert cli(["explain", str(crx_model), "--row-number", "3", "--data", str(CRX_TEST_CSV)]) == (0, out)


# ---- exports ---------------------------------------------------------------------------------
def _crx_test_table(db: sqlite3.Connection) -> None:
    frame = pd.read_csv(CRX_TEST_CSV, dtype=str, keep_default_na=False)
    for col in ("A2", "A3", "A8", "A11", "A14", "A15"):   # the continuous attributes
        frame[col] = pd.to_numeric(frame[col].replace("?", None))
    frame = frame.replace("?", None)
    frame.insert(0, "case_id", range(len(frame)))
    frame.to_sql("cases", db, index=False)


def test_export_sql_runs_in_sqlite_like_predict(crx_model, crx_predicted, tmp_path):
    ok("export", crx_model, "--to", "sql", "--table", "cases", "-o", tmp_path / "r.sql")
    ok("export", crx_model, "--to", "sql", "--case-only", "-o", tmp_path / "case.sql")
    expected = pd.read_csv(crx_predicted, dtype=str, keep_default_na=False)
    with sqlite3.connect(":memory:") as db:
        _crx_test_table(db)
        got = pd.read_sql((tmp_path / "r.sql").read_text(), db).sort_values("case_id")
        case = (tmp_path / "case.sql").read_text()
        only = [r[0] for r in db.execute(f"SELECT {case} FROM cases ORDER BY case_id")]
    assert list(got["predicted_class"]) == list(expected["predicted_class"])
    rule_ids = ["" if pd.isna(v) else str(int(v)) for v in got["rule_id"]]
    assert rule_ids == list(expected["rule_id"])
    assert only == list(expected["predicted_class"])
    assert expected["predicted_class"].ne(expected["class"]).sum() == 31


def test_export_sql_default_table_and_dialect(crx_model):
    text = ok("export", crx_model, "--to", "sql", "--dialect", "postgres").stdout
    assert 'FROM "input_table" AS "t"' in text and text.rstrip().endswith(";")
    code, _, err = cli_err(["export", str(crx_model), "--to", "sql", "--dialect", "nosuch"])
    assert code == 2 and "nosuch" in err


def test_export_python_module_scores_like_predict(crx_model, crx_predicted, tmp_path):
    ok("export", crx_model, "--to", "python", "-o", tmp_path / "rules.py")
    subprocess.run([sys.executable, "-I", tmp_path / "rules.py", CRX_TEST_CSV, "-o", tmp_path / "py.csv"],
                   check=True, cwd=tmp_path)
    assert (tmp_path / "py.csv").read_text() == crx_predicted.read_text()


def test_export_yaml_is_the_model(crx_model):
    assert ok("export", crx_model, "--to", "yaml").stdout == crx_model.read_text()


def test_export_tree_graphs_regrow_the_checked_tree(crx_model, tmp_path):
    import networkx as nx
    dot = ok("export", crx_model, "--to", "dot", "--train", CRX).stdout
    assert dot.startswith("digraph tree {") and dot.count("shape=") == 58   # pruned size
    ok("export", crx_model, "--to", "graphml", "--train", f"{CRX}.data", "--draw-unpruned",
       "-o", tmp_path / "t.graphml")
    assert nx.read_graphml(tmp_path / "t.graphml").number_of_nodes() == 90
    code, _, err = cli_err(["export", str(crx_model), "--to", "dot", "--train", f"{CRX}.test"])
    assert code == 2 and "crx.test: not the data this model was fitted on" in err
    code, _, err = cli_err(["export", str(crx_model), "--to", "dot", "--graph", "tree"])
    assert code == 2 and "the model does not hold the tree; give the training data with --train" in err


def test_export_pictures_from_the_model_alone(crx_model, tmp_path):
    import networkx as nx
    # without --train and without a kept tree: the rule list (14 rules, their classes, the default)
    dot = ok("export", crx_model, "--to", "dot").stdout
    assert dot.startswith("digraph rules {") and dot.count("shape=note") == 14 and dot.count("shape=box") == 15
    ok("export", crx_model, "--to", "graphml", "-o", tmp_path / "r.graphml")
    g = nx.read_graphml(tmp_path / "r.graphml")
    assert g.number_of_nodes() == 29 and g.nodes["0"]["rule_id"] == 28
    # fit --keep-tree: the tree drawn from the model equals the tree re-grown from the data
    kept = tmp_path / "kept.yaml"
    ok("fit", CRX, "-o", kept, "--keep-tree")
    assert ok("export", kept, "--to", "dot").stdout == ok("export", crx_model, "--to", "dot", "--train", CRX).stdout
    assert ok("export", kept, "--to", "dot", "--graph", "rules").stdout == dot
    code, _, err = cli_err(["export", str(kept), "--to", "dot", "--draw-unpruned"])
    assert code == 2 and "the model does not hold the unpruned tree" in err


def test_report_holds_rules_evaluation_and_tree(crx_model, tmp_path):
    out = tmp_path / "report.html"
    p = ok("report", crx_model, "--train", CRX, "--data", CRX_TEST_CSV, "-o", out)
    assert str(out) in p.stdout
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert "A15 &gt; 228" in html and 'id="evaluation"' in html and 'id="tree"' in html


# ---- demo and help ---------------------------------------------------------------------------
def test_demo_end_to_end(tmp_path):
    p = ok("demo", tmp_path / "out")
    assert p.stdout.startswith("The data: Quinlan's credit-approval data")
    assert "200 of 200 rows agree with RuleSet.predict" in p.stdout
    for name in ("model.yaml", "rules.sql", "rules.py", "report.html"):
        assert (tmp_path / "out" / name).stat().st_size > 0
    # the rules as text: what the demo printed after its lines on the data, up to its own lines
    rules = (tmp_path / "out" / "rules.txt").read_text()
    assert rules.startswith("Rule 28:") and f"test them.\n\n{rules}\nHow to read this:\n" in p.stdout
    assert 'FROM "cases" AS "t"' in (tmp_path / "out" / "rules.sql").read_text()
    train, _ = load_data(str(REPO / "examples" / "crx" / "crx"))
    assert load_yaml(tmp_path / "out" / "model.yaml") == fit_dataset(train)[0]


COMMANDS = ["tree", "rules", "fit", "predict", "evaluate", "explain", "export", "report", "rescore", "diff", "demo"]


def test_help_lists_the_commands():
    top = ok("--help").stdout
    assert all(c in top for c in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(command):
    code, out = cli([command, "--help"])
    assert code == 0 and f"example:\n  c45rules {command} " in out


@pytest.mark.parametrize("line", [["rules", "x", "-u", "-j", "2", "--json"], ["-q", "tree", "x", "-s", "-m", "3"],
                                  ["--debug", "predict", "m.yaml", "d.csv", "-o", "p.csv"]])
def test_the_parser_set_up_for_one_command_reads_its_line_as_the_full_parser_does(line):
    from c45rules.cli import _command, build_parser
    assert _command(line) == line[1 if line[0].startswith("-") else 0]
    assert vars(build_parser(_command(line)).parse_args(line)) == vars(build_parser().parse_args(line))
    assert _command(["--debug", "rulez", "x"]) is None and _command(["-q"]) is None


def test_rules_with_one_job_imports_no_pool_machinery_nor_the_other_commands_libraries():
    # startup cost (issue 33): what only -j N, serve, demo or a misspelt choice need is
    # imported when it is needed
    code = ("import sys, io, c45rules.cli as c\n"
            "out, sys.stdout = sys.stdout, io.StringIO()\n"
            f"c.main(['rules', {str(GOLF)!r}, '--json'])\n"
            "sys.stdout = out\n"
            "print(sorted(m for m in ('multiprocessing', 'concurrent.futures', 'sqlite3', 'socket', 'difflib')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_python_dash_m_runs_the_same_command():
    p = subprocess.run([sys.executable, "-m", "c45rules", "rules", GOLF, "--json"],
                       capture_output=True, text=True, check=True)
    assert json.loads(p.stdout)["rules"] == 4


# ---- failures: exit status 2, one line naming the culprit, no partial output -----------------
def test_missing_data_file():
    assert "/nope/crx" in fails("rules", "/nope/crx")
    code, _, err = cli_err(["tree", "nope.csv", "--target", "class"])
    assert code == 2 and "nope.csv: file not found" in err


def test_bad_target_column_names_it():
    msg = fails("rules", f"{CRX}.csv", "--target", "nope")
    assert "crx.csv" in msg and "'nope'" in msg


def test_bad_option_value():
    assert "argument -c/--cf: expected a percentage in (0, 100], got '0'" in fails("tree", CRX, "-c", "0")


@pytest.mark.parametrize("argv,words", [
    (["rules", str(CRX), "-m", "0"], "-m/--min-objs"),
    (["rules", str(CRX), "-F", "101"], "-F/--fisher"),
    (["rules", str(CRX), "-r", "-1"], "-r/--redundancy"),
    (["rules", str(CRX), "-j", "0"], "argument -j/--jobs: expected a whole number >= 1, or -1, got '0'"),
    (["export", "m.yaml", "--to", "xml"], "--to"),
    (["predict", "m.yaml", "x.csv", "-o", "o.csv", "--chunksize", "0"], "--chunksize"),
    (["frobnicate"], "invalid choice"),
    (["explain", "m.yaml"], "--row"),
])
def test_usage_errors_in_process(argv, words):
    code, _, err = cli_err(argv)
    assert code == 2 and words in err and err.startswith("c45rules: error: ")


def test_malformed_model(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: c45rules-ruleset\nrules: [1\n")
    assert str(bad) in fails("evaluate", bad, CRX_TEST_CSV)
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text('format: "c45rules-ruleset"\nformat_version: 1\n')
    code, _, err = cli_err(["predict", str(wrong), str(CRX_TEST_CSV), "-o", str(tmp_path / "o.csv")])
    assert code == 2 and f"{wrong}: " in err and not (tmp_path / "o.csv").exists()
    code, _, err = cli_err(["explain", str(tmp_path / "missing.yaml"), "--row", "{}"])
    assert code == 2 and "missing.yaml: file not found" in err


@pytest.mark.parametrize("argv,words", [
    (["rules", f"{CRX}.csv", "--target", "class", "-u"], "-u needs a C4.5 stem"),
    (["rules", str(GOLF), "-u"], "golf.test: file not found"),
    (["rules", str(CRX), "--discrete", "A1"], "--discrete apply to CSV/Parquet data"),
    (["rules", str(CRX), "-u", "--test", str(CRX_TEST_CSV)], "not both"),
    (["tree", f"{CRX}.csv", "--target", "class", "--continuous", "A1"], "'A1' declared continuous"),
    (["explain", "{model}", "--row", "{not json"], "--row: not valid JSON"),
    (["explain", "{model}", "--row", '{"A99": 1}'], "'A99'"),
    (["explain", "{model}", "--row-number", "201", "--data", str(CRX_TEST_CSV)], "has 200 data rows"),
    (["explain", "{model}", "--row-number", "2"], "--row-number needs --data"),
    (["export", "{model}", "--to", "yaml", "--train", str(CRX)], "only used by --to dot/graphml"),
    (["evaluate", "{model}", str(GOLF)], "golf.data"),
])
def test_input_errors_in_process(crx_model, argv, words):
    code, out, err = cli_err([a.replace("{model}", str(crx_model)) for a in argv])
    assert code == 2 and words in err and out == ""


def test_failed_fit_keeps_the_old_model(tmp_path):
    model = tmp_path / "m.yaml"
    model.write_text("old\n")
    fails("fit", f"{CRX}.csv", "--target", "nope", "-o", model)
    assert model.read_text() == "old\n" and sorted(tmp_path.iterdir()) == [model]


def test_debug_shows_the_traceback():
    p = run("rules", "/nope/crx", "--debug")
    assert p.returncode == 2 and "Traceback" in p.stderr
    assert p.stderr.strip().splitlines()[-1].startswith("c45rules: error: ")


def test_unexpected_errors_exit_1_in_one_line():
    code = ("import sys, c45rules.cli as cli\n"
            "def boom(args): raise RuntimeError('kaboom')\n"
            "cli.COMMANDS['tree'] = boom\n"
            "sys.exit(cli.main(sys.argv[1:]))\n")
    p = subprocess.run([sys.executable, "-c", code, "tree", str(GOLF)], capture_output=True, text=True)
    assert p.returncode == 1
    assert p.stderr == ("c45rules: error: unexpected RuntimeError: kaboom"
                        " (run with --debug for the traceback)\n")


def test_progress_only_on_a_terminal_and_not_with_quiet():
    import os
    import pty

    from .conftest import command

    def stderr_on_terminal(*flags: str) -> tuple[str, str]:
        master, slave = pty.openpty()
        try:
            p = subprocess.run([*command(), *flags, "rules", str(GOLF), "--json"], stdout=subprocess.PIPE,
                               stderr=slave, text=True, timeout=60)
            os.close(slave)
            chunks = []
            while True:
                try:
                    data = os.read(master, 4096)
                except OSError:      # EIO: the terminal is closed and drained
                    break
                if not data:
                    break
                chunks.append(data)
        finally:
            os.close(master)
        return p.stdout, b"".join(chunks).decode()

    out, err = stderr_on_terminal()
    assert json.loads(out)["rules"] == 4          # results stay on stdout
    assert "c45rules: reading" in err and "selecting rules" in err
    assert stderr_on_terminal("--quiet") == (out, "")


# ---- column kinds of a CSV: a .names file or --discrete/--continuous/--ignore ---------------------
def test_rules_on_csv_with_the_names_file_equal_the_stems():
    out = json.loads(ok("rules", f"{CRX}.csv", "--target", "class", "--names", f"{CRX}.names",
                        "--test", CRX_TEST_CSV, "--json").stdout)
    assert len(out.pop("rule_list")) == 14   # the rules themselves (issue 49.1), then the figures
    assert out == {"rules": 14, "conditions": 41, "default_class": "-", "train_errors": 34, "test_errors": 31}


def test_fit_csv_with_kind_overrides(tmp_path):
    model = tmp_path / "g.yaml"
    ok("fit", f"{GOLF}.csv", "--target", "class", "--discrete", "temperature", "--ignore", "windy",
       "-o", model, "-q")
    schema = load_yaml(model).schema
    assert [(a.name, a.kind) for a in schema.attributes] == [
        ("outlook", "discrete"), ("temperature", "discrete"), ("humidity", "continuous"), ("windy", "ignore")]
    assert schema.attribute("temperature").values[:3] == ("64", "65", "68")


# ---- mistakes a person makes on the command line ---------------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["rulse", "x"], "invalid choice: 'rulse' (choose from 'tree', 'rules', 'fit', 'predict', 'evaluate',"
                     " 'explain', 'export', 'report', 'rescore', 'diff', 'cv', 'tune', 'demo', 'import', 'serve', 'audit') (did you mean 'rules'?)"),
    (["rules", "x", "--tarket", "class"], "unrecognized arguments: --tarket class (did you mean '--target'?)"),
    (["export", "m.yaml", "--to", "pyhton"], "(did you mean 'python'?)"),
    (["rules", "x", "--zzz"], "unrecognized arguments: --zzz (see 'c45rules rules --help')"),
])
def test_unknown_commands_and_options_suggest_the_nearest(argv, message):
    code, _, err = cli_err(argv)
    assert code == 2 and message in err and err.startswith("c45rules: error: ")


def test_cf_below_one_is_refused_naming_both_readings():
    code, _, err = cli_err(["rules", str(GOLF), "--cf", "0.25"])
    assert code == 2
    assert "0.25 is read as a percentage, as c4.5 reads -c: 0.25%" in err
    assert "not the fraction 0.25 = 25%; write -c 25 for 25%" in err
    assert cli(["rules", str(GOLF), "-c", "1", "--json"])[0] == 0


def test_arguments_in_the_wrong_order_are_told_so(tmp_path):
    model = tmp_path / "m.yaml"
    assert cli(["fit", str(GOLF), "-o", str(model), "-q"])[0] == 0
    for command in ("predict", "evaluate"):
        out = ["-o", str(tmp_path / "o.csv")] if command == "predict" else []
        code, _, err = cli_err([command, f"{GOLF}.data", str(model), *out])
        assert (code, err) == (2, f"c45rules: error: arguments in the wrong order: {GOLF}.data is data"
                                  f" and {model} a model; the model comes first: MODEL.yaml DATA\n")
    code, _, err = cli_err(["explain", f"{GOLF}.names", "--row", "{}"])
    assert code == 2 and f"{GOLF}.names: is a data file, not a model" in err
    code, _, err = cli_err(["rules", str(model)])
    assert code == 2 and f"{model}: is a model file, but 'rules' learns from data" in err


def test_help_and_parsing_import_neither_numpy_nor_pandas_nor_sqlglot():
    # startup cost (issue 33): building the whole parser must stay light; the heavy
    # libraries load when a command runs
    code = ("import sys; from c45rules.cli import build_parser; build_parser()\n"
            "import c45rules, c45rules.data, c45rules.export\n"
            "print(sorted(m for m in ('numpy', 'pandas', 'sqlglot', 'pyarrow') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    # and the lazy names still resolve, to the same objects as their modules'
    import c45rules
    from c45rules.export.yaml import load_yaml
    from c45rules.model.ruleset import RuleSet
    assert c45rules.RuleSet is RuleSet and c45rules.export.load_yaml is load_yaml
    assert "fit" in dir(c45rules)
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        c45rules.nope


def test_learning_from_a_c45_stem_imports_no_pandas(tmp_path):
    # `c45rules rules golf` in 0.3 s (issue 33): pandas (0.3 s to import) only where a table
    # or DataFrame is read; a model written from a stem and predicted from a .data file too
    model = tmp_path / "golf.yaml"
    code = ("import sys; from c45rules.cli import main\n"
            f"main(['rules', {str(GOLF)!r}]); main(['fit', {str(GOLF)!r}, '-o', {str(model)!r}])\n"
            f"main(['evaluate', {str(model)!r}, {str(GOLF) + '.data'!r}])\n"
            "print('loaded:', sorted(m for m in ('pandas', 'sqlglot', 'pyarrow', 'numpy.ma') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "Tested 14, errors 0 (0.0%)" in out.stdout
    # nor numpy.ma, which np.unique imports (1.2 MB and 10 ms): data.distinct.sorted_distinct
    assert out.stdout.strip().splitlines()[-1] == "loaded: []"
