"""`c45rules evaluate`: a model's errors, confusion matrix and rule use on labelled data."""
from __future__ import annotations

import argparse
import sys

from .io import load_labelled, load_model, progress
from .options import reading_options

HELP = "errors, confusion matrix and per-rule use of a model on labelled data"
EXAMPLE = ("c45rules evaluate model.yaml examples/crx/crx.test\n"
           "  c45rules evaluate model.yaml crx_test.csv --target class")
PARENTS = (reading_options,)


def configure(p: argparse.ArgumentParser) -> None:
    """The evaluate command's arguments."""
    p.add_argument("model", metavar="MODEL.yaml")
    p.add_argument("data", metavar="DATA", help="C4.5 stem/.data/.test file or CSV/Parquet with the class")
    p.add_argument("--target", metavar="COL",
                   help="class column of a CSV when its name differs from the model's")


def run(args: argparse.Namespace) -> int:
    """Print the evaluation as c4.5rules prints it."""
    from ..rules.report import format_evaluation
    ruleset = load_model(args.model, args.data)
    progress(args, f"reading {args.data}")
    data = load_labelled(args.data, ruleset, args.target, args)
    sys.stdout.write(format_evaluation(ruleset, data, "test"))
    return 0
