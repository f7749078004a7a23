"""What the commands share on the command line: the parser class, value types and option groups.

Options follow c4.5 and c4.5rules: `-c` is the confidence level in percent (default 25),
`-m` the minimum cases per branch, `-g` the gain criterion instead of gain ratio, `-s`
subset tests, `-F` the Fisher significance level in percent, `-r` the redundancy factor,
`-a` simulated annealing for the rule subset search, `-u` evaluation on STEM.test.
"""
from __future__ import annotations

import argparse
from typing import Any


class Parser(argparse.ArgumentParser):
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


def percent(text: str) -> float:
    """A percentage in (0, 100]."""
    return _number(text, float, lambda v: 0 < v <= 100, "a percentage in (0, 100]")


def positive_int(text: str) -> int:
    """A whole number >= 1."""
    return _number(text, int, lambda v: v >= 1, "a whole number >= 1")


def positive_float(text: str) -> float:
    """A finite number > 0."""
    return _number(text, float, lambda v: v > 0 and v != float("inf"), "a number > 0")


def jobs(text: str) -> int:
    """A worker count >= 1, or -1 for one per core."""
    return _number(text, int, lambda v: v >= 1 or v == -1, "a whole number >= 1, or -1")


def whole(text: str) -> int:
    """Any whole number."""
    return _number(text, int, lambda v: True, "a whole number")


def common() -> argparse.ArgumentParser:
    """-q and --debug, accepted after the command as well as before it."""
    # SUPPRESS: given after the command these override, absent they keep the top-level value
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="no progress messages on stderr")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="show the traceback of an error")
    return p


def data_options(*, test: bool = True) -> argparse.ArgumentParser:
    """DATA (a C4.5 stem or a table), its class column and the kinds of its columns."""
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


def tree_options() -> argparse.ArgumentParser:
    """c4.5's -c -m -g -s, and -j."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("tree options (as c4.5)")
    g.add_argument("-c", "--cf", type=percent, default=25.0, metavar="CF",
                   help="pruning confidence level in percent (default 25)")
    g.add_argument("-m", "--min-objs", type=positive_int, default=2, metavar="N",
                   help="at least two branches must hold N cases (default 2)")
    g.add_argument("-g", "--gain", action="store_true", help="gain criterion instead of gain ratio")
    g.add_argument("-s", "--subset", action="store_true", help="tests on subsets of discrete values")
    g = p.add_argument_group("speed")
    g.add_argument("-j", "--jobs", type=jobs, default=1, metavar="N",
                   help="workers: threads for the compiled steps, else processes (default 1; -1: one per"
                        " core); the results do not depend on it")
    return p


def rule_options() -> argparse.ArgumentParser:
    """c4.5rules' -F -r -a and the annealing seed."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("rule options (as c4.5rules)")
    g.add_argument("-F", "--fisher", type=percent, metavar="P",
                   help="drop conditions by Fisher's exact test at significance P percent")
    g.add_argument("-r", "--redundancy", type=positive_float, default=1.0, metavar="R",
                   help="redundancy factor for the coding cost of rules (default 1)")
    g.add_argument("-a", "--annealing", action="store_true",
                   help="simulated annealing for the rule subset search")
    g.add_argument("--seed", type=whole, metavar="N",
                   help="seed of the annealing random() (default: glibc's default state)")
    return p


def kinds(args: argparse.Namespace) -> dict[str, list[str]]:
    """{'discrete'|'continuous'|'ignore': column names} from the repeatable kind options."""
    out = {}
    for kind in ("discrete", "continuous", "ignore"):
        names = [n.strip() for item in getattr(args, kind, []) for n in item.split(",") if n.strip()]
        if names:
            out[kind] = names
    return out


def learning_tree_options(args: argparse.Namespace) -> dict[str, Any]:
    """Library options from the c4.5-style flags (cf in percent on the command line)."""
    import sys
    if args.cf < 1:
        print(f"c45rules: note: -c is a percentage as in c4.5 (default 25); using {args.cf}%",
              file=sys.stderr)
    return {"cf": args.cf / 100, "min_objs": args.min_objs, "gain_ratio": not args.gain,
            "subset": args.subset, "jobs": args.jobs}


def learning_rule_options(args: argparse.Namespace) -> dict[str, Any]:
    """Tree options plus those of c4.5rules."""
    return {**learning_tree_options(args), "fisher": args.fisher, "redundancy": args.redundancy,
            "annealing": args.annealing, "seed": args.seed}


def scoring_options() -> argparse.ArgumentParser:
    """--strict, for the commands that score data with a model (predict, evaluate, explain, report)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--strict", action="store_true",
                   help="a value the model never saw in training (a new category) is an error"
                        " (exit 2) instead of a note on stderr; without it such a value matches no test")
    return p
