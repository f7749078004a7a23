"""`c45rules demo`: the whole path from C4.5 data to SQL that agrees with the model.

Fits the bundled crx credit data (examples/crx), prints the rules, writes them as text,
the model, the SQL, the standalone Python module and the HTML report, then loads the test cases into an
in-memory SQLite table `cases`, runs the SQL there and checks it against RuleSet.predict
row for row.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from ..errors import InputError
from .io import progress
from .rules import rules_text

EXAMPLE_STEM = Path(__file__).resolve().parents[2] / "examples" / "crx" / "crx"
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


def run(args: argparse.Namespace) -> int:
    """Fit, export, and check the SQL against RuleSet.predict in SQLite."""
    from ..data.frame import load_data
    from ..pipeline import fit_dataset
    from ..export import atomic_write_text, dump_yaml, to_sql_select, write_python
    from ..report import write_report

    stem = Path(args.stem) if args.stem else EXAMPLE_STEM
    if not Path(f"{stem}.names").exists():
        raise InputError(f"{stem}.names: file not found (the demo uses the repository's examples/crx;"
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
    sys.stdout.write(text)

    sql = to_sql_select(ruleset, "cases", "sqlite").rstrip("\n") + ";\n"
    atomic_write_text(out / "rules.txt", text)
    atomic_write_text(out / "model.yaml", dump_yaml(ruleset))
    atomic_write_text(out / "rules.sql", sql)
    write_python(ruleset, out / "rules.py")
    write_report(ruleset, out / "report.html", tree=tree, data=test, train=train)
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
    return 0
