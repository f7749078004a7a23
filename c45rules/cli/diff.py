"""`c45rules diff`: what changed between two models, rule by rule and (with data) decision by decision."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from .io import data_path, load_model, progress
from .options import read_options, reading_options

if TYPE_CHECKING:
    from ..govern.diff import BoostedDiff, RuleDiff
    from ..govern.regression_diff import RegressionDiff
    from ..model.boosted import BoostedRuleSet
    from ..model.regression import RegressionModel
    from ..model.ruleset import RuleSet

    AnyModel = RuleSet | BoostedRuleSet | RegressionModel

HELP = "compare two models: rules added, removed and changed, and (with --data) the decisions that move"
EXAMPLE = ("c45rules diff last_quarter.yaml this_quarter.yaml\n"
           "  c45rules diff old.yaml new.yaml --data applications.csv --json")
PARENTS = (reading_options,)


def configure(p: argparse.ArgumentParser) -> None:
    """The diff command's arguments."""
    p.add_argument("old", metavar="OLD.yaml")
    p.add_argument("new", metavar="NEW.yaml")
    p.add_argument("--data", metavar="DATA",
                   help="score these rows with both models and count the decisions that change")
    p.add_argument("--json", action="store_true",
                   help='print {"rules": {"added", "removed", "changed", "unchanged"}, "decisions": ...}'
                        ' (either model boosted: {"trials": [{"trial", "rules": ...}], "old_trials",'
                        ' "new_trials", "decisions"})')


def compare(args: argparse.Namespace, old: AnyModel, new: AnyModel, path: str | None
            ) -> RuleDiff | BoostedDiff | RegressionDiff:
    """The RuleDiff of two loaded models, with the decisions on the rows of `path` when given."""
    from ..govern.diff import diff_models
    from ..govern.regression_diff import diff_regression
    from ..model.regression import RegressionModel
    regression = isinstance(old, RegressionModel) or isinstance(new, RegressionModel)
    differ = diff_regression if regression else diff_models   # a number's rules: per committee
    if not path:
        return differ(old, new)
    import pandas as pd

    from ..data.frame import encode_frame
    from .cases import read_text_chunks
    progress(args, f"reading {path}")
    read = read_options(args)
    _, chunks = read_text_chunks(data_path(path), old.schema, 50_000, read)
    frames = list(chunks)
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    # the same rows for each model, encoded against its own schema
    old_cases, new_cases = (encode_frame(frame, m.schema, require=m.used_attributes(), source=path,
                                         read=read) for m in (old, new))
    return differ(old, new, old_cases, new_cases)


def run(args: argparse.Namespace) -> int:
    """Print the difference (exit 0 whatever it is)."""
    from ..govern.diff import describe_models
    from ..govern.regression_diff import RegressionDiff, describe_regression
    old = load_model(args.old)
    new = load_model(args.new)
    d = compare(args, old, new, args.data)
    describe = describe_regression if isinstance(d, RegressionDiff) else describe_models
    if args.json:
        print(json.dumps(d.as_json()))
    else:
        sys.stdout.write(describe(d, old, new, args.data))
    return 0
