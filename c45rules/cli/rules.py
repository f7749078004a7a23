"""`c45rules rules`: learn C4.5 rules, printed and evaluated as c4.5rules prints them."""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from .io import load_training, progress
from ..errors import InputError
from .options import (boost_options, boost_trials, data_options, learning_rule_options, rule_options, tree_options,
                      tuning_grid, window_options, window_settings)

HELP = "learn C4.5 rules; print them and their evaluation like c4.5rules"
EXAMPLE = ("c45rules rules examples/crx/crx -u\n  c45rules rules examples/crx/crx --json\n"
           "  c45rules rules examples/crx/crx -u -t 10   (a ruleset per windowing trial, then the composite)\n"
           "  c45rules rules examples/crx/crx -u -b      (10 boosting trials, then the vote's evaluation)")
PARENTS = (data_options, tree_options, rule_options, window_options, boost_options)


def configure(p: argparse.ArgumentParser) -> None:
    """The rules command's own options."""
    p.add_argument("--json", action="store_true",
                   help="print rule and condition counts, default class and errors as JSON")


def learn(args: argparse.Namespace):
    """(ruleset, tree, train, test) from the data and learning options (rules, fit)."""
    from ..boosted import BoostedRuleSet
    from ..pipeline import fit_dataset
    train, test = load_training(args)
    options = learning_rule_options(args)
    tuned = None
    if getattr(args, "tune", False):
        options, tuned = tuned_options(args, train, options)
    windowing = window_settings(args)
    if windowing is not None and boost_trials(args) > 1:
        raise InputError("-t/-w/-i (windowing) and --trials/-b (boosting): choose one")
    if windowing is not None:
        if tuned is not None:
            raise InputError("-t/-w/-i (windowing) and --tune: choose one")
        ruleset, tree, _ = windowed_rules(args, train, options, windowing)
        return ruleset, tree, train, test
    progress(args, "growing the tree, generalising and selecting rules"
             + (f" ({boost_trials(args)} boosting trials at most)" if boost_trials(args) > 1 else ""))
    ruleset, tree, _ = fit_dataset(train, **options)
    winnowed = ruleset.options_dict.get("winnowed")
    if winnowed is not None and not getattr(args, "quiet", False):
        used = sum(a.kind != "ignore" for a in train.schema.attributes)
        print(f"c45rules: note: winnowing screened out {len(winnowed)} of {used} attributes"
              + (f": {', '.join(winnowed)}" if winnowed else ""), file=sys.stderr)
    if tuned is not None:   # the choice and its evidence travel with the model (and each boosting trial)
        ruleset = replace(ruleset, options=(*ruleset.options, ("tuned", tuned)))
        if isinstance(ruleset, BoostedRuleSet):
            ruleset = replace(ruleset, trials=tuple(replace(rs, options=(*rs.options, ("tuned", tuned)))
                                                    for rs in ruleset.trials))
    return ruleset, tree, train, test


def windowed_rules(args: argparse.Namespace, train, options: dict, windowing: dict):
    """(composite ruleset, best trial's Tree, Composite) of a -t run (spec 5, 7.10); the model
    records the windowing as options trials, window and increment."""
    from ..pipeline import check_options, grower_options
    from ..rules.composite import composite_rules
    from ..tree.node import Tree
    from ..tree.window import window_trees
    o = grower_options(check_options(options))
    if o.get("grower", "c45") != "c45":
        raise InputError("-t/-w/-i (windowing) apply to --grower c45")
    # c4.5's windowing draws and counts whole cases, and screens no attribute
    if train.weights is not None:
        raise InputError("-t/-w/-i (windowing) count whole cases: they do not go with --weights or --class-weights")
    if options.get("winnow"):
        raise InputError("-t/-w/-i (windowing) and --winnow: choose one")
    progress(args, f"windowing: {windowing['trials']} trials")
    run = window_trees(train, **windowing, cf=o["cf"], min_objs=o["min_objs"], gain_ratio=o["gain_ratio"],
                       subset=o["subset"])
    recorded = {**o, "trials": windowing["trials"], "window": run.window, "increment": run.increment}
    progress(args, "rules from every trial's tree, then the composite ruleset")
    rules_cf = o["rules_cf"] if o["rules_cf"] is not None else o["cf"]
    comp = composite_rules([t.unpruned for t in run.trials], train, cf=rules_cf, fisher=o["fisher"],
                           redundancy=o["redundancy"], annealing=o["annealing"], seed=o["seed"],
                           options=recorded, jobs=o["jobs"])
    best = run.trials[run.best]
    return comp.ruleset, Tree(train.schema, best.unpruned, best.pruned, recorded), comp


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
    """Rules, training evaluation and (with test data) test evaluation, as c4.5rules prints them;
    a boosted model: each trial's rules, then the vote's evaluation."""
    from ..boosted import BoostedRuleSet
    from ..rules.report import format_evaluation, format_vote_evaluation
    from ..ruleset import format_rules
    if isinstance(ruleset, BoostedRuleSet):
        built = len(ruleset.trials)
        text = "".join(f"-----  Trial {t}:  -----\n\n{format_rules(rs)}\n" for t, rs in enumerate(ruleset.trials, 1))
        asked = ruleset.options_dict.get("trials", built)
        if built < asked:
            text += f"Boosting stopped after {built} of {asked} trials (see c45rules/rules/boost.py)\n\n"
        evaluation = format_vote_evaluation
    else:
        text = format_rules(ruleset) + "\n"
        evaluation = format_evaluation
    if train is not None:
        text += evaluation(ruleset, train, "training data")
    if test is not None:
        text += "\n\n" + evaluation(ruleset, test, "test data")
    return text + "\n"   # c4.5rules ends its output with a blank line


def run(args: argparse.Namespace) -> int:
    """Print the rules and their evaluation (or their counts as JSON)."""
    from ..rules.evaluate import evaluate
    windowing = window_settings(args)
    if windowing is not None:
        return _run_windowed(args, windowing)
    ruleset, _, train, test = learn(args)
    if args.json and boost_trials(args) > 1:
        print(json.dumps(boosted_json(ruleset, train, test)))
        return 0
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


def boosted_json(model, train, test) -> dict:
    """rules --json of a boosted model: {"trials": [{"rules", "train_errors"}], "trials_asked",
    "rules" (all trials'), "train_errors", "test_errors" (the vote's)}."""
    from ..rules.evaluate import evaluate_votes
    ev = evaluate_votes(model, train)
    return {"trials": [{"rules": len(rs.rules), "train_errors": te.errors} for rs, te in zip(model.trials, ev.trials)],
            "trials_asked": model.options_dict["trials"],
            "rules": sum(len(rs.rules) for rs in model.trials), "train_errors": ev.errors,
            "test_errors": None if test is None else evaluate_votes(model, test).errors}


def _run_windowed(args: argparse.Namespace, windowing: dict) -> int:
    """rules -t: each trial's ruleset, the composite one, its evaluation and c4.5rules' trial table."""
    from ..rules.evaluate import evaluate
    from ..ruleset import format_rules
    train, test = load_training(args)
    options = learning_rule_options(args)
    _, _, comp = windowed_rules(args, train, options, windowing)
    rulesets = [rs for rs, _ in comp.trials] + [comp.ruleset]
    train_errors = [evaluate(rs, train).errors for rs in rulesets]
    if args.json:
        print(json.dumps({
            "trials": [{"rules": len(rs.rules), "train_errors": e} for rs, e in zip(rulesets[:-1], train_errors)],
            "rules": len(comp.ruleset.rules), "train_errors": train_errors[-1],
            "test_errors": None if test is None else evaluate(comp.ruleset, test).errors}))
        return 0
    out = []
    for t, rs in enumerate(rulesets[:-1]):
        out.append(f"------------------\nProcessing tree {t}\n\nFinal rules from tree {t}:\n\n" + format_rules(rs))
    out.append("Composite ruleset:\n\n" + rules_text(comp.ruleset, train, test))
    out.append(trial_table(rulesets, train_errors, train.n))
    if test is not None:
        out.append("\n" + trial_table(rulesets, [evaluate(rs, test).errors for rs in rulesets], test.n))
    sys.stdout.write("".join(out))
    return 0


def trial_table(rulesets: list, errors: list[int], cases: int) -> str:
    """c4.5rules' closing table of a -t run: each trial's rules and errors, the composite's (**)
    and the averages over all of them."""
    lines = ["", "Trial   Size      Errors", "-----   ----      ------"]
    for t, (rs, e) in enumerate(zip(rulesets, errors)):
        tag = f"{t:4d}" if t < len(rulesets) - 1 else "  **"
        lines.append(f"{tag}    {len(rs.rules):4d} {e:4d}({100 * e / cases:4.1f}%)")
    size = sum(len(rs.rules) for rs in rulesets) / len(rulesets)
    mean = sum(errors) / len(errors)
    lines.append(f"\t\t\t\tAv size = {size:.1f},  av errors = {mean:.1f} ({100 * mean / cases:.1f}%)")
    return "\n".join(lines) + "\n"
