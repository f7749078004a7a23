"""`c45rules rules`: learn C4.5 rules, printed and evaluated as c4.5rules prints them."""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import InputError
from .io import data_stem, learner_progress, load_training, progress, streamed_training
from .regression import regression_options
from .options import (boost_options, boost_trials, data_options, learning_rule_options, rule_options, stream_options,
                      tree_options, tuning_grid, window_options, window_settings)

if TYPE_CHECKING:
    from ..data.batches import Batches
    from ..data.schema import Dataset
    from ..model.boosted import BoostedRuleSet
    from ..model.ruleset import RuleSet
    from ..rules.composite import Composite
    from ..tree.node import Node, Tree

HELP = "learn C4.5 rules; print them and their evaluation like c4.5rules"
EXAMPLE = ("c45rules rules examples/crx/crx -u\n  c45rules rules examples/crx/crx --json\n"
           "  c45rules rules examples/crx/crx -u -t 10   (a ruleset per windowing trial, then the composite)\n"
           "  c45rules rules examples/crx/crx -u -b      (10 boosting trials, then the vote's evaluation)")
PARENTS = (data_options, tree_options, rule_options, window_options, boost_options, stream_options,
           regression_options)
WINDOWING_COSTS = ("-t/-w/-i (windowing) do not go with misclassification costs (--costs FILE, or the stem's STEM.costs: give --costs none)")


def configure(p: argparse.ArgumentParser) -> None:
    """The rules command's own options."""
    p.add_argument("--json", action="store_true",
                   help="print rule and condition counts, default class, errors and the rules themselves"
                        " (\"rule_list\": id, conditions, text, class, confidence, covered, errors, ...) as JSON")


def learn(args: argparse.Namespace
          ) -> tuple[RuleSet | BoostedRuleSet, Tree | Node, Dataset | Batches, Dataset | None]:
    """(ruleset, tree, train, test) from the data and learning options (rules, fit)."""
    from ..learn.pipeline import fit_dataset
    from ..model.boosted import BoostedRuleSet
    streamed = streamed_training(args)
    if streamed is not None:
        return learn_in_passes(args, *streamed)
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
    ruleset, tree, _ = fit_dataset(train, progress=learner_progress(args), **options)
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


def learn_in_passes(args: argparse.Namespace, source: Batches, test: Dataset | None, budget: int | None, flag: str
                    ) -> tuple[RuleSet, Node, Batches, Dataset | None]:
    """(ruleset, unpruned tree, source, test) learnt in passes over `source`'s batches
    (learn/stream.py); the run's facts go to args.stream_facts for --json."""
    from ..learn.pipeline import fit_batches
    progress(args, f"learning in passes over {source.n} rows, {source.batch_rows} at a time")
    ruleset, tree, facts = fit_batches(source, flag=flag, memory=budget, **learning_rule_options(args))
    args.stream_facts = facts
    return ruleset, tree, source, test


def stream_json(args: argparse.Namespace) -> dict:
    """{"stream": the streamed run's facts} for --json, or {} when the rows were in memory."""
    facts = getattr(args, "stream_facts", None)
    return {} if facts is None else {"stream": facts.as_dict()}


def windowed_rules(args: argparse.Namespace, train: Dataset, options: dict, windowing: dict
                   ) -> tuple[RuleSet, Tree, Composite]:
    """(composite ruleset, best trial's Tree, Composite) of a -t run (spec 5, 7.10); the model
    records the windowing as options trials, window and increment."""
    from ..learn.pipeline import check_options, grower_options
    from ..rules.composite import composite_rules
    from ..tree.node import Tree
    from ..tree.window import window_trees
    if options.get("costs") is not None:
        raise InputError(WINDOWING_COSTS)
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
    if o.get("soft"):
        # c4.5 -p -t softens the best trial's pruned tree, over every case
        from ..tree.soft import soften
        soften(best.pruned, train)
    return comp.ruleset, Tree(train.schema, best.unpruned, best.pruned, recorded), comp


def tuned_options(args: argparse.Namespace, train: Dataset, options: dict) -> tuple[dict, dict]:
    """The options with the grid's best point (by cross-validation on `train`) in place, and a
    record of the choice: {"grid", "folds", "seed", "best", "mean_error_pct", "limit_pct"}
    (limit_pct: the one-standard-error limit the choice was made by)."""
    from ..learn.crossval import grid_options as as_fit_options
    from ..learn.crossval import tune
    grid = tuning_grid(args)
    seed = args.seed if args.seed is not None else 0
    progress(args, f"tuning: {args.cv_folds}-fold cross-validation of each grid point")
    res = tune(train, grid, k=args.cv_folds, seed=seed, options=options, progress=learner_progress(args))
    return ({**options, **as_fit_options(res.best)},
            {"grid": {k: list(v) for k, v in grid.items()}, "folds": args.cv_folds, "seed": seed,
             "best": res.best, "mean_error_pct": round(res.chosen.error_pct, 4),
             "limit_pct": round(res.limit_pct, 4)})


def rules_text(ruleset: RuleSet | BoostedRuleSet, train: Dataset | Batches, test: Dataset | None) -> str:
    """Rules, training evaluation and (with test data) test evaluation, as c4.5rules prints them;
    a boosted model: each trial's rules, then the vote's evaluation."""
    from ..model.boosted import BoostedRuleSet
    from ..model.ruleset import format_rules
    from ..rules.report import format_evaluation, format_vote_evaluation
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
    from .regression import is_regression, run_rules
    if is_regression(args):
        return run_rules(args)
    windowing = window_settings(args)
    if windowing is not None:
        return _run_windowed(args, windowing)
    ruleset, _, train, test = learn(args)
    if args.json:
        print(json.dumps({**rules_json(ruleset, train, test), **stream_json(args)}))
        return 0
    sys.stdout.write(rules_text(ruleset, train, test))
    return 0


def rules_json(ruleset: RuleSet | BoostedRuleSet, train: Dataset | Batches, test: Dataset | None) -> dict:
    """rules --json and fit --json: {"rules" (their count), "conditions", "default_class",
    "train_errors", "test_errors", "rule_list": [Rule.as_dict()]}, with costs "train_cost" and
    "test_cost", winnowed "winnowed"; a boosted model's is boosted_json's."""
    from ..model.boosted import BoostedRuleSet
    from ..rules.evaluate import evaluate
    if isinstance(ruleset, BoostedRuleSet):
        return boosted_json(ruleset, train, test)
    ev_train, ev_test = evaluate(ruleset, train), None if test is None else evaluate(ruleset, test)
    costs = {}
    if ev_train.cost is not None:   # a model with misclassification costs
        costs = {"train_cost": ev_train.cost, "test_cost": None if ev_test is None else ev_test.cost}
    return {"rules": len(ruleset.rules),
            "conditions": sum(len(r.conditions) for r in ruleset.rules),
            "default_class": ruleset.default_class,
            "train_errors": ev_train.errors,
            "test_errors": None if ev_test is None else ev_test.errors,
            **costs,
            **({"winnowed": ruleset.options_dict["winnowed"]} if "winnowed" in ruleset.options_dict else {}),
            "rule_list": [r.as_dict() for r in ruleset.rules]}


def boosted_json(model: BoostedRuleSet, train: Dataset, test: Dataset | None) -> dict:
    """rules --json of a boosted model: {"trials": [{"rules", "train_errors", "rule_list"}], "trials_asked",
    "rules" (all trials'), "train_errors", "test_errors" (the vote's); with costs "train_cost",
    "test_cost" (the vote's) too}."""
    from ..rules.evaluate import evaluate_votes
    ev = evaluate_votes(model, train)
    ev_test = None if test is None else evaluate_votes(model, test)
    costs = {}
    if ev.cost is not None:   # a model with misclassification costs
        costs = {"train_cost": ev.cost, "test_cost": None if ev_test is None else ev_test.cost}
    return {"trials": [{"rules": len(rs.rules), "train_errors": te.errors, "rule_list": [r.as_dict() for r in rs.rules]}
                       for rs, te in zip(model.trials, ev.trials)],
            "trials_asked": model.options_dict["trials"],
            "rules": sum(len(rs.rules) for rs in model.trials), "train_errors": ev.errors,
            "test_errors": None if ev_test is None else ev_test.errors, **costs}


def _run_windowed(args: argparse.Namespace, windowing: dict) -> int:
    """rules -t: c4.5rules' output on the trials' trees (each one's ruleset, the composite, their
    evaluations and trial tables), or its numbers as JSON."""
    from ..rules.evaluate import evaluate
    from ..rules.report import format_composite
    streamed_training(args)     # refuses windowing when learning in passes
    train, test = load_training(args)
    options = learning_rule_options(args)
    _, _, comp = windowed_rules(args, train, options, windowing)
    if args.json:
        rulesets = [rs for rs, _ in comp.trials]
        print(json.dumps({
            "trials": [{"rules": len(rs.rules), "train_errors": evaluate(rs, train).errors} for rs in rulesets],
            "rules": len(comp.ruleset.rules), "train_errors": evaluate(comp.ruleset, train).errors,
            "test_errors": None if test is None else evaluate(comp.ruleset, test).errors,
            "rule_list": [r.as_dict() for r in comp.ruleset.rules]}))
        return 0
    sys.stdout.write(format_composite(comp, train, test, data_stem(args.data)))
    return 0
