"""`c45rules import`: a PMML RuleSetModel or TreeModel as a c45rules model file."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import InputError
from .io import MODEL_SUFFIXES, check_output, write_text

HELP = "read a PMML RuleSetModel or TreeModel into a model file that decides as it does"
EXAMPLE = ("c45rules import tree.pmml -o model.yaml\n"
           "  c45rules rescore model.yaml --data train.csv --target y -o measured.yaml")
PARENTS = ()


def configure(p: argparse.ArgumentParser) -> None:
    """The import command's arguments."""
    p.add_argument("pmml", metavar="MODEL.pmml")
    p.add_argument("-o", "--output", required=True, metavar="MODEL.yaml",
                   help="the model file to write ('-': the YAML on stdout)")


def run(args: argparse.Namespace) -> int:
    """Write the imported model and say what it holds."""
    from ..export.yaml import dump_yaml
    from ..imports.pmml import load_pmml
    if Path(args.pmml).suffix.lower() in MODEL_SUFFIXES:
        raise InputError(f"{args.pmml}: is a c45rules model file; import reads PMML (to write PMML:"
                         " c45rules export MODEL.yaml --to pmml)")
    check_output(args, args.output)
    ruleset = load_pmml(args.pmml)
    write_text(args.output, dump_yaml(ruleset))
    if args.output not in (None, "-"):
        print(f"{len(ruleset.rules)} rules, default class {ruleset.default_class}; written to {args.output}")
        if ruleset.notes:
            print(ruleset.notes)
        if not any(r.covered for r in ruleset.rules):
            print("The PMML holds no evidence for the rules: 'c45rules rescore MODEL --data DATA' measures it.",
                  file=sys.stderr)
    return 0
