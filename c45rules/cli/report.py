"""`c45rules report`: a self-contained HTML review report of a model."""
from __future__ import annotations

import argparse

from .io import check_output, data_path, is_stdout, load_labelled, load_model, relearn_tree
from .options import reading_options, scoring_options

HELP = "write a self-contained HTML review report of a model"
EXAMPLE = ("c45rules report model.yaml --train examples/crx/crx --data examples/crx/crx.test"
           " -o report.html")
PARENTS = (reading_options, scoring_options)


def configure(p: argparse.ArgumentParser) -> None:
    """The report command's arguments."""
    p.add_argument("model", metavar="MODEL.yaml")
    p.add_argument("-o", "--output", required=True, metavar="REPORT.html")
    p.add_argument("--data", metavar="FILE", help="labelled data for the evaluation section (the class"
                   " and the columns the rules test; others missing are unknown)")
    p.add_argument("--train", metavar="DATA",
                   help="the training data: draws the tree (checked against the model's fingerprint)")
    p.add_argument("--target", metavar="COL", help="class column of a CSV when its name differs")
    p.add_argument("--compare", metavar="OLD.yaml",
                   help="add what changed since this previous model (rules, and with --data the decisions)")


def run(args: argparse.Namespace) -> int:
    """Write the report."""
    from ..report import write_report
    from .cases import report_unseen
    check_output(args, args.output)
    ruleset = load_model(args.model)
    tree, train = ruleset.tree, None      # a tree kept in the model (fit --keep-tree) is drawn as is
    if args.train:
        tree, train = relearn_tree(args, ruleset, args.train, args.target)
    data = train
    if args.data:
        data = load_labelled(args.data, ruleset, args.target, args, scoring=True)
        report_unseen(data, data_path(args.data), args.strict)
    previous = diff = None
    if args.compare:
        from .diff import compare
        previous = load_model(args.compare)
        diff = compare(args, previous, ruleset, args.data or args.train)
    write_report(ruleset, args.output, tree=tree, data=data, previous=previous, diff=diff)
    if not is_stdout(args.output):
        print(f"Report written to {args.output}")
    return 0
