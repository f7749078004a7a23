"""`c45rules report`: a self-contained HTML review report of a model."""
from __future__ import annotations

import argparse

from ..errors import InputError
from .io import check_output, data_path, is_stdout, load_labelled, load_model, relearn_tree
from .options import deprecated, positive_int, read_options, reading_options, scoring_options

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
    p.add_argument("--row-number", type=positive_int, metavar="N",
                   help="add why the N-th case (1 = first data row) of --data gets its class: the deciding"
                        " rule, or for a boosted model every trial's vote and the totals")
    p.add_argument("--ensemble", metavar="MODEL",
                   help="rules made by 'c45rules import MODEL --data': the ensemble they explain (checked"
                        " against the fingerprint the rules record); with --data, add a fidelity section:"
                        " agreement overall, by class, and the rules that disagree with it most")
    deprecated(p, "--explain-row", "--row-number", "row_number", kind=positive_int, default=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    """Write the report."""
    from ..export.report import write_report
    from ..model.boosted import BoostedRuleSet
    from .cases import report_unseen
    check_output(args, args.output)
    ruleset = load_model(args.model)
    from ..model.regression import RegressionModel
    if isinstance(ruleset, RegressionModel):
        return _regression(args, ruleset)
    if isinstance(ruleset, BoostedRuleSet) and (args.train or args.compare):
        raise InputError("--train and --compare are for a single ruleset: a boosted model's report shows each"
                         " trial's rules, not a tree, and boosted models are not compared rule by rule")
    if args.row_number is not None and not args.data:
        raise InputError("--row-number needs --data FILE: the case is the N-th row of it")
    # a tree kept in the model (fit --keep-tree) is drawn as is; a boosted model has none (a tree a trial)
    tree, train = getattr(ruleset, "tree", None), None
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
    case = None
    if args.row_number is not None:
        from .cases import case_from_file
        row = case_from_file(args.data, ruleset.schema, args.row_number, read_options(args))
        case = {name: row.get(name) for name in ruleset.schema.names}   # left out = unknown
    ensemble = None
    if args.ensemble is not None:
        from .import_ import load_explained
        if isinstance(ruleset, BoostedRuleSet) or not args.data:
            raise InputError("--ensemble goes with --data and rules made by 'c45rules import MODEL --data': the"
                             " fidelity section compares their decisions on the data's rows")
        ensemble = load_explained(args.ensemble, ruleset)
    write_report(ruleset, args.output, tree=tree, data=data, previous=previous, diff=diff, case=case,
                 read=read_options(args), train=train, ensemble=ensemble)
    if not is_stdout(args.output):
        print(f"Report written to {args.output}")
    return 0


def _regression(args: argparse.Namespace, model) -> int:
    """A regression model's report: its rules and models, with --data the evidence on labelled data."""
    from ..export.regression_report import write_regression_report
    if args.train or args.compare:
        raise InputError("--train and --compare are for class rules; a regression model's report shows its"
                         " committees' rules and models (and with --data their evidence)")
    if args.row_number is not None and not args.data:
        raise InputError("--row-number needs --data FILE: the case is the N-th row of it")
    data = y = case = None
    if args.data:
        from .regression_io import load_regression_labelled
        data, y = load_regression_labelled(args.data, model, args.target)
    if args.row_number is not None:
        from .cases import case_from_file
        row = case_from_file(args.data, model.schema, args.row_number, read_options(args))
        case = {name: row.get(name) for name in model.schema.names}   # left out = unknown
    write_regression_report(model, args.output, data=data, y=y, case=case)
    if not is_stdout(args.output):
        print(f"Report written to {args.output}")
    return 0

