"""`c45rules rules`: learn C4.5 rules, printed and evaluated as c4.5rules prints them."""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from .io import load_training, progress
from .options import data_options, learning_rule_options, rule_options, tree_options, tuning_grid

HELP = "learn C4.5 rules; print them and their evaluation like c4.5rules"
EXAMPLE = "c45rules rules examples/crx/crx -u\n  c45rules rules examples/crx/crx --json"
PARENTS = (data_options, tree_options, rule_options)


def configure(p: argparse.ArgumentParser) -> None:
    """The rules command's own options."""
    p.add_argument("--json", action="store_true",
                   help="print rule and condition counts, default class and errors as JSON")


def learn(args: argparse.Namespace):
    """(ruleset, tree, train, test) from the data and learning options (rules, fit)."""
    from ..pipeline import fit_dataset
    train, test = load_training(args)
    options = learning_rule_options(args)
    tuned = None
    if getattr(args, "tune", False):
        options, tuned = tuned_options(args, train, options)
    progress(args, "growing the tree, generalising and selecting rules")
    ruleset, tree, _ = fit_dataset(train, **options)
    winnowed = ruleset.options_dict.get("winnowed")
    if winnowed is not None and not getattr(args, "quiet", False):
        used = sum(a.kind != "ignore" for a in train.schema.attributes)
        print(f"c45rules: note: winnowing screened out {len(winnowed)} of {used} attributes"
              + (f": {', '.join(winnowed)}" if winnowed else ""), file=sys.stderr)
    if tuned is not None:   # the choice and its evidence travel with the model
        ruleset = replace(ruleset, options=(*ruleset.options, ("tuned", tuned)))
    return ruleset, tree, train, test


def tuned_options(args: argparse.Namespace, train, options: dict) -> tuple[dict, dict]:
    """The options with the grid's best point (by cross-validation on `train`) in place, and a
    record of the choice: {"grid", "folds", "seed", "best", "mean_error_pct"}."""
    from ..crossval import grid_options as as_fit_options
    from ..crossval import tune
    grid = tuning_grid(args)
    seed = args.seed if args.seed is not None else 0
    progress(args, f"tuning: {args.tune_folds}-fold cross-validation of each grid point")
    res = tune(train, grid, k=args.tune_folds, seed=seed, options=options)
    error = next(e for p, e, _ in res.points if p == res.best)
    return ({**options, **as_fit_options(res.best)},
            {"grid": {k: list(v) for k, v in grid.items()}, "folds": args.tune_folds, "seed": seed,
             "best": res.best, "mean_error_pct": round(error, 4)})


def rules_text(ruleset, train, test) -> str:
    """Rules, training evaluation and (with test data) test evaluation, as c4.5rules prints them."""
    from ..rules.report import format_evaluation
    from ..ruleset import format_rules
    text = format_rules(ruleset) + "\n"
    if train is not None:
        text += format_evaluation(ruleset, train, "training data")
    if test is not None:
        text += "\n\n" + format_evaluation(ruleset, test, "test data")
    return text + "\n"   # c4.5rules ends its output with a blank line


def run(args: argparse.Namespace) -> int:
    """Print the rules and their evaluation (or their counts as JSON)."""
    from ..rules.evaluate import evaluate
    ruleset, _, train, test = learn(args)
    if args.json:
        print(json.dumps({
            "rules": len(ruleset.rules),
            "conditions": sum(len(r.conditions) for r in ruleset.rules),
            "default_class": ruleset.default_class,
            "train_errors": evaluate(ruleset, train).errors,
            "test_errors": None if test is None else evaluate(ruleset, test).errors,
            **({"winnowed": ruleset.options_dict["winnowed"]} if "winnowed" in ruleset.options_dict else {})}))
        return 0
    sys.stdout.write(rules_text(ruleset, train, test))
    return 0
