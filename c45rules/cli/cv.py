"""`c45rules cv`: stratified k-fold cross-validation of the rules, optionally beside C5.0."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ..errors import InputError
from .io import data_stem, is_table, learner_progress, load_training, progress
from .regression import regression_options
from .options import (boost_options, boost_trials, cv_folds_option, data_options, grid_options,
                      learning_rule_options, positive_int, rule_options, tree_options, tuning_grid)

if TYPE_CHECKING:
    from ..learn.crossval import CVResult

HELP = "cross-validate the rules on stratified folds (optionally tuned, optionally beside C5.0)"
EXAMPLE = ("c45rules cv examples/crx/crx --cv-folds 10 --seed 1\n"
           "  c45rules cv examples/crx/crx --tune --grid cf=10,25 m=2,5 --tune-folds 5 --json\n"
           "  c45rules cv examples/crx/crx --compare c50 ../shared/anchors/c5.0\n"
           "  c45rules cv examples/crx/crx -b --compare c50 ../shared/anchors/c5.0   (boosted, beside c5.0 -b -r)")
PARENTS = (lambda: data_options(test=False), lambda: tree_options(old_folds=False), rule_options,
           lambda: grid_options("cv"), boost_options, regression_options)


def configure(p: argparse.ArgumentParser) -> None:
    """The cv command's own options (--seed, shared with the rule options, also seeds the folds)."""
    g = p.add_argument_group("cross-validation")
    cv_folds_option(g, "folds of the cross-validation (default 10)", old=("-k", "--folds"))
    g.add_argument("--repeats", type=positive_int, default=1, metavar="R",
                   help="repeat with R different shuffles (seeds SEED, SEED+1, ...; default 1)")
    g.add_argument("--tune", action="store_true",
                   help="nested: each fold's options are chosen by 'tune' on its training part alone")
    g.add_argument("--compare", nargs=2, metavar=("c50", "PATH"),
                   help="also run RuleQuest's C5.0 (rulesets, -r; boosted with -t N when --trials/-b"
                        " boost ours) on the same folds and print both (DATA must be a C4.5 stem)")
    g.add_argument("--json", action="store_true",
                   help='print {"k", "repeats", "seed", "folds": [{"repeat", "fold", "cases", "errors",'
                        ' "error_pct", "rules"}], "mean_error_pct", "se_error_pct"} (with --compare, a'
                        ' "c50" object of the same shape)')


def run(args: argparse.Namespace) -> int:
    """Cross-validate and print a table of the folds (or JSON)."""
    from ..learn.crossval import CVResult, FoldResult, cross_validate, fold_splits
    from .regression import is_regression, run_cv
    if is_regression(args):
        return run_cv(args)
    if args.grid and not args.tune:
        raise InputError("--grid applies with --tune")
    c50 = None
    if args.compare:
        which, path = args.compare
        if which.lower() != "c50":
            raise InputError(f"--compare {which}: the one peer known is c50")
        if is_table(args.data):
            raise InputError(f"{args.data}: --compare c50 needs a C4.5 stem (STEM.names + STEM.data)")
        from .c50 import check_binary
        c50 = check_binary(path)
    train, _ = load_training(args)
    seed = args.seed if args.seed is not None else 0
    grid = tuning_grid(args) if args.tune else None
    progress(args, f"cross-validating on {args.cv_folds} folds")
    ours = cross_validate(train, args.cv_folds, seed=seed, repeats=args.repeats,
                          options=learning_rule_options(args),
                          grid=grid,
                          inner_k=args.tune_folds, progress=learner_progress(args))
    theirs = None
    if c50:
        from .c50 import fold_errors
        progress(args, "running C5.0 on the same folds")
        splits = [(tr, te) for _, _, tr, te in fold_splits(train, args.cv_folds, seed, args.repeats)]
        stem = data_stem(args.data)
        trials = boost_trials(args)
        res = fold_errors(c50, stem, splits, len(train.schema.attributes) + 1,
                          ("-t", str(trials)) if trials > 1 else ())
        theirs = CVResult(args.cv_folds, args.repeats, seed, tuple(
            FoldResult(f.repeat, f.fold, n, e, r) for f, (e, n, r) in zip(ours.folds, res)))
    if args.json:
        out = ours.as_json()
        if theirs is not None:
            out["c50"] = theirs.as_json()
        print(json.dumps(out))
        return 0
    sys.stdout.write(cv_text(ours, theirs))
    return 0


def cv_text(ours: CVResult, theirs: CVResult | None = None) -> str:
    """The folds as a table: errors and rules per fold, then the mean and its standard error."""
    import numpy as np
    head = f"{'fold':>8}  {'cases':>6}  {'errors':>14}  {'rules':>5}"
    if theirs is not None:
        head += f"  {'C5.0 errors':>14}  {'rules':>5}"
    lines = [f"{ours.k}-fold cross-validation" + (f", {ours.repeats} repeats" if ours.repeats > 1 else "")
             + f" (seed {ours.seed})", "", head]
    for i, f in enumerate(ours.folds):
        name = f"{f.fold + 1}" if ours.repeats == 1 else f"{f.repeat + 1}.{f.fold + 1}"
        line = f"{name:>8}  {f.cases:6d}  {f.errors:5d} ({f.error_pct:5.1f}%)  {f.rules:5d}"
        if theirs is not None:
            t = theirs.folds[i]
            line += f"  {t.errors:5d} ({t.error_pct:5.1f}%)  {t.rules:5d}"
        lines.append(line)
    def summary(r) -> str:
        return f"{r.mean_error_pct:5.1f}% +- {r.se_error_pct:.1f}"
    mean_rules = np.mean([f.rules for f in ours.folds])
    line = f"{'mean':>8}  {'':6}  {summary(ours):>14}  {mean_rules:5.1f}"
    if theirs is not None:
        line += f"  {summary(theirs):>14}  {np.mean([f.rules for f in theirs.folds]):5.1f}"
    lines += [line, ""]
    if ours.mean_cost is not None:
        lines += [f"mean cost per case {ours.mean_cost:.3f}", ""]
    return "\n".join(lines)
