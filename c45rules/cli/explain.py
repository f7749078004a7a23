"""`c45rules explain`: which rule decides one case, and why."""
from __future__ import annotations

import argparse
import json

from ..errors import InputError
from .io import load_model
from .options import positive_int, read_options, reading_options, scoring_options

HELP = ("which rule decides a case and why, condition by condition (a boosted model: every trial's deciding"
        " rule, its vote and the class totals)")
EXAMPLE = ("c45rules explain model.yaml --row '{\"A9\": \"t\", \"A15\": 300}'\n"
           "  c45rules explain model.yaml --row-number 3 --data examples/crx/crx.test")
PARENTS = (reading_options, scoring_options)


def configure(p: argparse.ArgumentParser) -> None:
    """The explain command's arguments."""
    p.add_argument("model", metavar="MODEL.yaml")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--row", metavar="JSON",
                   help="the case as a JSON object; attributes left out are unknown")
    g.add_argument("--row-number", type=positive_int, metavar="N",
                   help="the N-th case (1 = first data row) of --data")
    p.add_argument("--data", metavar="FILE", help="C4.5 .data/.test or CSV/Parquet file for --row-number"
                   " (it needs the columns the rules test; others missing are unknown)")
    p.add_argument("--ensemble", metavar="MODEL",
                   help="rules made by 'c45rules import MODEL --data': the ensemble they explain (joblib,"
                        " XGBoost .json/.ubj or LightGBM .txt; checked against the fingerprint the rules"
                        " record); say whether it decides the case as the rules do")
    p.add_argument("--json", action="store_true",
                   help='print {"class", "rule_id", "conditions": [{"rule", "attribute", "op", "value",'
                        ' "case_value", "satisfied"}]}: the deciding rule\'s conditions or, when the'
                        ' default class decides (rule_id 0), each rule\'s first failed condition (a rule'
                        ' whose conditions hold but which never fires, error above 70%%: attribute null);'
                        ' for a boosted model {"class", "confidence", "votes": [{"trial", "vote", and the'
                        ' above for that trial}], "totals": {class: total vote}}; with --ensemble also'
                        ' "ensemble": {"class", "agrees"}; for a regression model'
                        ' {"value", "average", "corrected", "bounds", "committees": [{"rules": [{"rule",'
                        ' "conditions", "model", "raw", "value"}], "default", "value"}]}')


def run(args: argparse.Namespace) -> int:
    """Print the explanation of the case given by --row or --row-number."""
    import pandas as pd

    from ..data.frame import encode_frame
    from ..data.nesting import load_json
    from .cases import _offset_rows, case_from_file, report_unseen
    ruleset = load_model(args.model)
    read = read_options(args)
    if args.row is not None:
        if args.data:
            raise InputError("--data goes with --row-number, not with --row")
        row = load_json(args.row, "--row", InputError)
        if not isinstance(row, dict):
            raise InputError("--row: expected a JSON object such as {\"A9\": \"t\", \"A15\": 300}")
        nested = next((k for k, v in row.items() if isinstance(v, (list, dict))), None)
        if nested is not None:   # it would be read as the text of an unseen value
            raise InputError(f"--row: attribute {nested!r} is given a JSON"
                             f" {'array' if isinstance(row[nested], list) else 'object'};"
                             " a value is a string, a number or null")
        unknown = sorted(set(row) - set(ruleset.schema.names) - {ruleset.schema.target})
        if unknown:
            raise InputError(f"--row: unknown attribute(s) {', '.join(map(repr, unknown))}"
                             f" (the model's: {', '.join(ruleset.schema.names)})")
    else:
        if not args.data:
            raise InputError("--row-number needs --data FILE")
        row = case_from_file(args.data, ruleset.schema, args.row_number, read)
    source = "--row" if args.row is not None else str(args.data)
    # a file must hold the columns the rules test (as predict requires); --row may leave any out
    require = () if args.row is not None else ruleset.used_attributes()
    try:
        encoded = encode_frame(pd.DataFrame([row]), ruleset.schema, require=require, source=source, read=read)
    except InputError as e:
        raise e if args.row is not None else _offset_rows(e, source, args.row_number - 1) from None
    report_unseen(encoded, source, args.strict)
    case = {name: row.get(name) for name in ruleset.schema.names}  # left out = unknown
    from ..model.regression import RegressionModel
    ensemble = None
    if args.ensemble is not None:
        from .import_ import load_explained
        from ..model.boosted import BoostedRuleSet
        if isinstance(ruleset, (BoostedRuleSet, RegressionModel)):
            raise InputError("--ensemble goes with rules made by 'c45rules import MODEL --data', not a boosted"
                             " or regression model")
        ensemble = load_explained(args.ensemble, ruleset)
    if isinstance(ruleset, RegressionModel):   # a number: the rules that apply, their models, the average
        from ..model.regression_explain import explain_regression
        explanation = explain_regression(ruleset, encoded)
    elif ensemble is None:
        explanation = ruleset.explain(case, read=read)
    else:
        from ..imports.fidelity import explain_case
        explanation = explain_case(ruleset, case, ensemble, read=read)
    print(json.dumps(explanation.as_dict(), ensure_ascii=False) if args.json else str(explanation))
    return 0
