"""`c45rules tree`: grow and prune a C4.5 tree, printed and evaluated as c4.5 prints it."""
from __future__ import annotations

import argparse
import json
import sys

from ..errors import InputError
from .io import learner_progress, load_training, progress, streamed_training
from .options import (data_options, learning_tree_options, soft_options, stream_options, tree_options, window_options,
                      window_settings)

HELP = ("grow and prune a C4.5 tree (or a CART, ID3, J48, CHAID or QUEST tree: --grower); print it and its"
        " evaluation")
EXAMPLE = ("c45rules tree examples/crx/crx -u\n  c45rules tree data.csv --target class --json\n"
           "  c45rules tree examples/crx/crx -u --grower cart --cp 0.02 --json\n"
           "  c45rules tree examples/crx/crx -u --weka-compat --binary-splits --json   (Weka's J48 -B)\n"
           "  c45rules tree examples/crx/crx -u --grower chaid --min-parent 50 --min-child 20\n"
           "  c45rules tree examples/crx/crx -u --grower quest --min-node 40 --se-rule 0\n"
           "  c45rules tree golf --explain-splits   (each node: every attribute's info, gain, split info, gain ratio)\n"
           "  c45rules tree examples/crx/crx -u -t 10   (windowing: 10 trees, as c4.5 -t 10)")


def configure(p: argparse.ArgumentParser) -> None:
    """The tree command's own options."""
    p.add_argument("--json", action="store_true", help="print sizes and error counts as JSON")
    p.add_argument("--explain-splits", action="store_true",
                   help="print, for each test node of the grown tree, every attribute's info, gain (penalised for"
                        " a cut, scaled by the known fraction: the numbers c4.5 chose by), split info and gain"
                        " ratio; with --json a list of nodes with their path and per-attribute numbers")


PARENTS = (data_options, tree_options, window_options, soft_options, stream_options)


def run(args: argparse.Namespace) -> int:
    """Print the unpruned and pruned trees and their evaluation (or their counts as JSON)."""
    from ..data.costs import resolved, with_costs
    from ..learn.pipeline import learn_tree
    from ..learn.stream import needs_rows
    from ..tree.report import evaluate_trees, format_confusion, format_evaluation, format_tree
    streamed = streamed_training(args)
    if streamed is not None:
        # c4.5's subtree raising estimates a node's largest branch on all the node's cases: not
        # a sum of counts the grown tree holds (fit and rules need no pruned tree)
        raise needs_rows("pruning (c4.5's subtree raising re-routes a node's cases through its largest branch;"
                         " fit and rules learn in passes)", streamed[3])
    train, test = load_training(args)
    progress(args, "growing and pruning the tree")
    options = learning_tree_options(args)
    if args.explain_splits and options.get("grower", "c45") != "c45":
        raise InputError("--explain-splits shows C4.5's gain and gain ratio: it applies to --grower c45")
    windowing = window_settings(args)
    if (windowing is not None or args.soft) and train.weights is not None:
        # c4.5's windowing and soft thresholds count whole cases
        raise InputError("-t/-w/-i (windowing) and -p (soft thresholds) do not go with --weights or --class-weights")
    if windowing is not None:
        if options.get("costs") is not None:
            from .rules import WINDOWING_COSTS
            raise InputError(WINDOWING_COSTS)
        if options.get("grower", "c45") != "c45" or args.explain_splits or args.soft:
            raise InputError("-t/-w/-i (windowing) apply to --grower c45, and not with --explain-splits or -p")
        return _print_windowing(args, windowing, options, train, test)
    if args.soft and (options.get("grower", "c45") != "c45" or args.explain_splits):
        raise InputError("-p (soft thresholds) applies to --grower c45 and not with --explain-splits")
    if args.soft:
        # c4.5 -p's tree, the one `fit -p --keep-tree` keeps: where unknown values make weights
        # fractional, its float sums follow the order of c4.5's Item array (FIDELITY.md, labor)
        from ..learn.pipeline import check_options, grower_options, soft_tree
        tree = soft_tree(train, grower_options(check_options(options)))
    else:
        tree = learn_tree(train, progress=learner_progress(args), **options)
    if args.explain_splits:
        from ..tree.explain import explain_splits, format_splits
        nodes = explain_splits(train, tree.unpruned, min_objs=options["min_objs"], gain_ratio=options["gain_ratio"],
                               subset=options["subset"])
        if args.json:
            print(json.dumps([n.as_dict() for n in nodes]))
        else:
            sys.stdout.write(format_splits(nodes))
        return 0
    if tree.options.get("grower", "c45") != "c45":
        return _print_other(args, tree, train, test)
    costs = with_costs(train, resolved(options.get("costs"), train.schema.classes)).costs
    ev = evaluate_trees(tree.unpruned, tree.pruned, train, train.n, costs)
    ev_test = None if test is None else evaluate_trees(tree.unpruned, tree.pruned, test, train.n, costs)
    if args.json:
        print(json.dumps({
            "unpruned": {"size": ev.unpruned_size, "train_errors": ev.unpruned_errors,
                         "test_errors": None if ev_test is None else ev_test.unpruned_errors},
            "pruned": {"size": ev.pruned_size, "train_errors": ev.pruned_errors,
                       "test_errors": None if ev_test is None else ev_test.pruned_errors,
                       "estimate_pct": round(ev.estimate, 1)}}))
        return 0
    if args.soft:
        from ..tree.report import format_soft
        out = [format_soft(tree.unpruned, tree.pruned, train.schema)]
    else:
        out = ["Decision Tree:\n\n" + format_tree(tree.unpruned, train.schema) + "\n\n"]
        # c4.5 prints the simplified tree only when pruning changed it; any change shrinks it
        if tree.pruned.size() != tree.unpruned.size():
            out.append("\nSimplified Decision Tree:\n\n" + format_tree(tree.pruned, train.schema) + "\n\n")
    out.append("\n" + format_evaluation(ev, "training"))
    if ev_test is not None:
        out.append("\n" + format_evaluation(ev_test, "test"))
        out.append("\n" + format_confusion(ev_test.confusion, train.schema.classes) + "\n")
    sys.stdout.write("".join(out))
    return 0


def _print_other(args: argparse.Namespace, tree, train, test) -> int:
    """A cart, id3, j48, chaid or quest tree (cart's is pruned as it grows, quest's by cross-validation
    once grown, id3's and chaid's never, j48's as J48 prunes): its leaves and errors; chaid's with
    Kass's statistics at each split."""
    from ..tree.growers import tree_classes
    from ..tree.report import format_tree
    errors = lambda d: None if d is None else int((tree_classes(tree, d) != d.y).sum())  # noqa: E731
    chaid = tree.options["grower"] == "chaid"
    quest = tree.options["grower"] == "quest"
    # chaid: Kass's leaves, a group of unknown values alone among them
    leaves = tree.chaid.leaves() if chaid else tree.pruned.leaves()
    train_errors, test_errors = errors(train), errors(test)
    if args.json:
        out = {"grower": tree.options["grower"], "leaves": leaves, "train_errors": train_errors,
               "test_errors": test_errors}
        if tree.options["grower"] == "j48":
            # J48 prints its "Size of the tree" too: the figures compared with Weka's
            out = {"grower": "j48", "leaves": leaves, "size": tree.pruned.size(), "train_errors": train_errors,
                   "test_errors": test_errors}
        if chaid:
            from ..tree.chaid_report import chaid_splits
            out["splits"] = chaid_splits(tree.chaid, train.schema)
        if quest:
            from ..tree.growers.quest import split_tests
            out["splits"] = split_tests(tree, train)
        print(json.dumps(out))
        return 0
    if chaid:
        from ..tree.chaid_report import format_chaid
        text = format_chaid(tree.chaid, train.schema)
    else:
        text = format_tree(tree.pruned, train.schema)
    if quest:
        from ..tree.growers.quest import format_split_tests, split_tests
        text += "\n\n" + format_split_tests(split_tests(tree, train)).rstrip("\n")
    size = f", size {tree.pruned.size()}" if tree.options["grower"] == "j48" else ""
    out = [f"Decision Tree ({tree.options['grower']}):\n\n" + text + "\n\n",
           f"Leaves {leaves}{size}, training errors {train_errors} of {train.n}"
           f" ({100 * train_errors / train.n:.1f}%)\n"]
    if test is not None:
        out.append(f"Test errors {test_errors} of {test.n} ({100 * test_errors / max(test.n, 1):.1f}%)\n")
    sys.stdout.write("".join(out))
    return 0


def _print_windowing(args: argparse.Namespace, windowing: dict, options: dict, train, test) -> int:
    """c4.5 -t: every trial's cycles and trees, the best trial and the per-trial evaluation."""
    from ..tree.report import evaluate_trees, format_windowing
    from ..tree.window import window_trees
    progress(args, f"windowing: {windowing['trials']} trials")
    run = window_trees(train, **windowing, cf=options["cf"], min_objs=options["min_objs"],
                       gain_ratio=options["gain_ratio"], subset=options["subset"])
    if args.json:
        rows = [evaluate_trees(t.unpruned, t.pruned, train, train.n) for t in run.trials]
        print(json.dumps({
            "trials": [{"unpruned": {"size": ev.unpruned_size, "train_errors": ev.unpruned_errors},
                        "pruned": {"size": ev.pruned_size, "train_errors": ev.pruned_errors}} for ev in rows],
            "best_trial": run.best}))
        return 0
    sys.stdout.write(format_windowing(run, train, test))
    return 0
