"""`c45rules tune`: cross-validate a grid of options and name the best."""
from __future__ import annotations

import argparse
import json
import sys

from .io import learner_progress, load_training, progress
from .options import data_options, grid_options, learning_rule_options, rule_options, tree_options, tuning_grid

HELP = "choose options (cf, m, s, ...) by cross-validating each point of a grid"
DESCRIPTION = f"""{HELP}.

Every point of the grid (and the untuned options' point, when the grid lacks it) is
cross-validated on the same folds. The choice is the one-standard-error rule: the untuned
options (those given, else cf=25 m=2 s=0) are kept unless their mean error exceeds the lowest
mean error by more than that lowest error's standard error over the folds; only then is the
point of lowest error chosen (ties: fewer rules, then the first in the grid). On small data the
folds cannot tell options apart, and the untuned options stay."""
EXAMPLE = ("c45rules tune examples/crx/crx --grid cf=5,10,25,50 m=1,2,5,10 s=0,1 --cv-folds 10\n"
           "  c45rules fit examples/crx/crx --tune -o model.yaml   # tune, then fit with the best")
PARENTS = (lambda: data_options(test=False), tree_options, rule_options, lambda: grid_options("tune"))


def configure(p: argparse.ArgumentParser) -> None:
    """The tune command's own options."""
    p.add_argument("--json", action="store_true",
                   help='print {"k", "seed", "grid": [{"options", "mean_error_pct", "se_error_pct",'
                        ' "mean_rules"}], "lowest", "untuned", "limit_pct", "best"}')


def run(args: argparse.Namespace) -> int:
    """Print each grid point's cross-validated error, best first marked."""
    from ..learn.crossval import tune
    train, _ = load_training(args)
    grid = tuning_grid(args)
    seed = args.seed if args.seed is not None else 0
    progress(args, f"tuning: {args.cv_folds}-fold cross-validation of each grid point")
    res = tune(train, grid, k=args.cv_folds, seed=seed, options=learning_rule_options(args),
               progress=learner_progress(args))
    if args.json:
        print(json.dumps(res.as_json()))
        return 0
    names = list(grid)
    lines = [f"{res.k}-fold cross-validation of {len(res.points)} option sets (seed {seed}); the untuned"
             f" options are kept unless their error exceeds the lowest by more than its standard error"
             f" (limit {res.limit_pct:.2f}%)", "",
             "  ".join(f"{n:>5}" for n in names) + f"  {'error':>7}  {'+- se':>6}  {'rules':>6}"]
    for p in res.points:
        marks = [m for m, q in (("best", res.best), ("lowest", res.lowest.options), ("untuned", res.untuned.options))
                 if p.options == q]
        lines.append("  ".join(f"{p.options[n]!s:>5}" for n in names) + f"  {p.error_pct:6.2f}%  {p.se_pct:6.2f}"
                     f"  {p.rules:6.1f}" + (f"  <- {', '.join(marks)}" if marks else ""))
    best = " ".join(f"{n}={res.best[n]}" for n in names)
    lines += ["", f"best: {best}", ""]
    sys.stdout.write("\n".join(lines))
    return 0
