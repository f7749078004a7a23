"""`c45rules demo`: the whole path from C4.5 data to SQL that agrees with the model.

Fits the bundled crx credit data (c45rules/examples/crx), prints the rules, writes them as text,
the model, the SQL, the standalone Python module and the HTML report, then loads the test cases into an
in-memory SQLite table `cases`, runs the SQL there and checks it against RuleSet.predict
row for row. Around the rules it says, in plain words, what the data is, how to read a rule
and the counts of the evaluation tables, and which output to open next.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError
from .io import progress
from .rules import rules_text

if TYPE_CHECKING:
    from ..data.schema import Dataset
    from ..model.ruleset import RuleSet
    from ..rules.evaluate import RuleEvaluation

# inside the package (package data), so that an installed wheel has it too
EXAMPLE_STEM = Path(__file__).resolve().parents[1] / "examples" / "crx" / "crx"
HELP = "fit the bundled crx data, export it, and check the SQL against Python"
EXAMPLE = "c45rules demo out/"
PARENTS = ()


def configure(p: argparse.ArgumentParser) -> None:
    """The demo command's arguments."""
    p.add_argument("outdir", metavar="OUTDIR")
    p.add_argument("--stem", metavar="STEM", help="C4.5 stem to use instead of the bundled examples/crx/crx")


def _sqlite_rows(test) -> tuple[list[str], list[tuple]]:
    """The encoded test cases back as SQL values: text, REAL, NULL for unknown."""
    schema = test.schema
    names = ["case_id", *schema.names]
    rows = []
    for i in range(test.n):
        row: list = [i]
        for a, col in zip(schema.attributes, test.columns):
            v = col[i]
            if a.is_continuous:
                row.append(None if math.isnan(v) else float(v))
            elif a.is_discrete:
                row.append(None if v < 0 else a.values[int(v)])
            else:
                row.append(None)
        rows.append(tuple(row))
    return names, rows


def about_data(train: Dataset, test: Dataset, bundled: bool) -> str:
    """The lines before the rules: what the data is (the bundled crx described), its counts."""
    attributes = [a for a in train.schema.attributes if a.kind != "ignore"]
    continuous = sum(a.is_continuous for a in attributes)
    classes = " / ".join(train.schema.classes)
    lines = []
    if bundled:
        lines += ["The data: Quinlan's credit-approval data (crx, the UCI 'Credit Approval' set):"
                  f" {train.n + test.n} anonymised credit card applications,",
                  "their attribute names and values replaced by meaningless symbols (A1..A15) to keep them confidential."]
    lines += [f"{len(attributes)} attributes ({continuous} continuous, {len(attributes) - continuous} discrete),"
              f" class {classes}; {train.n} cases train the rules, {test.n} held-out cases test them.", "", ""]
    return "\n".join(lines)


def how_to_read(ruleset: RuleSet, ev: RuleEvaluation) -> str:
    """The lines after the evaluation: a rule and the table's columns explained on the first
    rule that decided a training case."""
    from ..model.ruleset import readable
    i = next((k for k, used in enumerate(ev.used) if used), None)
    lines = ["How to read this:",
             "  Rules are tried in the order printed; the first whose conditions all hold decides the case,",
             f"  and a case no rule covers gets the default class ({readable(ruleset.default_class)}).",
             ]
    if i is not None:
        r = ruleset.rules[i]
        better, worse = int(ev.better[i]), int(ev.worse[i])
        lines += [
            f"  Rule {r.id} -> class {readable(r.prediction)}  [{100 * (1 - r.error_rate):.1f}%]: the percentage is the"
            f" rule's confidence,",
            f"    100% minus its pessimistic error estimate (the Error column, {100 * r.error_rate:.1f}%).",
            f"  In the evaluation tables: Size = its conditions, Used = cases it decided ({int(ev.used[i])} on the"
            f" training data),",
            f"    Wrong = those it got wrong ({int(ev.wrong[i])}), and Advantage {better - worse} ({better}|{worse})"
            f" = {better} cases it gets right",
            f"    that the next rule (or the default) would get wrong, minus {worse} it gets wrong that they"
            " would get right.",
            "  The matrix below each table: a row per true class, a column per predicted class.",
        ]
    return "\n".join(lines) + "\n"


def what_next(out: Path) -> str:
    """The last lines: which output to open next, and where the documentation is."""
    return "\n".join([
        f"\nNext: open {out / 'report.html'} in a browser (the rules, their evidence and the tree),",
        f"  {out / 'rules.sql'} (the rules as one SQLite SELECT; `c45rules export {out / 'model.yaml'} --to sql"
        " --dialect D` for other databases),",
        f"  {out / 'rules.py'} (a standalone Python module) and {out / 'model.yaml'} (the model, for"
        " c45rules predict, explain and serve).",
        "  `c45rules COMMAND --help` shows each command with examples; the documentation is README.md and docs/",
        "  in the source (docs/errors.md lists every warning and error)."]) + "\n"


def run(args: argparse.Namespace) -> int:
    """Fit, export, and check the SQL against RuleSet.predict in SQLite."""
    from ..data.frame import load_data
    from ..export import atomic_write_text, dump_yaml, to_sql_select, write_python
    from ..export.report import write_report
    from ..learn.pipeline import fit_dataset
    from ..rules.evaluate import evaluate

    stem = Path(args.stem) if args.stem else EXAMPLE_STEM
    if not Path(f"{stem}.names").exists():
        raise InputError(f"{stem}.names: file not found (the demo uses the bundled c45rules/examples/crx;"
                         " give another C4.5 stem with --stem)")
    if not Path(f"{stem}.test").exists():
        raise InputError(f"{stem}.test: file not found (the demo checks the SQL on the test cases)")
    out = Path(args.outdir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise InputError(f"{out}: not a directory (the demo writes its five files into OUTDIR)") from None

    progress(args, f"reading {stem}")
    train, test = load_data(str(stem))
    progress(args, "growing the tree, generalising and selecting rules")
    ruleset, tree, _ = fit_dataset(train)
    text = rules_text(ruleset, train, test)
    sys.stdout.write(about_data(train, test, stem == EXAMPLE_STEM) + text)

    sql = to_sql_select(ruleset, "cases", "sqlite").rstrip("\n") + ";\n"
    atomic_write_text(out / "rules.txt", text)
    atomic_write_text(out / "model.yaml", dump_yaml(ruleset))
    atomic_write_text(out / "rules.sql", sql)
    write_python(ruleset, out / "rules.py")
    write_report(ruleset, out / "report.html", tree=tree, data=test, train=train)
    sys.stdout.write("\n" + how_to_read(ruleset, evaluate(ruleset, train)))
    print(f"\nWrote {out / 'rules.txt'}, {out / 'model.yaml'}, {out / 'rules.sql'}, {out / 'rules.py'},"
          f" {out / 'report.html'}")

    names, rows = _sqlite_rows(test)
    kinds = {a.name: ("REAL" if a.is_continuous else "TEXT") for a in test.schema.attributes}
    columns = ", ".join(['"case_id" INTEGER'] + [f'"{n}" {kinds[n]}' for n in names[1:]])
    import sqlite3      # here: the other commands start without it
    with sqlite3.connect(":memory:") as db:
        db.execute(f"CREATE TABLE cases ({columns})")
        db.executemany(f"INSERT INTO cases VALUES ({', '.join('?' * len(names))})", rows)
        result = db.execute(sql).fetchall()
        cols = [d[0] for d in db.execute(sql).description]
    ci, ki, ri = cols.index("case_id"), cols.index("predicted_class"), cols.index("rule_id")
    by_case = {r[ci]: (r[ki], r[ri]) for r in result}
    predicted = ruleset.predict(test)
    fired = ruleset.predict_rule(test)
    agree = sum(1 for i in range(test.n)
                if by_case.get(i) == (predicted[i], int(fired[i])))
    print(f"SQLite ran rules.sql on the {test.n} test cases in table `cases`:"
          f" {agree} of {test.n} rows agree with RuleSet.predict (class and rule id)")
    if agree != test.n or len(result) != test.n:
        print(f"c45rules: error: the SQL disagrees with RuleSet.predict on {test.n - agree} rows",
              file=sys.stderr)
        return 1
    sys.stdout.write(what_next(out))
    return 0
