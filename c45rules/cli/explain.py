"""`c45rules explain`: which rule decides one case, and why."""
from __future__ import annotations

import argparse
import json

from ..errors import InputError
from .io import load_model
from .options import positive_int, read_options, reading_options

HELP = "which rule decides a case and why, condition by condition"
EXAMPLE = ("c45rules explain model.yaml --row '{\"A9\": \"t\", \"A15\": 300}'\n"
           "  c45rules explain model.yaml --row-number 3 --data examples/crx/crx.test")
PARENTS = (reading_options,)


def configure(p: argparse.ArgumentParser) -> None:
    """The explain command's arguments."""
    p.add_argument("model", metavar="MODEL.yaml")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--row", metavar="JSON",
                   help="the case as a JSON object; attributes left out are unknown")
    g.add_argument("--row-number", type=positive_int, metavar="N",
                   help="the N-th case (1 = first data row) of --data")
    p.add_argument("--data", metavar="FILE", help="C4.5 .data/.test or CSV/Parquet file for --row-number")


def run(args: argparse.Namespace) -> int:
    """Print the explanation of the case given by --row or --row-number."""
    from .cases import case_from_file
    ruleset = load_model(args.model)
    read = read_options(args)
    if args.row is not None:
        if args.data:
            raise InputError("--data goes with --row-number, not with --row")
        try:
            row = json.loads(args.row)
        except json.JSONDecodeError as e:
            raise InputError(f"--row: not valid JSON ({e})") from None
        if not isinstance(row, dict):
            raise InputError("--row: expected a JSON object such as {\"A9\": \"t\", \"A15\": 300}")
        unknown = sorted(set(row) - set(ruleset.schema.names) - {ruleset.schema.target})
        if unknown:
            raise InputError(f"--row: unknown attribute(s) {', '.join(map(repr, unknown))}"
                             f" (the model's: {', '.join(ruleset.schema.names)})")
    else:
        if not args.data:
            raise InputError("--row-number needs --data FILE")
        row = case_from_file(args.data, ruleset.schema, args.row_number, read)
    case = {name: row.get(name) for name in ruleset.schema.names}  # left out = unknown
    print(str(ruleset.explain(case, read=read)))
    return 0
