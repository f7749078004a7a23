"""`c45rules evaluate`: a model's errors, confusion matrix and rule use on labelled data."""
from __future__ import annotations

import argparse
import json
import sys

from .io import data_path, load_labelled, load_model, progress
from .options import reading_options, scoring_options

HELP = "errors, confusion matrix and per-rule use of a model on labelled data"
EXAMPLE = ("c45rules evaluate model.yaml examples/crx/crx.test\n"
           "  c45rules evaluate model.yaml crx_test.csv --target class --json")
PARENTS = (reading_options, scoring_options)


def configure(p: argparse.ArgumentParser) -> None:
    """The evaluate command's arguments."""
    p.add_argument("model", metavar="MODEL.yaml")
    p.add_argument("data", metavar="DATA",
                   help="C4.5 stem/.data/.test file or CSV/Parquet with the class; a table needs only"
                        " the class and the columns the rules test (others missing are unknown)")
    p.add_argument("--target", metavar="COL",
                   help="class column of a CSV when its name differs from the model's")
    p.add_argument("--json", action="store_true",
                   help='print one JSON object instead: {"data", "rows", "errors", "error_rate",'
                        ' "accuracy" (fractions; 0.0 for no rows), "classes": {CLASS: {"precision",'
                        ' "recall", "f1", "support"}} (0.0 for a class never predicted / never present),'
                        ' "confusion" (rows = true class, columns = predicted, both in the model\'s'
                        ' class order), "rules": [{"id", "used", "wrong"}] (the default class last, as'
                        ' id 0), "unseen": {COLUMN: rows holding a value not seen in training}}; a boosted'
                        ' model gives the vote\'s scores and "trials": [{"trial", "errors", "rules"}] in'
                        ' place of "rules"')


def run(args: argparse.Namespace) -> int:
    """Print the evaluation as c4.5rules prints it, or as JSON."""
    from ..model.boosted import BoostedRuleSet
    from ..rules.evaluate import evaluate, evaluate_votes, evaluation_summary, vote_summary
    from ..rules.report import format_evaluation, format_vote_evaluation
    from .cases import report_unseen
    ruleset = load_model(args.model, args.data)
    from ..model.regression import RegressionModel
    if isinstance(ruleset, RegressionModel):
        return _evaluate_regression(args, ruleset)
    progress(args, f"reading {args.data}")
    data = load_labelled(args.data, ruleset, args.target, args, scoring=True)
    unseen = report_unseen(data, data_path(args.data), args.strict)
    boosted = isinstance(ruleset, BoostedRuleSet)
    ev = evaluate_votes(ruleset, data) if boosted else evaluate(ruleset, data)
    if args.json:
        summary = vote_summary(ruleset, ev) if boosted else evaluation_summary(ruleset, ev)
        out = {"data": args.data, **summary, "unseen": unseen}
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    else:
        show = format_vote_evaluation if boosted else format_evaluation
        sys.stdout.write(show(ruleset, data, data_path(args.data), ev))
    return 0


def _evaluate_regression(args: argparse.Namespace, model) -> int:
    """A regression model on labelled data: cases, RMSE and mean absolute error (text or --json)."""
    import numpy as np

    from .regression_io import load_regression_labelled
    progress(args, f"reading {args.data}")
    data, y = load_regression_labelled(args.data, model, args.target)
    err = model.predict(data) - y
    rmse = float(np.sqrt(np.mean(err ** 2))) if len(y) else float("nan")
    mae = float(np.mean(np.abs(err))) if len(y) else float("nan")
    if args.json:
        sys.stdout.write(json.dumps({"data": args.data, "cases": int(len(y)), "rmse": rmse, "mae": mae}) + "\n")
    else:
        sys.stdout.write(f"Evaluation on {args.data} ({len(y)} cases):\n\n    RMSE              {rmse:.6g}\n"
                         f"    Average |error|   {mae:.6g}\n")
    return 0
