"""`c45rules export`: a model as SQL, standalone Python or YAML, or its tree as DOT/GraphML."""
from __future__ import annotations

import argparse

from ..errors import InputError
from .io import check_output, load_model, relearn_tree, write_text
from .options import reading_options

HELP = "write a model as SQL, standalone Python, YAML, or its tree as DOT/GraphML"
EXAMPLE = ("c45rules export model.yaml --to sql --table loans -o rules.sql\n"
           "  c45rules export model.yaml --to python -o rules.py\n"
           "  c45rules export model.yaml --to dot --data examples/crx/crx -o tree.dot")
PARENTS = (reading_options,)


def configure(p: argparse.ArgumentParser) -> None:
    """The export command's arguments."""
    p.add_argument("model", metavar="MODEL.yaml")
    p.add_argument("--to", required=True, choices=("sql", "python", "yaml", "dot", "graphml"))
    p.add_argument("-o", "--output", metavar="FILE", help="file to write (default: stdout; graphml needs a file)")
    p.add_argument("--dialect", default="sqlite", help="SQL dialect (default sqlite)")
    p.add_argument("--table", default="input_table", help="table the SELECT reads (default input_table)")
    p.add_argument("--case-only", action="store_true", help="only the CASE expression giving the class")
    p.add_argument("--data", metavar="DATA",
                   help="dot/graphml: the training data, to re-grow the tree (the YAML holds only"
                        " the rules); it must be the data the model was fitted on")
    p.add_argument("--target", metavar="COL", help="class column of --data when its name differs")
    p.add_argument("--unpruned", action="store_true", help="dot/graphml: the unpruned tree")


def run(args: argparse.Namespace) -> int:
    """Write the export to -o or stdout."""
    from .. import export
    check_output(args, args.output)
    ruleset = load_model(args.model)
    if args.to in ("dot", "graphml"):
        if not args.data:
            raise InputError(f"--to {args.to} draws the tree, which the YAML model does not hold:"
                             " give the training data with --data to re-grow it")
        tree, _ = relearn_tree(args, ruleset, args.data, args.target)
        node = tree.unpruned if args.unpruned else tree.pruned
        if args.to == "dot":
            write_text(args.output, export.to_dot(node, ruleset.schema))
        else:
            if args.output in (None, "-"):
                raise InputError("--to graphml needs -o FILE")
            export.write_graphml(node, ruleset.schema, args.output)
        return 0
    if args.data:
        raise InputError(f"--data is only used by --to dot/graphml, not --to {args.to}")
    if args.to == "sql":
        if args.case_only:
            text = export.to_sql_case(ruleset, args.dialect)
        else:
            text = export.to_sql_select(ruleset, args.table, args.dialect)
        text = text.rstrip("\n") + ("\n" if args.case_only else ";\n")
    elif args.to == "python":
        text = export.to_python(ruleset)
    else:
        text = export.dump_yaml(ruleset)
    write_text(args.output, text)
    return 0
