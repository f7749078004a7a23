"""`c45rules export`: a model as SQL, standalone Python, YAML, PMML or a DMN decision table, or its tree
as DOT/GraphML."""
from __future__ import annotations

import argparse
import json

from ..errors import InputError
from ..export.choices import DMN_VERSIONS, FORMS
from .io import check_output, load_model, relearn_tree, write_text
from .options import deprecated, reading_options

HELP = ("write a model as SQL, standalone Python, YAML, PMML, a DMN decision table, or its rule list or tree"
        " as DOT/GraphML (a boosted model: SQL, Python, YAML, PMML, dbt)")
EXAMPLE = ("c45rules export model.yaml --to sql --table loans -o rules.sql\n"
           "  c45rules export model.yaml --to dbt my_dbt_project --source raw.loans --name loans_scored\n"
           "  c45rules export model.yaml --to python -o rules.py\n"
           "  c45rules export model.yaml --to pmml -o model.pmml\n"
           "  c45rules export model.yaml --to dmn -o model.dmn\n"
           "  c45rules export model.yaml --to dot -o rules.dot\n"
           "  c45rules export model.yaml --to dot --train examples/crx/crx -o tree.dot")
PARENTS = (reading_options,)


def configure(p: argparse.ArgumentParser) -> None:
    """The export command's arguments."""
    p.add_argument("model", metavar="MODEL.yaml")
    p.add_argument("--to", required=True, choices=("sql", "python", "yaml", "pmml", "dmn", "dot", "graphml", "dbt"))
    p.add_argument("-o", "--output", metavar="FILE", help="file to write (default: stdout; graphml needs a file)")
    p.add_argument("--dmn-version", choices=DMN_VERSIONS,
                   help="dmn: the DMN version to write (default 1.3; 1.1 for older engines)")
    p.add_argument("--dialect", help="SQL dialect (default sqlite; for dbt, duckdb)")
    p.add_argument("--table", default="input_table", help="table the SELECT reads (default input_table)")
    p.add_argument("--case-only", action="store_true", help="only the CASE expression giving the class")
    p.add_argument("--form", choices=FORMS, default="flat",
                   help="sql: flat (default: one CASE with a WHEN per rule, one nesting level, which every"
                        " engine takes) or nested (a CASE in each ELSE: SQL Server refuses more than 10 levels)")
    p.add_argument("--json", action="store_true",
                   help="sql: with -o, print {dialect, characters, nesting, warnings} on stdout: the statement's"
                        " size, its CASE nesting and the engine limits it passes (also warned on stderr)")
    p.add_argument("--confidence", action="store_true",
                   help="sql: also a 'confidence' column, the decision's confidence as predict --confidence"
                        " gives it")
    p.add_argument("--train", metavar="DATA",
                   help="dot/graphml: the training data, to re-grow the tree of a model fitted without"
                        " --keep-tree; it must be the data the model was fitted on")
    deprecated(p, "--data", "--train", "train", default=argparse.SUPPRESS)   # the training data here
    p.add_argument("--target", metavar="COL", help="class column of --train when its name differs")
    p.add_argument("--draw-unpruned", action="store_true", help="dot/graphml: the unpruned tree (needs --train)")
    deprecated(p, "--unpruned", "--draw-unpruned", "draw_unpruned", flag=True, default=argparse.SUPPRESS)
    p.add_argument("--graph", choices=("rules", "tree"),
                   help="dot/graphml: draw the rule list or the tree (default: the tree when the model keeps"
                        " it (fit --keep-tree) or --train is given, else the rule list)")
    p.intermixed = True   # DIR comes after --to dbt
    p.add_argument("dbt_dir", nargs="?", metavar="DIR",
                   help="dbt: the project directory to write models/NAME.sql, schema.yml and sources.yml into")
    p.add_argument("--source", metavar="SCHEMA.TABLE", help="dbt: the source table the model reads")
    p.add_argument("--name", metavar="NAME",
                   help="dbt, dmn: the model's (dmn: the decision's) name (default: MODEL.yaml's file name)")


def run(args: argparse.Namespace) -> int:
    """Write the export to -o or stdout."""
    from .. import export
    from ..model.boosted import BoostedRuleSet   # numpy: not for --help
    check_output(args, args.output)
    from ..model.regression import RegressionModel
    ruleset = load_model(args.model)
    if isinstance(ruleset, RegressionModel):
        _check_regression(args)
    if isinstance(ruleset, BoostedRuleSet):
        _check_boosted(args)
    if args.to != "sql" and (args.json or args.form != "flat"):
        raise InputError(f"--json and --form are for --to sql, not --to {args.to}")
    if args.json and args.output in (None, "-"):
        raise InputError("--json prints a summary of the SQL on stdout: give the SQL file with -o")
    if args.dmn_version and args.to != "dmn":
        raise InputError(f"--dmn-version is for --to dmn, not --to {args.to}")
    if args.to == "dbt":
        return _dbt(args, ruleset)
    if args.to == "dmn":
        return _dmn(args, ruleset)
    if args.dbt_dir or args.source or args.name:
        raise InputError(f"DIR, --source and --name are for --to dbt or dmn, not --to {args.to}")
    args.dialect = args.dialect or "sqlite"
    if args.to in ("dot", "graphml"):
        graph, name = _graph(args, ruleset)
        if args.to == "dot":
            write_text(args.output, export.to_dot(graph, name))
        else:
            if args.output in (None, "-"):
                raise InputError("--to graphml needs -o FILE")
            export.write_graphml(graph, args.output)
        return 0
    if args.train or args.graph:
        raise InputError(f"--{'train' if args.train else 'graph'} is only used by --to dot/graphml, not --to {args.to}")
    if args.confidence and (args.to != "sql" or args.case_only):
        raise InputError("--confidence adds a column to the SQL SELECT (--to sql without --case-only);"
                         " the Python module has predict_confidence() already")
    if args.to == "sql" and isinstance(ruleset, RegressionModel):
        text, summary = _regression_sql(args, ruleset)
    elif args.to == "sql":
        if args.case_only:
            text = export.to_sql_case(ruleset, args.dialect, form=args.form)
        else:
            text = export.to_sql_select(ruleset, args.table, args.dialect, form=args.form,
                                        confidence_column="confidence" if args.confidence else None)
        text = text.rstrip("\n") + ("\n" if args.case_only else ";\n")
        summary = _limits(args, ruleset, text)
    elif args.to == "python" and isinstance(ruleset, RegressionModel):
        from ..export.regression_python import to_regression_python
        text = to_regression_python(ruleset)
    elif args.to == "python":
        text = export.to_python(ruleset)
    elif args.to == "pmml" and isinstance(ruleset, RegressionModel):
        from ..export.regression_pmml import to_regression_pmml
        text = to_regression_pmml(ruleset)
    elif args.to == "pmml":
        text = export.to_pmml(ruleset)
    else:
        text = export.dump_yaml(ruleset)
    write_text(args.output, text)
    if args.json:   # after the file, so that a failed write prints no summary of it
        print(json.dumps(summary))
    return 0


def _check_boosted(args: argparse.Namespace) -> None:
    """Refuse, before anything is written, the outputs a boosted model has no faithful form in."""
    from ..export.graph import BOOSTED_GRAPH
    if args.to in ("dot", "graphml"):
        raise InputError(BOOSTED_GRAPH)
    if args.case_only:
        raise InputError("--case-only: a boosted model's class is the vote of its trials, which one CASE"
                         " expression cannot hold; export the SELECT (without --case-only)")


def _check_regression(args: argparse.Namespace) -> None:
    """Refuse, before anything is written, what a regression model (a number) has no form in."""
    if args.to in ("dmn", "dot", "graphml"):
        raise InputError(f"--to {args.to}: a regression model exports to sql, python, pmml, yaml or dbt")
    if args.confidence or args.form != "flat":
        raise InputError("--confidence and --form are for class rules; a regression model's SQL gives its"
                         " number (one flat expression)")


def _regression_sql(args: argparse.Namespace, model) -> tuple[str, dict]:
    """A regression model's SELECT (or, --case-only, its expression) and the --json summary."""
    import warnings

    from ..errors import DataWarning
    from ..export.regression_sql import regression_expression, regression_select
    from ..export.sql import _render, case_nesting, sql_limit_warnings
    expression = regression_expression(model, args.dialect)
    if args.case_only:
        text = _render(expression, args.dialect, True) + "\n"
    else:
        text = regression_select(model, args.table, args.dialect) + ";\n"
    nesting = case_nesting(expression)
    found = sql_limit_warnings(text, args.dialect, nesting)
    for message in found:
        warnings.warn(message, DataWarning, stacklevel=2)
    return text, {"dialect": args.dialect, "characters": len(text), "nesting": nesting, "warnings": found}


def _limits(args: argparse.Namespace, ruleset, text: str) -> dict:
    """Warn of each engine limit the SQL passes; the --json summary."""
    import warnings

    from ..errors import DataWarning
    from ..export.sql import sql_limit_warnings, sql_nesting
    nesting = sql_nesting(ruleset, args.dialect, args.form, case_only=args.case_only)
    found = sql_limit_warnings(text, args.dialect, nesting)
    for message in found:
        warnings.warn(message, DataWarning, stacklevel=2)
    return {"dialect": args.dialect, "characters": len(text), "nesting": nesting, "warnings": found}


def _dmn(args: argparse.Namespace, ruleset) -> int:
    """Write the DMN decision table; warn of each attribute whose FEEL name differs from it."""
    import warnings
    from pathlib import Path

    from ..errors import DataWarning
    from ..export.dmn import feel_names, to_dmn
    if args.dbt_dir or args.source or args.case_only or args.confidence or args.train or args.graph \
            or args.dialect:
        raise InputError("--to dmn takes -o, --dmn-version and --name; DIR, --source, --case-only, --confidence,"
                         " --train, --graph and --dialect do not apply")
    name = args.name or Path(args.model).stem
    text = to_dmn(ruleset, args.dmn_version or "1.3", name)
    renamed = [f"{a!r} as {f}" for a, f in feel_names(ruleset).items() if a != f]
    write_text(args.output, text)
    if renamed:   # the engine's input context must use these names
        warnings.warn("DMN inputs named for FEEL: " + ", ".join(renamed), DataWarning, stacklevel=2)
    return 0


def _dbt(args: argparse.Namespace, ruleset) -> int:
    """Write the dbt model into DIR (export/dbt.py)."""
    from pathlib import Path

    from ..export.dbt import parse_source, write_dbt
    if not args.dbt_dir or not args.source:
        raise InputError("--to dbt needs the project directory and the source table:"
                         " export MODEL.yaml --to dbt DIR --source SCHEMA.TABLE")
    if args.output or args.case_only or args.confidence or args.train or args.graph:
        raise InputError("--to dbt writes DIR/models/; -o, --case-only, --confidence, --train and --graph"
                         " do not apply")
    name = args.name or Path(args.model).stem
    written = write_dbt(ruleset, args.dbt_dir, parse_source(args.source), name, args.dialect or "duckdb")
    print(f"dbt model {name} written to {', '.join(map(str, written))}")
    return 0


def _graph(args: argparse.Namespace, ruleset):
    """(graph, DOT name) of what --graph asks for: the rule list, or the tree (kept or re-grown)."""
    from ..export import rules_to_networkx, tree_to_networkx
    kind = args.graph or ("tree" if args.train or ruleset.tree is not None else "rules")
    if kind == "rules":
        if args.train or args.draw_unpruned:
            raise InputError("--train and --draw-unpruned draw the tree; the rule list needs neither (--graph rules)")
        return rules_to_networkx(ruleset), "rules"
    if args.train:
        tree, _ = relearn_tree(args, ruleset, args.train, args.target)
        node = tree.unpruned if args.draw_unpruned else tree.pruned
    elif ruleset.tree is not None and not args.draw_unpruned:
        node = ruleset.tree
    else:
        raise InputError("--graph tree: the model does not hold the "
                         f"{'unpruned ' if args.draw_unpruned else ''}tree; give the training data with --train to"
                         " re-grow it" + ("" if args.draw_unpruned else ", or fit with --keep-tree"))
    return tree_to_networkx(node, ruleset.schema), "tree"
