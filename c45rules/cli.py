"""The `c45rules` command: learn, print, score, explain and export C4.5 trees and rules.

Results go to stdout (so pipes work), progress to stderr only when stderr is a terminal and
`--quiet` is not given. Exit status: 0 success, 2 bad usage or bad input (a one-line
`c45rules: error: ...` naming the file, row or column), 1 an unexpected failure. `--debug`
adds the traceback. Every file the command writes is written atomically: a failure leaves
the previous file, if any, untouched and no partial file behind.

Options follow c4.5 and c4.5rules: `-c` is the confidence level in percent (default 25),
`-m` the minimum cases per branch, `-g` the gain criterion instead of gain ratio, `-s`
subset tests, `-F` the Fisher significance level in percent, `-r` the redundancy factor,
`-a` simulated annealing for the rule subset search, `-u` evaluation on STEM.test.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import __version__
from .errors import InputError, ModelError

TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")


# ---- argument parsing ---------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    """argparse with the one-line error format of the rest of the command."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"c45rules: error: {message} (see '{self.prog} --help')\n")


def _number(text: str, convert, ok, expected: str):
    """`convert(text)` if it converts and passes `ok`, else argparse's error naming `expected`."""
    try:
        v = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not ok(v):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return v


def _percent(text: str) -> float:
    return _number(text, float, lambda v: 0 < v <= 100, "a percentage in (0, 100]")


def _positive_int(text: str) -> int:
    return _number(text, int, lambda v: v >= 1, "a whole number >= 1")


def _positive_float(text: str) -> float:
    return _number(text, float, lambda v: v > 0 and v != float("inf"), "a number > 0")


def _jobs(text: str) -> int:
    return _number(text, int, lambda v: v >= 1 or v == -1, "a whole number >= 1, or -1")


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def _common() -> argparse.ArgumentParser:
    # SUPPRESS: given after the command these override, absent they keep the top-level value
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="no progress messages on stderr")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="show the traceback of an error")
    return p


def _data_options(*, test: bool = True) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("data")
    g.add_argument("data", metavar="DATA",
                   help="C4.5 stem (STEM.names + STEM.data; the .names or .data path also works)"
                        " or a CSV/Parquet file with --target")
    g.add_argument("--target", metavar="COL", help="class column of a CSV/Parquet file")
    g.add_argument("--names", metavar="FILE.names",
                   help="take the attributes and classes of a CSV from a C4.5 .names file")
    for kind in ("discrete", "continuous", "ignore"):
        g.add_argument(f"--{kind}", metavar="A,B", action="append", default=[],
                       help=f"CSV columns to treat as {kind} (comma-separated, repeatable)")
    if test:
        g.add_argument("--test", metavar="FILE", help="also evaluate on FILE (C4.5 .test/.data or CSV/Parquet)")
        g.add_argument("-u", "--unseen", action="store_true",
                       help="also evaluate on STEM.test, as c4.5 -u")
    return p


def _tree_options() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("tree options (as c4.5)")
    g.add_argument("-c", "--cf", type=_percent, default=25.0, metavar="CF",
                   help="pruning confidence level in percent (default 25)")
    g.add_argument("-m", "--min-objs", type=_positive_int, default=2, metavar="N",
                   help="at least two branches must hold N cases (default 2)")
    g.add_argument("-g", "--gain", action="store_true", help="gain criterion instead of gain ratio")
    g.add_argument("-s", "--subset", action="store_true", help="tests on subsets of discrete values")
    g = p.add_argument_group("speed")
    g.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N",
                   help="workers: threads for the compiled steps, else processes (default 1; -1: one per"
                        " core); the results do not depend on it")
    return p


def _rule_options() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("rule options (as c4.5rules)")
    g.add_argument("-F", "--fisher", type=_percent, metavar="P",
                   help="drop conditions by Fisher's exact test at significance P percent")
    g.add_argument("-r", "--redundancy", type=_positive_float, default=1.0, metavar="R",
                   help="redundancy factor for the coding cost of rules (default 1)")
    g.add_argument("-a", "--annealing", action="store_true",
                   help="simulated annealing for the rule subset search")
    g.add_argument("--seed", type=_int, metavar="N",
                   help="seed of the annealing random() (default: glibc's default state)")
    return p


EXAMPLES = {
    "tree": "c45rules tree examples/crx/crx -u\n  c45rules tree data.csv --target class --json",
    "rules": "c45rules rules examples/crx/crx -u\n  c45rules rules examples/crx/crx --json",
    "fit": "c45rules fit examples/crx/crx -o model.yaml\n"
           "  c45rules fit loans.csv --target default --discrete branch -o model.yaml",
    "predict": "c45rules predict model.yaml new_cases.csv -o scored.csv",
    "evaluate": "c45rules evaluate model.yaml examples/crx/crx.test\n"
                "  c45rules evaluate model.yaml crx_test.csv --target class",
    "explain": "c45rules explain model.yaml --row '{\"A9\": \"t\", \"A15\": 300}'\n"
               "  c45rules explain model.yaml --row-number 3 --data examples/crx/crx.test",
    "export": "c45rules export model.yaml --to sql --table loans -o rules.sql\n"
              "  c45rules export model.yaml --to python -o rules.py\n"
              "  c45rules export model.yaml --to dot --data examples/crx/crx -o tree.dot",
    "report": "c45rules report model.yaml --train examples/crx/crx --data examples/crx/crx.test"
              " -o report.html",
    "demo": "c45rules demo out/",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `c45rules` command (one sub-command per job)."""
    top = _Parser(prog="c45rules", description=__doc__.split("\n\n")[0],
                  formatter_class=argparse.RawDescriptionHelpFormatter,
                  epilog="Run 'c45rules COMMAND --help' for a command's options and an example.")
    top.add_argument("--version", action="version", version=f"c45rules {__version__}")
    top.add_argument("-q", "--quiet", action="store_true", help="no progress messages on stderr")
    top.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    common = _common()

    def add(name: str, help: str, parents: list) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help, parents=[common, *parents],
                           formatter_class=argparse.RawDescriptionHelpFormatter,
                           epilog=f"example:\n  {EXAMPLES[name]}")
        return p

    p = add("tree", "grow and prune a C4.5 tree; print both and their evaluation like c4.5",
            [_data_options(), _tree_options()])
    p.add_argument("--json", action="store_true", help="print sizes and error counts as JSON")

    p = add("rules", "learn C4.5 rules; print them and their evaluation like c4.5rules",
            [_data_options(), _tree_options(), _rule_options()])
    p.add_argument("--json", action="store_true",
                   help="print rule and condition counts, default class and errors as JSON")

    p = add("fit", "learn C4.5 rules and write the model as YAML",
            [_data_options(), _tree_options(), _rule_options()])
    p.add_argument("-o", "--output", required=True, metavar="MODEL.yaml",
                   help="model file to write ('-': the YAML alone on stdout)")

    p = add("predict", "score a CSV (or Parquet, or C4.5 .data/.test) file with a model", [])
    p.add_argument("model", metavar="MODEL.yaml")
    p.add_argument("data", metavar="DATA")
    p.add_argument("-o", "--output", required=True, metavar="OUT.csv",
                   help="every input row, columns unchanged, then the class and the rule id")
    p.add_argument("--chunksize", type=_positive_int, default=50_000, metavar="N",
                   help="rows read and scored at a time (default 50000; bounds the memory used)")
    p.add_argument("--prediction-column", default="predicted_class", metavar="NAME",
                   help="name of the output class column (default predicted_class)")
    p.add_argument("--rule-column", default="rule_id", metavar="NAME",
                   help="name of the output rule id column (default rule_id; empty for the default class)")

    p = add("evaluate", "errors, confusion matrix and per-rule use of a model on labelled data", [])
    p.add_argument("model", metavar="MODEL.yaml")
    p.add_argument("data", metavar="DATA", help="C4.5 stem/.data/.test file or CSV/Parquet with the class")
    p.add_argument("--target", metavar="COL",
                   help="class column of a CSV when its name differs from the model's")

    p = add("explain", "which rule decides a case and why, condition by condition", [])
    p.add_argument("model", metavar="MODEL.yaml")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--row", metavar="JSON",
                   help="the case as a JSON object; attributes left out are unknown")
    g.add_argument("--row-number", type=_positive_int, metavar="N",
                   help="the N-th case (1 = first data row) of --data")
    p.add_argument("--data", metavar="FILE", help="C4.5 .data/.test or CSV/Parquet file for --row-number")

    p = add("export", "write a model as SQL, standalone Python, YAML, or its tree as DOT/GraphML", [])
    p.add_argument("model", metavar="MODEL.yaml")
    p.add_argument("--to", required=True, choices=("sql", "python", "yaml", "dot", "graphml"))
    p.add_argument("-o", "--output", metavar="FILE", help="file to write (default: stdout; graphml needs a file)")
    p.add_argument("--dialect", default="sqlite", help="SQL dialect (default sqlite)")
    p.add_argument("--table", default="input_table", help="table the SELECT reads (default input_table)")
    p.add_argument("--case-only", action="store_true", help="only the CASE expression giving the class")
    p.add_argument("--data", metavar="DATA",
                   help="dot/graphml: the training data, to re-grow the tree (the YAML holds only"
                        " the rules); it must be the data the model was fitted on")
    p.add_argument("--target", metavar="COL", help="class column of --data when its name differs")
    p.add_argument("--unpruned", action="store_true", help="dot/graphml: the unpruned tree")

    p = add("report", "write a self-contained HTML review report of a model", [])
    p.add_argument("model", metavar="MODEL.yaml")
    p.add_argument("-o", "--output", required=True, metavar="REPORT.html")
    p.add_argument("--data", metavar="FILE", help="labelled data for the evaluation section")
    p.add_argument("--train", metavar="DATA",
                   help="the training data: draws the tree (checked against the model's fingerprint)")
    p.add_argument("--target", metavar="COL", help="class column of a CSV when its name differs")

    p = add("demo", "fit the bundled crx data, export it, and check the SQL against Python", [])
    p.add_argument("outdir", metavar="OUTDIR")
    p.add_argument("--stem", metavar="STEM", help="C4.5 stem to use instead of the bundled examples/crx/crx")
    return top


# ---- shared helpers -------------------------------------------------------------------------
def progress(args: argparse.Namespace, message: str) -> None:
    """A progress line on stderr, only for a person watching a terminal."""
    if not getattr(args, "quiet", False) and sys.stderr.isatty():
        print(f"c45rules: {message}...", file=sys.stderr, flush=True)


def _kinds(args: argparse.Namespace) -> dict[str, list[str]]:
    out = {}
    for kind in ("discrete", "continuous", "ignore"):
        names = [n.strip() for item in getattr(args, kind, []) for n in item.split(",") if n.strip()]
        if names:
            out[kind] = names
    return out


def is_table(path: str) -> bool:
    """True for a CSV/TSV/Parquet path (anything else is a C4.5 file or stem)."""
    return Path(path).suffix.lower() in TABLE_SUFFIXES


def load_training(args: argparse.Namespace):
    """(train, test or None) for tree/rules/fit from DATA, --test/-u and the kind options."""
    from .data.frame import load_data
    kinds = _kinds(args)
    table = is_table(args.data)
    if not table and (kinds or args.names):
        opts = ", ".join(f"--{k}" for k in [*kinds, *(["names"] if args.names else [])])
        raise InputError(f"{args.data}: {opts} apply to CSV/Parquet data; a C4.5 stem's .names"
                         " file declares the attributes")
    test = getattr(args, "test", None)
    unseen = getattr(args, "unseen", False)
    if unseen and test:
        raise InputError("give -u (evaluate on STEM.test) or --test FILE, not both")
    if unseen:
        if table:
            raise InputError(f"{args.data}: -u needs a C4.5 stem with a STEM.test file;"
                             " use --test FILE with CSV data")
        stem = re.sub(r"\.(names|data)$", "", args.data)
        if not Path(stem + ".test").exists():
            raise InputError(f"{stem}.test: file not found (needed by -u)")
    progress(args, f"reading {args.data}")
    # -u: the stem's own STEM.test; neither -u nor --test: no test file is read at all
    return load_data(args.data, target=args.target, test=test or (None if unseen else False),
                     names=args.names, **kinds)


def tree_options(args: argparse.Namespace) -> dict[str, Any]:
    """Library options from the c4.5-style flags (cf in percent on the command line)."""
    if args.cf < 1:
        print(f"c45rules: note: -c is a percentage as in c4.5 (default 25); using {args.cf}%",
              file=sys.stderr)
    return {"cf": args.cf / 100, "min_objs": args.min_objs, "gain_ratio": not args.gain,
            "subset": args.subset, "jobs": args.jobs}


def rule_options(args: argparse.Namespace) -> dict[str, Any]:
    """Tree options plus those of c4.5rules."""
    return {**tree_options(args), "fisher": args.fisher, "redundancy": args.redundancy,
            "annealing": args.annealing, "seed": args.seed}


def load_model(path: str):
    """The RuleSet in a YAML model file (ModelError naming the file otherwise)."""
    from .export.yaml import load_yaml
    return load_yaml(Path(path))


def data_path(path: str) -> str:
    """A C4.5 stem or .names path stands for its .data file; other paths are kept."""
    p = Path(path)
    if p.suffix == ".names":
        return str(p.with_suffix(".data"))
    if not p.exists() and not is_table(path) and Path(path + ".data").exists():
        return path + ".data"
    return path


def load_labelled(path: str, ruleset, target: str | None = None):
    """Labelled cases encoded against the model's schema (C4.5 file/stem or CSV/Parquet)."""
    from .data.frame import load_test
    path = data_path(path)
    if not Path(path).exists():
        raise InputError(f"{path}: file not found")
    return load_test(path, ruleset.schema, target=target)


def relearn_tree(args: argparse.Namespace, ruleset, path: str, target: str | None):
    """Re-grow the model's tree from its training data, refusing other data."""
    from .estimator import DEFAULTS, learn_tree
    progress(args, f"reading {path}")
    train = load_labelled(path, ruleset, target)
    if ruleset.fingerprint and train.fingerprint() != ruleset.fingerprint:
        raise InputError(f"{path}: not the data this model was fitted on (its fingerprint differs"
                         " from the model's); the tree can only be re-grown from the training data")
    o = {**DEFAULTS, **ruleset.options_dict}
    progress(args, "growing and pruning the tree")
    return learn_tree(train, cf=o["cf"], min_objs=o["min_objs"], gain_ratio=o["gain_ratio"],
                      subset=o["subset"]), train


def write_text(path: str | None, text: str) -> None:
    """Text to a file (atomically; the command has checked the path) or, for None or '-', to stdout."""
    if path is None or path == "-":
        sys.stdout.write(text)
        return
    from .export import atomic_write_text
    atomic_write_text(path, text)


def _input_files(args: argparse.Namespace) -> Iterator[str]:
    """The files a command's arguments name, a C4.5 stem's .names/.data/.test included."""
    for key, value in vars(args).items():
        if key in ("output", "outdir") or not isinstance(value, str):
            continue
        for name in (value, f"{value}.names", f"{value}.data", f"{value}.test"):
            if os.path.isfile(name):
                yield name


def is_stdout(path: str | None) -> bool:
    """Whether output to `path` lands on our stdout ('-', or /dev/stdout and the like)."""
    if path is None or path == "-":
        return True
    try:
        here, there = os.fstat(sys.stdout.fileno()), os.stat(path)
    except (OSError, ValueError, AttributeError):   # stdout closed or not a real file
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def check_output(args: argparse.Namespace, path: str | None) -> None:
    """Refuse an output path in a missing directory, a directory, or a file the command reads."""
    from .export._atomic import checked_target
    if path is None or path == "-":
        return
    target = checked_target(path)
    if target is not None and target.exists():
        for name in _input_files(args):
            if os.path.samefile(name, target):
                raise InputError(f"{path}: is {name}, an input of this command; write the output to"
                                 " another file")


# ---- commands ---------------------------------------------------------------------------------
def cmd_tree(args: argparse.Namespace) -> int:
    from .estimator import learn_tree
    from .tree.report import evaluate_trees, format_confusion, format_evaluation, format_tree
    train, test = load_training(args)
    progress(args, "growing and pruning the tree")
    tree = learn_tree(train, **tree_options(args))
    ev = evaluate_trees(tree.unpruned, tree.pruned, train, train.n)
    ev_test = None if test is None else evaluate_trees(tree.unpruned, tree.pruned, test, train.n)
    if args.json:
        print(json.dumps({
            "unpruned": {"size": ev.unpruned_size, "train_errors": ev.unpruned_errors,
                         "test_errors": None if ev_test is None else ev_test.unpruned_errors},
            "pruned": {"size": ev.pruned_size, "train_errors": ev.pruned_errors,
                       "test_errors": None if ev_test is None else ev_test.pruned_errors,
                       "estimate_pct": round(ev.estimate, 1)}}))
        return 0
    out = ["Decision Tree:\n\n" + format_tree(tree.unpruned, train.schema) + "\n\n"]
    # c4.5 prints the simplified tree only when pruning changed it; any change shrinks it
    if tree.pruned.size() != tree.unpruned.size():
        out.append("\nSimplified Decision Tree:\n\n" + format_tree(tree.pruned, train.schema) + "\n\n")
    out.append("\n" + format_evaluation(ev, "training"))
    if ev_test is not None:
        out.append("\n" + format_evaluation(ev_test, "test"))
        out.append("\n" + format_confusion(ev_test.confusion, train.schema.classes) + "\n")
    sys.stdout.write("".join(out))
    return 0


def learn(args: argparse.Namespace):
    """(ruleset, tree, train, test) for the rules and fit commands."""
    from .estimator import fit_dataset
    train, test = load_training(args)
    progress(args, "growing the tree, generalising and selecting rules")
    ruleset, tree, _ = fit_dataset(train, **rule_options(args))
    return ruleset, tree, train, test


def rules_text(ruleset, train, test) -> str:
    """Rules, training evaluation and (with test data) test evaluation, as c4.5rules prints them."""
    from .rules.report import format_evaluation, format_rules
    text = format_rules(ruleset) + "\n"
    if train is not None:
        text += format_evaluation(ruleset, train, "training")
    if test is not None:
        text += "\n\n" + format_evaluation(ruleset, test, "test")
    return text + "\n"   # c4.5rules ends its output with a blank line


def cmd_rules(args: argparse.Namespace) -> int:
    from .rules.evaluate import evaluate
    ruleset, _, train, test = learn(args)
    if args.json:
        print(json.dumps({
            "rules": len(ruleset.rules),
            "conditions": sum(len(r.conditions) for r in ruleset.rules),
            "default_class": ruleset.default_class,
            "train_errors": evaluate(ruleset, train).errors,
            "test_errors": None if test is None else evaluate(ruleset, test).errors}))
        return 0
    sys.stdout.write(rules_text(ruleset, train, test))
    return 0


def cmd_fit(args: argparse.Namespace) -> int:
    from .export.yaml import dump_yaml
    check_output(args, args.output)
    ruleset, _, train, test = learn(args)
    write_text(args.output, dump_yaml(ruleset))
    if not is_stdout(args.output):   # `-o -` puts the model alone on stdout
        sys.stdout.write(rules_text(ruleset, train, test))
        print(f"Model written to {args.output}")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from .rules.report import format_evaluation
    ruleset = load_model(args.model)
    progress(args, f"reading {args.data}")
    data = load_labelled(args.data, ruleset, args.target)
    sys.stdout.write(format_evaluation(ruleset, data, "test"))
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from .cli_data import case_from_file
    ruleset = load_model(args.model)
    if args.row is not None:
        if args.data:
            raise InputError("--data goes with --row-number, not with --row")
        try:
            row = json.loads(args.row)
        except json.JSONDecodeError as e:
            raise InputError(f"--row: not valid JSON ({e})") from None
        if not isinstance(row, dict):
            raise InputError("--row: expected a JSON object such as {\"A9\": \"t\", \"A15\": 300}")
        unknown = sorted(set(row) - set(ruleset.schema.names) - {ruleset.schema.target})
        if unknown:
            raise InputError(f"--row: unknown attribute(s) {', '.join(map(repr, unknown))}"
                             f" (the model's: {', '.join(ruleset.schema.names)})")
    else:
        if not args.data:
            raise InputError("--row-number needs --data FILE")
        row = case_from_file(args.data, ruleset.schema, args.row_number)
    case = {name: row.get(name) for name in ruleset.schema.names}  # left out = unknown
    print(str(ruleset.explain(case)))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from . import export
    check_output(args, args.output)
    ruleset = load_model(args.model)
    if args.to in ("dot", "graphml"):
        if not args.data:
            raise InputError(f"--to {args.to} draws the tree, which the YAML model does not hold:"
                             " give the training data with --data to re-grow it")
        tree, _ = relearn_tree(args, ruleset, args.data, args.target)
        node = tree.unpruned if args.unpruned else tree.pruned
        if args.to == "dot":
            write_text(args.output, export.to_dot(node, ruleset.schema))
        else:
            if args.output in (None, "-"):
                raise InputError("--to graphml needs -o FILE")
            export.write_graphml(node, ruleset.schema, args.output)
        return 0
    if args.data:
        raise InputError(f"--data is only used by --to dot/graphml, not --to {args.to}")
    if args.to == "sql":
        if args.case_only:
            text = export.to_sql_case(ruleset, args.dialect)
        else:
            text = export.to_sql_select(ruleset, args.table, args.dialect)
        text = text.rstrip("\n") + ("\n" if args.case_only else ";\n")
    elif args.to == "python":
        text = export.to_python(ruleset)
    else:
        text = export.dump_yaml(ruleset)
    write_text(args.output, text)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .report import write_report
    check_output(args, args.output)
    ruleset = load_model(args.model)
    tree = train = None
    if args.train:
        tree, train = relearn_tree(args, ruleset, args.train, args.target)
    data = load_labelled(args.data, ruleset, args.target) if args.data else train
    write_report(ruleset, args.output, tree=tree, data=data)
    if not is_stdout(args.output):
        print(f"Report written to {args.output}")
    return 0


def cmd_predict(args: argparse.Namespace) -> int:
    from .cli_data import predict_file
    check_output(args, args.output)
    ruleset = load_model(args.model)
    progress(args, f"scoring {args.data}")
    n = predict_file(ruleset, args.data, args.output, chunksize=args.chunksize,
                     prediction_column=args.prediction_column, rule_column=args.rule_column)
    if not is_stdout(args.output):   # the scored CSV alone on stdout
        print(f"{n} rows scored, written to {args.output}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .cli_demo import run_demo
    return run_demo(args)


COMMANDS = {"tree": cmd_tree, "rules": cmd_rules, "fit": cmd_fit, "predict": cmd_predict,
            "evaluate": cmd_evaluate, "explain": cmd_explain, "export": cmd_export,
            "report": cmd_report, "demo": cmd_demo}


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `c45rules` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (InputError, ModelError) as e:
        if args.debug:
            traceback.print_exc()
        print(f"c45rules: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, FileExistsError, PermissionError) as e:
        if args.debug:
            traceback.print_exc()
        where = f"{e.filename}: " if e.filename else ""
        print(f"c45rules: error: {where}{_one_line(e.strerror or e)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `c45rules rules ... | head`: not an error of ours
        try:
            sys.stdout = open("/dev/null", "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return 0
    except KeyboardInterrupt:
        print("c45rules: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - the last line of defence, reported in one line
        if args.debug:
            traceback.print_exc()
        print(f"c45rules: error: unexpected {type(e).__name__}: {_one_line(e)}"
              " (run with --debug for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
