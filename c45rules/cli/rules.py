"""`c45rules rules`: learn C4.5 rules, printed and evaluated as c4.5rules prints them."""
from __future__ import annotations

import argparse
import json
import sys

from .io import load_training, progress
from .options import data_options, learning_rule_options, rule_options, tree_options

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
    progress(args, "growing the tree, generalising and selecting rules")
    ruleset, tree, _ = fit_dataset(train, **learning_rule_options(args))
    return ruleset, tree, train, test


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
            "test_errors": None if test is None else evaluate(ruleset, test).errors}))
        return 0
    sys.stdout.write(rules_text(ruleset, train, test))
    return 0
