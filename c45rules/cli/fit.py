"""`c45rules fit`: learn C4.5 rules and write the model file."""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from ..errors import InputError
from .io import check_output, is_stdout, write_text
from .options import (boost_options, boost_trials, data_options, grid_options, rule_options, soft_options,
                      stream_options, tree_options, window_options)
from .regression import regression_options
from .rules import learn, rules_text, stream_json

HELP = "learn C4.5 rules and write the model as YAML"
EXAMPLE = ("c45rules fit examples/crx/crx -o model.yaml\n"
           "  c45rules fit loans.csv --target default --discrete branch -o model.yaml\n"
           "  c45rules fit examples/crx/crx --tune --grid cf=10,25 m=2,5 -o model.yaml\n"
           "  c45rules fit examples/crx/crx -t 10 -o model.yaml   (the composite ruleset of 10 windowing trials)\n"
           "  c45rules fit examples/crx/crx -b -o model.yaml      (boosted: 10 trials' rulesets voting)")
PARENTS = (data_options, tree_options, rule_options, grid_options, window_options, soft_options, boost_options,
           stream_options, lambda: regression_options(shown=False))


def configure(p: argparse.ArgumentParser) -> None:
    """The fit command's own options."""
    p.add_argument("-o", "--output", required=True, metavar="MODEL.yaml",
                   help="model file to write ('-': the YAML alone on stdout)")
    p.add_argument("--json", action="store_true",
                   help="print rules --json's object (counts, errors and the rules themselves) and \"model\":"
                        " the file written, instead of the rules' text")
    p.add_argument("--keep-tree", action="store_true",
                   help="also store the pruned tree in the model, so that 'export --to dot' and the report"
                        " can draw it without the training data")
    p.add_argument("--tune", action="store_true",
                   help="choose the options of --grid by cross-validation on the training data (the"
                        " one-standard-error rule of 'tune --help'), then fit with the choice; it is stored"
                        " in the model's options as 'tuned'")


def run(args: argparse.Namespace) -> int:
    """Write the model, then print its rules and evaluation unless the model went to stdout."""
    from ..export.yaml import dump_yaml
    from .regression import is_regression, run_fit
    if is_regression(args):
        return run_fit(args)
    if args.json and is_stdout(args.output):
        raise InputError("--json and -o - both write to stdout: give -o a file")
    check_output(args, args.output)
    if args.soft and not args.keep_tree:
        raise InputError("-p keeps each cut's soft band in the model's tree: add --keep-tree")
    if args.soft and getattr(args, "grower", "c45") != "c45":
        raise InputError("-p (soft thresholds) applies to --grower c45")
    if args.soft and (getattr(args, "weights", None) or getattr(args, "class_weights", None)):
        raise InputError("-p (soft thresholds) counts whole cases: it does not go with --weights or --class-weights")
    if boost_trials(args) > 1 and (args.keep_tree or args.soft):
        raise InputError("--keep-tree and -p keep one pruned tree: a boosted model (--trials/-b) has one per trial")
    # with -p the tree is `tree -p`'s (pipeline.soft_tree), its pruned tree already banded
    ruleset, tree, train, test = learn(args)
    if args.keep_tree:
        ruleset = replace(ruleset, tree=tree.pruned)
    write_text(args.output, dump_yaml(ruleset))
    if args.json:
        from .rules import rules_json
        print(json.dumps({**rules_json(ruleset, train, test), "model": args.output, **stream_json(args)}))
    elif not is_stdout(args.output):   # `-o -` puts the model alone on stdout
        sys.stdout.write(rules_text(ruleset, train, test))
        print(f"Model written to {args.output}")
    return 0
