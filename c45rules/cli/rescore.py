"""`c45rules rescore`: measure an edited model's rules on labelled data and write the result."""
from __future__ import annotations

import argparse
import json
import sys

from ..errors import InputError
from .io import check_output, is_stdout, load_labelled, load_model, progress, write_text
from .options import reading_options

HELP = "recompute every rule's evidence of a (hand-edited) model on labelled data"
EXAMPLE = ("c45rules rescore edited.yaml --data examples/crx/crx -o rescored.yaml\n"
           "  c45rules rescore edited.yaml --data loans.csv --target default -o rescored.yaml --json")
PARENTS = (reading_options,)


def configure(p: argparse.ArgumentParser) -> None:
    """The rescore command's arguments."""
    p.add_argument("model", metavar="MODEL.yaml")
    p.add_argument("--data", required=True, metavar="DATA",
                   help="labelled data: C4.5 stem/.data/.test or CSV/Parquet with the class column")
    p.add_argument("-o", "--output", required=True, metavar="NEW.yaml",
                   help="the rescored model ('-': the YAML alone on stdout)")
    p.add_argument("--target", metavar="COL", help="class column of a CSV when its name differs from the model's")
    p.add_argument("--json", action="store_true",
                   help="print {rules: [{id, covered, errors, used, wrong}], errors, error_rate} instead of"
                        " the evaluation")


def _evidence(ruleset) -> list[dict]:
    """[{id, covered, errors, used, wrong}] of each rule."""
    return [{"id": r.id, "covered": r.covered, "errors": r.errors, "used": r.used, "wrong": r.wrong}
            for r in ruleset.rules]


def _report_boosted(args: argparse.Namespace, scored, data) -> int:
    """A rescored boosted model's evaluation on the data: {"trials": [{"trial", "rules": [...]}],
    "errors", "error_rate"} (the vote's errors) with --json, else the vote's evaluation."""
    from ..rules.evaluate import evaluate_votes
    from ..rules.report import format_vote_evaluation
    ev = evaluate_votes(scored, data)
    if args.json:
        print(json.dumps({
            "trials": [{"trial": t, "rules": _evidence(rs)} for t, rs in enumerate(scored.trials, 1)],
            "errors": ev.errors, "error_rate": round(ev.errors / data.n, 6)}))
    elif not is_stdout(args.output):
        sys.stdout.write(format_vote_evaluation(scored, data, args.data, ev))
        print(f"\nModel written to {args.output}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Write the rescored model and print its evaluation on the data (or the JSON summary)."""
    from ..export.yaml import dump_yaml
    from ..govern.rescore import rescore, with_unmeasured_evidence
    from ..model.boosted import BoostedRuleSet
    from ..rules.report import format_evaluation
    if args.json and is_stdout(args.output):
        raise InputError("--json and -o - both write to stdout: give -o a file")
    check_output(args, args.output)
    # a rule written by hand may leave out its evidence: it is measured here
    ruleset = load_model(args.model, args.data, with_unmeasured_evidence)
    from ..model.regression import RegressionModel
    if isinstance(ruleset, RegressionModel):
        return _rescore_regression(args, ruleset)
    progress(args, f"reading {args.data}")
    data = load_labelled(args.data, ruleset, args.target, args)
    scored = rescore(ruleset, data)
    write_text(args.output, dump_yaml(scored))
    if isinstance(scored, BoostedRuleSet):
        return _report_boosted(args, scored, data)
    if args.json:
        errors = data.n - sum(r.used - r.wrong for r in scored.rules) \
            - scored.default_counts[scored.schema.classes.index(scored.default_class)]
        print(json.dumps({
            "rules": _evidence(scored),
            "errors": int(errors), "error_rate": round(errors / data.n, 6)}))
    elif not is_stdout(args.output):
        sys.stdout.write(format_evaluation(scored, data, args.data))
        print(f"\nModel written to {args.output}")
    return 0


def _rescore_regression(args: argparse.Namespace, model) -> int:
    """A regression model's rules measured on the data (govern/regression_rescore.py); the JSON
    summary {rules: [{committee, id, cases, mean, low, high, error}], rmse}, else the RMSE."""
    import math

    import numpy as np

    from ..export.yaml import dump_yaml
    from ..govern.regression_rescore import rescore_regression
    from .regression_io import load_regression_labelled
    progress(args, f"reading {args.data}")
    data, y = load_regression_labelled(args.data, model, args.target)
    scored = rescore_regression(model, data, y)
    write_text(args.output, dump_yaml(scored))
    rmse = float(np.sqrt(np.mean((scored.predict(data) - y) ** 2)))
    if args.json:
        def number(v: float) -> float | None:
            return None if math.isnan(v) else v
        print(json.dumps({"rules": [{"committee": k, "id": r.id, "cases": r.cases, "mean": number(r.mean),
                                     "low": number(r.low), "high": number(r.high), "error": number(r.error)}
                                    for k, c in enumerate(scored.committees, 1) for r in c.rules],
                          "rmse": rmse}))
    elif not is_stdout(args.output):
        print(f"{len(scored.rules)} rules measured on {data.n} cases of {args.data}: RMSE {rmse:.6g}")
        print(f"Model written to {args.output}")
    return 0
